/** Article search as a ladder (docs/plans.md, Articles): walk, else window and candidates; tiers; matches or rank. */
import type { AccessContext } from '../auth/access.js';
import { INDEX, searchdeskIndexes } from '../db/catalog.js';
import { toPage, type SearchContext } from './context.js';
import { toArticleRecord, type ArticleRow } from './article-record.js';
import { buildArticlesQuery, type ArticleSizes, type ArticleStatement, type WalkStep } from './article-statements.js';
import { PAGE_SIZE, type ArticlesParams } from './params.js';
import type { ArticleRecord } from './records.js';
import { knob } from './plan/costs.js';
import { runPlan } from './plan/executor.js';
import type { PlanOptions, Progress, Step, Strategy } from './plan/strategy.js';
import { windowCanHold } from './plan/windows.js';
import { estimateShare, tableStats, type TableStats } from './statistics.js';
import { hasTrigram, likePrefilter, splitWords } from './text.js';

export const articleSizes = (options?: PlanOptions): ArticleSizes => ({
  window: knob('articles.titleWindow', options),
  candidateCap: knob('articles.candidateCap', options),
  contentWindow: knob('articles.contentWindow', options),
});
export const ARTICLE_SIZES = articleSizes();
/** Which of searchdesk's article indexes exist: updated_at order, trigrams of the text, of title+description, of the title. */
export type ArticleIndexes = Record<'ordered' | 'trigram' | 'titleDescriptionTrigram' | 'titleTrigram', boolean>;
export interface ArticleInput {
  access: Pick<AccessContext, 'accountId'>;
  params: ArticlesParams;
  words: string[];
  indexes: ArticleIndexes;
  sizes: ArticleSizes;
}
/** An article row, or a statement's overflow row (only `overflow`, and the walk's `step`, set). */
type Row = Omit<ArticleRow, 'id'> & { id: number | null; overflow: boolean; step: WalkStep | null };
type Input = ArticleInput;
/** The title window's rows: none when a word is in no title the statistics sampled (under about 1 in 100: it would give way). */
export function articleWindow(words: string[], stats: TableStats | undefined, window = ARTICLE_SIZES.window): number {
  return stats && words.some((w) => estimateShare(stats, ['title'], w) === 0) ? 0 : window;
}
const someTrigram = (i: Input) => i.words.some((w) => hasTrigram(likePrefilter(w)));
const trigram = (i: Input) => i.indexes.trigram && someTrigram(i);
const holds = (i: Input, rows: number) => i.indexes.ordered && windowCanHold(i.params.page ?? 1, rows);
/** The walk reads the window and the candidates itself, whenever they could answer. */
const walks = (i: Input) =>
  i.indexes.titleTrigram && i.indexes.titleDescriptionTrigram && trigram(i) && holds(i, i.sizes.contentWindow);
const narrowedTiers = (i: Input) => i.indexes.titleDescriptionTrigram && someTrigram(i);
const unlessOverflow = (rows: Row[]): Step<Row> => ({ done: !rows.some((r) => r.overflow), rows });
/** Exact when it holds the page plus the row telling has_more. */
const heldPage = (rows: Row[]): Step<Row> => ({ done: rows.length > PAGE_SIZE, rows });
const exact = (rows: Row[]): Step<Row> => ({ done: true, rows });
const contentWindow = (i: Input) => i.sizes.contentWindow;
type Rung = { applies: (i: Input) => boolean; rows: (i: Input) => number; read?: Strategy<Input, Row>['read'] };

/** A rung: when it applies (once), the rows it reads at most, how its rows read. */
function rung(kind: ArticleStatement, { applies, rows, read = unlessOverflow }: Rung) {
  const name = `articles.${kind}`;
  return {
    name,
    label: `search_articles_${kind}`,
    applies: (i: Input, so: Progress<Row>) => applies(i) && !so.tried.includes(name),
    cost: rows,
    statement: (i: Input) => buildArticlesQuery(i.access, i.params, i.words, kind, i.sizes),
    read,
  };
}
/** A ladder: a rung costs Infinity (runs only when forced) while one before it still applies. */
function ladder(rungs: Array<ReturnType<typeof rung>>): Array<Strategy<Input, Row>> {
  const behind = (k: number, i: Input, so: Progress<Row>) => rungs.slice(0, k).some((r) => r.applies(i, so));
  return rungs.map((r, k) => ({ ...r, cost: (i: Input, so: Progress<Row>) => (behind(k, i, so) ? Infinity : r.cost(i)) }));
}

/** Every article strategy, in ladder order; each returns exactly the rank's rows. */
export const ARTICLE_STRATEGIES = ladder([
  rung('walk', { applies: walks, rows: (i) => i.sizes.window + i.sizes.contentWindow }),
  rung('window', { applies: (i) => !walks(i) && holds(i, i.sizes.window), rows: (i) => i.sizes.window, read: heldPage }),
  rung('candidates', { applies: (i) => !walks(i) && trigram(i), rows: (i) => i.sizes.candidateCap + 1 }),
  rung('trigramTiers', { applies: (i) => holds(i, i.sizes.contentWindow) && narrowedTiers(i), rows: contentWindow }),
  rung('tiers', { applies: (i) => holds(i, i.sizes.contentWindow) && !narrowedTiers(i), rows: contentWindow }),
  rung('matches', { applies: trigram, rows: () => Infinity, read: exact }),
  rung('rank', { applies: () => true, rows: () => Infinity, read: exact }),
]);

export async function searchArticles(ctx: SearchContext, params: ArticlesParams, limits: Partial<ArticleSizes> = {}) {
  const words = splitWords(params.q);
  if (words.length === 0) return toPage<ArticleRecord>([]);
  const present = ctx.access.flags.searchWithGin ? undefined : await searchdeskIndexes(ctx.db);
  const has = (name: string) => present === undefined || present.has(name);
  const indexes = {
    ordered: has(INDEX.articlesUpdated),
    trigram: has(INDEX.articlesTextTrgm),
    titleDescriptionTrigram: has(INDEX.articlesTitleDescriptionTrgm),
    titleTrigram: has(INDEX.articlesTitleTrgm),
  };
  const base = { ...articleSizes(ctx.plan), ...limits };
  const window = limits.window ?? articleWindow(words, await tableStats(ctx.db, 'articles', ['title']), base.window);
  const rows = await runPlan(ctx, ARTICLE_STRATEGIES, { access: ctx.access, params, words, indexes, sizes: { ...base, window } });
  return toPage((rows as ArticleRow[]).map((row) => toArticleRecord(row, words, ctx.appUrl)));
}
