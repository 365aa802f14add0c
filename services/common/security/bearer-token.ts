/**
 * The caller's side of token authentication: every call carries `authorization: Bearer <token>`.
 * A token file is re-read when it changes (Kubernetes rotates projected service-account tokens in
 * place, about hourly), checked at most once per second per file.
 *
 * grpc-js sends call credentials only over TLS, as gRPC does everywhere: a token on a plain-text
 * connection could be read by anyone on the path.
 */
import * as fs from 'fs';
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../errors';

export const AUTHORIZATION_HEADER = 'authorization';
const FILE_CHECK_INTERVAL_MS = 1_000;

/** Where the token comes from: given as is, or read from a file. */
export interface BearerTokenSource {
  token?: string;
  tokenFile?: string;
}

/** A function returning the current token (file re-read when changed); throws INVALID_CONFIG if unreadable. */
export function tokenReader(source: BearerTokenSource): () => string {
  if (source.token) {
    const token = source.token.trim();
    return () => token;
  }
  const file = source.tokenFile;
  if (!file) throw new TideError('INVALID_CONFIG', 'a bearer token needs --token or --token-file');
  let cached = readToken(file);
  let checkedAtMs = Date.now();
  let mtimeMs = statMtime(file);
  return () => {
    const now = Date.now();
    if (now - checkedAtMs >= FILE_CHECK_INTERVAL_MS) {
      checkedAtMs = now;
      const m = statMtime(file);
      if (m !== mtimeMs) {
        try {
          cached = readToken(file);
          mtimeMs = m;
        } catch {
          // Keep the previous token until the file is readable again (mid-rotation).
        }
      }
    }
    return cached;
  };
}

function statMtime(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

function readToken(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new TideError('INVALID_CONFIG', `cannot read the token file ${file}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const token = text.trim();
  if (!token) throw new TideError('INVALID_CONFIG', `the token file ${file} is empty`);
  return token;
}

/** The token of a call's `authorization: Bearer <token>` header, if it has one. */
export function bearerTokenOf(metadata: grpc.Metadata): string | undefined {
  const value = metadata.get(AUTHORIZATION_HEADER)[0];
  if (typeof value !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  return match ? match[1] : undefined;
}

/** Call credentials that add the bearer token to every call. */
export function bearerCallCredentials(source: BearerTokenSource): grpc.CallCredentials {
  const current = tokenReader(source);
  return grpc.credentials.createFromMetadataGenerator((_params, callback) => {
    const metadata = new grpc.Metadata();
    try {
      metadata.set(AUTHORIZATION_HEADER, `Bearer ${current()}`);
      callback(null, metadata);
    } catch (err) {
      callback(err as Error);
    }
  });
}
