/**
 * The validated configuration every module receives: what `loadConfig` (src/config.ts) makes of
 * the environment described in settings.ts.
 */
import type { LOG_LEVELS } from './parsers.js';

export type MessageEngineConfig =
  | { kind: 'postgres' }
  | { kind: 'elasticsearch' | 'opensearch'; url: string; index: string; format: 'searchdesk' | 'searchkick' };

/** The configuration, one typed field per setting (some settings combine into one field). */
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
