/**
 * What every CLI command shares: the --bootstrap option (given before or after the sub-command,
 * or taken from TIDE_BOOTSTRAP or the config file's context), key=value parsing, client set-up,
 * and turning errors into one message that says what to do plus an exit code.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { Tide, type ClientSecurityOptions } from '../client';
import { TideError } from '../services/common/errors';
import { ConfigError } from '../services/common/config';
import { createLogger } from '../services/common/logger';
import { resolveContext } from './config-file';
import { resolveSecurity } from './security-options';

export const DEFAULT_BOOTSTRAP = '127.0.0.1:9092';

/** Exit codes: 0 success, 1 the cluster refused or failed the request, 2 bad usage or config. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A bad command line or input: exit code 2. */
export class UsageError extends InvalidArgumentError {}

/** A runtime failure that is not the cluster's (e.g. nothing to read past the end): exit code 1. */
export class CliFailure extends Error {}

/** `-b` on a client command. No default here: see `resolveBootstrap`. */
export function bootstrapOption(): Option {
  return new Option(
    '-b, --bootstrap <host:port,...>',
    `broker address(es) to bootstrap from (default: TIDE_BOOTSTRAP, the config file's context, or ${DEFAULT_BOOTSTRAP})`,
  );
}

export function parseInteger(
  name: string,
  min = Number.MIN_SAFE_INTEGER,
  max = Number.MAX_SAFE_INTEGER,
): (value: string) => number {
  return (value) => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`${name} must be an integer.`);
    const n = Number(value);
    if (n < min) throw new InvalidArgumentError(`${name} must be >= ${min}.`);
    if (n > max) throw new InvalidArgumentError(`${name} must be <= ${max}.`);
    return n;
  };
}

/** Collects repeated `--flag key=value` into an object. */
export function collectKeyValue(
  value: string,
  previous: Record<string, string> = {},
): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected key=value, got "${value}".`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

export function collectList(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * The client's logger: silent unless TIDE_CLI_LOG_LEVEL asks (a CLI prints one clear error line,
 * not the client's JSON warnings).
 */
function cliLogger() {
  return createLogger({ level: process.env.TIDE_CLI_LOG_LEVEL ?? 'silent' });
}

/**
 * TLS and token settings of the running command, resolved by `action` with the bootstrap list;
 * one CLI process runs one command.
 */
let commandSecurity: ClientSecurityOptions = {};

/** A client for one command; closed by the caller. */
export function connect(bootstrap: string): Tide {
  const addresses = bootstrap
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  return new Tide({
    bootstrap: addresses,
    clientId: 'tide-cli',
    logger: cliLogger(),
    security: commandSecurity,
  });
}

/** Runs a command body with a client and maps failures to a message and exit code. */
export async function withClient(bootstrap: string, body: (tide: Tide) => Promise<void>): Promise<void> {
  const tide = connect(bootstrap);
  try {
    await body(tide);
  } finally {
    await tide.close().catch(() => undefined);
  }
}

/** Prints an error for a person and returns the exit code. */
export function reportError(err: unknown): number {
  if (err instanceof TideError) {
    process.stderr.write(`error: ${err.code}: ${err.message}\nhint: ${err.hint}\n`);
    return err.code.startsWith('INVALID') ? EXIT_USAGE : EXIT_FAILURE;
  }
  if (err instanceof CommanderError) {
    process.stderr.write(`error: ${err.message.replace(/^error: /, '')}\n`);
    return EXIT_USAGE;
  }
  if (err instanceof ConfigError) {
    process.stderr.write(`error: ${err.message}\n`);
    return EXIT_USAGE;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`error: ${message}\n`);
  if (process.env.TIDE_CLI_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return EXIT_FAILURE;
}

/**
 * The bootstrap list for a command: `-b` after the sub-command, `-b` before it, TIDE_BOOTSTRAP,
 * the config file's context, the default; first given wins.
 */
export function resolveBootstrap(command: Command): string {
  const given = command.optsWithGlobals<{ bootstrap?: string }>().bootstrap;
  if (given) return given;
  if (process.env.TIDE_BOOTSTRAP) return process.env.TIDE_BOOTSTRAP;
  const root = rootOf(command).opts<{ configFile?: string; context?: string }>();
  const context = resolveContext({ file: root.configFile, name: root.context, env: process.env });
  return context?.bootstrap ?? DEFAULT_BOOTSTRAP;
}

export function rootOf(command: Command): Command {
  let c = command;
  while (c.parent) c = c.parent;
  return c;
}

/**
 * Wraps an action so its failure sets the exit code instead of throwing through commander. For
 * commands with `--bootstrap`, fills `opts.bootstrap` in (see `resolveBootstrap`).
 */
export function action<A extends unknown[]>(
  fn: (...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      const command = args[args.length - 1];
      const opts = args[args.length - 2] as { bootstrap?: string } | undefined;
      if (command instanceof Command && opts && command.options.some((o) => o.long === '--bootstrap')) {
        opts.bootstrap = resolveBootstrap(command);
        const root = rootOf(command).opts<{ configFile?: string; context?: string }>();
        const context = resolveContext({ file: root.configFile, name: root.context, env: process.env });
        commandSecurity = resolveSecurity(command, context);
      }
      await fn(...args);
    } catch (err) {
      process.exitCode = reportError(err);
    }
  };
}

export function addBootstrap(command: Command): Command {
  return command.addOption(bootstrapOption());
}

/** Applies the root's error handling to every sub-command: usage errors exit 2, not 1. */
export function exitOverrideEverywhere(command: Command): void {
  for (const sub of command.commands) {
    sub.exitOverride().showHelpAfterError('(run with --help for usage)');
    exitOverrideEverywhere(sub);
  }
}

/** Progress and rate lines go to stderr only when it is a terminal. */
export function progressWanted(): boolean {
  return process.stderr.isTTY === true;
}

/** "1,234 record(s) in 1.2 s (1,028 records/s)". */
export function rateText(count: number, elapsedMs: number, noun = 'record(s)'): string {
  const seconds = Math.max(elapsedMs, 1) / 1000;
  const rate = Math.round(count / seconds);
  return `${count.toLocaleString('en-US')} ${noun} in ${seconds.toFixed(1)} s (${rate.toLocaleString('en-US')}/s)`;
}
