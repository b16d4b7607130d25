/**
 * Article search: every word of `q` starts a word of the title, description or content
 * (case-insensitive). Ordered by relevance tier, then most recently updated.
 */
import { SqlParams, type SqlQuery } from '../db/db.js';
import type { AccessContext } from '../auth/access.js';
import { INDEX, searchdeskIndexes } from '../db/catalog.js';
import { toPage, type Page, type SearchContext } from './context.js';
import { PAGE_SIZE, type ArticlesParams } from './params.js';
import { articleUrl, type AppUrl } from './links.js';
import type { ArticleRecord } from './records.js';
import { buildSnippet, SNIPPET_SOURCE_LENGTH } from './snippet.js';
import { epoch, pageClause, windowCanHold } from './sql.js';
import { estimateShare, tableStats, type TableStats } from './statistics.js';
import { hasTrigram, likePrefilter, splitWords } from './text.js';
import { wordStartTest } from './word-start.js';

export interface ArticleRow {
  id: number;
  title: string | null;
  slug: string | null;
  portal_slug: string | null;
  /** The portal's custom domain: the article's public link is on it (links.ts). */
  portal_custom_domain: string | null;
  account_id: number;
  category_name: string | null;
  status: number | null;
  updated_at: number | null;
  locale: string | null;
  description: string | null;
  /** In search results, the first SNIPPET_SOURCE_LENGTH characters (all the snippet reads). */
  content: string | null;
}

const STATUSES = ['draft', 'published', 'archived'] as const;

/** The text `searchdesk_articles_text_trgm` indexes: any word of an article occurs in it. */
export const ARTICLE_TEXT = `(coalesce(a.title, '') || ' ' || coalesce(a.description, '') || ' ' || coalesce(a.content, ''))`;

/** The text `searchdesk_articles_title_description_trgm` indexes: any word of a title or description occurs in it. */
export const ARTICLE_TITLE_DESCRIPTION = `(coalesce(a.title, '') || ' ' || coalesce(a.description, ''))`;

/** How the page's articles are found; every strategy returns exactly the plain statement's rows. */
export type ArticleStrategy =
  /** Every matching article gets its tier, then one sort: the plain statement, the reference. */
  | 'rank'
  /**
   * Only the titles of the newest ARTICLE_WINDOW articles: exact when they hold the whole page
   * (every row of it in the best tier, and any title match outside the window is older).
   */
  | 'window'
  /**
   * The rows the trigram index finds (a superset), ranked alone: exact unless there are more than
   * ARTICLE_CANDIDATE_CAP, then it reports an overflow.
   */
  | 'candidates'
  /**
   * Every title or description match (tiers 2 and 1: short fields), then the content-only
   * matches among the newest ARTICLE_CONTENT_WINDOW articles, only as many as the page needs:
   * exact unless the page needs more of them than that window holds, then it reports an overflow.
   */
  | 'tiers'
  /**
   * The tiers, with the title and description matches read from the candidates of their trigram
   * index (a superset) instead of every article of the account; the same answer and overflow.
   */
  | 'trigramTiers'
  /**
   * Every row the trigram index finds (a superset), ranked: the plain statement narrowed by that
   * index, always exact. It answers in place of the plain statement when the index exists.
   */
  | 'matches'
  /**
   * The window, the candidates and more in one statement, each step only when the ones before
   * left the page short: the window's titles; every title match (the rows
   * `searchdesk_articles_title_trgm` finds); every title or description match when
   * `searchdesk_articles_title_description_trgm` finds at most ARTICLE_CANDIDATE_CAP rows, else
   * the newest ones among the newest ARTICLE_CONTENT_WINDOW articles; then, when tiers 2 and 1
   * are whole and still short, every other match when the trigram index finds at most
   * ARTICLE_CANDIDATE_CAP rows. Exact when tiers 2 and 1 fill the page or all tiers are whole,
   * else an overflow (which step gave way: WalkStep).
   */
  | 'walk';

/** Articles walked newest first (their titles only) when an index gives updated_at order. */
export const ARTICLE_WINDOW = 1_000;

/** Most candidate rows ranked alone; past it the trigram index no longer narrows much. */
export const ARTICLE_CANDIDATE_CAP = 200;

/**
 * Newest articles whose content the tiers strategy reads (and whose titles and descriptions the
 * walk reads): a word in more articles than the candidate cap is in about 1% of them or more, so
 * this many hold a page of its matches.
 */
export const ARTICLE_CONTENT_WINDOW = 2_000;

/** An article row, or a strategy's overflow row (only `overflow` and `step` set). */
type MaybeArticleRow = Omit<ArticleRow, 'id'> & { id: number | null; overflow: boolean; step: WalkStep | null };

/**
 * The walk's step that answered, or that gave way (on its overflow row): the window, every title
 * match, every title or description match, the newest description matches, every trigram
 * candidate. Only tests read it, to see every step both answer and give way.
 */
export type WalkStep = 'window' | 'titles' | 'capped' | 'walk' | 'texts';

export interface ArticleLimits {
  window?: number;
  candidateCap?: number;
  contentWindow?: number;
}

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

/**
 * The rows of the title window (0: none): ARTICLE_WINDOW, unless the statistics of articles.title
 * find a word in no sampled title. Such a word is in fewer than about one title in a hundred, so
 * the newest thousand hold fewer matches than a page and the window would only be read to give
 * way (`douc` at L: 5.6 ms of a 14 ms statement); every title match is read instead. Without
 * statistics, the window.
 */
export function articleWindow(words: string[], stats: TableStats | undefined): number {
  if (!stats) return ARTICLE_WINDOW;
  return words.some((w) => estimateShare(stats, ['title'], w) === 0) ? 0 : ARTICLE_WINDOW;
}

/**
 * Which strategies a search tries, in order; the last one (the plain statement, or with the
 * trigram index the same narrowed by it) always answers.
 */
export function articlePlan(
  page: number,
  words: string[],
  indexes: ArticleIndexes,
  window = ARTICLE_WINDOW,
  contentWindow = ARTICLE_CONTENT_WINDOW,
): ArticleStrategy[] {
  const plan: ArticleStrategy[] = [];
  const someTrigram = words.some((w) => hasTrigram(likePrefilter(w)));
  // The walk reads the window and the trigram candidates itself, whenever they could answer.
  const walk =
    indexes.ordered &&
    indexes.titleTrigram &&
    indexes.titleDescriptionTrigram &&
    indexes.trigram &&
    someTrigram &&
    windowCanHold(page, contentWindow);
  if (walk) plan.push('walk');
  else {
    if (indexes.ordered && windowCanHold(page, window)) plan.push('window');
    if (indexes.trigram && someTrigram) plan.push('candidates');
  }
  if (indexes.ordered && windowCanHold(page, contentWindow))
    plan.push(indexes.titleDescriptionTrigram && someTrigram ? 'trigramTiers' : 'tiers');
  // A word whose substring is common but which starts few words gets here after both the
  // candidates and the tiers gave way: the trigram index still narrows it to those substrings.
  plan.push(indexes.trigram && someTrigram ? 'matches' : 'rank');
  return plan;
}

/** The row a strategy adds when it cannot tell the exact answer (only `overflow`, and `step` of the walk, set). */
const overflowRow = (condition: string, step = 'NULL') => `
    UNION ALL
    SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, true, ${step}
    WHERE ${condition}`;

/**
 * Relevance tiers: 2 when every word is in the title, 1 when every word is in the title or the
 * description, 0 when the content was needed. Ties go to the most recently updated article.
 */
export function buildArticlesQuery(
  access: Pick<AccessContext, 'accountId'>,
  params: ArticlesParams,
  words: string[],
  strategy: ArticleStrategy,
  /** Tests lower them to reach every path on small data. */
  { window = ARTICLE_WINDOW, candidateCap = ARTICLE_CANDIDATE_CAP, contentWindow = ARTICLE_CONTENT_WINDOW }: ArticleLimits = {},
): SqlQuery {
  const p = new SqlParams();
  const account = `a.account_id = ${p.add(access.accountId)}::bigint`;
  // A word that starts a word of a field is a substring of ARTICLE_TEXT (of
  // ARTICLE_TITLE_DESCRIPTION when that field is the title or description, of the title when it
  // is the title), so this filter (a superset: likePrefilter) never drops a match and lets the
  // trigram index on that text narrow the rows first; the folded regular expressions decide.
  // `hidden`: the pattern comes from a subquery, so the planner does not see it. It then neither
  // runs it over the statistics of the indexed text (about 1 ms a word for ARTICLE_TEXT) nor
  // bases the plan on a guess of how common the word is: it reads the trigram index, whatever
  // the word (the walk's steps that read one are capped or run only for uncommon words).
  const prefilter = (text: string, hidden = false) =>
    words
      .map((w) => likePrefilter(w))
      .filter((pattern) => hasTrigram(pattern))
      .map((pattern) => `${text} ILIKE ${hidden ? `(SELECT ${p.add(pattern)}::text)` : p.add(pattern)}`);
  const starts = words.map((w) => wordStartTest(w, p));
  const inTitle = starts.map((s) => `coalesce(${s('a.title')}, false)`).join(' AND ');
  const inTitleOrDescription = starts.map((s) => `coalesce(${s('a.title')} OR ${s('a.description')}, false)`).join(' AND ');
  const anywhere = starts.map((s) => `(${s('a.title')} OR ${s('a.description')} OR ${s('a.content')})`).join(' AND ');
  const tier = `CASE WHEN ${inTitle} THEN 2 WHEN ${inTitleOrDescription} THEN 1 ELSE 0 END`;
  const page = pageClause(params.page ?? 1, PAGE_SIZE, p);
  const ranked = (from: string, where: string[], t = tier) => `
      SELECT a.id, a.updated_at, ${t} AS tier
      FROM ${from}
      WHERE ${where.join('\n        AND ')}
      ORDER BY tier DESC, a.updated_at DESC, a.id DESC
      ${page}`;
  let ctes: string;
  let overflow = '';
  let step = 'NULL';
  switch (strategy) {
    case 'rank':
      ctes = `hits AS (${ranked('articles a', [account, anywhere])})`;
      break;
    case 'matches':
      ctes = `hits AS (${ranked('articles a', [account, ...prefilter(ARTICLE_TEXT), anywhere])})`;
      break;
    case 'window':
      // Index order, then the titles of the window only.
      ctes = `win AS (
        SELECT a.id, a.updated_at, a.title FROM articles a WHERE ${account}
        ORDER BY a.updated_at DESC, a.id DESC LIMIT ${p.add(window)}),
      hits AS (${ranked('win a', [inTitle], '2')})`;
      break;
    case 'candidates': {
      const cap = p.add(candidateCap);
      // Whole rows, so the regular expressions read the candidates, never the table again.
      ctes = `cand AS MATERIALIZED (
        SELECT a.id, a.updated_at, a.title, a.description, a.content FROM articles a
        WHERE ${[account, ...prefilter(ARTICLE_TEXT)].join(' AND ')}
        LIMIT ${cap} + 1),
      hits AS (${ranked('cand a', [`(SELECT count(*) FROM cand) <= ${cap}`, anywhere])})`;
      overflow = overflowRow(`(SELECT count(*) FROM cand) > ${cap}`);
      break;
    }
    case 'tiers':
    case 'trigramTiers': {
      // Tiers 2 and 1 read only titles and descriptions (every matching article: with
      // trigramTiers only the rows searchdesk_articles_title_description_trgm finds); tier 0, only
      // when they leave the page short, walks the newest articles in index order and stops once
      // the page is full. The page is exact when it holds `need` rows or the walk saw every
      // article of the account.
      const need = p.add((params.page ?? 1) * PAGE_SIZE + 1);
      const contentRows = p.add(contentWindow);
      const topWhere = [
        account,
        ...(strategy === 'trigramTiers' ? prefilter(ARTICLE_TITLE_DESCRIPTION) : []),
        inTitleOrDescription,
      ];
      ctes = `top AS MATERIALIZED (
        SELECT a.id, a.updated_at, ${tier} AS tier FROM articles a WHERE ${topWhere.join(' AND ')}),
      rest AS MATERIALIZED (
        SELECT a.id, a.updated_at, 0 AS tier
        FROM (SELECT a.id, a.updated_at, a.title, a.description, a.content FROM articles a WHERE ${account}
              ORDER BY a.updated_at DESC, a.id DESC LIMIT ${contentRows}) a
        WHERE (SELECT count(*) FROM top) < ${need} AND NOT (${inTitleOrDescription}) AND ${anywhere}
        ORDER BY a.updated_at DESC, a.id DESC LIMIT ${need}),
      exact AS MATERIALIZED (
        SELECT (SELECT count(*) FROM top) + (SELECT count(*) FROM rest) >= ${need}
            OR (SELECT count(*) FROM (SELECT 1 FROM articles a WHERE ${account} LIMIT ${contentRows}) x) < ${contentRows} AS ok),
      hits AS (
        SELECT a.id, a.updated_at, a.tier FROM (SELECT * FROM top UNION ALL SELECT * FROM rest) a
        WHERE (SELECT ok FROM exact)
        ORDER BY a.tier DESC, a.updated_at DESC, a.id DESC ${page})`;
      overflow = overflowRow('NOT (SELECT ok FROM exact)');
      break;
    }
    case 'walk': {
      // Each step runs only when the steps before it left the page short (a one-time filter on
      // counts of their rows), so a word common in titles costs the window alone:
      // - t2, tier 2: the window's title matches when they fill the page, else every title match
      //   (the rows searchdesk_articles_title_trgm finds);
      // - t1, tier 1: every title or description match outside t2 when
      //   searchdesk_articles_title_description_trgm finds at most `cap` rows (a CTE is read only
      //   as far as its reader goes: `capped` stops `found` there), else the newest ones among
      //   the newest `contentWindow` articles (then tier 1 is common enough to be found there);
      // - t0, tier 0: when t2 and t1 are whole (and still short), every other match when
      //   searchdesk_articles_text_trgm finds at most `cap` rows.
      // Exact when t2 and t1 fill the page, or when all three tiers are whole.
      const need = p.add((params.page ?? 1) * PAGE_SIZE + 1);
      const cap = p.add(candidateCap);
      const count = (cte: string) => `(SELECT count(*) FROM ${cte})`;
      const newest = (columns: string, rows: string) =>
        `(SELECT ${columns} FROM articles a WHERE ${account} ORDER BY a.updated_at DESC, a.id DESC LIMIT ${rows}) a`;
      const withWindow = windowCanHold(params.page ?? 1, window);
      const tier2 = withWindow
        ? `win AS MATERIALIZED (
        SELECT a.id, a.updated_at FROM ${newest('a.id, a.updated_at, a.title', p.add(window))}
        WHERE ${inTitle} ORDER BY a.updated_at DESC, a.id DESC LIMIT ${need}),
      titles AS MATERIALIZED (
        SELECT a.id, a.updated_at FROM articles a
        WHERE ${[`${count('win')} < ${need}`, account, ...prefilter('a.title', true), inTitle].join(' AND ')}),
      t2 AS MATERIALIZED (SELECT * FROM win WHERE ${count('win')} >= ${need} UNION ALL SELECT * FROM titles),`
        : `t2 AS MATERIALIZED (
        SELECT a.id, a.updated_at FROM articles a WHERE ${[account, ...prefilter('a.title', true), inTitle].join(' AND ')}),`;
      const whole = `${count('capped')} <= ${cap}`;
      const higher = `a.id NOT IN (SELECT id FROM t2 UNION ALL SELECT id FROM t1)`;
      ctes = `${tier2}
      found AS MATERIALIZED (
        SELECT a.id, a.updated_at, a.title, a.description FROM articles a
        WHERE ${[`${count('t2')} < ${need}`, account, ...prefilter(ARTICLE_TITLE_DESCRIPTION, true)].join(' AND ')}),
      capped AS MATERIALIZED (SELECT * FROM found LIMIT ${cap} + 1),
      t1 AS MATERIALIZED (
        SELECT a.id, a.updated_at FROM capped a
        WHERE ${whole} AND ${inTitleOrDescription} AND a.id NOT IN (SELECT id FROM t2)
        UNION ALL
        (SELECT a.id, a.updated_at FROM ${newest('a.id, a.updated_at, a.title, a.description', p.add(contentWindow))}
         WHERE ${count('t2')} < ${need} AND NOT ${whole} AND ${inTitleOrDescription} AND a.id NOT IN (SELECT id FROM t2)
         ORDER BY a.updated_at DESC, a.id DESC LIMIT ${need})),
      filled AS MATERIALIZED (SELECT ${count('t2')} + ${count('t1')} >= ${need} AS ok),
      texts AS MATERIALIZED (
        SELECT a.id, a.updated_at, a.title, a.description, a.content FROM articles a
        WHERE ${[`NOT (SELECT ok FROM filled)`, whole, account, ...prefilter(ARTICLE_TEXT, true)].join(' AND ')}),
      texts_capped AS MATERIALIZED (SELECT * FROM texts LIMIT ${cap} + 1),
      t0 AS MATERIALIZED (
        SELECT a.id, a.updated_at FROM texts_capped a
        WHERE ${count('texts_capped')} <= ${cap} AND ${anywhere} AND ${higher}),
      exact AS MATERIALIZED (
        SELECT (SELECT ok FROM filled) OR (${whole} AND ${count('texts_capped')} <= ${cap}) AS ok,
               CASE ${withWindow ? `WHEN ${count('win')} >= ${need} THEN 'window' ` : ''}WHEN ${count('t2')} >= ${need} THEN 'titles'
                    WHEN ${whole} THEN CASE WHEN (SELECT ok FROM filled) THEN 'capped' ELSE 'texts' END
                    ELSE 'walk' END AS step),
      hits AS (
        SELECT a.id, a.updated_at, a.tier
        FROM (SELECT *, 2 AS tier FROM t2 UNION ALL SELECT *, 1 FROM t1 UNION ALL SELECT *, 0 FROM t0) a
        WHERE (SELECT ok FROM exact)
        ORDER BY a.tier DESC, a.updated_at DESC, a.id DESC ${page})`;
      overflow = overflowRow('NOT (SELECT ok FROM exact)', '(SELECT step FROM exact)');
      step = '(SELECT step FROM exact)';
      break;
    }
  }
  // Rank and page the ids first; only the page's rows are joined and carry their content.
  const text = `
    WITH ${ctes}
    SELECT a.id, a.title, a.slug, p.slug AS portal_slug, p.custom_domain AS portal_custom_domain, a.account_id,
           cat.name AS category_name, a.status,
           ${epoch('a.updated_at')} AS updated_at, a.locale, a.description,
           left(a.content, ${SNIPPET_SOURCE_LENGTH}) AS content, h.tier, h.updated_at AS ranked_at, false AS overflow, ${step}::text AS step
    FROM hits h
    JOIN articles a ON a.id = h.id
    LEFT JOIN portals p ON p.id = a.portal_id
    LEFT JOIN categories cat ON cat.id = a.category_id${overflow}
    ORDER BY tier DESC, ranked_at DESC, id DESC`;
  return { text, values: p.values };
}

/** An article's record without its snippet (what reading it shows too); with `appUrl`, its public `url`. */
export function toArticleFields(row: ArticleRow, appUrl: AppUrl): Omit<ArticleRecord, 'snippet'> {
  const url = articleUrl(appUrl, row.portal_custom_domain, row.portal_slug, row.slug);
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    portal_slug: row.portal_slug,
    account_id: row.account_id,
    category_name: row.category_name,
    status: row.status === null ? null : (STATUSES[row.status] ?? null),
    updated_at: row.updated_at,
    locale: row.locale,
    description: row.description,
    ...(url !== undefined && { url }),
  };
}

/** A row as an article record: its snippet around `words`; with `appUrl`, its public `url`. */
export function toArticleRecord(row: ArticleRow, words: string[], appUrl: AppUrl): ArticleRecord {
  return { ...toArticleFields(row, appUrl), snippet: buildSnippet(row.content, words) };
}

/** The rows of one strategy, or undefined when that strategy cannot tell the exact answer. */
async function tryStrategy(
  ctx: SearchContext,
  params: ArticlesParams,
  words: string[],
  strategy: ArticleStrategy,
  limits: ArticleLimits,
): Promise<ArticleRow[] | undefined> {
  const rows = await ctx.db.query<MaybeArticleRow>(
    buildArticlesQuery(ctx.access, params, words, strategy, limits),
    `search_articles_${strategy}`,
  );
  // A window is exact when it holds the whole page plus the row telling has_more.
  if (strategy === 'window') return rows.length > PAGE_SIZE ? (rows as ArticleRow[]) : undefined;
  if (strategy !== 'rank' && strategy !== 'matches' && rows.some((r) => r.overflow)) return undefined;
  return rows as ArticleRow[];
}

/**
 * A word common in titles is answered by the titles of the newest articles (a window, when an
 * index gives updated_at order); a rare one by the trigram index's few candidates; with every
 * searchdesk index, both and the title and description matches are steps of one statement (the
 * walk). A word common in content only is answered by every title and description match (those
 * their trigram index finds, when it exists) plus the newest content matches (tiers);
 * the rest by the plain statement. The index-backed variant counts on searchdesk's indexes; the
 * default variant uses each only when `searchdesk db indexes` created it.
 */
export async function searchArticles(
  ctx: SearchContext,
  params: ArticlesParams,
  /** Tests lower them to reach every path on small data. */
  limits: ArticleLimits = {},
): Promise<Page<ArticleRecord>> {
  const words = splitWords(params.q);
  // A query of punctuation only has no word to match.
  if (words.length === 0) return { items: [], hasMore: false };
  // The index-backed variant counts on searchdesk's indexes; the default one looks them up.
  const present = ctx.access.flags.searchWithGin ? undefined : await searchdeskIndexes(ctx.db);
  const has = (name: string) => present === undefined || present.has(name);
  const indexes = {
    ordered: has(INDEX.articlesUpdated),
    trigram: has(INDEX.articlesTextTrgm),
    titleDescriptionTrigram: has(INDEX.articlesTitleDescriptionTrgm),
    titleTrigram: has(INDEX.articlesTitleTrgm),
  };
  const window = limits.window ?? articleWindow(words, await tableStats(ctx.db, 'articles', ['title']));
  for (const strategy of articlePlan(params.page ?? 1, words, indexes, window, limits.contentWindow)) {
    const rows = await tryStrategy(ctx, params, words, strategy, { ...limits, window });
    if (rows) return toPage(rows.map((row) => toArticleRecord(row, words, ctx.appUrl)));
  }
  throw new Error('the last strategy of every plan always answers');
}
