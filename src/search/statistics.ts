/** How common a term is, from pg_stats (docs/plans.md, Statistics), read once per TTL per database: it decides speed only. */
import { STATISTICS_FUNCTIONS } from '../db/catalog.js';
import type { Db } from '../db/db.js';
import { reportAdvice } from '../events.js';
import { COSTS } from './plan/costs.js';
import { foldCase } from './text.js';

/** What pg_stats holds of one column, its values folded. */
export interface ColumnStats {
  nullFrac: number;
  common: Array<{ value: string; share: number }>;
  histogram: string[];
  distinct?: number;
}

/** A table's row estimate (reltuples, 0 when never analysed) and its columns with statistics. */
export type TableStats = { rows: number; columns: Map<string, ColumnStats> };
/** How long statistics are used before they are read again. */
export const STATS_TTL_MS = 5 * 60_000;
type CacheEntry<T> = { stats: T | undefined; loadedAt: number; loading?: Promise<T | undefined> };
const cache = new WeakMap<Db, Map<string, CacheEntry<unknown>>>();

/** `key`'s statistics, loaded once per TTL: the first search waits, later ones take the copy in hand; a failed read keeps it. */
function cached<T>(db: Db, key: string, load: () => Promise<T | undefined>, now: number): T | undefined | Promise<T | undefined> {
  let entries = cache.get(db);
  if (!entries) cache.set(db, (entries = new Map<string, CacheEntry<unknown>>()));
  const entry = entries.get(key) as CacheEntry<T> | undefined;
  if (entry?.loading) return entry.loadedAt ? entry.stats : entry.loading;
  if (entry && now - entry.loadedAt < STATS_TTL_MS) return entry.stats;
  const next: CacheEntry<T> = { stats: entry?.stats, loadedAt: entry?.loadedAt ?? 0 };
  next.loading = load().catch(() => next.stats);
  void next.loading.then((stats) => entries.set(key, { stats, loadedAt: now }));
  entries.set(key, next);
  return next.loadedAt ? next.stats : next.loading;
}

interface StatsRow {
  attname: string;
  null_frac: number | null;
  mcv: string[] | null;
  mcf: number[] | null;
  hist: string[] | null;
  n_distinct: number | null;
  table_rows: number | null;
}

async function load(db: Db, table: string, columns: readonly string[]): Promise<TableStats | undefined> {
  const rows = await db.query<StatsRow>(
    {
      // anyarray → text → text[]: the values as text whatever the column's type.
      text: `SELECT s.attname::text AS attname, s.null_frac::float8 AS null_frac,
                    s.most_common_vals::text::text[] AS mcv, s.most_common_freqs::float8[] AS mcf,
                    s.histogram_bounds::text::text[] AS hist, s.n_distinct::float8 AS n_distinct,
                    (SELECT greatest(c.reltuples, 0)::float8 FROM pg_class c WHERE c.oid = $1::regclass) AS table_rows
             FROM pg_stats s
             WHERE s.schemaname = (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                                   WHERE c.oid = $1::regclass)
               AND s.tablename = $2 AND s.attname = ANY($3::text[]) AND NOT s.inherited`,
      values: [table, table, columns],
      // The catalog by its keys, whatever the table.
      planOnce: true,
    },
    `statistics_${table}`,
  );
  if (rows.length === 0) return undefined;
  const stats: TableStats = { rows: rows[0]?.table_rows ?? 0, columns: new Map() };
  for (const r of rows) {
    const freqs = r.mcf ?? [];
    const nullFrac = r.null_frac ?? 0;
    // n_distinct < 0: a share of the (non-null) rows rather than a count.
    const nDistinct = r.n_distinct ?? 0;
    stats.columns.set(r.attname, {
      nullFrac,
      common: (r.mcv ?? []).map((value, i) => ({ value: foldCase(value), share: freqs[i] ?? 0 })),
      histogram: (r.hist ?? []).map(foldCase),
      distinct: nDistinct >= 0 ? nDistinct : -nDistinct * stats.rows * (1 - nullFrac),
    });
  }
  return stats;
}

/** The statistics of `table`'s `columns` (cached): undefined when there are none to read. */
export async function tableStats(db: Db, table: string, columns: readonly string[], now = Date.now()) {
  return cached(db, `${table}(${columns.join(',')})`, () => load(db, table, columns), now);
}

/** A word index's most common lexemes in code-unit order with their shares; a word none starts is in under `least`. */
export type LexemeStats = { lexemes: string[]; shares: number[]; least: number };

async function loadLexemes(db: Db, index: string): Promise<LexemeStats | undefined> {
  const fn = STATISTICS_FUNCTIONS[index];
  const [row] = await db.query<LexemesRow>(
    {
      // Statistics under the index's name (owner only), and whether this role may call the statistics function instead.
      text: `SELECT s.elems, s.freqs,
                    coalesce(has_function_privilege(to_regprocedure($2::text || '()'), 'EXECUTE'), false) AS callable,
                    to_regclass($1) IS NOT NULL AS indexed,
                    coalesce((SELECT pg_has_role(c.relowner, 'USAGE') FROM pg_class c WHERE c.oid = to_regclass($1)), false) AS owns,
                    to_regprocedure($2::text || '()') IS NOT NULL AS function, current_user::text AS role
             FROM (SELECT 1) one LEFT JOIN (
               SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs::float8[] AS freqs
               FROM pg_stats s
               WHERE s.schemaname = (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                                     WHERE c.oid = to_regclass($1))
                 AND s.tablename = $1 AND s.most_common_elems IS NOT NULL
             ) s ON true`,
      values: [index, fn ?? null],
      planOnce: true,
    },
    `statistics_lexemes_${index}`,
  );
  if (row && !row.elems && row.callable && fn) {
    // pg_stats showed nothing to this role: the statistics function (created by `db indexes`).
    const [viaFunction] = await db.query<{ elems: string[] | null; freqs: number[] | null }>(
      { text: `SELECT elems, freqs FROM ${fn}()`, values: [], planOnce: true },
      `statistics_lexemes_function_${index}`,
    );
    return lexemesOf(viaFunction?.elems, viaFunction?.freqs);
  }
  if (row && fn) adviseOnLexemes(row, fn);
  return lexemesOf(row?.elems, row?.freqs);
}

interface LexemesRow {
  elems: string[] | null;
  freqs: number[] | null;
  callable: boolean;
  indexed: boolean;
  owns: boolean;
  function: boolean;
  role: string;
}

/** Reports what would let a role that reads none of a word index's statistics read them (events.ts). */
function adviseOnLexemes(row: LexemesRow, fn: string): void {
  if (row.elems || !row.indexed || row.owns || row.callable) return;
  const rerun = row.function ? '' : "run `searchdesk db indexes` again as the tables' owner, then ";
  const message = `message searches plan without the word index's statistics, which this role may not read: ${rerun}`;
  reportAdvice({
    event: 'word_statistics_unreadable',
    message: `${message}GRANT EXECUTE ON FUNCTION ${fn}() TO ${row.role} (README, Production)`,
  });
}

/** LexemeStats of most_common_elems and most_common_elem_freqs (two more: the least and greatest share). */
function lexemesOf(elems: string[] | null | undefined, freqs: number[] | null | undefined): LexemeStats | undefined {
  if (!elems || !freqs || elems.length === 0 || freqs.length < elems.length + 2) return undefined;
  const order = elems.map((_, i) => i).sort((a, b) => (elems[a]! < elems[b]! ? -1 : elems[a]! > elems[b]! ? 1 : 0));
  return { lexemes: order.map((i) => elems[i]!), shares: order.map((i) => freqs[i]!), least: freqs[elems.length]! };
}

/** The lexeme statistics of the word index `index` (cached); undefined without them (never analysed). */
export async function lexemeStats(db: Db, index: string, now = Date.now()): Promise<LexemeStats | undefined> {
  return cached(db, `lexemes:${index}`, () => loadLexemes(db, index), now);
}

/** The share of rows holding a word `prefix` starts: its common lexemes' shares added (high side), at most 1. */
export function prefixShare(stats: LexemeStats, prefix: string): number {
  const { lexemes, shares } = stats;
  let lo = 0;
  let hi = lexemes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (lexemes[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  let share = 0;
  for (let i = lo; i < lexemes.length && lexemes[i]!.startsWith(prefix); i++) share += shares[i]!;
  return Math.min(1, share);
}

/** The common values (count, share) and histogram bounds of `col` holding `folded`. */
function sampledHits(col: ColumnStats, folded: string) {
  const common = col.common.filter((c) => c.value.includes(folded));
  const commonShare = common.reduce((sum, c) => sum + c.share, 0);
  return { commonShare, commonValues: common.length, bounds: col.histogram.filter((v) => v.includes(folded)).length };
}

/** Share of one column's rows holding `folded` as a substring, from its common values and histogram. */
function columnShare(col: ColumnStats, folded: string): number {
  const hits = sampledHits(col, folded);
  const rest = Math.max(0, 1 - col.nullFrac - commonIndex(col).total);
  if (col.histogram.length === 0 || rest === 0) return hits.commonShare;
  return hits.commonShare + (rest * hits.bounds) / col.histogram.length;
}

/** The share of rows a term no sampled value holds is in, at most (costs.ts). */
export const UNSEEN_SHARE = COSTS['statistics.unseenShare'].value;

/** Share of rows where `q` is a substring of one of `columns` (the most of any one); 0 when no sampled value holds it. */
export function estimateShare(stats: TableStats, columns: readonly string[], q: string): number | undefined {
  const folded = foldCase(q);
  let share = 0;
  for (const name of columns) {
    const col = stats.columns.get(name);
    if (!col) return undefined;
    share = Math.max(share, Math.min(1, columnShare(col, folded)));
  }
  return share;
}

/** How many sampled values (common values and histogram bounds of `columns`) hold `q`: the evidence behind estimateShare. */
export function sampledValuesHolding(stats: TableStats, columns: readonly string[], q: string): number {
  const folded = foldCase(q);
  let held = 0;
  for (const name of columns) {
    const col = stats.columns.get(name);
    if (!col) continue;
    const hits = sampledHits(col, folded);
    held += hits.commonValues + hits.bounds;
  }
  return held;
}

const commonIndexes = new WeakMap<ColumnStats, { shares: Map<string, number>; total: number }>();

/** `col`'s common values by value and their total share, built once per read of the statistics. */
function commonIndex(col: ColumnStats) {
  let index = commonIndexes.get(col);
  if (!index) {
    const total = col.common.reduce((sum, c) => sum + c.share, 0);
    commonIndexes.set(col, (index = { shares: new Map(col.common.map((c) => [c.value, c.share])), total }));
  }
  return index;
}

/** Estimated share of rows whose `column` is one of `values`: common values' own, others an equal part of the rest. */
export function valuesShare(stats: TableStats, column: string, values: ReadonlyArray<number | string>): number | undefined {
  const col = stats.columns.get(column);
  if (!col) return undefined;
  if (values.length === 1) return listShare(col, values);
  let shares = listShares.get(col);
  if (!shares) listShares.set(col, (shares = new WeakMap()));
  let share = shares.get(values);
  if (share === undefined) shares.set(values, (share = listShare(col, values)));
  return share;
}

/** A list's share (valuesShare) by column statistics and list, itself never changed once made (an access's inboxes). */
const listShares = new WeakMap<ColumnStats, WeakMap<ReadonlyArray<number | string>, number>>();

function listShare(col: ColumnStats, values: ReadonlyArray<number | string>): number {
  const common = commonIndex(col);
  const others = Math.max(1, (col.distinct ?? 0) - col.common.length);
  const rest = Math.max(0, 1 - col.nullFrac - common.total) / others;
  let share = 0;
  const distinct = values.length === 1 ? [String(values[0])] : new Set(values.map(String));
  for (const v of distinct) share += common.shares.get(v) ?? rest;
  return Math.min(1, share);
}

/** Estimated share of an account's rows with one of `values` in `column`, as the planner weighs it. */
export function shareWithinAccount(stats: TableStats, accountId: number, column: string, values: ReadonlyArray<number | string>) {
  const account = valuesShare(stats, 'account_id', [accountId]);
  const share = valuesShare(stats, column, values);
  return share === undefined || !account ? undefined : Math.min(1, share / account);
}
