/**
 * Windows, written once for every resource: a walk of the newest rows in result order with the
 * match as a filter, exact when it holds the page plus one row; when it does not, what it holds
 * is a prefix of the result and the next step continues after its last match (a longer window)
 * or asks an index. How long a window is, how it ends and whether a longer one beats the index.
 */
import type { SqlParams } from '../../db/db.js';
import { PAGE_SIZE } from '../context.js';
import { COSTS } from './costs.js';

/** The sizes of a newest-first window search. */
export interface WindowLimits {
  /** Rows of the first window. */
  window: number;
  /** Rows of the longest second window. */
  walkCap: number;
  /** How much longer than its estimate the second window is (1.5: half again as many rows). */
  room: number;
}

/** Whether a window of `window` rows can hold page `page`: every row up to its end plus one. */
export function windowCanHold(page: number, window: number, pageSize = PAGE_SIZE): boolean {
  return page * pageSize + 1 <= window;
}

/**
 * How a newest-first window ends after `rows` rows (a `$n` or rowCount), in result order
 * `timeOrder` (as the index holds it) then `idOrder`. Cut after exactly N rows, it sorts every
 * row it reads by id within its time; when the page needs `needed` ≥ tiesMin matches it ends
 * after its Nth row's whole time instead (WITH TIES: still a prefix of the result order) and only
 * its matches are sorted. Its filter must then be one clause (`ties`: see checkClause), or the
 * planner sorts every match instead of stopping at the page; in that clause the cheapest test first.
 */
export function windowCut(
  timeOrder: string,
  idOrder: string,
  rows: string,
  needed: number,
  tiesMin: number = COSTS['windows.tiesMinMatches'].value,
): { cut: string; ties: boolean } {
  const ties = needed >= tiesMin;
  const cut = ties
    ? `ORDER BY ${timeOrder} FETCH FIRST ${rows} ROWS WITH TIES`
    : `ORDER BY ${timeOrder}, ${idOrder} LIMIT ${rows}`;
  return { cut, ties };
}

/**
 * The rows after row `after` in result order (`time` DESC, id DESC) of `table` as `alias`,
 * written so that an index on (…, time) starts there: its time is read by primary key in the
 * statement (a record holds it in whole seconds only). A row deleted in between has no time: no
 * rows, and the next step answers.
 */
export function afterRow(alias: string, table: string, time: string, after: number, p: SqlParams): string[] {
  const id = `${p.add(after)}::bigint`;
  const key = `(SELECT k.${time} FROM ${table} k WHERE k.id = ${id})`;
  return [`${alias}.${time} <= ${key}`, `(${alias}.${time} < ${key} OR ${alias}.id < ${id})`];
}

/**
 * The first step at or above `n` of a ladder of ten steps a decade from `least` (100, 126, 158,
 * 200, …), the last step `top` itself; undefined past `top`. A window length planned once is
 * written in the text, so it is rounded up to this ladder: a longer window is as exact, and few
 * texts name each account.
 */
export function ladderAbove(n: number, top: number, least: number = COSTS['windows.ladderLeast'].value): number | undefined {
  // Written so that NaN is past the top too (the loop below would never end).
  if (!(n <= top)) return undefined;
  for (let k = 0; ; k++) {
    const rows = Math.round(least * 10 ** (k / 10));
    if (rows >= n) return Math.min(rows, top);
  }
}

/** The step of least × 2^(k/3), k = 0…10, nearest to `n` in ratio: eleven texts for a size a fifth either way barely changes. */
export function ladderStep(n: number, least: number): number {
  const k = Math.min(10, Math.max(0, Math.round(3 * Math.log2(n / least))));
  return Math.min(10 * least, Math.round(least * 2 ** (k / 3)));
}

/**
 * The rows a window reads for a term in `share` of the rows: `room` times the rows page `page`
 * is expected to need, up to the cap; `rows` undefined when even the expected rows pass the cap.
 * `expected` is those rows, for a caller that weighs them against another strategy.
 */
export function shareWindow(page: number, share: number, limits: WindowLimits): { rows?: number; expected: number } {
  const expected = (page * PAGE_SIZE + 1) / share;
  if (expected > limits.walkCap) return { expected };
  return { rows: Math.min(limits.walkCap, Math.ceil(expected * limits.room)), expected };
}

/** A longer window after one that gave way, and the index read it is weighed against. */
export interface LongerWindow {
  /** Its rows: `room` times the rows the page is expected to need. */
  rows: number;
  /** What it costs: its rows, or for one that continues, what is still to pay. */
  cost: number;
  /** What the index costs: the rows it fetches, in window rows (tableRows is priced so). */
  fetched: number;
}

/**
 * The first window (`limits.window` rows) gave way holding `returned` rows of page `page`: a
 * sample of the newest rows. With m matches the walk fills the page after need × window / m
 * rows; the index fetches tableRows × max(m, candidates) / window. A window that starts over
 * pays its whole length; one that `continues` after the first one's last match pays the rows
 * past the first window and the first window's rows after its last match (window ÷ m).
 * Undefined without a match.
 */
export function weighLongerWindow(
  page: number,
  returned: number,
  tableRows: number | null | undefined,
  limits: WindowLimits,
  candidates = 0,
  continues = false,
): LongerWindow | undefined {
  if (returned === 0) return undefined;
  const matched = (page - 1) * PAGE_SIZE + returned;
  const expected = ((page * PAGE_SIZE + 1) * limits.window) / matched;
  const rows = Math.ceil(expected * limits.room);
  const cost = continues ? expected - limits.window + limits.window / matched : rows;
  const fetched = ((tableRows ?? 0) * Math.max(matched, candidates)) / limits.window;
  return { rows, cost, fetched };
}

/**
 * The longer window's rows when it is worth it (weighLongerWindow: no dearer than the index,
 * within the cap and longer than the first), else undefined: the index answers, as it does
 * with no match in the sample or no row estimate.
 */
export function longerWindow(
  page: number,
  returned: number,
  tableRows: number | null | undefined,
  limits: WindowLimits,
  candidates = 0,
  continues = false,
): number | undefined {
  if (!(tableRows && tableRows > 0)) return undefined;
  const w = weighLongerWindow(page, returned, tableRows, limits, candidates, continues);
  return w && w.cost <= w.fetched && w.rows <= limits.walkCap && w.rows > limits.window ? w.rows : undefined;
}
