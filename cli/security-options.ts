/**
 * The CLI's TLS and token options: `--tls`, `--tls-ca`, `--tls-cert`, `--tls-key`,
 * `--tls-server-name`, `--token`, `--token-file`, given on any command. Each falls back to its
 * environment variable (TIDE_TLS, TIDE_TLS_CA, TIDE_TLS_CERT, TIDE_TLS_KEY, TIDE_TLS_SERVER_NAME,
 * TIDE_TOKEN, TIDE_TOKEN_FILE), then to the config file's context; the first given wins per key.
 * Any TLS file or a server name turns TLS on.
 */
import { Option, type Command } from 'commander';
import type { ClientSecurityOptions } from '../client';
import type { CliContext } from './config-file';

interface SecurityFlags {
  tls?: boolean;
  tlsCa?: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsServerName?: string;
  token?: string;
  tokenFile?: string;
}

/** Adds the options to the root command (commander reads them before or after a sub-command). */
export function addSecurityOptions(command: Command): Command {
  return command
    .addOption(new Option('--tls', 'connect with TLS (implied by any --tls-* option)').env('TIDE_TLS'))
    .addOption(
      new Option('--tls-ca <file>', 'PEM CA bundle the brokers are checked against').env('TIDE_TLS_CA'),
    )
    .addOption(new Option('--tls-cert <file>', 'PEM client certificate (mTLS)').env('TIDE_TLS_CERT'))
    .addOption(new Option('--tls-key <file>', 'PEM private key of --tls-cert').env('TIDE_TLS_KEY'))
    .addOption(
      new Option(
        '--tls-server-name <name>',
        'name the broker certificate must carry, when it is not the host dialled (kubectl port-forward)',
      ).env('TIDE_TLS_SERVER_NAME'),
    )
    .addOption(
      new Option('--token <token>', 'bearer token (JWT or static) sent on every call').env('TIDE_TOKEN'),
    )
    .addOption(
      new Option('--token-file <file>', 'file holding the bearer token, re-read when it changes').env(
        'TIDE_TOKEN_FILE',
      ),
    );
}

/** The client security for a command: its flags (or their env vars), else the context's settings. */
export function resolveSecurity(command: Command, context: CliContext | undefined): ClientSecurityOptions {
  const flags = command.optsWithGlobals<SecurityFlags>();
  const caFile = flags.tlsCa ?? context?.['tls-ca'];
  const certFile = flags.tlsCert ?? context?.['tls-cert'];
  const keyFile = flags.tlsKey ?? context?.['tls-key'];
  const serverName = flags.tlsServerName ?? context?.['tls-server-name'];
  const tokenFile = flags.tokenFile ?? (flags.token ? undefined : context?.['token-file']);
  const on = !!(flags.tls || context?.tls || caFile || certFile || keyFile || serverName);
  return {
    ...(on ? { tls: { caFile, certFile, keyFile, serverName } } : {}),
    ...(flags.token ? { token: flags.token } : {}),
    ...(tokenFile ? { tokenFile } : {}),
  };
}

/** The client-side env names above; services ignore them (they have their own TIDE_TLS_*_FILE keys). */
export const CLIENT_SECURITY_ENV = [
  'TIDE_TLS',
  'TIDE_TLS_CA',
  'TIDE_TLS_CERT',
  'TIDE_TLS_KEY',
  'TIDE_TLS_SERVER_NAME',
  'TIDE_TOKEN',
  'TIDE_TOKEN_FILE',
];
