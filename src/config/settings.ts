/**
 * The one annotated schema of searchdesk's settings. Each entry of SETTINGS is one environment
 * variable: how it is parsed (parsers.ts), its default and meaning as the README shows them,
 * whether it is a secret (the logger redacts it) and, for the MCP bundle, its `user_config`
 * field. `src/config-docs.ts` renders the README table and the manifest from these entries
 * (`npm run docs:config`; test/config-docs.test.ts fails when they drift).
 */
import { checkedString, intString, LOG_LEVELS, oneOf, optionalString, urlString, type Parse } from './parsers.js';
import type { Config } from './types.js';

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

/**
 * The log keys of the secret settings, whose values the logger never writes: the variable (an env
 * object logged) and its Config key (a config logged).
 */
export function secretLogKeys(): string[] {
  return SECRET_ENV.flatMap((name) => [name, (SETTINGS[name] as Setting).secret!.configKey]);
}
