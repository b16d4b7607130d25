/**
 * The database seam: the search core talks to a `Db`, which is either a pg pool (server Postgres)
 * or PGlite (the embedded default). SQL stays SQL: builders return `{ text, values }`.
 */

/** A parameterised statement: every caller value is a `$n` placeholder. */
export interface SqlQuery {
  text: string;
  values: unknown[];
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
  /** The pool's size (SEARCHDESK_PG_POOL_SIZE). */
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
