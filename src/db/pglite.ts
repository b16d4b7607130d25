/**
 * The embedded default: PGlite (Postgres compiled to WASM, in-process) in a data directory, filled
 * with the demo help desk on first start and reused afterwards. Same `Db` contract as pg.ts:
 * int8 parsed to number, a read-only session, failures mapped by `mapDbError`.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Logger } from '../logger.js';
import type { Db, SqlQuery } from './db.js';
import { buildDemoData, DEMO_COLUMNS, DEMO_VERSION, demoInfo, type DemoInfo, type DemoRow, type DemoTable } from './demo-data.js';
import { mapDbError } from './pg.js';
import { applySchema } from './schema.js';

export interface EmbeddedDbOptions {
  /** searchdesk's directory: the Postgres cluster lives in `pgdata/` inside it, next to a lock file. */
  dataDir: string;
  logger: Logger;
  /** Clock (ms) used as the demo's creation time on first start. */
  now?: () => number;
}

export interface EmbeddedDb {
  db: Db;
  demo: DemoInfo;
  /** True when this start created the database and its demo data. */
  created: boolean;
}

/** Records that (and when) searchdesk created this database; no production table has this name. */
const MARKER_TABLE = 'searchdesk_demo';
const LOCK_FILE = 'searchdesk.lock';
/** Properties of a PGlite error that carry the statement and its values. */
const STATEMENT_KEYS = new Set(['query', 'params', 'queryOptions']);

/** Opens (creating on first start) the embedded demo database. Errors are one clear line. */
export async function openEmbeddedDb(opts: EmbeddedDbOptions): Promise<EmbeddedDb> {
  mkdirSync(opts.dataDir, { recursive: true });
  const release = acquireLock(opts.dataDir, opts.logger);
  try {
    const started = performance.now();
    const pg = await startPglite(join(opts.dataDir, 'pgdata'), opts.dataDir);
    try {
      const created = await ensureDemo(pg, opts, performance.now() - started);
      // From here on the session only reads, like the read-only pg pool.
      await pg.exec('SET default_transaction_read_only = on');
      return { db: createPgliteDb(pg, opts.logger, release), demo: demoInfo(), created };
    } catch (err) {
      await pg
        .close()
        .catch((closeErr: unknown) => opts.logger.warn({ event: 'embedded_db_close_failed', err: closeErr }, 'close failed'));
      throw err;
    }
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Creates the demo unless this directory already has it, or recreates it when it is from an older
 * searchdesk (its schema and rows may lack what this version reads); true when created now.
 */
async function ensureDemo(pg: PGlite, opts: EmbeddedDbOptions, openMs: number): Promise<boolean> {
  const { dataDir, logger } = opts;
  const marker = await readMarker(pg, dataDir);
  const older = marker !== null && marker.version < DEMO_VERSION;
  if (marker !== null && !older) {
    if (marker.version !== DEMO_VERSION) {
      logger.warn(
        { event: 'embedded_db_newer_demo', dataDir, version: marker.version, current: DEMO_VERSION },
        `the demo data is from a newer searchdesk; delete ${dataDir} to recreate it for this one`,
      );
    }
    logger.info({ event: 'embedded_db_opened', dataDir, open_ms: Math.round(openMs) }, 'opened the embedded demo database');
    return false;
  }
  if (older) {
    logger.info(
      { event: 'embedded_db_old_demo', dataDir, version: marker.version, current: DEMO_VERSION },
      'the demo data is from an older searchdesk: recreating it',
    );
  }
  const started = performance.now();
  await createDemo(pg, Math.floor((opts.now ?? Date.now)() / 1000) * 1000, older);
  logger.info(
    { event: 'embedded_db_created', dataDir, open_ms: Math.round(openMs), load_ms: Math.round(performance.now() - started) },
    'created the embedded demo database',
  );
  return true;
}

/** Wraps an open PGlite as a `Db`. PGlite is one connection: it queues concurrent queries itself. */
function createPgliteDb(pg: PGlite, logger: Logger, release: () => void): Db {
  let closing: Promise<void> | undefined;
  const db: Db = {
    kind: 'pglite',
    async query<R extends object>(q: SqlQuery, label = 'query'): Promise<R[]> {
      const started = performance.now();
      try {
        const res = await pg.query<R>(q.text, q.values);
        logger.debug({ event: 'db_query', label, ms: +(performance.now() - started).toFixed(1), rows: res.rows.length }, 'query');
        return res.rows;
      } catch (err) {
        throw mapDbError(pg.closed ? closedError(err) : withoutStatement(err), label, logger);
      }
    },
    async ping() {
      await db.query({ text: 'SELECT 1', values: [] }, 'ping');
    },
    close() {
      closing ??= pg.close().finally(release);
      return closing;
    },
  };
  return db;
}

/**
 * PGlite attaches the SQL text and parameter values (an access token, a caller's query) to its
 * errors; pg does not. Surfaces log the cause of an internal error, so keep only what pg keeps.
 */
function withoutStatement(err: unknown): unknown {
  if (!(err instanceof Error) || !('params' in err || 'query' in err)) return err;
  const copy = Object.assign(new Error(err.message), { stack: err.stack });
  for (const [key, value] of Object.entries(err as object) as Array<[string, unknown]>)
    if (!STATEMENT_KEYS.has(key)) Object.assign(copy, { [key]: value });
  return copy;
}

/** A closed PGlite is a connection that no longer exists (SQLSTATE 08003): backend unavailable. */
function closedError(cause: unknown): Error {
  return Object.assign(new Error('embedded database is closed', { cause }), { code: '08003' });
}

async function startPglite(pgDir: string, dataDir: string): Promise<PGlite> {
  // A failed WASM start sets the exit code on its way out; the caller decides how to exit.
  const exitCode = process.exitCode;
  try {
    return await PGlite.create({
      dataDir: pgDir,
      extensions: { pg_trgm },
      // int8 → number, as in pg.ts: ids and epoch seconds fit in 2^53; flags are tested in SQL.
      parsers: { [types.INT8]: (v: string) => Number(v) },
    });
  } catch (err) {
    process.exitCode = exitCode;
    throw new Error(
      `cannot open the embedded database in ${pgDir} (${firstLine(err)}); it may be damaged or from an incompatible version: delete ${dataDir} to recreate the demo data`,
      { cause: err },
    );
  }
}

async function readMarker(pg: PGlite, dataDir: string): Promise<{ version: number } | null> {
  const present = await pg.query<{ marker: boolean; accounts: boolean }>(
    `SELECT to_regclass('public.${MARKER_TABLE}') IS NOT NULL AS marker, to_regclass('public.accounts') IS NOT NULL AS accounts`,
  );
  const row = present.rows[0];
  if (row?.marker) {
    const res = await pg.query<{ version: number }>(`SELECT version FROM ${MARKER_TABLE} ORDER BY created_at DESC LIMIT 1`);
    return { version: res.rows[0]?.version ?? 0 };
  }
  // The demo is created in one transaction with its marker: tables without a marker are not ours.
  if (row?.accounts)
    throw new Error(
      `the embedded database in ${dataDir} holds tables searchdesk did not create; use another SEARCHDESK_DATA_DIR`,
    );
  return null;
}

/**
 * Schema, every demo row and the marker, in one transaction: a crash leaves nothing half-made.
 * `replace`: an older demo is there; the schema brings its tables up to date (it only adds),
 * then its rows and marker make way.
 */
async function createDemo(pg: PGlite, nowMs: number, replace: boolean): Promise<void> {
  const data = buildDemoData(nowMs);
  await pg.transaction(async (tx) => {
    await applySchema(async (sql) => {
      await tx.exec(sql);
    });
    if (replace) {
      await tx.exec(`TRUNCATE ${Object.keys(DEMO_COLUMNS).join(', ')} RESTART IDENTITY; DROP TABLE ${MARKER_TABLE}`);
    }
    for (const table of Object.keys(DEMO_COLUMNS) as DemoTable[]) {
      const rows = data.tables[table];
      if (rows.length === 0) continue;
      const insert = buildInsert(table, rows);
      await tx.query(insert.text, insert.values);
      await resetSequence(tx, table);
    }
    await tx.exec(`CREATE TABLE ${MARKER_TABLE} (version integer NOT NULL, created_at timestamp NOT NULL)`);
    await tx.query(
      `INSERT INTO ${MARKER_TABLE} (version, created_at) VALUES ($1, to_timestamp($2::double precision) AT TIME ZONE 'UTC')`,
      [DEMO_VERSION, nowMs / 1000],
    );
  });
}

/**
 * One statement per table: the rows travel as one JSON parameter and `jsonb_to_recordset` turns
 * them back into typed columns; `time` columns (Unix seconds) become UTC timestamps.
 */
export function buildInsert(table: DemoTable, rows: readonly DemoRow[]): SqlQuery {
  const spec: Record<string, string> = DEMO_COLUMNS[table];
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  for (const c of columns) if (!(c in spec)) throw new Error(`demo row of ${table} has unknown column ${c}`);
  const definitions = columns.map((c) => `${c} ${spec[c] === 'time' ? 'double precision' : spec[c]}`);
  const selects = columns.map((c) => (spec[c] === 'time' ? `to_timestamp(x.${c}) AT TIME ZONE 'UTC'` : `x.${c}`));
  return {
    text: `INSERT INTO ${table} (${columns.join(', ')}) SELECT ${selects.join(', ')} FROM jsonb_to_recordset($1::jsonb) AS x(${definitions.join(', ')})`,
    values: [JSON.stringify(rows)],
  };
}

/** Rows carry explicit ids; move the serial on so the sequences agree with the data. */
async function resetSequence(tx: Transaction, table: DemoTable): Promise<void> {
  await tx.query(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT max(id) FROM ${table}))`);
}

/**
 * PGlite has no lock of its own: two processes on one directory would corrupt it. A lock file
 * with our pid; one left by a process that no longer runs is taken over.
 */
function acquireLock(dataDir: string, logger: Logger): () => void {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
      return () => releaseLock(path, logger);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new Error(`cannot lock the embedded database directory ${dataDir}: ${firstLine(err)}`, { cause: err });
      }
    }
    const holder = readLockHolder(path);
    if (holder === 'gone') continue;
    if (holder === process.pid) throw new Error(`the embedded database in ${dataDir} is already open in this process`);
    if (holder === 'starting' || isRunning(holder)) {
      const who = holder === 'starting' ? 'another searchdesk process' : `another searchdesk process (pid ${holder})`;
      throw new Error(
        `the embedded database in ${dataDir} is in use by ${who}; stop it or set SEARCHDESK_DATA_DIR to another directory`,
      );
    }
    logger.warn({ event: 'embedded_db_stale_lock', dataDir, pid: holder }, 'taking over a lock left by a process that is gone');
    rmSync(path, { force: true });
  }
  throw new Error(`cannot lock the embedded database directory ${dataDir}: another process keeps taking the lock`);
}

/** The pid in a lock file; `starting` while a fresh file has no pid yet; `gone` if it vanished. */
function readLockHolder(path: string): number | 'starting' | 'gone' {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    if (Number.isInteger(pid) && pid > 0) return pid;
    // Written by `wx` in one call, so an empty file is either being written now or garbage.
    return Date.now() - statSync(path).mtimeMs < 10_000 ? 'starting' : 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw err;
  }
}

function releaseLock(path: string, logger: Logger): void {
  try {
    if (Number.parseInt(readFileSync(path, 'utf8'), 10) === process.pid) rmSync(path, { force: true });
  } catch (err) {
    logger.warn(
      { event: 'embedded_db_unlock_failed', path, code: (err as NodeJS.ErrnoException).code },
      'could not remove the lock file',
    );
  }
}

function isRunning(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0] ?? message;
}
