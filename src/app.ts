/**
 * Composition root: one Config → the dependencies every surface shares (read-only database,
 * message engines, clock). Surfaces (MCP stdio, HTTP) are built from an App, never from env.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from './config.js';
import type { Db } from './db/db.js';
import { createPgDb } from './db/pg.js';
import type { Logger } from './logger.js';
import type { SearchDeps } from './search/core.js';
import type { MessageEngine } from './search/engines/engine.js';
import { createPostgresEngine } from './search/engines/postgres.js';

/** Opens the embedded demo database when DATABASE_URL is unset (plugged in by a later build). */
export type OpenEmbedded = (config: Config, logger: Logger) => Promise<Db>;

export interface App {
  deps: SearchDeps;
  config: Config;
  /** searchdesk's version (package.json), reported to MCP clients. */
  version: string;
  /** Closes the engines, then the database. Idempotent. */
  close(): Promise<void>;
}

export interface AppHooks {
  openEmbedded?: OpenEmbedded;
}

/** The version of the installed package; `dist/` and `src/` both sit one level below it. */
export function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

async function openDb(config: Config, logger: Logger, hooks: AppHooks): Promise<Db> {
  if (config.databaseUrl !== undefined) {
    return createPgDb({
      url: config.databaseUrl,
      readOnly: true,
      statementTimeoutMs: config.statementTimeoutMs,
      poolSize: config.pgPoolSize,
      logger,
    });
  }
  if (!hooks.openEmbedded) {
    throw new ConfigError('DATABASE_URL is not set (the embedded demo database is not available in this build)');
  }
  return hooks.openEmbedded(config, logger);
}

/** The configured message engine; search-engine clients are loaded only when configured (fast start otherwise). */
async function createPrimaryEngine(config: Config, postgres: MessageEngine): Promise<MessageEngine> {
  const engine = config.engine;
  switch (engine.kind) {
    case 'postgres':
      return postgres;
    case 'elasticsearch': {
      const { createElasticsearchEngine } = await import('./search/engines/elasticsearch.js');
      return createElasticsearchEngine({ url: engine.url, index: engine.index, timeoutMs: config.engineTimeoutMs });
    }
    case 'opensearch':
      throw new ConfigError('OpenSearch is not supported yet');
  }
}

/** Builds the shared dependencies. The database pool connects lazily, so a down Postgres does not stop the start. */
export async function createApp(config: Config, logger: Logger, hooks: AppHooks = {}): Promise<App> {
  // Validate the engine choice before opening anything that would need closing.
  if (config.engine.kind === 'opensearch') throw new ConfigError('OpenSearch is not supported yet');
  const db = await openDb(config, logger, hooks);
  const postgres = createPostgresEngine(db);
  const primary = await createPrimaryEngine(config, postgres);
  const deps: SearchDeps = {
    db,
    engines: { primary, postgres, gate: config.messageSearch },
    logger,
    now: Date.now,
  };
  let closing: Promise<void> | undefined;
  return {
    deps,
    config,
    version: readVersion(),
    close() {
      closing ??= (async () => {
        if (primary !== postgres)
          await primary
            .close()
            .catch((err: unknown) => logger.warn({ event: 'engine_close_failed', err }, 'closing the search engine failed'));
        await db.close();
      })();
      return closing;
    },
  };
}
