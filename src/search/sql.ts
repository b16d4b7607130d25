/** SQL fragments every resource builder shares. */
import type { SqlParams } from '../db/db.js';

/** Selects a `timestamp without time zone` column (UTC) as integer Unix seconds. */
export function epoch(column: string): string {
  return `floor(extract(epoch FROM ${column}))::bigint`;
}
/** Inclusive bounds in whole seconds (records show floor(epoch)): `since` from T.000000, `until` up to T.999999. */
export function timeBounds(column: string, since: number | undefined, until: number | undefined, p: SqlParams): string[] {
  const clauses: string[] = [];
  if (since !== undefined) clauses.push(`${column} >= (to_timestamp(${p.add(since)}::double precision) AT TIME ZONE 'UTC')`);
  if (until !== undefined) clauses.push(`${column} < (to_timestamp(${p.add(until + 1)}::double precision) AT TIME ZONE 'UTC')`);
  return clauses;
}
/** Filters that only check rows something else finds, as one clause the planner weighs for no index (true when all are). */
export function checkClause(filters: string[]): string[] {
  return filters.length === 0 ? [] : [`coalesce(${filters.join(' AND ')}, false)`];
}
/** A row count written in a statement planned once (a `$n` LIMIT plans as a tenth): searchdesk's own, never a caller's. */
export function rowCount(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a row count: ${n}`);
  return String(n);
}
/** LIMIT/OFFSET as parameters, or written in the text of a statement planned once (rowCount). */
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
