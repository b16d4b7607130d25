/**
 * The database seam: the search core talks to a `Db`, which is either a pg pool (server Postgres)
 * or PGlite (the embedded default). SQL stays SQL: builders return `{ text, values }`.
 */

/** A parameterised statement: every caller value is a `$n` placeholder. */
export interface SqlQuery {
  text: string;
  values: unknown[];
  /**
   * The statement's plan is the same whatever its values, so Postgres may plan it once per
   * connection and run that plan again (a generic plan): its way in is fixed by its text (a
   * primary key, a walk of one index, filters written as a check no index serves) and every
   * LIMIT and OFFSET its plan weighs is written in the text, never a `$n` (a generic plan weighs
   * one as a tenth of the rows; the message window's length is the exception, see there). A
   * statement that asks the planner to choose from its values (a pattern's selectivity, which of
   * two indexes) leaves it unset and is planned for its values on every run. A search plan's
   * strategy declares it (Strategy.caching, src/search/plan/strategy.ts) and the executor sets
   * it; its builders never do.
   */
  planOnce?: boolean;
  /**
   * Set when the text names an account (its id written in it, so that a plan made once is
   * weighed for that account's rows): the same statement with the account a parameter, planned
   * for its values. Such texts multiply with the accounts searched, so only a few of them are
   * prepared (MAX_ACCOUNT_STATEMENTS); past those, this one runs instead. Set by the plan
   * executor for a strategy whose caching is `oncePerAccount`.
   */
  anyAccount?: () => SqlQuery;
}

export interface Db {
  /** Runs one statement and returns its rows. Backend failures become SearchError backend_unavailable. */
  query<R extends object>(q: SqlQuery, label?: string): Promise<R[]>;
  /** Answers when the database answers; throws SearchError backend_unavailable otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
  readonly kind: 'pg' | 'pglite';
  /** The connection pool's state (server Postgres only), for the metrics. */
  poolStats?(): PoolStats;
}

export interface PoolStats {
  /** Open connections, idle or busy. */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
  /** The most connections it may open: SEARCHDESK_PG_POOL_SIZE in each of its pools (createPgDb). */
  max: number;
}

/** Builds `{ text, values }` while appending values and handing back their placeholders. */
export class SqlParams {
  readonly values: unknown[] = [];
  /** Adds a value and returns its placeholder, e.g. `$3`. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
