/**
 * The headers of proxy routing (docs/kubernetes.md): a client that reaches one broker asks it to
 * route with `tide-routing: proxy`; a service that relays a call marks it `tide-forwarded: 1` so it
 * is never relayed twice, and a relayed membership stream carries the member's own address.
 */
import * as grpc from '@grpc/grpc-js';
import { timingSafeEqual } from 'node:crypto';

export const ROUTING_HEADER = 'tide-routing';
export const FORWARDED_HEADER = 'tide-forwarded';
/** On a relayed membership stream: the member's own address, for describeGroup's client_host. */
export const FORWARDED_FOR_HEADER = 'tide-forwarded-for';
/**
 * Carried by Tide's own services (the group coordinator) on writes to internal topics; the value is
 * the cluster's internal token (services/common/cluster/internal-token.ts), which clients never see.
 */
export const INTERNAL_TOKEN_HEADER = 'tide-internal-token';

/** True when the call carries the cluster's internal token (compared in constant time). */
export function hasInternalToken(metadata: grpc.Metadata | undefined, token: string): boolean {
  const value = metadata?.get(INTERNAL_TOKEN_HEADER)[0];
  if (typeof value !== 'string') return false;
  const given = Buffer.from(value, 'utf8');
  const expected = Buffer.from(token, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** True when another broker forwarded the call here (it must not be forwarded again). */
export function isForwarded(metadata: grpc.Metadata): boolean {
  return metadata.get(FORWARDED_HEADER).length > 0;
}

/** Metadata of a call this broker forwards. */
export function forwardedMetadata(): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set(FORWARDED_HEADER, '1');
  return metadata;
}

/** True when the caller asked for proxy routing and the request was not forwarded already. */
export function wantsProxy(metadata: grpc.Metadata | undefined): boolean {
  return metadata?.get(ROUTING_HEADER)[0] === 'proxy' && !isForwarded(metadata);
}
