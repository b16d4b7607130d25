/**
 * Article search as a plan (docs/plans.md, Articles), a ladder: each strategy is tried only when
 * the ones before it gave way, and the last always answers. A word common in titles is answered
 * by the titles of the newest articles (the window); a rare one by the trigram index's few
 * candidates; with every searchdesk index both, and the title and description matches, are steps
 * of one statement (the walk). A word common in content only is answered by every title and
 * description match plus the newest content matches (the tiers); the rest by the plain statement,
 * narrowed by the trigram index where it exists. The index-backed variant counts on searchdesk's
 * indexes; the default variant uses each only when `searchdesk db indexes` created it.
 */
import type { AccessContext } from '../auth/access.js';
import { INDEX, searchdeskIndexes } from '../db/catalog.js';
import { toPage, type Page, type SearchContext } from './context.js';
import { toArticleRecord, type ArticleRow } from './article-record.js';
import { buildArticlesQuery, type ArticleSizes, type ArticleStatement, type WalkStep } from './article-statements.js';
import { PAGE_SIZE, type ArticlesParams } from './params.js';
import type { ArticleRecord } from './records.js';
import { windowCanHold } from './sql.js';
import { estimateShare, tableStats, type TableStats } from './statistics.js';
import { hasTrigram, likePrefilter, splitWords } from './text.js';
import { runPlan, type Progress, type Step, type Strategy } from './local-plan.js';

// Knobs, in rows (why and evidence: docs/plans.md, Articles).
/** Articles whose titles the window reads, newest first. */
export const ARTICLE_WINDOW = 1_000;
/** Most trigram candidates ranked alone; past it the trigram index no longer narrows much. */
export const ARTICLE_CANDIDATE_CAP = 200;
/** Newest articles whose contents the tiers (and titles and descriptions the walk) read. */
export const ARTICLE_CONTENT_WINDOW = 2_000;

export const ARTICLE_SIZES: ArticleSizes = {
  window: ARTICLE_WINDOW,
  candidateCap: ARTICLE_CANDIDATE_CAP,
  contentWindow: ARTICLE_CONTENT_WINDOW,
};

/** Tests lower them to reach every path on small data. */
export type ArticleLimits = Partial<ArticleSizes>;

export interface ArticleIndexes {
  /** `searchdesk_articles_account_updated`: the account's articles in updated_at order. */
  ordered: boolean;
  /** `searchdesk_articles_text_trgm`: the trigram index over title, description and content. */
  trigram: boolean;
  /** `searchdesk_articles_title_description_trgm`: the trigram index over title and description. */
  titleDescriptionTrigram: boolean;
  /** `searchdesk_articles_title_trgm`: the trigram index over the title. */
  titleTrigram: boolean;
}

/** What every article strategy weighs. */
export interface ArticleInput {
  access: Pick<AccessContext, 'accountId'>;
  params: ArticlesParams;
  words: string[];
  indexes: ArticleIndexes;
  sizes: ArticleSizes;
}

/** An article row, or a statement's overflow row (only `overflow`, and `step` of the walk, set). */
export type MaybeArticleRow = Omit<ArticleRow, 'id'> & { id: number | null; overflow: boolean; step: WalkStep | null };
type Row = MaybeArticleRow;
type ArticleStrategy = Strategy<ArticleInput, Row>;

/**
 * The rows of the title window (0: none): ARTICLE_WINDOW, unless the statistics of
 * articles.title find a word in no sampled title. Such a word is in fewer than about one title
 * in a hundred, so the window would only be read to give way; every title match is read instead.
 */
export function articleWindow(words: string[], stats: TableStats | undefined): number {
  if (!stats) return ARTICLE_WINDOW;
  return words.some((w) => estimateShare(stats, ['title'], w) === 0) ? 0 : ARTICLE_WINDOW;
}

const pageOf = (i: ArticleInput) => i.params.page ?? 1;
const someTrigram = (i: ArticleInput) => i.words.some((w) => hasTrigram(likePrefilter(w)));
const trigram = (i: ArticleInput) => i.indexes.trigram && someTrigram(i);
/** The walk reads the window and the trigram candidates itself, whenever they could answer. */
const walkable = (i: ArticleInput) =>
  i.indexes.ordered &&
  i.indexes.titleTrigram &&
  i.indexes.titleDescriptionTrigram &&
  trigram(i) &&
  windowCanHold(pageOf(i), i.sizes.contentWindow);
const tiers = (i: ArticleInput) => i.indexes.ordered && windowCanHold(pageOf(i), i.sizes.contentWindow);

/** Exact unless the statement added its overflow row. */
const unlessOverflow = (rows: Row[]): Step<Row> => ({ done: !rows.some((r) => r.overflow), rows });

/**
 * One rung of the ladder: `applies` (not yet tried), `rows` (at most what it reads, for the
 * trace), and how its rows are read (default: every row, the answer).
 */
function rung(
  statement: ArticleStatement,
  applies: (i: ArticleInput) => boolean,
  rows: (i: ArticleInput) => number,
  read: (rows: Row[]) => Step<Row> = (all) => ({ done: true, rows: all }),
): ArticleStrategy {
  const name = `articles.${statement}`;
  return {
    name,
    label: `search_articles_${statement}`,
    applies: (i, so) => applies(i) && !so.tried.includes(name),
    cost: rows,
    statement: (i) => buildArticlesQuery(i.access, i.params, i.words, statement, i.sizes),
    read,
  };
}

/**
 * A ladder: a strategy costs Infinity (it runs only when forced, or when nothing before it
 * applies any more) while one before it still applies; else what it reads.
 */
function ladder(rungs: ArticleStrategy[]): ArticleStrategy[] {
  const behind = (k: number, i: ArticleInput, so: Progress<Row>) => rungs.slice(0, k).some((r) => r.applies(i, so));
  return rungs.map((r, k) => ({ ...r, cost: (i, so) => (behind(k, i, so) ? Infinity : r.cost(i, so)) }));
}

/** Every article strategy, in ladder order; each returns exactly the plain statement's rows. */
export const ARTICLE_STRATEGIES: readonly ArticleStrategy[] = ladder([
  rung('walk', walkable, (i) => i.sizes.window + i.sizes.contentWindow, unlessOverflow),
  // Exact when it holds the whole page plus the row telling has_more.
  rung(
    'window',
    (i) => !walkable(i) && i.indexes.ordered && windowCanHold(pageOf(i), i.sizes.window),
    (i) => i.sizes.window,
    (rows) => ({ done: rows.length > PAGE_SIZE, rows }),
  ),
  rung(
    'candidates',
    (i) => !walkable(i) && trigram(i),
    (i) => i.sizes.candidateCap + 1,
    unlessOverflow,
  ),
  rung(
    'trigramTiers',
    (i) => tiers(i) && i.indexes.titleDescriptionTrigram && someTrigram(i),
    (i) => i.sizes.contentWindow,
    unlessOverflow,
  ),
  rung(
    'tiers',
    (i) => tiers(i) && !(i.indexes.titleDescriptionTrigram && someTrigram(i)),
    (i) => i.sizes.contentWindow,
    unlessOverflow,
  ),
  // A word whose substring is common but which starts few words gets here after both the
  // candidates and the tiers gave way: the trigram index still narrows it to those substrings.
  rung('matches', trigram, () => Infinity),
  rung(
    'rank',
    () => true,
    () => Infinity,
  ),
]);

/** Which searchdesk indexes the search may count on: all for the index-backed variant. */
async function articleIndexes(ctx: SearchContext): Promise<ArticleIndexes> {
  const present = ctx.access.flags.searchWithGin ? undefined : await searchdeskIndexes(ctx.db);
  const has = (name: string) => present === undefined || present.has(name);
  return {
    ordered: has(INDEX.articlesUpdated),
    trigram: has(INDEX.articlesTextTrgm),
    titleDescriptionTrigram: has(INDEX.articlesTitleDescriptionTrgm),
    titleTrigram: has(INDEX.articlesTitleTrgm),
  };
}

export async function searchArticles(
  ctx: SearchContext,
  params: ArticlesParams,
  limits: ArticleLimits = {},
): Promise<Page<ArticleRecord>> {
  const words = splitWords(params.q);
  // A query of punctuation only has no word to match.
  if (words.length === 0) return { items: [], hasMore: false };
  const indexes = await articleIndexes(ctx);
  const window = limits.window ?? articleWindow(words, await tableStats(ctx.db, 'articles', ['title']));
  const sizes = { ...ARTICLE_SIZES, ...limits, window };
  const rows = await runPlan(ctx, ARTICLE_STRATEGIES, { access: ctx.access, params, words, indexes, sizes });
  return toPage((rows as ArticleRow[]).map((row) => toArticleRecord(row, words, ctx.appUrl)));
}
