/**
 * The `tide` command's config file: named contexts, like kubectl contexts and rpk profiles.
 *
 * Where: `--config-file PATH`, else TIDE_CONFIG_FILE, else $XDG_CONFIG_HOME/tide/config.yaml,
 * else ~/.config/tide/config.yaml. A missing file is no error (no contexts).
 *
 *   current-context: staging          # the context used when --context is not given
 *   contexts:
 *     local:
 *       bootstrap: 127.0.0.1:9092
 *     staging:
 *       bootstrap: tide-0.staging:9092,tide-1.staging:9092
 *
 * A context's keys: `bootstrap`, and for a secured cluster `tls` (true: TLS with the system
 * roots), `tls-ca`, `tls-cert`, `tls-key`, `tls-server-name`, `token-file` (docs/security.md).
 * Unknown keys are refused, so a typo does not silently connect somewhere else.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse, stringify } from 'yaml';
import { ConfigError } from '../services/common/config';

export interface CliContext {
  name: string;
  bootstrap?: string;
  tls?: boolean;
  'tls-ca'?: string;
  'tls-cert'?: string;
  'tls-key'?: string;
  'tls-server-name'?: string;
  'token-file'?: string;
}

/** Context keys holding file paths or names (strings). */
const CONTEXT_STRING_KEYS = ['tls-ca', 'tls-cert', 'tls-key', 'tls-server-name', 'token-file'] as const;

export interface CliConfigFile {
  currentContext?: string;
  contexts: Record<string, Omit<CliContext, 'name'>>;
}

const CONTEXT_KEYS = new Set<string>(['bootstrap', 'tls', ...CONTEXT_STRING_KEYS]);
const TOP_KEYS = new Set(['current-context', 'contexts']);

/** The config file's path (see the header). */
export function configFilePath(file: string | undefined, env: NodeJS.ProcessEnv): string {
  if (file) return path.resolve(file);
  if (env.TIDE_CONFIG_FILE) return path.resolve(env.TIDE_CONFIG_FILE);
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'tide', 'config.yaml');
}

/** Parses the file's text; throws ConfigError naming the file and what is wrong. */
export function parseConfigFile(text: string, where: string): CliConfigFile {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new ConfigError(`${where}: not valid YAML: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return { contexts: {} };
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new ConfigError(`${where}: expected a mapping with current-context and contexts`);
  const top = doc as Record<string, unknown>;
  for (const key of Object.keys(top))
    if (!TOP_KEYS.has(key))
      throw new ConfigError(`${where}: unknown key "${key}" (known: current-context, contexts)`);
  const contexts: CliConfigFile['contexts'] = {};
  const raw = top.contexts ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new ConfigError(`${where}: contexts must be a mapping of name to settings`);
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const settings = (value ?? {}) as Record<string, unknown>;
    if (typeof settings !== 'object' || Array.isArray(settings))
      throw new ConfigError(`${where}: context "${name}" must be a mapping`);
    for (const key of Object.keys(settings))
      if (!CONTEXT_KEYS.has(key))
        throw new ConfigError(
          `${where}: context "${name}" has unknown key "${key}" (known: ${[...CONTEXT_KEYS].join(', ')})`,
        );
    if (settings.bootstrap !== undefined && typeof settings.bootstrap !== 'string')
      throw new ConfigError(
        `${where}: context "${name}": bootstrap must be a string like host:port,host:port`,
      );
    const context: Omit<CliContext, 'name'> = { bootstrap: settings.bootstrap as string | undefined };
    if (settings.tls !== undefined) {
      if (typeof settings.tls !== 'boolean')
        throw new ConfigError(`${where}: context "${name}": tls must be true or false`);
      context.tls = settings.tls;
    }
    for (const key of CONTEXT_STRING_KEYS) {
      const value = settings[key];
      if (value === undefined) continue;
      if (typeof value !== 'string')
        throw new ConfigError(`${where}: context "${name}": ${key} must be a string (a file path or name)`);
      context[key] = value;
    }
    contexts[name] = context;
  }
  const current = top['current-context'];
  if (current !== undefined && typeof current !== 'string')
    throw new ConfigError(`${where}: current-context must be a context name`);
  return { currentContext: current, contexts };
}

export function readConfigFile(file: string): CliConfigFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { contexts: {} };
    throw new ConfigError(`cannot read ${file}: ${(err as Error).message}`);
  }
  return parseConfigFile(text, file);
}

export function writeConfigFile(file: string, config: CliConfigFile): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const doc: Record<string, unknown> = {};
  if (config.currentContext !== undefined) doc['current-context'] = config.currentContext;
  doc.contexts = config.contexts;
  fs.writeFileSync(file, stringify(doc), { mode: 0o600 });
}

/**
 * The context to use: `name` if given (ConfigError if the file lacks it), else the file's
 * current-context, else none.
 */
export function resolveContext(options: {
  file?: string;
  name?: string;
  env: NodeJS.ProcessEnv;
}): CliContext | undefined {
  const file = configFilePath(options.file, options.env);
  const config = readConfigFile(file);
  const name = options.name ?? options.env.TIDE_CONTEXT ?? config.currentContext;
  if (name === undefined) return undefined;
  const context = config.contexts[name];
  if (!context) {
    const known = Object.keys(config.contexts).join(', ') || 'none';
    throw new ConfigError(`no context "${name}" in ${file} (contexts: ${known})`);
  }
  return { name, ...context };
}
