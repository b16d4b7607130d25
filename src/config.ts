/**
 * The one place that reads the environment: env + CLI flags → one typed, validated config.
 * Bad configuration is reported as one line and exit code 2 by the CLI (see ConfigError).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

/** Thrown for invalid configuration; `message` is one line, safe to print. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * An MCP bundle host passes `${user_config.x}` through literally when the user left an optional
 * field blank; such a placeholder means "not set", like an empty string.
 */
const UNSUBSTITUTED_PLACEHOLDER = /^\$\{[^}]+\}$/;

const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' || UNSUBSTITUTED_PLACEHOLDER.test(v) ? undefined : v))
  .optional();

const urlString = (name: string) =>
  optionalString.refine((v) => v === undefined || /^https?:\/\/[^\s]+$/.test(v), {
    message: `${name} must be an http(s) URL`,
  });

const intString = (name: string, min: number, max: number, fallback: number) =>
  optionalString
    .refine((v) => v === undefined || (/^\d+$/.test(v) && +v >= min && +v <= max), {
      message: `${name} must be an integer between ${min} and ${max}`,
    })
    .transform((v) => (v === undefined ? fallback : Number(v)));

/** Environment variables searchdesk understands, with their meaning. */
const envSchema = z.object({
  /** Postgres connection string; unset ⇒ the embedded database with demo data. Secret. */
  DATABASE_URL: optionalString,
  /** Elasticsearch base URL; set ⇒ message search uses Elasticsearch. */
  ELASTICSEARCH_URL: urlString('ELASTICSEARCH_URL'),
  /** Elasticsearch index (or alias) holding messages. */
  ELASTICSEARCH_INDEX: optionalString,
  /** OpenSearch base URL; set ⇒ message search uses OpenSearch. */
  OPENSEARCH_URL: urlString('OPENSEARCH_URL'),
  /** OpenSearch index (or alias) holding messages. */
  OPENSEARCH_INDEX: optionalString,
  /** `searchdesk` (our own index) or `searchkick` (the help desk's own index, read-only). */
  SEARCHDESK_INDEX_FORMAT: z.enum(['searchdesk', 'searchkick']).default('searchdesk'),
  /** Access token of the caller for the stdio transport. Secret. */
  SEARCHDESK_ACCESS_TOKEN: optionalString,
  /** Default account for MCP tools when `account_id` is omitted. */
  SEARCHDESK_ACCOUNT_ID: optionalString.refine(
    (v) => v === undefined || (/^[1-9]\d*$/.test(v) && Number.isSafeInteger(Number(v))),
    {
      message: 'SEARCHDESK_ACCOUNT_ID must be a positive integer',
    },
  ),
  /** Directory of the embedded database. */
  SEARCHDESK_DATA_DIR: optionalString,
  /** Interface the HTTP server binds. */
  HOST: optionalString,
  /** Port of the HTTP server. */
  PORT: intString('PORT', 0, 65535, 3000),
  /** Comma-separated extra Host names the HTTP server answers to (behind a proxy, in a container). */
  SEARCHDESK_ALLOWED_HOSTS: optionalString,
  /** Comma-separated Origins allowed to call the HTTP server (requests without Origin are always allowed). */
  SEARCHDESK_ALLOWED_ORIGINS: optionalString,
  /** Context budget of one MCP tool result, in characters. */
  SEARCHDESK_MAX_RESULT_CHARS: intString('SEARCHDESK_MAX_RESULT_CHARS', 1000, 10_000_000, 60_000),
  /** `flag` (message search needs the account's advanced_search flag) or `all`. */
  SEARCHDESK_MESSAGE_SEARCH: z.enum(['flag', 'all']).default('flag'),
  /** Statement timeout of search queries, in milliseconds. */
  SEARCHDESK_STATEMENT_TIMEOUT_MS: intString('SEARCHDESK_STATEMENT_TIMEOUT_MS', 100, 600_000, 5_000),
  /** Request timeout towards Elasticsearch/OpenSearch before falling back to Postgres, in milliseconds. */
  SEARCHDESK_ENGINE_TIMEOUT_MS: intString('SEARCHDESK_ENGINE_TIMEOUT_MS', 50, 120_000, 2_000),
  /** Maximum Postgres connections of the pool. */
  SEARCHDESK_PG_POOL_SIZE: intString('SEARCHDESK_PG_POOL_SIZE', 1, 200, 10),
  /** pino log level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** Names of environment variables holding secrets: never logged, never echoed. */
export const SECRET_ENV = ['DATABASE_URL', 'SEARCHDESK_ACCESS_TOKEN'] as const;

export type MessageEngineConfig =
  | { kind: 'postgres' }
  | { kind: 'elasticsearch' | 'opensearch'; url: string; index: string; format: 'searchdesk' | 'searchkick' };

/** The validated configuration every module receives. */
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
  maxResultChars: number;
  messageSearch: 'flag' | 'all';
  statementTimeoutMs: number;
  engineTimeoutMs: number;
  pgPoolSize: number;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
}

function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

/** Builds the config from environment variables (and CLI flags already merged into `env`). */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue?.path.join('.') ?? 'configuration';
    const msg = issue?.code === 'invalid_value' ? `${key} must be one of ${issue.values.join(', ')}` : issue?.message;
    throw new ConfigError(`invalid configuration: ${msg ?? key}`);
  }
  const e = parsed.data;
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
    maxResultChars: e.SEARCHDESK_MAX_RESULT_CHARS,
    messageSearch: e.SEARCHDESK_MESSAGE_SEARCH,
    statementTimeoutMs: e.SEARCHDESK_STATEMENT_TIMEOUT_MS,
    engineTimeoutMs: e.SEARCHDESK_ENGINE_TIMEOUT_MS,
    pgPoolSize: e.SEARCHDESK_PG_POOL_SIZE,
    logLevel: e.LOG_LEVEL,
  };
}
