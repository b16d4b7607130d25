/** The Postgres pools: read-only sessions with a statement timeout, typed parsing, failures mapped once. */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { MESSAGES, SearchError } from '../errors.js';
import type { Db, SqlQuery } from './db.js';

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
 * connection pays for a new one and for a backend whose catalog caches are empty: after 35 s
 * idle a conversations search at M took 54–80 ms against 9 warm, when connections closed after
 * 30 s. At most the pool's size of connections stay open (SEARCHDESK_PG_POOL_SIZE), in each of
 * the two pools (createPgDb).
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
 * freed, and trims its heap past twice that: a fresh backend faulted in its memory afresh on every
 * statement (600 page faults a run of a 20,000-row sort, 1 once warmed; test/pool.test.ts), and a
 * rare word in one inbox at L took 6.4 ms on it against 5.2 on a backend that had once freed a
 * large block. glibc raises both thresholds to the largest block freed, so after this one the
 * backend keeps up to 8 MB of freed heap for its next statements, as a long-lived backend of any
 * busy application ends up doing. It costs 10–20 ms once per connection (connections stay open
 * ten minutes idle: PG_IDLE_TIMEOUT_MS). Another allocator (musl) or thresholds set by the DBA
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
 * after the statement that opened it rather than before, so that no caller waits for it. The
 * stdio server's start waited for it on the token check: 195 → 161 ms from spawn to the answer
 * of tools/list (median of 15, a 2-core machine). A statement given the connection meanwhile runs
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
 * orders (a nine-table conversation statement planned in 3.3 ms, now 2.0 ms) and no join order
 * depends on its estimates. jit=off: searchdesk's statements read few rows by design, but an
 * estimate the planner cannot make (a generate_series over a column's value, a set-returning
 * function: 1,000 rows each) can price one above jit_above_cost, and compiling it then costs
 * 50–60 ms of a statement that runs in 2 (the display-id candidates at L). enable_memoize=off:
 * a walk's per-row lookups are by keys that rarely repeat (each conversation's contact), where a
 * Memoize node only adds a hash probe and an insert per row: the conversations window over 1,000
 * rows at M took 10.5 ms with it, 6.8 without. plan_cache_mode: `perRun`
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
 * How many statement texts one pool prepares. Past it a new text runs unnamed, as every statement
 * did before. searchdesk's builders take every caller value as a parameter, so their texts are few:
 * 2,205 statements of the bench's workloads at M (both variants) used 36 texts; 29 of them take
 * 5 MB of a backend's memory.
 */
export const MAX_PREPARED_STATEMENTS = 64;

/**
 * How many of those texts may name an account (SqlQuery.anyAccount): a message window names its
 * account so that its one plan is weighed for it, and without this bound a few accounts' windows
 * would take every name and leave the other statements unprepared.
 */
export const MAX_ACCOUNT_STATEMENTS = 24;

interface Statement {
  name: string;
  text: string;
}

/**
 * The names of a pool's prepared statements. Every connection parses a named statement once and
 * then sends only its values: a 0.7–4.5 kB statement skips parsing, analysis and the text on the
 * wire, 0.06–0.27 ms of a statement that takes 0.2–2 ms (M, a loop over each of the bench's
 * statements, named against unnamed on one connection).
 */
export class PreparedStatements {
  private readonly statements = new Map<string, Statement>();
  private accountStatements = 0;
  private generation = 1;

  constructor(
    private enabled: boolean,
    private readonly logger: Logger,
    private readonly limit = MAX_PREPARED_STATEMENTS,
    private readonly accountLimit = MAX_ACCOUNT_STATEMENTS,
  ) {}

  /**
   * Runs `q` on `pool`, prepared under its text's name while there is one; a statement planned
   * once (SqlQuery.planOnce) on `once`, a pool whose sessions keep a prepared statement's first
   * plan (sessionOptions), when there is one. Unprepared, every statement runs on `pool`: a
   * session that keeps plans would give an unnamed statement a generic plan too.
   */
  async query<R extends object>(pool: pg.Pool, q: SqlQuery, once?: pg.Pool): Promise<pg.QueryResult<R>> {
    const statement = this.statementOf(q);
    if (statement === undefined)
      return q.anyAccount ? this.query<R>(pool, q.anyAccount(), once) : pool.query<R>(q.text, q.values);
    try {
      // The kept text, not this call's: each connection remembers the text of what it prepared,
      // and ten connections would otherwise each hold their own copies (1–2 MB more live heap,
      // which the garbage collector multiplied into 20–35 MB more peak RSS at concurrency 32).
      return await ((q.planOnce && once) || pool).query<R>({ name: statement.name, text: statement.text, values: q.values });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === '26000' || code === '42P05') {
        // A statement prepared on one connection is missing, or already there, on the server:
        // something between us and Postgres (a pooler in transaction mode) moves sessions.
        this.enabled = false;
        this.logger.warn(
          { event: 'pg_prepared_statements_off', code },
          'Postgres lost a prepared statement between two calls (a connection pooler in transaction mode?); running unprepared from now on — set SEARCHDESK_PG_PREPARED_STATEMENTS=off',
        );
      } else if (code === '0A000') {
        // "cached plan must not change result type": a table's columns changed under the prepared
        // statement (a migration), and that connection refuses it from now on. Prepared afresh
        // under a new name; any other 0A000 fails again unprepared and is thrown from there.
        this.statements.delete(q.text);
        if (q.anyAccount) this.accountStatements--;
        this.generation++;
      } else {
        throw err;
      }
      return pool.query<R>(q.text, q.values);
    }
  }

  /**
   * The name of a statement with values: its text's hash, so that two instances over one pool
   * (the bench's) never give one name two texts; a text prepared afresh after a migration gets
   * a new suffix.
   */
  private statementOf({ text, values, anyAccount }: SqlQuery): Statement | undefined {
    // A statement without values goes as a simple query, as before: admin commands send several
    // statements in one text (db setup), which a prepared statement cannot hold.
    if (!this.enabled || values.length === 0) return undefined;
    const known = this.statements.get(text);
    if (known !== undefined || this.statements.size >= this.limit) return known;
    if (anyAccount) {
      if (this.accountStatements >= this.accountLimit) return undefined;
      this.accountStatements++;
    }
    const hash = createHash('sha1').update(text).digest('hex').slice(0, 24);
    const statement = { name: `searchdesk_${hash}_${this.generation}`, text };
    this.statements.set(text, statement);
    return statement;
  }
}

/**
 * The Postgres Db. Two pools of up to `poolSize` connections each when statements are prepared:
 * one plans every statement for its values, the other keeps the first plan of the statements
 * whose plan cannot change (SqlQuery.planOnce). Planning is most of a short statement's cost
 * (0.1–0.5 ms of statements of 0.3–3 ms at M) and such a statement is planned alike every time.
 * Two pools rather than a SET on one: a setting changed for one statement would be left on the
 * session for the next, and behind a pooler on another client's statements.
 */
export function createPgDb(opts: PgDbOptions): Db {
  const preparedOn = opts.preparedStatements ?? true;
  const newPool = (plans: PlanCache) => {
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
  };
  const pool = newPool('perRun');
  // Without prepared statements nothing is planned once: an unnamed statement is planned on every run.
  const once = preparedOn ? newPool('once') : undefined;
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
