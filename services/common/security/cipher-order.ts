/**
 * The cipher preference of Tide's TLS listeners: Node's default list with TLS_AES_128_GCM_SHA256
 * moved to the front. Nothing is added or removed, so what a client may negotiate is unchanged.
 *
 * Why: a Node TLS server picks by its own order (a tls.Server honours its cipher order unless
 * told not to), and Node's list starts with TLS_AES_256_GCM_SHA384, so every TLS 1.3 connection
 * to a broker ran AES-256-GCM. On a consumer reading at full speed AES-GCM was the largest single
 * TLS cost on both ends (docs/security.md, "Where TLS costs"); AES-128-GCM runs 10 AES rounds per
 * block instead of 14 (`openssl speed -evp`: 3.8 against 2.9 GB/s per core here). It is the suite
 * every TLS 1.3 implementation must support (RFC 8446, 9.1), with a 128-bit key; the TLS 1.2
 * suites keep Node's order, which already puts ECDHE with AES-128-GCM first.
 *
 * grpc-js builds its TLS server from options it keeps on the credentials object and takes no
 * cipher list but from the GRPC_SSL_CIPHER_SUITES environment variable (read once, when it is
 * loaded), so the list is added to those options here: to the server's constructor options and
 * to every secure context a certificate reload produces (Node's setSecureContext resets the
 * ciphers to the default when an update carries none). test/unit/security/tls.test.ts checks the
 * suite negotiated before and after a reload, so a grpc-js change that bypasses this fails there.
 */
import type * as grpc from '@grpc/grpc-js';
import * as tls from 'tls';

const PREFERRED = 'TLS_AES_128_GCM_SHA256';

/**
 * Node's default cipher list (`tls.DEFAULT_CIPHERS`: the built-in one, or node's
 * --tls-cipher-list) with TLS_AES_128_GCM_SHA256 first when the list holds it.
 */
export function serverCiphers(): string {
  const list = tls.DEFAULT_CIPHERS.split(':');
  return list.includes(PREFERRED)
    ? [PREFERRED, ...list.filter((c) => c !== PREFERRED)].join(':')
    : list.join(':');
}

/** The grpc-js internals the list is added to (ServerCredentials, grpc-js 1.14). */
interface CredentialsInternals {
  _getConstructorOptions(): Record<string, unknown> | null;
  _getSecureContextOptions(): tls.SecureContextOptions | null;
  updateSecureContextOptions(options: tls.SecureContextOptions | null): void;
}

/**
 * Makes TLS server credentials prefer serverCiphers() (returns the same object). An operator's
 * GRPC_SSL_CIPHER_SUITES, which grpc-js applies itself, is left alone.
 */
export function withServerCipherOrder<C extends grpc.ServerCredentials>(credentials: C): C {
  if (process.env.GRPC_SSL_CIPHER_SUITES) return credentials;
  const list = serverCiphers();
  const internals = credentials as unknown as Partial<CredentialsInternals>;
  if (
    typeof internals._getConstructorOptions !== 'function' ||
    typeof internals._getSecureContextOptions !== 'function' ||
    typeof internals.updateSecureContextOptions !== 'function'
  ) {
    throw new Error('grpc-js ServerCredentials changed: withServerCipherOrder needs updating');
  }
  const constructorOptions = internals._getConstructorOptions.bind(credentials);
  const contextOptions = internals._getSecureContextOptions.bind(credentials);
  const update = internals.updateSecureContextOptions.bind(credentials);
  const ciphers = (options: tls.SecureContextOptions | null) => options && { ...options, ciphers: list };
  internals._getConstructorOptions = () => {
    const options = constructorOptions();
    return options && { ...options, ciphers: list };
  };
  internals._getSecureContextOptions = () => ciphers(contextOptions());
  internals.updateSecureContextOptions = (options) => update(ciphers(options));
  return credentials;
}
