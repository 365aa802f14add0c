/**
 * What every CLI command shares: the --bootstrap option, key=value parsing, client set-up, and
 * turning errors into a message that says what to do plus an exit code.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { Tide } from '../client';
import { TideError } from '../services/common/errors';
import { ConfigError } from '../services/common/config';
import { createLogger } from '../services/common/logger';

export const DEFAULT_BOOTSTRAP = '127.0.0.1:9092';

/** Exit codes: 0 success, 1 the cluster refused or failed the request, 2 bad usage or config. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export function bootstrapOption(): Option {
  return new Option('-b, --bootstrap <host:port,...>', 'broker address(es) to bootstrap from')
    .env('TIDE_BOOTSTRAP')
    .default(DEFAULT_BOOTSTRAP);
}

export function parseInteger(name: string, min = Number.MIN_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`${name} must be an integer.`);
    const n = Number(value);
    if (n < min) throw new InvalidArgumentError(`${name} must be >= ${min}.`);
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

/** A client for one command; closed by the caller. Logs only warnings to stderr. */
export function connect(bootstrap: string): Tide {
  const addresses = bootstrap
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  return new Tide({
    bootstrap: addresses,
    clientId: 'tide-cli',
    logger: createLogger({ level: process.env.TIDE_LOG_LEVEL ?? 'warn' }),
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
  process.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return EXIT_FAILURE;
}

/** Wraps an action so its failure sets the exit code instead of throwing through commander. */
export function action<A extends unknown[]>(
  fn: (...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      process.exitCode = reportError(err);
    }
  };
}

export function addBootstrap(command: Command): Command {
  return command.addOption(bootstrapOption());
}
