/** SQL fragments every resource builder shares. */
import type { SqlParams } from '../db/db.js';

/** Selects a `timestamp without time zone` column (UTC) as integer Unix seconds. */
export function epoch(column: string): string {
  return `floor(extract(epoch FROM ${column}))::bigint`;
}

/**
 * Inclusive bounds in whole seconds, for whichever are given: `since` from T.000000 on, `until` up to T.999999 (`< until + 1`),
 * since the database stores microseconds and records show floor(epoch). A record shown as T is then in `since=T` and in
 * `until=T`.
 */
export function timeBounds(column: string, since: number | undefined, until: number | undefined, p: SqlParams): string[] {
  const clauses: string[] = [];
  if (since !== undefined) clauses.push(`${column} >= (to_timestamp(${p.add(since)}::double precision) AT TIME ZONE 'UTC')`);
  if (until !== undefined) clauses.push(`${column} < (to_timestamp(${p.add(until + 1)}::double precision) AT TIME ZONE 'UTC')`);
  return clauses;
}

/**
 * Filters that only check rows something else finds (a key, another index's walk, a window) as one clause the planner does not
 * take apart (kept when all are true): written apart, each is weighed for an index, which may become an unmeant way in.
 */
export function checkClause(filters: string[]): string[] {
  return filters.length === 0 ? [] : [`coalesce(${filters.join(' AND ')}, false)`];
}

/**
 * A row count in the text of a statement planned once (a `$n` LIMIT is planned as a tenth of the rows): searchdesk's own
 * integers only (a page's size, a cap, a ladder step), never a caller's, so few texts.
 */
export function rowCount(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a row count: ${n}`);
  return String(n);
}

/**
 * LIMIT/OFFSET of `limit` rows after `offset`: as parameters, or for a statement planned once (`planOnce`) written in its text
 * (rowCount; no OFFSET when it is 0).
 */
export function limitClause(limit: number, offset: number, p: SqlParams, planOnce = false): string {
  if (planOnce) return `LIMIT ${rowCount(limit)}${offset === 0 ? '' : ` OFFSET ${rowCount(offset)}`}`;
  return `LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`;
}

/** LIMIT/OFFSET for page N, fetching one extra row so `has_more` is exact (limitClause). */
export function pageClause(page: number, pageSize: number, p: SqlParams, planOnce = false): string {
  return limitClause(pageSize + 1, (page - 1) * pageSize, p, planOnce);
}

/** The planner's estimate of a table's rows (reltuples; -1 before ANALYZE), read by a window for the next step's choice. */
export function tableRows(table: 'contacts' | 'conversations' | 'messages'): string {
  return `(SELECT reltuples::float8 FROM pg_class WHERE oid = '${table}'::regclass)`;
}

// The window helpers live in plan/windows.ts (issue 50); re-exported until every resource imports them from there.
export {
  ladderAbove,
  ladderStep,
  longerWindow,
  shareWindow,
  windowCanHold,
  windowCut,
  type WindowLimits,
} from './plan/windows.js';
