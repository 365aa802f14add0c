/**
 * Principal mapping rules in the syntax of Kafka's `ssl.principal.mapping.rules`: a comma
 * separated list of `RULE:pattern/replacement/[LU]` and `DEFAULT`. The first rule whose pattern
 * matches the whole name wins; its replacement may use `$1`..`$9`; `L`/`U` lower-/upper-case the
 * result; `DEFAULT` keeps the name as is. When no rule matches, the name is refused (no principal).
 *
 * A `/` or `,` inside a pattern or replacement is written `\/`; a comma between rules may be
 * followed by spaces, so patterns holding `, ` (distinguished names) still parse.
 */
import { TideError } from '../../errors';

export type PrincipalRule =
  | { kind: 'default' }
  | { kind: 'rule'; pattern: RegExp; replacement: string; caseFold?: 'L' | 'U'; source: string };

// Sticky: each rule must start where the previous one (and its separating comma) ended.
const RULE = /\s*(?:(DEFAULT)|RULE:((?:\\.|[^\\/])*)\/((?:\\.|[^\\/])*)\/([LU])?)\s*(?:,|$)/y;

/** Parses the rule list; throws INVALID_CONFIG naming the text that does not parse. */
export function parsePrincipalRules(text: string): PrincipalRule[] {
  const source = text.trim();
  if (source === '') return [{ kind: 'default' }];
  const rules: PrincipalRule[] = [];
  RULE.lastIndex = 0;
  while (RULE.lastIndex < source.length) {
    const start = RULE.lastIndex;
    const match = RULE.exec(source);
    if (!match || match[0].length === 0) {
      throw new TideError(
        'INVALID_CONFIG',
        `authMtlsPrincipalRules: cannot parse "${source.slice(start)}"; write RULE:pattern/replacement/ (optionally ending in L or U) or DEFAULT, separated by commas`,
      );
    }
    if (match[1]) {
      rules.push({ kind: 'default' });
      continue;
    }
    const pattern = unescape(match[2]!);
    let regex: RegExp;
    try {
      regex = new RegExp(`^(?:${pattern})$`);
    } catch (err) {
      throw new TideError(
        'INVALID_CONFIG',
        `authMtlsPrincipalRules: bad pattern "${pattern}": ${(err as Error).message}`,
      );
    }
    rules.push({
      kind: 'rule',
      pattern: regex,
      replacement: unescape(match[3]!),
      ...(match[4] ? { caseFold: match[4] as 'L' | 'U' } : {}),
      source: match[0].trim(),
    });
  }
  return rules;
}

function unescape(text: string): string {
  return text.replace(/\\([/,])/g, '$1');
}

/** The principal for `name` (a distinguished name or a SAN), or undefined when no rule matches. */
export function applyPrincipalRules(rules: readonly PrincipalRule[], name: string): string | undefined {
  for (const rule of rules) {
    if (rule.kind === 'default') return name;
    if (!rule.pattern.test(name)) continue;
    let mapped = name.replace(rule.pattern, rule.replacement);
    if (rule.caseFold === 'L') mapped = mapped.toLowerCase();
    if (rule.caseFold === 'U') mapped = mapped.toUpperCase();
    return mapped === '' ? undefined : mapped;
  }
  return undefined;
}

const DN_SPECIAL = /([,+"\\<>;=])/g;

/**
 * The RFC 2253 string of a certificate subject as Node reports it (attributes in certificate
 * order, most significant first): `CN=alice,OU=team,O=example,C=US`, as Kafka formats it.
 */
export function distinguishedName(subject: Record<string, string | string[] | undefined>): string {
  const parts: string[] = [];
  for (const [attribute, value] of Object.entries(subject)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) parts.push(`${attribute}=${v.replace(DN_SPECIAL, '\\$1')}`);
  }
  return parts.reverse().join(',');
}

/** The first URI SAN, else the first DNS SAN, of Node's `subjectaltname` string. */
export function preferredSubjectAltName(subjectAltName: string | undefined): string | undefined {
  if (!subjectAltName) return undefined;
  const entries = subjectAltName.split(/,\s*/).map((entry) => {
    const colon = entry.indexOf(':');
    return { type: entry.slice(0, colon), value: entry.slice(colon + 1) };
  });
  return entries.find((e) => e.type === 'URI')?.value ?? entries.find((e) => e.type === 'DNS')?.value;
}
