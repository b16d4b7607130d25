/** The Postgres pools: read-only sessions with a statement timeout, typed parsing, failures mapped once. */
import pg from 'pg';
import type { Logger } from '../logger.js';
import { MESSAGES, SearchError } from '../errors.js';
import type { Db, SqlQuery } from './db.js';
import { PreparedStatements } from './prepared.js';

export { PreparedStatements } from './prepared.js';

export interface PgDbOptions {
  url: string;
  /** Search sessions are read-only; only explicit admin commands open a writable pool. */
  readOnly: boolean;
  /** Statement timeout in ms; 0 disables it (admin commands such as index builds). */
  statementTimeoutMs: number;
  poolSize: number;
  logger: Logger;
  /** Statements prepared by name on each connection (SEARCHDESK_PG_PREPARED_STATEMENTS); default on. */
  preparedStatements?: boolean;
  /** Name reported to Postgres (pg_stat_activity.application_name). */
  applicationName?: string;
}

const INT8_OID = 20;

/**
 * How long an idle connection stays open: ten minutes, as PgBouncer's server_idle_timeout and
 * HikariCP's idleTimeout. An assistant calls now and then, and a call that finds no open
 * connection pays for a new one and a backend whose catalog caches are empty
 * (docs/plans.md#database-sessions). At most the pool's size stay open, in each of the two pools.
 */
export const PG_IDLE_TIMEOUT_MS = 10 * 60_000;

/**
 * TCP keep-alive on every connection, first probe after a minute idle: an idle connection kept
 * that long must not be dropped by a NAT or firewall in between (AWS NAT gateways forget a flow
 * after 350 s), and a server that went away is noticed before the next search uses it.
 */
export const PG_KEEPALIVE_DELAY_MS = 60_000;

/**
 * What every new connection runs after its first statement: one allocation of 4 MB, freed at once.
 * A Postgres backend allocates a statement's larger blocks (a bitmap of trigram candidates, a sort)
 * with malloc, and glibc hands memory of more than 128 kB straight back to the system when it is
 * freed, and trims its heap past twice that: a fresh backend faults in its memory afresh on every
 * statement (test/pool.test.ts; docs/plans.md#database-sessions). glibc raises both thresholds to
 * the largest block freed, so after this one the backend keeps up to 8 MB of freed heap for its
 * next statements, as a long-lived backend of any busy application ends up doing; it is paid once
 * per connection (PG_IDLE_TIMEOUT_MS). Another allocator (musl) or thresholds set by the DBA
 * (MALLOC_MMAP_THRESHOLD_) make it a plain 4 MB allocation and nothing more.
 */
export const ALLOCATOR_WARM_UP = "SELECT length(repeat(repeat('x', 1024), 4096)) AS searchdesk_warm_up";

/**
 * The pool option that runs ALLOCATOR_WARM_UP on each new connection before the pool hands it
 * out (pg's onConnect, awaited: the statement that asked for the connection runs after it). The
 * bench's pools use it, so that both sides' first measured statements run warm; the server warms
 * after the first statement instead (warmUpAfterFirstUse). A failure is the connection's, which
 * the statement that follows reports: it is not one here.
 */
export const warmUpOnConnect = {
  onConnect: async (client: pg.ClientBase): Promise<void> => {
    await client.query(ALLOCATOR_WARM_UP).catch(() => undefined);
  },
};

/**
 * Runs ALLOCATOR_WARM_UP on each connection of `pool` once, when the pool first gets it back:
 * after the statement that opened it rather than before, so that no caller waits for it (the stdio
 * start's token check did: docs/plans.md#database-sessions). A statement given the connection meanwhile runs
 * after it (pg queues a client's statements); a failure is the connection's, as above.
 */
export function warmUpAfterFirstUse(pool: pg.Pool): void {
  const warmed = new WeakSet<pg.PoolClient>();
  pool.on('release', (err: Error | undefined, client: pg.PoolClient) => {
    if (err || warmed.has(client)) return;
    warmed.add(client);
    client.query(ALLOCATOR_WARM_UP).catch(() => undefined);
  });
}

/** int8 → number: ids and epoch seconds fit in 2^53; feature flags are only ever tested in SQL. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): ((value: string) => unknown) =>
    oid === INT8_OID
      ? (v: string) => Number(v)
      : (pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown)) as typeof pg.types.getTypeParser,
};

/**
 * SQLSTATE 57014 (query_canceled): on the search path only the statement timeout cancels a query,
 * so it is a slow search, not an outage — the caller can narrow it.
 */
export function isStatementTimeout(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '57014';
}

/** SQLSTATE classes and socket errors that mean "the backend is not answering", not "our bug". */
export function isBackendUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    // Connection (08), operator intervention incl. statement timeout (57), insufficient resources (53),
    // failed login (28) and a missing database (3D000): the backend is not usable, not our bug.
    if (['08', '57', '53', '28'].some((c) => code.startsWith(c)) || code === '3D000') return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE', 'EAI_AGAIN'].includes(code))
      return true;
  }
  const message = (err as { message?: unknown }).message;
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error/i.test(
      message,
    )
  );
}

/**
 * The settings of every searchdesk session, as a libpq `options` string. join_collapse_limit=1:
 * explicit JOINs run in the order they are written. Every statement is written driving from its
 * narrowest set (the page's ids, then their decorations), so the planner need not search join
 * orders and no join order depends on its estimates. jit=off: searchdesk's statements read few
 * rows by design, but an estimate the planner cannot make (a set-returning function: 1,000 rows)
 * can price one above jit_above_cost, and compiling then costs many times the statement.
 * enable_memoize=off: a walk's per-row lookups are by keys that rarely repeat (each
 * conversation's contact), where Memoize only adds a hash probe and an insert per row
 * (docs/plans.md#database-sessions for all three). plan_cache_mode: `perRun`
 * (force_custom_plan), a prepared statement (below) is still planned for its values on every
 * run, as an unnamed one is, never with a generic plan that cannot see how selective a pattern
 * or a window is; `once` (force_generic_plan), the sessions of the statements whose plan is the
 * same whatever their values (SqlQuery.planOnce), planned once per connection.
 */
export function sessionOptions(statementTimeoutMs: number, readOnly: boolean, plans: PlanCache = 'perRun'): string {
  const options = [
    `-c statement_timeout=${statementTimeoutMs}`,
    '-c join_collapse_limit=1',
    '-c jit=off',
    '-c enable_memoize=off',
    `-c plan_cache_mode=${plans === 'once' ? 'force_generic_plan' : 'force_custom_plan'}`,
  ];
  if (readOnly) options.push('-c default_transaction_read_only=on');
  return options.join(' ');
}

/** How a pool's sessions plan a prepared statement: for its values on every run, or once (sessionOptions). */
export type PlanCache = 'perRun' | 'once';

/**
 * The Postgres Db. Two pools of up to `poolSize` connections each when statements are prepared:
 * one plans every statement for its values, the other keeps the first plan of the statements
 * whose plan cannot change (SqlQuery.planOnce, as a plan's strategy declares it). Planning is
 * most of a short statement's cost, and such a statement is planned alike every time.
 * Two pools rather than a SET on one: a setting changed for one statement would be left on the
 * session for the next, and behind a pooler on another client's statements.
 */
export function createPgDb(opts: PgDbOptions): Db {
  const preparedOn = opts.preparedStatements ?? true;
  const pool = createPool(opts, 'perRun');
  // Without prepared statements nothing is planned once: an unnamed statement is planned on every run.
  const once = preparedOn ? createPool(opts, 'once') : undefined;
  const pools = once ? [pool, once] : [pool];
  const sum = (count: (p: pg.Pool) => number) => pools.reduce((n, p) => n + count(p), 0);
  const prepared = new PreparedStatements(preparedOn, opts.logger);

  const db: Db = {
    kind: 'pg',
    async query<R extends object>(q: SqlQuery, label = 'query'): Promise<R[]> {
      const started = performance.now();
      try {
        const res = await prepared.query<R>(pool, q, once);
        opts.logger.debug(
          { event: 'db_query', label, ms: +(performance.now() - started).toFixed(1), rows: res.rowCount },
          'query',
        );
        return res.rows;
      } catch (err) {
        throw mapDbError(err, label, opts.logger);
      }
    },
    async ping() {
      await db.query({ text: 'SELECT 1', values: [] }, 'ping');
    },
    async close() {
      await Promise.all(pools.map((p) => p.end()));
    },
    poolStats: () => ({
      total: sum((p) => p.totalCount),
      idle: sum((p) => p.idleCount),
      waiting: sum((p) => p.waitingCount),
      max: opts.poolSize * pools.length,
    }),
  };
  return db;
}

/** One pool of `opts`, its sessions planning prepared statements as `plans` says (sessionOptions). */
function createPool(opts: PgDbOptions, plans: PlanCache): pg.Pool {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize,
    connectionTimeoutMillis: 3_000,
    idleTimeoutMillis: PG_IDLE_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: PG_KEEPALIVE_DELAY_MS,
    // A client-side bound in case the network, not the server, hangs (0 = no timeout, admin commands).
    query_timeout: opts.statementTimeoutMs > 0 ? opts.statementTimeoutMs + 2_000 : undefined,
    application_name: opts.applicationName ?? 'searchdesk',
    options: sessionOptions(opts.statementTimeoutMs, opts.readOnly, plans),
    types,
  });
  warmUpAfterFirstUse(pool);
  // An idle client losing its connection must not crash the process.
  pool.on('error', (err) =>
    opts.logger.warn(
      { event: 'pg_pool_error', err: { code: (err as { code?: string }).code, message: err.message } },
      'idle Postgres client failed',
    ),
  );
  return pool;
}

/** Logs a database failure (code only, never SQL or values) and returns the caller-facing error. */
export function mapDbError(err: unknown, label: string, logger: Logger): SearchError {
  const code = (err as { code?: string }).code;
  if (isStatementTimeout(err)) {
    logger.warn({ event: 'db_timeout', label, code }, 'Postgres statement timeout');
    return new SearchError('query_timeout', MESSAGES.queryTimeout, { cause: err });
  }
  if (isBackendUnavailable(err)) {
    logger.warn({ event: 'db_unavailable', label, code }, 'Postgres unavailable');
    return new SearchError('backend_unavailable', MESSAGES.backendUnavailable, { cause: err });
  }
  logger.error({ event: 'db_error', label, code, message: (err as Error).message }, 'Postgres query failed');
  return new SearchError('internal', MESSAGES.internal, { cause: err });
}
