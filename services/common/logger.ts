/**
 * Structured logging: pino, one JSON line per event, quiet at info. Components take a Logger in
 * their constructor and derive children with their own bindings ({component, topic, partition}).
 */
import pino from 'pino';

export type Logger = pino.Logger;

export interface LoggerOptions {
  level?: string;
  /** Where lines go; defaults to stderr so stdout stays free for CLI output. */
  destination?: pino.DestinationStream;
  name?: string;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? pino.destination({ fd: 2, sync: false });
  return pino(
    { level: options.level ?? 'info', name: options.name ?? 'tide', base: { pid: process.pid } },
    destination,
  );
}

/** A logger that drops everything: for unit tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
