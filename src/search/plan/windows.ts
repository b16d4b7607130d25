/** Windows, written once for every resource (docs/plans.md, How the executor picks): walks of the newest rows in result order. */
import type { SqlParams } from '../../db/db.js';
import { PAGE_SIZE } from '../context.js';
import { COSTS } from './costs.js';

/** The first window's rows, the longest window's, and how much longer than its estimate one is. */
export type WindowLimits = { window: number; walkCap: number; room: number };

/** Whether a window of `window` rows can hold page `page`: every row up to its end plus one. */
export function windowCanHold(page: number, window: number, pageSize = PAGE_SIZE): boolean {
  return page * pageSize + 1 <= window;
}

/**
 * How a window ends after `rows` rows in order `timeOrder` then `idOrder`: after exactly N, or for `needed` ≥ tiesMin matches
 * after the Nth row's whole time (WITH TIES), sorting only its matches; its filter must then be one clause (`ties`, checkClause).
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

/** Rows after row `after` (`time` DESC, id DESC), its time read by key so an index starts there; none once it is deleted. */
export function afterRow(alias: string, table: string, time: string, after: number, p: SqlParams): string[] {
  const id = `${p.add(after)}::bigint`;
  const key = `(SELECT k.${time} FROM ${table} k WHERE k.id = ${id})`;
  return [`${alias}.${time} <= ${key}`, `(${alias}.${time} < ${key} OR ${alias}.id < ${id})`];
}

/** The first step ≥ `n` of ten steps a decade from `least` (100, 126, 158, …), at most `top`; undefined past `top`. */
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

/** A window for a term in `share` of the rows: `room` × the `expected` rows the page needs, up to the cap (none past it). */
export function shareWindow(page: number, share: number, limits: WindowLimits): { rows?: number; expected: number } {
  const expected = (page * PAGE_SIZE + 1) / share;
  if (expected > limits.walkCap) return { expected };
  return { rows: Math.min(limits.walkCap, Math.ceil(expected * limits.room)), expected };
}

/**
 * After a first window of `limits.window` rows gave way with `returned` rows (m matches so far): the longer window's `rows`
 * (room × need × window ÷ m), its `cost` (its rows, or continuing: the rows past the first window + window ÷ m) and what the
 * index `fetched` (tableRows × max(m, candidates) ÷ window). Undefined without a match.
 */
export function weighLongerWindow(
  page: number,
  returned: number,
  tableRows: number | null | undefined,
  limits: WindowLimits,
  candidates = 0,
  continues = false,
) {
  if (returned === 0) return undefined;
  const matched = (page - 1) * PAGE_SIZE + returned;
  const expected = ((page * PAGE_SIZE + 1) * limits.window) / matched;
  const rows = Math.ceil(expected * limits.room);
  const cost = continues ? expected - limits.window + limits.window / matched : rows;
  const fetched = ((tableRows ?? 0) * Math.max(matched, candidates)) / limits.window;
  return { rows, cost, fetched };
}

/** The longer window's rows when no dearer than the index, within the cap and longer than the first; else the index answers. */
export function longerWindow(...args: Parameters<typeof weighLongerWindow>): number | undefined {
  const [, , tableRows, limits] = args;
  if (!(tableRows && tableRows > 0)) return undefined;
  const w = weighLongerWindow(...args);
  return w && w.cost <= w.fetched && w.rows <= limits.walkCap && w.rows > limits.window ? w.rows : undefined;
}
