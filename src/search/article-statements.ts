/**
 * The statements of article search (docs/plans.md, Articles): every word of `q` starts a word of
 * the title, description or content. Tiers: 2 every word in the title, 1 in the title or the
 * description, 0 the content needed; then the most recently updated. Each ranks and pages the ids
 * first; only the page's rows are joined.
 */
import { SqlParams, type SqlQuery } from '../db/db.js';
import type { AccessContext } from '../auth/access.js';
import { PAGE_SIZE, type ArticlesParams } from './params.js';
import { SNIPPET_SOURCE_LENGTH } from './snippet.js';
import { epoch, pageClause, windowCanHold } from './sql.js';
import { hasTrigram, likePrefilter } from './text.js';
import { wordStartTest } from './word-start.js';

/** The text `searchdesk_articles_text_trgm` indexes: any word of an article occurs in it. */
export const ARTICLE_TEXT = `(coalesce(a.title, '') || ' ' || coalesce(a.description, '') || ' ' || coalesce(a.content, ''))`;

/** The text `searchdesk_articles_title_description_trgm` indexes: any word of a title or description occurs in it. */
export const ARTICLE_TITLE_DESCRIPTION = `(coalesce(a.title, '') || ' ' || coalesce(a.description, ''))`;

export type ArticleStatement = 'rank' | 'window' | 'candidates' | 'tiers' | 'trigramTiers' | 'matches' | 'walk';

/** The walk's step that answered or gave way (its overflow row): only tests read it. */
export type WalkStep = 'window' | 'titles' | 'capped' | 'walk' | 'texts';

export interface ArticleSizes {
  window: number;
  candidateCap: number;
  contentWindow: number;
}

/**
 * The clauses every statement shares, their parameters added first. `prefilter`: an ILIKE per
 * word over the text a trigram index holds (a superset: likePrefilter), the regular expressions
 * decide; `hidden` keeps the pattern from the planner, so it reads the index whatever the word.
 */
function parts(access: Pick<AccessContext, 'accountId'>, params: ArticlesParams, words: string[]) {
  const p = new SqlParams();
  const account = `a.account_id = ${p.add(access.accountId)}::bigint`;
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
  const page = params.page ?? 1;
  const paged = pageClause(page, PAGE_SIZE, p);
  const ranked = (from: string, where: string[], t = tier) => `
      SELECT a.id, a.updated_at, ${t} AS tier
      FROM ${from}
      WHERE ${where.join('\n        AND ')}
      ORDER BY tier DESC, a.updated_at DESC, a.id DESC
      ${paged}`;
  return { p, page, account, prefilter, inTitle, inTitleOrDescription, anywhere, tier, pageClause: paged, ranked };
}
type Parts = ReturnType<typeof parts>;

/** The row a statement adds when it cannot tell the exact answer. */
const overflowRow = (condition: string, step = 'NULL') => `
    UNION ALL
    SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, true, ${step}
    WHERE ${condition}`;

type Ctes = { ctes: string; overflow?: string; step?: string };

/** The titles of the newest `window` articles, in index order. */
function windowCtes(x: Parts, window: number): Ctes {
  return {
    ctes: `win AS (
        SELECT a.id, a.updated_at, a.title FROM articles a WHERE ${x.account}
        ORDER BY a.updated_at DESC, a.id DESC LIMIT ${x.p.add(window)}),
      hits AS (${x.ranked('win a', [x.inTitle], '2')})`,
  };
}

/** The trigram index's rows, whole (never read again), ranked alone. */
function candidateCtes(x: Parts, candidateCap: number): Ctes {
  const cap = x.p.add(candidateCap);
  return {
    ctes: `cand AS MATERIALIZED (
        SELECT a.id, a.updated_at, a.title, a.description, a.content FROM articles a
        WHERE ${[x.account, ...x.prefilter(ARTICLE_TEXT)].join(' AND ')}
        LIMIT ${cap} + 1),
      hits AS (${x.ranked('cand a', [`(SELECT count(*) FROM cand) <= ${cap}`, x.anywhere])})`,
    overflow: overflowRow(`(SELECT count(*) FROM cand) > ${cap}`),
  };
}

/**
 * Tiers 2 and 1 from every title and description (`trigram`: the rows their index finds); tier 0
 * only when they leave the page short, from the newest contents. Exact with `need` rows or every
 * article seen.
 */
function tiersCtes(x: Parts, contentWindow: number, trigram: boolean): Ctes {
  const need = x.p.add(x.page * PAGE_SIZE + 1);
  const contentRows = x.p.add(contentWindow);
  const topWhere = [x.account, ...(trigram ? x.prefilter(ARTICLE_TITLE_DESCRIPTION) : []), x.inTitleOrDescription];
  return {
    ctes: `top AS MATERIALIZED (
        SELECT a.id, a.updated_at, ${x.tier} AS tier FROM articles a WHERE ${topWhere.join(' AND ')}),
      rest AS MATERIALIZED (
        SELECT a.id, a.updated_at, 0 AS tier
        FROM (SELECT a.id, a.updated_at, a.title, a.description, a.content FROM articles a WHERE ${x.account}
              ORDER BY a.updated_at DESC, a.id DESC LIMIT ${contentRows}) a
        WHERE (SELECT count(*) FROM top) < ${need} AND NOT (${x.inTitleOrDescription}) AND ${x.anywhere}
        ORDER BY a.updated_at DESC, a.id DESC LIMIT ${need}),
      exact AS MATERIALIZED (
        SELECT (SELECT count(*) FROM top) + (SELECT count(*) FROM rest) >= ${need}
            OR (SELECT count(*) FROM (SELECT 1 FROM articles a WHERE ${x.account} LIMIT ${contentRows}) x) < ${contentRows} AS ok),
      hits AS (
        SELECT a.id, a.updated_at, a.tier FROM (SELECT * FROM top UNION ALL SELECT * FROM rest) a
        WHERE (SELECT ok FROM exact)
        ORDER BY a.tier DESC, a.updated_at DESC, a.id DESC ${x.pageClause})`,
    overflow: overflowRow('NOT (SELECT ok FROM exact)'),
  };
}

const count = (cte: string) => `(SELECT count(*) FROM ${cte})`;

/** The newest `rows` articles of the account with `columns`, as `a`. */
const newest = (x: Parts, columns: string, rows: string) =>
  `(SELECT ${columns} FROM articles a WHERE ${x.account} ORDER BY a.updated_at DESC, a.id DESC LIMIT ${rows}) a`;

/** The walk's tier 2: the window's title matches when they fill the page, else every title match. */
function walkTitles(x: Parts, window: number, need: string): string {
  // A function: its patterns are added where the text takes them, after the window's length.
  const everyTitle = () => [x.account, ...x.prefilter('a.title', true), x.inTitle];
  if (!windowCanHold(x.page, window))
    return `t2 AS MATERIALIZED (
        SELECT a.id, a.updated_at FROM articles a WHERE ${everyTitle().join(' AND ')}),`;
  return `win AS MATERIALIZED (
        SELECT a.id, a.updated_at FROM ${newest(x, 'a.id, a.updated_at, a.title', x.p.add(window))}
        WHERE ${x.inTitle} ORDER BY a.updated_at DESC, a.id DESC LIMIT ${need}),
      titles AS MATERIALIZED (
        SELECT a.id, a.updated_at FROM articles a
        WHERE ${[`${count('win')} < ${need}`, ...everyTitle()].join(' AND ')}),
      t2 AS MATERIALIZED (SELECT * FROM win WHERE ${count('win')} >= ${need} UNION ALL SELECT * FROM titles),`;
}

/**
 * The walk: each step runs only while the page is short. After t2, t1: the title or description
 * matches when their index finds at most `cap` (`capped` stops `found` there), else the newest
 * among `contentWindow`; t0: when t2 and t1 are whole, the text index's rows, at most `cap`.
 */
function walkCtes(x: Parts, { window, candidateCap, contentWindow }: ArticleSizes): Ctes {
  const need = x.p.add(x.page * PAGE_SIZE + 1);
  const cap = x.p.add(candidateCap);
  const tier2 = walkTitles(x, window, need);
  const whole = `${count('capped')} <= ${cap}`;
  const outsideT2 = 'a.id NOT IN (SELECT id FROM t2)';
  const step = `CASE ${windowCanHold(x.page, window) ? `WHEN ${count('win')} >= ${need} THEN 'window' ` : ''}WHEN ${count('t2')} >= ${need} THEN 'titles'
                    WHEN ${whole} THEN CASE WHEN (SELECT ok FROM filled) THEN 'capped' ELSE 'texts' END
                    ELSE 'walk' END AS step`;
  const ctes = `${tier2}
      found AS MATERIALIZED (
        SELECT a.id, a.updated_at, a.title, a.description FROM articles a
        WHERE ${[`${count('t2')} < ${need}`, x.account, ...x.prefilter(ARTICLE_TITLE_DESCRIPTION, true)].join(' AND ')}),
      capped AS MATERIALIZED (SELECT * FROM found LIMIT ${cap} + 1),
      t1 AS MATERIALIZED (
        SELECT a.id, a.updated_at FROM capped a
        WHERE ${whole} AND ${x.inTitleOrDescription} AND ${outsideT2}
        UNION ALL
        (SELECT a.id, a.updated_at FROM ${newest(x, 'a.id, a.updated_at, a.title, a.description', x.p.add(contentWindow))}
         WHERE ${count('t2')} < ${need} AND NOT ${whole} AND ${x.inTitleOrDescription} AND ${outsideT2}
         ORDER BY a.updated_at DESC, a.id DESC LIMIT ${need})),
      filled AS MATERIALIZED (SELECT ${count('t2')} + ${count('t1')} >= ${need} AS ok),
      texts AS MATERIALIZED (
        SELECT a.id, a.updated_at, a.title, a.description, a.content FROM articles a
        WHERE ${[`NOT (SELECT ok FROM filled)`, whole, x.account, ...x.prefilter(ARTICLE_TEXT, true)].join(' AND ')}),
      texts_capped AS MATERIALIZED (SELECT * FROM texts LIMIT ${cap} + 1),
      t0 AS MATERIALIZED (
        SELECT a.id, a.updated_at FROM texts_capped a
        WHERE ${count('texts_capped')} <= ${cap} AND ${x.anywhere} AND a.id NOT IN (SELECT id FROM t2 UNION ALL SELECT id FROM t1)),
      exact AS MATERIALIZED (
        SELECT (SELECT ok FROM filled) OR (${whole} AND ${count('texts_capped')} <= ${cap}) AS ok,
               ${step}),
      hits AS (
        SELECT a.id, a.updated_at, a.tier
        FROM (SELECT *, 2 AS tier FROM t2 UNION ALL SELECT *, 1 FROM t1 UNION ALL SELECT *, 0 FROM t0) a
        WHERE (SELECT ok FROM exact)
        ORDER BY a.tier DESC, a.updated_at DESC, a.id DESC ${x.pageClause})`;
  return {
    ctes,
    overflow: overflowRow('NOT (SELECT ok FROM exact)', '(SELECT step FROM exact)'),
    step: '(SELECT step FROM exact)',
  };
}

function ctesOf(x: Parts, statement: ArticleStatement, sizes: ArticleSizes): Ctes {
  switch (statement) {
    case 'rank':
      return { ctes: `hits AS (${x.ranked('articles a', [x.account, x.anywhere])})` };
    case 'matches':
      return { ctes: `hits AS (${x.ranked('articles a', [x.account, ...x.prefilter(ARTICLE_TEXT), x.anywhere])})` };
    case 'window':
      return windowCtes(x, sizes.window);
    case 'candidates':
      return candidateCtes(x, sizes.candidateCap);
    case 'tiers':
    case 'trigramTiers':
      return tiersCtes(x, sizes.contentWindow, statement === 'trigramTiers');
    case 'walk':
      return walkCtes(x, sizes);
  }
}

export function buildArticlesQuery(
  access: Pick<AccessContext, 'accountId'>,
  params: ArticlesParams,
  words: string[],
  statement: ArticleStatement,
  sizes: ArticleSizes,
): SqlQuery {
  const x = parts(access, params, words);
  const { ctes, overflow = '', step = 'NULL' } = ctesOf(x, statement, sizes);
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
  return { text, values: x.p.values };
}
