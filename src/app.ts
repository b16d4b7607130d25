/**
 * Composition root: one Config → the dependencies every surface shares (read-only database,
 * message engines, clock). Surfaces (MCP stdio, HTTP) are built from an App, never from env.
 */
import { readFileSync } from 'node:fs';
import type { Config, MessageEngineConfig } from './config.js';
import type { Db } from './db/db.js';
import { deferredDb } from './db/deferred.js';
import { demoInfo, type DemoInfo } from './db/demo-info.js';
import { createPgDb } from './db/pg.js';
import { onAdvice } from './events.js';
import type { Logger } from './logger.js';
import type { SearchDeps } from './search/core.js';
import type { MessageEngine } from './search/messages/engine.js';
import { createPostgresEngine } from './search/messages/postgres.js';

export interface App {
  deps: SearchDeps;
  config: Config;
  /** searchdesk's version (package.json), reported to MCP clients. */
  version: string;
  /** Set when running on the embedded demo database (no DATABASE_URL): its tokens and accounts. */
  demo: DemoInfo | undefined;
  /** Starts a database opened in the background (`background`); nothing otherwise. */
  startDatabase(): void;
  /** Closes the engines, then the database. Idempotent. */
  close(): Promise<void>;
}

/** The version of the installed package; `dist/` and `src/` both sit one level below it. */
export function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

export interface OpenOptions {
  /** `false` is for admin commands only. */
  readOnly?: boolean;
  statementTimeoutMs?: number;
  /**
   * The embedded database starts in the background: resolve at once with a `Db` whose queries
   * wait for it (db/deferred.ts), started by `startDatabase` or the first query. For stdio,
   * whose handshake needs no data.
   */
  background?: boolean;
}

/** The database: DATABASE_URL's Postgres, or the embedded demo database (created on first start). */
export async function openDatabase(
  config: Config,
  logger: Logger,
  opts: OpenOptions = {},
): Promise<{ db: Db; demo: DemoInfo | undefined; begin?: () => void }> {
  if (config.databaseUrl !== undefined) {
    const db = createPgDb({
      url: config.databaseUrl,
      readOnly: opts.readOnly ?? true,
      statementTimeoutMs: opts.statementTimeoutMs ?? config.statementTimeoutMs,
      poolSize: config.pgPoolSize,
      preparedStatements: config.pgPreparedStatements,
      logger,
    });
    return { db, demo: undefined };
  }
  // Loaded only when needed: the WASM Postgres is not part of a production start.
  const start = async () => {
    const { openEmbeddedDb } = await import('./db/pglite.js');
    return (await openEmbeddedDb({ dataDir: config.dataDir, logger })).db;
  };
  if (opts.background) return { ...deferredDb('pglite', start, logger), demo: demoInfo() };
  return { db: await start(), demo: demoInfo() };
}

/** The configured message engine; search-engine clients are loaded only when configured (fast start otherwise). */
export async function createMessageEngine(engine: MessageEngineConfig, timeoutMs: number): Promise<MessageEngine | undefined> {
  if (engine.kind === 'postgres') return undefined;
  const { connectSearchClient } = await import('./search/messages/connect.js');
  const client = await connectSearchClient(engine.kind, engine.url, timeoutMs);
  if (engine.format === 'searchkick') {
    const { createSearchkickEngine } = await import('./search/messages/searchkick.js');
    return createSearchkickEngine(client, engine.index);
  }
  const { createSearchdeskEngine } = await import('./search/messages/searchdesk.js');
  return createSearchdeskEngine(client, engine.index);
}

/**
 * Builds the shared dependencies. The database pool connects lazily, so a down Postgres does not
 * stop the start; with `background`, neither does the embedded database's start (stdio).
 */
export async function createApp(config: Config, logger: Logger, opts: Pick<OpenOptions, 'background'> = {}): Promise<App> {
  const { db, demo, begin } = await openDatabase(config, logger, opts);
  const postgres = createPostgresEngine(db);
  const primary = (await createMessageEngine(config.engine, config.engineTimeoutMs)) ?? postgres;
  if (primary !== postgres) {
    // Say at once what is wrong with the index; searches fall back to Postgres meanwhile.
    primary.check().then(
      () => logger.info({ event: 'engine_ready', engine: primary.label }, `${primary.label} index is ready`),
      (err: unknown) =>
        logger.warn(
          { event: 'engine_unavailable', engine: primary.label, message: (err as Error).message },
          `${(err as Error).message} — message search falls back to Postgres`,
        ),
    );
  }
  // Advice found while searching (events.ts): each said once in the life of the process.
  const advised = new Set<string>();
  const stopAdvice = onAdvice((advice) => {
    if (advised.has(advice.message)) return;
    advised.add(advice.message);
    logger.warn({ event: advice.event }, advice.message);
  });
  const deps: SearchDeps = {
    db,
    engines: { primary, postgres, gate: config.messageSearch },
    logger,
    now: Date.now,
    appUrl: config.appUrl,
  };
  let closing: Promise<void> | undefined;
  return {
    deps,
    config,
    version: readVersion(),
    demo,
    startDatabase: begin ?? (() => undefined),
    close() {
      closing ??= (async () => {
        stopAdvice();
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
