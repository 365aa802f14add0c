import {
  applyPrincipalRules,
  distinguishedName,
  parsePrincipalRules,
  preferredSubjectAltName,
} from '../../../services/common/security/auth/principal-mapping';
import { TideError } from '../../../services/common/errors';

const map = (rules: string, name: string) => applyPrincipalRules(parsePrincipalRules(rules), name);

describe('Kafka ssl.principal.mapping.rules', () => {
  it('DEFAULT (and an empty list) keeps the distinguished name', () => {
    expect(map('DEFAULT', 'CN=app,O=acme')).toBe('CN=app,O=acme');
    expect(map('', 'CN=app,O=acme')).toBe('CN=app,O=acme');
  });

  it('the first matching rule wins, with $1 replacements', () => {
    const rules = 'RULE:^CN=([^,]+),OU=ops,.*$/ops-$1/, RULE:^CN=([^,]+),.*$/$1/, DEFAULT';
    expect(map(rules, 'CN=alice,OU=ops,O=acme')).toBe('ops-alice');
    expect(map(rules, 'CN=bob,OU=dev,O=acme')).toBe('bob');
    expect(map(rules, 'O=acme')).toBe('O=acme');
  });

  it('L and U fold the case', () => {
    expect(map('RULE:^CN=(.*?),.*$/$1/L', 'CN=Alice,O=acme')).toBe('alice');
    expect(map('RULE:^CN=(.*?),.*$/$1/U', 'CN=Alice,O=acme')).toBe('ALICE');
  });

  it('a pattern must match the whole name, and no match without DEFAULT refuses the name', () => {
    expect(map('RULE:CN=alice/x/', 'CN=alice,O=acme')).toBeUndefined();
    expect(map('RULE:^CN=(.*?),O=acme$/$1/', 'CN=alice,O=other')).toBeUndefined();
  });

  it('escaped slashes and commas in patterns parse', () => {
    expect(map('RULE:^spiffe:\\/\\/acme\\/ns\\/(.*)$/$1/', 'spiffe://acme/ns/payments')).toBe('payments');
  });

  it.each(['RULE:abc', 'NOPE', 'RULE:(/x/', 'DEFAULT DEFAULT'])('rejects %s naming the fix', (rules) => {
    expect(() => parsePrincipalRules(rules)).toThrow(TideError);
    expect(() => parsePrincipalRules(rules)).toThrow(/RULE:pattern\/replacement|bad pattern/);
  });
});

describe('certificate names', () => {
  it('formats a Node subject as an RFC 2253 DN, most specific first, escaping specials', () => {
    expect(distinguishedName({ C: 'US', O: 'Acme, Inc', OU: ['a', 'b'], CN: 'app' })).toBe(
      'CN=app,OU=b,OU=a,O=Acme\\, Inc,C=US',
    );
  });

  it('prefers a URI SAN, then a DNS SAN', () => {
    expect(preferredSubjectAltName('DNS:app.svc, URI:spiffe://acme/ns/app, IP Address:1.2.3.4')).toBe(
      'spiffe://acme/ns/app',
    );
    expect(preferredSubjectAltName('IP Address:1.2.3.4, DNS:app.svc')).toBe('app.svc');
    expect(preferredSubjectAltName(undefined)).toBeUndefined();
  });
});
