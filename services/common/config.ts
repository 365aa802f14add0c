/**
 * Service configuration: one typed schema per service; one pure loader that layers
 * defaults < config file (JSON) < environment (TIDE_ prefix) < flags. Unknown keys are rejected and
 * every bad value names its key and source, so a typo fails at start instead of being ignored.
 */
import * as fs from 'fs';

export type ConfigValueType = 'string' | 'int' | 'bool';

export interface ConfigKeySpec<T> {
  type: ConfigValueType;
  default: T;
  doc: string;
  /** Inclusive bounds for ints. */
  min?: number;
  max?: number;
  /** Allowed values for strings. */
  oneOf?: readonly string[];
  /** Redacted when the effective config is logged. */
  secret?: boolean;
}

export type ConfigSchema = Record<string, ConfigKeySpec<unknown>>;

export type ConfigOf<S extends ConfigSchema> = { [K in keyof S]: S[K]['default'] };

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** camelCase key → TIDE_SNAKE_CASE environment variable. */
export function envNameOf(key: string): string {
  return 'TIDE_' + key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

/** camelCase key → --kebab-case flag. */
export function flagNameOf(key: string): string {
  return '--' + key.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

function parseValue(spec: ConfigKeySpec<unknown>, key: string, raw: unknown, source: string): unknown {
  const where = `${key} (from ${source})`;
  switch (spec.type) {
    case 'int': {
      const n =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && /^-?\d+$/.test(raw.trim())
            ? Number(raw)
            : NaN;
      if (!Number.isSafeInteger(n))
        throw new ConfigError(`${where} must be an integer, got ${JSON.stringify(raw)}`);
      if (spec.min !== undefined && n < spec.min)
        throw new ConfigError(`${where} must be >= ${spec.min}, got ${n}`);
      if (spec.max !== undefined && n > spec.max)
        throw new ConfigError(`${where} must be <= ${spec.max}, got ${n}`);
      return n;
    }
    case 'bool': {
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      throw new ConfigError(`${where} must be true or false, got ${JSON.stringify(raw)}`);
    }
    case 'string': {
      if (typeof raw !== 'string')
        throw new ConfigError(`${where} must be a string, got ${JSON.stringify(raw)}`);
      if (spec.oneOf && !spec.oneOf.includes(raw)) {
        throw new ConfigError(`${where} must be one of ${spec.oneOf.join(', ')}, got ${JSON.stringify(raw)}`);
      }
      return raw;
    }
  }
}

export interface ConfigSources {
  /** Path of a JSON file of keys to values. */
  file?: string;
  /** Usually process.env; only TIDE_* names that match a key are read, other TIDE_* names are rejected. */
  env?: Record<string, string | undefined>;
  /** Values already parsed from command-line flags, by key. */
  flags?: Record<string, unknown>;
  /** Env names that belong to other parts of Tide and are not errors here (e.g. TIDE_CONFIG). */
  ignoreEnv?: string[];
}

export function loadConfig<S extends ConfigSchema>(schema: S, sources: ConfigSources): ConfigOf<S> {
  const config: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(schema)) config[key] = spec.default;

  if (sources.file) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(fs.readFileSync(sources.file, 'utf8'));
    } catch (err) {
      throw new ConfigError(`cannot read config file ${sources.file}: ${(err as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ConfigError(`config file ${sources.file} must hold a JSON object of keys to values`);
    }
    for (const [key, raw] of Object.entries(parsed)) {
      const spec = schema[key];
      if (!spec)
        throw new ConfigError(
          `unknown config key "${key}" in ${sources.file}; known keys: ${Object.keys(schema).join(', ')}`,
        );
      config[key] = parseValue(spec, key, raw, sources.file);
    }
  }

  const byEnvName = new Map(Object.keys(schema).map((key) => [envNameOf(key), key]));
  for (const [name, raw] of Object.entries(sources.env ?? {})) {
    if (!name.startsWith('TIDE_') || raw === undefined || sources.ignoreEnv?.includes(name)) continue;
    const key = byEnvName.get(name);
    if (!key)
      throw new ConfigError(
        `unknown environment variable ${name}; known: ${[...byEnvName.keys()].join(', ')}`,
      );
    config[key] = parseValue(schema[key], key, raw, `env ${name}`);
  }

  for (const [key, raw] of Object.entries(sources.flags ?? {})) {
    if (raw === undefined) continue;
    const spec = schema[key];
    if (!spec) throw new ConfigError(`unknown flag ${flagNameOf(key)}`);
    config[key] = parseValue(spec, key, raw, `flag ${flagNameOf(key)}`);
  }
  return config as ConfigOf<S>;
}

/** The config with secret values replaced, for the one start-up log line. */
export function redactConfig<S extends ConfigSchema>(
  schema: S,
  config: ConfigOf<S>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(schema)) out[key] = schema[key].secret ? '[redacted]' : config[key];
  return out;
}
