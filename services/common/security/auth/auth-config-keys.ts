/**
 * Authentication and authorization keys every Tide service has (spread into SERVICE_CONFIG_KEYS).
 * All off by default: every call is ANONYMOUS and allowed, exactly as before security.
 */
import type { ConfigSchema } from '../../config';

export const AUTH_CONFIG_KEYS = {
  authMtls: {
    type: 'bool',
    default: false,
    doc: 'Authenticate callers by their TLS client certificate (needs tlsClientAuth request or require).',
  },
  authMtlsPrincipalSource: {
    type: 'string',
    default: 'subject',
    oneOf: ['subject', 'san'],
    doc: 'What of the client certificate names the principal: subject (the RFC 2253 DN, e.g. CN=app,O=acme) or san (its first URI SAN, else DNS SAN); then authMtlsPrincipalRules apply.',
  },
  authMtlsPrincipalRules: {
    type: 'string',
    default: 'DEFAULT',
    doc: 'Kafka ssl.principal.mapping.rules syntax: comma-separated RULE:pattern/replacement/[L|U] and DEFAULT (the name as is); the first match wins, no match = refused. E.g. RULE:^CN=([^,]+),.*$/$1/L,DEFAULT.',
  },
  authJwksFile: {
    type: 'string',
    default: '',
    doc: "JWKS file (public keys) that bearer JWTs are verified against offline; re-read when it changes. Setting it turns JWT authentication on (Kubernetes: the cluster's /openid/v1/jwks).",
  },
  authJwtIssuer: {
    type: 'string',
    default: '',
    doc: 'The iss claim JWTs must carry (required with authJwksFile).',
  },
  authJwtAudience: {
    type: 'string',
    default: '',
    doc: 'An aud value JWTs must carry (required with authJwksFile; the audience of the projected service-account token).',
  },
  authJwtPrincipalClaim: {
    type: 'string',
    default: 'sub',
    doc: 'The claim naming the principal of a JWT; Kubernetes service-account tokens always map to system:serviceaccount:<namespace>:<name>.',
  },
  authStaticTokensFile: {
    type: 'string',
    default: '',
    doc: 'File of "<token> <principal>" lines accepted as bearer tokens (development); setting it turns static tokens on.',
  },
  authorization: {
    type: 'string',
    default: 'none',
    oneOf: ['none', 'acl'],
    doc: 'none: every authenticated caller may call every client RPC; acl: Kafka-style ACLs (tide acls) decide, deny wins.',
  },
  superUsers: {
    type: 'string',
    default: '',
    doc: 'Comma-separated principals allowed everything without ACLs (administrators).',
  },
  internalPrincipals: {
    type: 'string',
    default: '',
    doc: "Comma-separated principals of Tide's own services (brokers, controllers, coordinators): the only callers of internal RPCs (replication, controller, transaction markers), and super users. Required with authorization=acl.",
  },
  internalTokenFile: {
    type: 'string',
    default: '',
    doc: 'Bearer token this service presents on its calls to other Tide services (when they authenticate by token instead of the service certificate); re-read when it changes.',
  },
  quotas: {
    type: 'string',
    default: 'auto',
    oneOf: ['auto', 'on', 'off'],
    doc: 'Client quotas (tide quotas; docs/security.md#quotas): on enforces them, off ignores them, auto enforces them when an authentication mechanism is on.',
  },
} satisfies ConfigSchema;

export interface AuthConfig {
  authMtls: boolean;
  authMtlsPrincipalSource: string;
  authMtlsPrincipalRules: string;
  authJwksFile: string;
  authJwtIssuer: string;
  authJwtAudience: string;
  authJwtPrincipalClaim: string;
  authStaticTokensFile: string;
  authorization: string;
  superUsers: string;
  internalPrincipals: string;
  internalTokenFile: string;
  quotas: string;
}
