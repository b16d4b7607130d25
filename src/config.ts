/**
 * The one place that reads the environment: `loadConfig` turns env + CLI flags into one typed
 * `Config` (config/types.ts). What each variable means, its parser and default live in the
 * annotated schema of the settings, `SETTINGS` in config/settings.ts (parsers in
 * config/parsers.ts); this module runs it and combines the values.
 * Bad configuration is reported as one line and exit code 2 by the CLI (see ConfigError).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { SettingError } from './config/parsers.js';
import { SETTINGS, type Setting, type SettingName } from './config/settings.js';
import type { Config, MessageEngineConfig } from './config/types.js';

export type { Config, MessageEngineConfig } from './config/types.js';

/** Thrown for invalid configuration; `message` is one line, safe to print. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The process environment. Nothing else in src/ reads `process.env` (eslint enforces it). */
export function processEnv(): Record<string, string | undefined> {
  return process.env;
}

type Env = { [K in SettingName]: ReturnType<(typeof SETTINGS)[K]['parse']> };

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
