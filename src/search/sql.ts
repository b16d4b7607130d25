/** SQL fragments every resource builder shares. */
import type { SqlParams } from '../db/db.js';
import { PAGE_SIZE } from './params.js';

/** Selects a `timestamp without time zone` column (UTC) as integer Unix seconds. */
export function epoch(column: string): string {
  return `floor(extract(epoch FROM ${column}))::bigint`;
}

/**
 * Inclusive bounds in whole seconds, for whichever are given: `since` from T.000000 on, `until` up
 * to T.999999 (`< until + 1`), since the database stores microseconds and records show
 * floor(epoch). A record shown as T is then in `since=T` and in `until=T`.
 */
export function timeBounds(column: string, since: number | undefined, until: number | undefined, p: SqlParams): string[] {
  const clauses: string[] = [];
  if (since !== undefined) clauses.push(`${column} >= (to_timestamp(${p.add(since)}::double precision) AT TIME ZONE 'UTC')`);
  if (until !== undefined) clauses.push(`${column} < (to_timestamp(${p.add(until + 1)}::double precision) AT TIME ZONE 'UTC')`);
  return clauses;
}

/** LIMIT/OFFSET for page N, fetching one extra row so `has_more` is exact. */
export function pageClause(page: number, pageSize: number, p: SqlParams): string {
  return `LIMIT ${p.add(pageSize + 1)} OFFSET ${p.add((page - 1) * pageSize)}`;
}

/**
 * Whether a newest-first window of `window` rows can answer page `page`: it must be able to hold
 * every row up to the page's end plus the one that tells `has_more`.
 */
export function windowCanHold(page: number, window: number, pageSize = PAGE_SIZE): boolean {
  return page * pageSize + 1 <= window;
}
