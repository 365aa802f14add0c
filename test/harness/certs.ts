/**
 * Test certificates from openssl in a temp dir: a CA, and leaves it signs with chosen names.
 * Leaves carry both serverAuth and clientAuth, as the chart's cert-manager Certificate does.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const openssl = (dir: string, args: string[]) =>
  execFileSync('/usr/bin/openssl', args, { cwd: dir, stdio: 'pipe' });

/** Writes `<name>.crt` and `<name>.key`: a self-signed CA whose subject is `CN=<cn>`. */
export function makeCa(dir: string, name: string, cn = name): void {
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${cn}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
  ]);
}

/** Subject alternative names of a leaf: DNS names and IP addresses. */
export interface LeafNames {
  dns?: string[];
  ips?: string[];
}

/** Writes `<name>.crt` and `<name>.key`, signed by the CA `<ca>.crt`/`<ca>.key` in the same dir. */
export function makeLeaf(
  dir: string,
  ca: string,
  name: string,
  cn: string,
  names: LeafNames = { dns: ['localhost'], ips: ['127.0.0.1'] },
): void {
  const san = [...(names.dns ?? []).map((n) => `DNS:${n}`), ...(names.ips ?? []).map((ip) => `IP:${ip}`)];
  fs.writeFileSync(
    path.join(dir, `${name}.ext`),
    `subjectAltName=${san.join(',')}\nextendedKeyUsage=serverAuth,clientAuth\n`,
  );
  openssl(dir, [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${cn}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
  ]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.crt`,
  ]);
}
