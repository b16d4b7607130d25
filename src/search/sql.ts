/** SQL fragments every resource builder shares. */
import type { SqlParams } from '../db/db.js';
import { PAGE_SIZE } from './context.js';

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

/**
 * Filters that only check rows something else finds (a primary key, another index's walk, a
 * window), as one clause the planner does not take apart: kept only when every filter is true, as
 * a plain AND keeps a row. Written apart, each filter is weighed for an index and a selectivity
 * on every plan (the account, the searchable types, the window, fifty inboxes), and an index it
 * matches becomes a way in that the statement does not mean to take. None: no clause.
 */
export function checkClause(filters: string[]): string[] {
  return filters.length === 0 ? [] : [`coalesce(${filters.join(' AND ')}, false)`];
}

/**
 * A row count written in the text of a statement planned once (SqlQuery.planOnce): a LIMIT or
 * OFFSET the planner weighs must be in the text, since a parameter there is taken as a tenth of
 * the rows. An integer of searchdesk's own (a page's size, a cap), never a caller's text; each
 * value is a text of its own, so only a few values are ever written this way.
 */
export function rowCount(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a row count: ${n}`);
  return String(n);
}

/**
 * The value of a short ladder, least × 2^(k/3) for k = 0…10 (ten times the least at most), nearest
 * to `n` in ratio: a size chosen by a balance of costs, which a fifth either way changes little,
 * written as one of eleven texts (rowCount).
 */
export function ladderStep(n: number, least: number): number {
  const k = Math.min(10, Math.max(0, Math.round(3 * Math.log2(n / least))));
  return Math.min(10 * least, Math.round(least * 2 ** (k / 3)));
}

/**
 * LIMIT/OFFSET of `limit` rows after `offset`: as parameters, or for a statement planned once
 * (`planOnce`) written in its text (rowCount; no OFFSET when it is 0).
 */
export function limitClause(limit: number, offset: number, p: SqlParams, planOnce = false): string {
  if (planOnce) return `LIMIT ${rowCount(limit)}${offset === 0 ? '' : ` OFFSET ${rowCount(offset)}`}`;
  return `LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`;
}

/** LIMIT/OFFSET for page N, fetching one extra row so `has_more` is exact (limitClause). */
export function pageClause(page: number, pageSize: number, p: SqlParams, planOnce = false): string {
  return limitClause(pageSize + 1, (page - 1) * pageSize, p, planOnce);
}

/** The least window length planned once (ladderAbove). */
const LADDER_LEAST = 100;

/**
 * The first step at or above `n` of a ladder of ten steps a decade from 100 (100, 126, 158, 200,
 * …), the last step `top` itself; undefined past `top`. A window's length planned once is written
 * in the text (rowCount), so it is rounded up to this ladder: a window is exact however much
 * longer than asked, and few texts name each account.
 */
export function ladderAbove(n: number, top: number): number | undefined {
  // Written so that NaN is past the top too (the loop below would never end).
  if (!(n <= top)) return undefined;
  for (let k = 0; ; k++) {
    const rows = Math.round(LADDER_LEAST * 10 ** (k / 10));
    if (rows >= n) return Math.min(rows, top);
  }
}

/**
 * Whether a newest-first window of `window` rows can answer page `page`: it must be able to hold
 * every row up to the page's end plus the one that tells `has_more`.
 */
export function windowCanHold(page: number, window: number, pageSize = PAGE_SIZE): boolean {
  return page * pageSize + 1 <= window;
}

/**
 * Matches a window's page must still find for its walk to skip sorting every row by id (see
 * windowCut). That sort is about a fifth of a window's cost a row; without it, the page reads on
 * to the match after its last one, 1/k more rows for a page that needs k: worth it from about
 * five.
 */
const TIES_MIN_MATCHES = 5;

/**
 * How a newest-first window ends after `rows` rows (a parameter), in result order `timeOrder`
 * (the time, as an index holds it) then `idOrder`. The index holds the time, not the id, so a
 * window cut after exactly N rows sorts every row it reads by id within its time (an incremental
 * sort: 0.3–0.6 µs a row, a sixth of a contacts window of Taylor at M). When the page needs
 * `needed` ≥ TIES_MIN_MATCHES matches, the window ends after its Nth row's whole time instead
 * (FETCH FIRST … WITH TIES: still a prefix of the result order, so exact the same way), and only
 * its matches are sorted by id. Its filter must then be one clause to the planner (`ties`: see
 * checkClause), which it estimates at half the window's rows rather than a fraction of a percent
 * for a regular expression: the page's sort is then the incremental one that stops when the page
 * is full, not a sort of every match (a contacts window of `example`: 0.31 against 1.29 ms). In
 * that clause the filters run in the order written: the cheapest first.
 */
export function windowCut(timeOrder: string, idOrder: string, rows: string, needed: number): { cut: string; ties: boolean } {
  const ties = needed >= TIES_MIN_MATCHES;
  const cut = ties
    ? `ORDER BY ${timeOrder} FETCH FIRST ${rows} ROWS WITH TIES`
    : `ORDER BY ${timeOrder}, ${idOrder} LIMIT ${rows}`;
  return { cut, ties };
}

/** The sizes of a newest-first window search. */
export interface WindowLimits {
  /** Rows of the first window. */
  window: number;
  /** Rows of the longest second window. */
  walkCap: number;
  /** How much longer than its estimate the second window is (1.5: half again as many rows). */
  room: number;
}

/**
 * SQL for the planner's estimate of a table's rows (pg_class.reltuples: -1 before the first
 * ANALYZE), read by a window statement so that choosing the next strategy costs no round trip.
 */
export function tableRows(table: 'contacts' | 'conversations' | 'messages'): string {
  return `(SELECT reltuples::float8 FROM pg_class WHERE oid = '${table}'::regclass)`;
}

/**
 * The size of a second, longer window after the first one (`limits.window` rows) gave way
 * holding `returned` rows of page `page`, or undefined to go to the index instead. The first
 * window is a sample of the newest rows: with m matches in it, the walk fills the page after
 * about need × window / m rows (the outer LIMIT stops it there), while the index fetches about
 * tableRows × c / window rows, c being the sample's rows the index would fetch too
 * (`candidates`: the matches, unless the index only checks a looser prefilter). The longer
 * window is `limits.room` times the estimate, up to `limits.walkCap` rows. A window that starts
 * over is weighed by its whole length (it tests the first window's rows again); one that
 * `continues` from the first window's last match by what is still to pay: the rows past the
 * first window that the page is expected to need, and the first window's rows after its last
 * match, read again (window ÷ matches, on average). With no match in the sample, or no
 * estimate, the index answers.
 */
export function longerWindow(
  page: number,
  returned: number,
  tableRowCount: number | null | undefined,
  limits: WindowLimits,
  candidates = 0,
  continues = false,
): number | undefined {
  if (returned === 0 || !(tableRowCount && tableRowCount > 0)) return undefined;
  const matched = (page - 1) * PAGE_SIZE + returned;
  const need = page * PAGE_SIZE + 1;
  const expected = (need * limits.window) / matched;
  const walk = Math.ceil(expected * limits.room);
  const cost = continues ? expected - limits.window + limits.window / matched : walk;
  const fetched = (tableRowCount * Math.max(matched, candidates)) / limits.window;
  return cost <= fetched && walk <= limits.walkCap && walk > limits.window ? walk : undefined;
}

/**
 * The rows a newest-first window reads for a term in `share` of the rows (estimated from the
 * statistics): `limits.room` times the rows page `page` is expected to need (its rows plus the
 * one telling has_more), up to the cap; undefined when even the expected rows pass the cap.
 * `expected` is those rows, for a caller that weighs them against another strategy.
 */
export function shareWindow(page: number, share: number, limits: WindowLimits): { rows?: number; expected: number } {
  const expected = (page * PAGE_SIZE + 1) / share;
  if (expected > limits.walkCap) return { expected };
  return { rows: Math.min(limits.walkCap, Math.ceil(expected * limits.room)), expected };
}
