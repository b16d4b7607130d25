/**
 * The one place that reads the environment, and the one annotated schema of searchdesk's settings.
 *
 * Each entry of SETTINGS is one environment variable: how it is parsed, its default and meaning
 * as the README shows them, whether it is a secret (the logger redacts it) and, for the MCP
 * bundle, its `user_config` field. `loadConfig` turns env + CLI flags into one typed `Config`;
 * `src/config-docs.ts` renders the README table and the manifest from the same entries
 * (`npm run docs:config`; test/config-docs.test.ts fails when they drift).
 * Bad configuration is reported as one line and exit code 2 by the CLI (see ConfigError).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Thrown for invalid configuration; `message` is one line, safe to print. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The process environment. Nothing else in src/ reads `process.env` (eslint enforces it). */
export function processEnv(): Record<string, string | undefined> {
  return process.env;
}

/**
 * An MCP bundle host passes `${user_config.x}` through literally when the user left an optional
 * field blank; such a placeholder means "not set", like an empty string.
 */
const UNSUBSTITUTED_PLACEHOLDER = /^\$\{[^}]+\}$/;

/**
 * A setting's parser: the raw value (undefined when the variable is not set) to what `toConfig`
 * reads; throws a SettingError (its message names the variable) when the value is refused.
 * Plain functions, not a validation library: every start runs them, and these few shapes need none.
 */
export type Parse<T> = (raw: string | undefined) => T;

class SettingError extends Error {}

/** Trimmed; empty or an unsubstituted placeholder means not set. */
const optionalString: Parse<string | undefined> = (raw) => {
  const v = raw?.trim();
  return v === undefined || v === '' || UNSUBSTITUTED_PLACEHOLDER.test(v) ? undefined : v;
};

/** optionalString, refused with `message` unless `ok` holds for the value it read. */
const checkedString =
  (ok: (v: string) => boolean, message: string): Parse<string | undefined> =>
  (raw) => {
    const v = optionalString(raw);
    if (v !== undefined && !ok(v)) throw new SettingError(message);
    return v;
  };

const urlString = (name: string) => checkedString((v) => /^https?:\/\/[^\s]+$/.test(v), `${name} must be an http(s) URL`);

const intString = (name: string, min: number, max: number, fallback: number): Parse<number> => {
  const read = checkedString(
    (v) => /^\d+$/.test(v) && +v >= min && +v <= max,
    `${name} must be an integer between ${min} and ${max}`,
  );
  return (raw) => {
    const v = read(raw);
    return v === undefined ? fallback : Number(v);
  };
};

/** Exactly one of `values` (not trimmed); `fallback` when not set. */
const oneOf =
  <const T extends string>(name: string, values: readonly T[], fallback: NoInfer<T>): Parse<T> =>
  (raw) => {
    if (raw === undefined) return fallback;
    if (!(values as readonly string[]).includes(raw)) throw new SettingError(`${name} must be one of ${values.join(', ')}`);
    return raw as T;
  };

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** One environment variable: its parser and the annotations the docs, manifest and logger use. */
export interface Setting {
  /** Parses the raw value (a string or undefined) into what `toConfig` reads. */
  parse: Parse<unknown>;
  /** README: the default, in Markdown. */
  default: string;
  /** README: the meaning, in Markdown (no `|`). */
  doc: string;
  /** The `serve` flag that overrides the variable. */
  flag?: `--${string}`;
  /** A secret: never logged. The logger redacts the variable's name and `configKey` wherever they appear. */
  secret?: { configKey: keyof Config };
  /** A field of the MCP bundle's `user_config`, passed to the server as this variable. */
  bundle?: { key: string; title: string; description: string };
}

/** Environment variables searchdesk understands, in the README's order. */
export const SETTINGS = {
  DATABASE_URL: {
    parse: optionalString,
    default: 'unset ⇒ embedded demo database',
    doc: "the help desk's Postgres (a read-only role is enough)",
    secret: { configKey: 'databaseUrl' },
    bundle: {
      key: 'database_url',
      title: 'Database URL',
      description:
        'PostgreSQL connection string of the help desk (a read-only role is enough). Leave empty to use the built-in demo help desk.',
    },
  },
  SEARCHDESK_DATA_DIR: {
    parse: optionalString,
    default: '`~/.searchdesk/data`',
    doc: 'where the embedded database lives',
  },
  ELASTICSEARCH_URL: {
    parse: urlString('ELASTICSEARCH_URL'),
    default: 'unset',
    doc: 'message search on Elasticsearch 8.x/9.x',
    bundle: {
      key: 'elasticsearch_url',
      title: 'Elasticsearch URL',
      description:
        'Optional. Elasticsearch holding the message index built by `searchdesk index`. Empty: messages are searched in Postgres.',
    },
  },
  ELASTICSEARCH_INDEX: {
    parse: optionalString,
    default: '`searchdesk_messages`',
    doc: 'index alias (`messages_production` with `searchkick`)',
  },
  OPENSEARCH_URL: {
    parse: urlString('OPENSEARCH_URL'),
    default: 'unset',
    doc: 'message search on OpenSearch 2.x/3.x (not together with `ELASTICSEARCH_URL`)',
  },
  OPENSEARCH_INDEX: {
    parse: optionalString,
    default: '`searchdesk_messages`',
    doc: 'index alias (`messages_production` with `searchkick`)',
  },
  SEARCHDESK_INDEX_FORMAT: {
    parse: oneOf('SEARCHDESK_INDEX_FORMAT', ['searchdesk', 'searchkick'], 'searchdesk'),
    default: '`searchdesk`',
    doc: "`searchdesk` (own index) or `searchkick` (the help desk's own index, read-only)",
  },
  SEARCHDESK_ACCESS_TOKEN: {
    parse: optionalString,
    default: 'unset',
    doc: 'the caller over stdio',
    secret: { configKey: 'accessToken' },
    bundle: {
      key: 'access_token',
      title: 'Access token',
      description: 'The api_access_token of your help-desk user (Profile settings). Not needed for the demo help desk.',
    },
  },
  SEARCHDESK_ACCOUNT_ID: {
    parse: checkedString(
      (v) => /^[1-9]\d*$/.test(v) && Number.isSafeInteger(Number(v)),
      'SEARCHDESK_ACCOUNT_ID must be a positive integer',
    ),
    default: 'unset',
    doc: 'default account when a tool call has no `account_id`',
    bundle: {
      key: 'account_id',
      title: 'Default account id',
      description:
        'Optional. The account to search when a tool call does not name one (needed only if you belong to several accounts).',
    },
  },
  HOST: {
    parse: optionalString,
    flag: '--host',
    default: '`127.0.0.1`',
    doc: 'interface the HTTP server binds',
  },
  PORT: {
    parse: intString('PORT', 0, 65535, 3000),
    flag: '--port',
    default: '`3000`',
    doc: 'HTTP port (`0` = any free port)',
  },
  SEARCHDESK_ALLOWED_ORIGINS: {
    parse: optionalString,
    default: 'loopback origins',
    doc: 'comma-separated browser Origins allowed on the HTTP server',
  },
  SEARCHDESK_ALLOWED_HOSTS: {
    parse: optionalString,
    default: 'loopback and `HOST`',
    doc: 'extra `Host` names the HTTP server answers to (behind a proxy, in a container)',
  },
  SEARCHDESK_RATE_LIMIT_PER_MINUTE: {
    parse: intString('SEARCHDESK_RATE_LIMIT_PER_MINUTE', 0, 10_000_000, 12_000),
    default: '`12000`',
    doc: 'HTTP requests (REST and `/mcp`) per minute per access token; over it: 429 with `Retry-After`; `0` = no limit',
  },
  SEARCHDESK_RATE_LIMIT_ANONYMOUS_PER_MINUTE: {
    parse: intString('SEARCHDESK_RATE_LIMIT_ANONYMOUS_PER_MINUTE', 0, 10_000_000, 600),
    default: '`600`',
    doc: 'the same per client IP address, for requests that name no user: without a token, or with an unknown, bot or empty one; `0` = no limit',
  },
  SEARCHDESK_APP_URL: {
    parse: urlString('SEARCHDESK_APP_URL'),
    default: 'unset ⇒ no `url` fields',
    doc: "the help desk's own address (its `FRONTEND_URL`): conversations then carry `url` (the agent app's page) and articles `url` (the public help-center page, on the portal's custom domain when it has one)",
    bundle: {
      key: 'app_url',
      title: 'Help desk address',
      description:
        "Optional. The help desk's web address (its FRONTEND_URL, e.g. https://app.example.com): results then link to the conversation and the help-center article.",
    },
  },
  SEARCHDESK_MAX_RESULT_CHARS: {
    parse: intString('SEARCHDESK_MAX_RESULT_CHARS', 1000, 10_000_000, 60_000),
    default: '`60000`',
    doc: 'context budget of one tool result',
  },
  SEARCHDESK_MESSAGE_SEARCH: {
    parse: oneOf('SEARCHDESK_MESSAGE_SEARCH', ['flag', 'all'], 'flag'),
    default: '`flag`',
    doc: "`flag`: needs the account's `advanced_search` flag; `all`: every account",
  },
  SEARCHDESK_STATEMENT_TIMEOUT_MS: {
    parse: intString('SEARCHDESK_STATEMENT_TIMEOUT_MS', 100, 600_000, 5_000),
    default: '`5000`',
    doc: 'Postgres statement timeout of a search',
  },
  SEARCHDESK_ENGINE_TIMEOUT_MS: {
    parse: intString('SEARCHDESK_ENGINE_TIMEOUT_MS', 50, 120_000, 2_000),
    default: '`2000`',
    doc: 'search-engine request timeout before falling back to Postgres',
  },
  SEARCHDESK_PG_POOL_SIZE: {
    parse: intString('SEARCHDESK_PG_POOL_SIZE', 1, 200, 10),
    default: '`10`',
    doc: 'Postgres connections of each of the two pools (see _Production_; an idle one stays open ten minutes, so a call after a pause finds a warm one)',
  },
  SEARCHDESK_PG_PREPARED_STATEMENTS: {
    parse: oneOf('SEARCHDESK_PG_PREPARED_STATEMENTS', ['on', 'off'], 'on'),
    default: '`on`',
    doc: '`on`: a connection parses each search statement once, and plans once those whose plan cannot change (see _Production_); `off` behind PgBouncer < 1.21 (one pool)',
  },
  LOG_LEVEL: {
    parse: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    default: '`info`',
    doc: 'pino level; logs are JSON lines on stderr',
  },
} satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

/** Names of environment variables holding secrets: never logged, never echoed. */
export const SECRET_ENV = (Object.keys(SETTINGS) as SettingName[]).filter(
  (name) => (SETTINGS[name] as Setting).secret !== undefined,
);

type Env = { [K in SettingName]: ReturnType<(typeof SETTINGS)[K]['parse']> };

export type MessageEngineConfig =
  | { kind: 'postgres' }
  | { kind: 'elasticsearch' | 'opensearch'; url: string; index: string; format: 'searchdesk' | 'searchkick' };

/** The validated configuration every module receives (the output of the schema). */
export interface Config {
  databaseUrl: string | undefined;
  dataDir: string;
  engine: MessageEngineConfig;
  accessToken: string | undefined;
  defaultAccountId: number | undefined;
  host: string;
  port: number;
  allowedOrigins: string[];
  /** Host names accepted in the Host header besides loopback and the bound host. */
  allowedHosts: string[];
  /** Requests per minute on REST and /mcp; 0 = no limit (src/http/rate-limit.ts). */
  rateLimit: { perToken: number; anonymousPerIp: number };
  maxResultChars: number;
  /** SEARCHDESK_APP_URL without trailing slashes; undefined = records carry no `url`. */
  appUrl: string | undefined;
  messageSearch: 'flag' | 'all';
  statementTimeoutMs: number;
  engineTimeoutMs: number;
  pgPoolSize: number;
  /** Named prepared statements on each Postgres connection (src/db/pg.ts). */
  pgPreparedStatements: boolean;
  logLevel: (typeof LOG_LEVELS)[number];
}

function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

function toConfig(e: Env): Config {
  if (e.ELASTICSEARCH_URL && e.OPENSEARCH_URL) {
    throw new ConfigError('invalid configuration: set ELASTICSEARCH_URL or OPENSEARCH_URL, not both');
  }
  const defaultIndex = e.SEARCHDESK_INDEX_FORMAT === 'searchkick' ? 'messages_production' : 'searchdesk_messages';
  let engine: MessageEngineConfig = { kind: 'postgres' };
  if (e.ELASTICSEARCH_URL) {
    engine = {
      kind: 'elasticsearch',
      url: e.ELASTICSEARCH_URL,
      index: e.ELASTICSEARCH_INDEX ?? defaultIndex,
      format: e.SEARCHDESK_INDEX_FORMAT,
    };
  } else if (e.OPENSEARCH_URL) {
    engine = {
      kind: 'opensearch',
      url: e.OPENSEARCH_URL,
      index: e.OPENSEARCH_INDEX ?? defaultIndex,
      format: e.SEARCHDESK_INDEX_FORMAT,
    };
  }
  return {
    databaseUrl: e.DATABASE_URL,
    dataDir: e.SEARCHDESK_DATA_DIR ?? join(homedir(), '.searchdesk', 'data'),
    engine,
    accessToken: e.SEARCHDESK_ACCESS_TOKEN,
    defaultAccountId: e.SEARCHDESK_ACCOUNT_ID === undefined ? undefined : Number(e.SEARCHDESK_ACCOUNT_ID),
    host: e.HOST ?? '127.0.0.1',
    port: e.PORT,
    allowedOrigins: splitList(e.SEARCHDESK_ALLOWED_ORIGINS),
    allowedHosts: splitList(e.SEARCHDESK_ALLOWED_HOSTS).map((h) => h.toLowerCase()),
    rateLimit: {
      perToken: e.SEARCHDESK_RATE_LIMIT_PER_MINUTE,
      anonymousPerIp: e.SEARCHDESK_RATE_LIMIT_ANONYMOUS_PER_MINUTE,
    },
    maxResultChars: e.SEARCHDESK_MAX_RESULT_CHARS,
    appUrl: e.SEARCHDESK_APP_URL?.replace(/\/+$/, ''),
    messageSearch: e.SEARCHDESK_MESSAGE_SEARCH,
    statementTimeoutMs: e.SEARCHDESK_STATEMENT_TIMEOUT_MS,
    engineTimeoutMs: e.SEARCHDESK_ENGINE_TIMEOUT_MS,
    pgPoolSize: e.SEARCHDESK_PG_POOL_SIZE,
    pgPreparedStatements: e.SEARCHDESK_PG_PREPARED_STATEMENTS === 'on',
    logLevel: e.LOG_LEVEL,
  };
}

/** Builds the config from environment variables (and CLI flags already merged into `env`). */
export function loadConfig(env: Record<string, string | undefined> = processEnv()): Config {
  const parsed: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(SETTINGS)) {
    try {
      parsed[name] = (setting as Setting).parse(env[name]);
    } catch (err) {
      if (err instanceof SettingError) throw new ConfigError(`invalid configuration: ${err.message}`);
      throw err;
    }
  }
  return toConfig(parsed as Env);
}

/**
 * The log keys of the secret settings, whose values the logger never writes: the variable (an env
 * object logged) and its Config key (a config logged).
 */
export function secretLogKeys(): string[] {
  return SECRET_ENV.flatMap((name) => [name, (SETTINGS[name] as Setting).secret!.configKey]);
}
