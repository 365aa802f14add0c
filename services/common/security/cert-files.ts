/**
 * Certificates read from PEM files and re-read when the files change, so cert-manager (or any
 * rotation that rewrites the files of a mounted Secret) takes effect without a restart.
 *
 * It implements grpc-js's CertificateProvider, which servers and channels built with
 * `createCertificateProvider*Credentials` listen to: new TLS handshakes use the newest pair, open
 * connections keep theirs. Unlike grpc-js's FileWatcherCertificateProvider, a changed set is
 * checked before it is published: a certificate that does not match its key (a rotation caught
 * between two file writes) or unreadable PEM is logged and skipped, the previous pair stays in
 * use, and the next poll tries again. Polling compares each file's mtime and size, then content,
 * so an unchanged file costs one stat() per interval.
 */
import * as fs from 'fs';
import * as tls from 'tls';
import type { experimental } from '@grpc/grpc-js';
import { TideError } from '../errors';
import type { Logger } from '../logger';

type CertificateProvider = experimental.CertificateProvider;
type CaListener = experimental.CaCertificateUpdateListener;
type IdentityListener = experimental.IdentityCertificateUpdateListener;

/** The PEM files of one TLS identity; every field optional (a client may only trust a CA). */
export interface CertFilePaths {
  /** CA bundle that peers' certificates must chain to. */
  caFile?: string;
  /** This side's certificate chain. */
  certFile?: string;
  /** This side's private key. */
  keyFile?: string;
}

/** One read of the files. */
export interface CertSet {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/** How often the files are checked for a change, by default. Kubelet refreshes Secret volumes about once a minute. */
export const DEFAULT_CERT_REFRESH_INTERVAL_MS = 30_000;

/** Reads the files; throws INVALID_CONFIG naming the file and the fix. */
export function readCertSet(paths: CertFilePaths): CertSet {
  if (!!paths.certFile !== !!paths.keyFile) {
    throw new TideError(
      'INVALID_CONFIG',
      `TLS needs both a certificate and its key: got ${paths.certFile ? 'a certificate' : 'a key'} only (set both tlsCertFile and tlsKeyFile)`,
    );
  }
  const set: CertSet = {};
  if (paths.caFile) set.ca = readPem(paths.caFile, 'CA bundle');
  if (paths.certFile) set.cert = readPem(paths.certFile, 'certificate');
  if (paths.keyFile) set.key = readPem(paths.keyFile, 'private key');
  checkCertSet(set, paths);
  return set;
}

function readPem(file: string, what: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    throw new TideError('INVALID_CONFIG', `cannot read the TLS ${what} ${file}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (!bytes.includes('-----BEGIN')) {
    throw new TideError('INVALID_CONFIG', `the TLS ${what} ${file} holds no PEM block (-----BEGIN ...)`);
  }
  return bytes;
}

/** Throws INVALID_CONFIG when OpenSSL refuses the set (bad PEM, key not matching the certificate). */
export function checkCertSet(set: CertSet, paths: CertFilePaths): void {
  try {
    tls.createSecureContext({ ca: set.ca, cert: set.cert, key: set.key });
  } catch (err) {
    const files = [paths.certFile, paths.keyFile, paths.caFile].filter(Boolean).join(', ');
    throw new TideError(
      'INVALID_CONFIG',
      `the TLS files ${files} are not usable: ${(err as Error).message} (does the key belong to the certificate?)`,
      { cause: err },
    );
  }
}

interface FileStamp {
  mtimeMs: number;
  size: number;
}

/** A CertificateProvider over PEM files that re-reads them when they change (see the header). */
export class ReloadingCertProvider implements CertificateProvider {
  private current: CertSet;
  private stamps: Map<string, FileStamp>;
  private readonly caListeners = new Set<CaListener>();
  private readonly identityListeners = new Set<IdentityListener>();
  private readonly timer: NodeJS.Timeout | undefined;
  private reloads = 0;

  /** Reads the files at once (throws INVALID_CONFIG when they are unusable), then polls them. */
  constructor(
    private readonly paths: CertFilePaths,
    private readonly options: { refreshIntervalMs: number; logger: Logger },
  ) {
    this.current = readCertSet(paths);
    this.stamps = this.stat();
    if (options.refreshIntervalMs > 0) {
      this.timer = setInterval(() => this.poll(), options.refreshIntervalMs);
      this.timer.unref();
    }
  }

  /** The pair in use now. */
  get certSet(): CertSet {
    return this.current;
  }

  /** How many times a changed set was published (for tests and the log). */
  get reloadCount(): number {
    return this.reloads;
  }

  /** Checks the files now; returns true when a changed, valid set was published. */
  poll(): boolean {
    const stamps = this.stat();
    if (sameStamps(stamps, this.stamps)) return false;
    let next: CertSet;
    try {
      next = readCertSet(this.paths);
    } catch (err) {
      // Keep the old stamps so the next poll retries (the other half of the pair may be on its way).
      this.options.logger.warn(
        { err },
        'changed TLS files are not usable yet; keeping the previous certificate',
      );
      return false;
    }
    this.stamps = stamps;
    if (sameSet(next, this.current)) return false;
    this.current = next;
    this.reloads++;
    this.options.logger.info(
      { certFile: this.paths.certFile, caFile: this.paths.caFile },
      'TLS certificates reloaded from disk',
    );
    for (const listener of this.caListeners) listener(this.caUpdate());
    for (const listener of this.identityListeners) listener(this.identityUpdate());
    return true;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.caListeners.clear();
    this.identityListeners.clear();
  }

  addCaCertificateListener(listener: CaListener): void {
    this.caListeners.add(listener);
    // The current value, delivered on the next tick as FileWatcherCertificateProvider does: grpc-js
    // servers register their own watcher only after adding this listener, and miss a synchronous call.
    setImmediate(() => this.caListeners.has(listener) && listener(this.caUpdate()));
  }

  removeCaCertificateListener(listener: CaListener): void {
    this.caListeners.delete(listener);
  }

  addIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.add(listener);
    setImmediate(() => this.identityListeners.has(listener) && listener(this.identityUpdate()));
  }

  removeIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.delete(listener);
  }

  private caUpdate() {
    return this.current.ca ? { caCertificate: this.current.ca } : null;
  }

  private identityUpdate() {
    return this.current.cert && this.current.key
      ? { certificate: this.current.cert, privateKey: this.current.key }
      : null;
  }

  private stat(): Map<string, FileStamp> {
    const stamps = new Map<string, FileStamp>();
    for (const file of [this.paths.caFile, this.paths.certFile, this.paths.keyFile]) {
      if (!file) continue;
      try {
        const st = fs.statSync(file);
        stamps.set(file, { mtimeMs: st.mtimeMs, size: st.size });
      } catch {
        stamps.set(file, { mtimeMs: -1, size: -1 });
      }
    }
    return stamps;
  }
}

function sameStamps(a: Map<string, FileStamp>, b: Map<string, FileStamp>): boolean {
  for (const [file, stamp] of a) {
    const other = b.get(file);
    if (!other || other.mtimeMs !== stamp.mtimeMs || other.size !== stamp.size) return false;
  }
  return a.size === b.size;
}

function sameSet(a: CertSet, b: CertSet): boolean {
  const eq = (x?: Buffer, y?: Buffer) => (x && y ? x.equals(y) : x === y);
  return eq(a.ca, b.ca) && eq(a.cert, b.cert) && eq(a.key, b.key);
}
