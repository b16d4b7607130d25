/**
 * How common a term is, from the statistics Postgres already keeps (pg_stats: each column's most
 * common values with their frequencies and a histogram of the rest, from ANALYZE's sample) — what
 * the planner itself knows of a `%q%` match, read once and applied deliberately. A search uses it
 * to choose how far to walk in result order before the trigram index answers, with no statement
 * spent on the choice. The estimate decides speed only: every plan it picks returns the same rows.
 */
import { STATISTICS_FUNCTIONS } from '../db/catalog.js';
import type { Db } from '../db/db.js';
import { reportAdvice } from '../events.js';
import { foldCase } from './text.js';

/** What pg_stats holds of one column, its values folded as every comparison folds them. */
export interface ColumnStats {
  /** Share of NULLs (they never match). */
  nullFrac: number;
  /** Most common values and the share of rows holding each. */
  common: Array<{ value: string; share: number }>;
  /** Histogram bounds: a sample of the values outside `common`. */
  histogram: string[];
  /** Estimated distinct non-null values (absent or 0 when unknown). */
  distinct?: number;
}

export interface TableStats {
  /** The planner's estimate of the table's rows (pg_class.reltuples; 0 when never analysed). */
  rows: number;
  /** Columns with statistics; a column missing here has none. */
  columns: Map<string, ColumnStats>;
}

/** How long statistics are used before they are read again (ANALYZE refreshes them rarely). */
export const STATS_TTL_MS = 5 * 60_000;

interface CacheEntry<T> {
  /** The last statistics read (undefined: there were none). */
  stats: T | undefined;
  loadedAt: number;
  /** A read under way. */
  loading?: Promise<T | undefined>;
}

const cache = new WeakMap<Db, Map<string, CacheEntry<unknown>>>();

/**
 * The statistics `key` names, read by `load` at most once per STATS_TTL_MS per database: the first
 * search waits for them, later ones get the copy in hand while a newer one loads. A failed read
 * keeps what was there (none on a first read) and is tried again after the TTL.
 */
function cached<T>(db: Db, key: string, load: () => Promise<T | undefined>, now: number): T | undefined | Promise<T | undefined> {
  let entries = cache.get(db);
  if (!entries) cache.set(db, (entries = new Map<string, CacheEntry<unknown>>()));
  const entry = entries.get(key) as CacheEntry<T> | undefined;
  if (entry?.loading) return entry.loadedAt ? entry.stats : entry.loading;
  if (entry && now - entry.loadedAt < STATS_TTL_MS) return entry.stats;
  const next: CacheEntry<T> = { stats: entry?.stats, loadedAt: entry?.loadedAt ?? 0 };
  next.loading = load().then(
    (stats) => stats,
    () => next.stats,
  );
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

/**
 * The statistics of `table`'s `columns` (cached): undefined when the table has none (never
 * analysed, or they cannot be read), and the caller plans without them.
 */
export async function tableStats(
  db: Db,
  table: string,
  columns: readonly string[],
  now = Date.now(),
): Promise<TableStats | undefined> {
  return cached(db, `${table}(${columns.join(',')})`, () => load(db, table, columns), now);
}

/**
 * The words ANALYZE found most often in an index of words (a tsvector expression, such as
 * searchdesk_messages_words): its most common lexemes with the share of rows holding each, from a
 * sample of 300 rows per point of the statistics target (30,000 by default) where a table's
 * histogram keeps about a hundred values. A word none of them starts is in fewer rows than
 * `least`, about. Postgres shows an index's statistics (pg_stats) only to roles that own the table
 * (or superusers). Another role reads them through the index's statistics function
 * (STATISTICS_FUNCTIONS, created by `db indexes`) when it was granted EXECUTE on it; without that,
 * it reads none and the caller keeps to the column's statistics.
 */
export interface LexemeStats {
  /** The lexemes, in code-unit order (prefixShare finds a prefix's by binary search). */
  lexemes: string[];
  /** The share of rows holding each lexeme, in the order of `lexemes`. */
  shares: number[];
  /** The least share of a lexeme kept. */
  least: number;
}

async function loadLexemes(db: Db, index: string): Promise<LexemeStats | undefined> {
  const fn = STATISTICS_FUNCTIONS[index];
  const [row] = await db.query<LexemesRow>(
    {
      // An index's expression has its statistics under the index's name; to_regclass: none when
      // there is no such index. `callable`: whether this role may call the index's statistics
      // function (none: false), which a role that does not own the table needs; `indexed`,
      // `owns` and `function`: what to advise a role that reads none (adviseOnLexemes).
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

/**
 * Reports (events.ts) what would let this role read the statistics of a word index it reads none
 * of: a role that neither owns the table nor may call the index's statistics function `fn`
 * plans its message searches without them (a search at L of 38 ms instead of 3.6).
 */
function adviseOnLexemes(row: LexemesRow, fn: string): void {
  if (row.elems || !row.indexed || row.owns || row.callable) return;
  const grant = `GRANT EXECUTE ON FUNCTION ${fn}() TO ${row.role}`;
  reportAdvice({
    event: 'word_statistics_unreadable',
    message: row.function
      ? `message searches plan without the word index's statistics, which this role may not read: ${grant} (README, Production)`
      : `message searches plan without the word index's statistics, which this role may not read: run \`searchdesk db indexes\` again as the tables' owner, then ${grant} (README, Production)`,
  });
}

/** LexemeStats of pg_stats' most_common_elems and most_common_elem_freqs (two more: the least and greatest share). */
function lexemesOf(elems: string[] | null | undefined, freqs: number[] | null | undefined): LexemeStats | undefined {
  if (!elems || !freqs || elems.length === 0 || freqs.length < elems.length + 2) return undefined;
  const order = elems.map((_, i) => i).sort((a, b) => (elems[a]! < elems[b]! ? -1 : elems[a]! > elems[b]! ? 1 : 0));
  return { lexemes: order.map((i) => elems[i]!), shares: order.map((i) => freqs[i]!), least: freqs[elems.length]! };
}

/** The lexeme statistics of the word index `index` (cached); undefined without them (never analysed). */
export async function lexemeStats(db: Db, index: string, now = Date.now()): Promise<LexemeStats | undefined> {
  return cached(db, `lexemes:${index}`, () => loadLexemes(db, index), now);
}

/**
 * The estimated share of rows holding a word that `prefix` starts: the shares of the common
 * lexemes it starts, added (a row holding two of them counts twice: an estimate on the high
 * side), at most 1; 0 when it starts none of them (rarer than `least`, about).
 */
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

/**
 * What `col`'s sampled values say of `folded`: the common values holding it (how many, and their
 * share) and the histogram bounds holding it. One scan for estimateShare and sampledValuesHolding.
 */
function sampledHits(col: ColumnStats, folded: string): { commonShare: number; commonValues: number; bounds: number } {
  let commonShare = 0;
  let commonValues = 0;
  for (const c of col.common)
    if (c.value.includes(folded)) {
      commonShare += c.share;
      commonValues++;
    }
  let bounds = 0;
  for (const v of col.histogram) if (v.includes(folded)) bounds++;
  return { commonShare, commonValues, bounds };
}

/** Share of one column's rows holding `folded` as a substring, from its common values and histogram. */
function columnShare(col: ColumnStats, folded: string): number {
  const hits = sampledHits(col, folded);
  const rest = Math.max(0, 1 - col.nullFrac - commonIndex(col).total);
  if (col.histogram.length === 0 || rest === 0) return hits.commonShare;
  return hits.commonShare + (rest * hits.bounds) / col.histogram.length;
}

/**
 * The share of rows a term no value sampled by the statistics holds (estimateShare 0) is in, at
 * most (about): the statistics keep about a hundred sampled values of a column.
 */
export const UNSEEN_SHARE = 0.01;

/**
 * Estimated share of rows in which `q` (folded) is a substring of any of `columns`: the share of
 * the column that holds it most often, since a term is rarely in two unrelated columns and often
 * in related ones (an email made of the name: adding the two would count it twice). Undefined
 * when some column has no statistics. 0 means no sampled value holds the term: it is rarer than
 * the sample can tell (about 1 in 100 or fewer).
 */
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

/**
 * How many values sampled by the statistics hold `q` (folded) as a substring: the common values
 * and histogram bounds of `columns`, counted together. The evidence behind estimateShare: a share
 * under about 1 in 100 resting on one sampled value cannot be told from a term the sample missed,
 * while several values holding it (a name in two common names and two emails) say it is no
 * accident of the sample.
 */
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

/** A column's common values by value, and their total share: built once per read of the statistics. */
interface CommonIndex {
  shares: Map<string, number>;
  total: number;
}

const commonIndexes = new WeakMap<ColumnStats, CommonIndex>();

/**
 * `col`'s common values as a map, kept beside the statistics: a message search asks for a value's
 * share several times (account, inboxes, sender), and building the map of a hundred values each
 * time was 13 µs of every search's JavaScript (a CPU profile of bench:core, `update` at M).
 */
function commonIndex(col: ColumnStats): CommonIndex {
  let index = commonIndexes.get(col);
  if (!index) {
    index = {
      shares: new Map(col.common.map((c) => [c.value, c.share])),
      total: col.common.reduce((sum, c) => sum + c.share, 0),
    };
    commonIndexes.set(col, index);
  }
  return index;
}

/**
 * Estimated share of rows whose `column` equals one of `values` (ids, compared as text): a common
 * value's own frequency, any other value an equal part of what the common ones leave. Undefined
 * without statistics for the column.
 */
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

/**
 * A list's share (valuesShare) by column statistics and list: a search weighs its inboxes several
 * times (the scope's share, its rows, whether its index may serve), and an administrator's list of
 * fifty was 11 µs of a message search's 33 µs of JavaScript, warm (a CPU profile of `bosh` at M).
 * Keyed by the list itself, which is never changed once made (an access context's inboxes).
 */
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

/**
 * Estimated share of an account's rows with one of `values` in `column` (its inboxes, a sender),
 * from the statistics of `account_id` and `column`: as the planner weighs the same test, so a
 * choice made from it is the one a plan for the values would make. Undefined without them.
 */
export function shareWithinAccount(
  stats: TableStats,
  accountId: number,
  column: string,
  values: ReadonlyArray<number | string>,
): number | undefined {
  const account = valuesShare(stats, 'account_id', [accountId]);
  const share = valuesShare(stats, column, values);
  return share === undefined || !account ? undefined : Math.min(1, share / account);
}
