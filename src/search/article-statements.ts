/** Article search's statements (docs/plans.md): each word starts a word of the title (tier 2), description (1), content (0). */
import { SqlParams, type SqlQuery } from '../db/db.js';
import type { AccessContext } from '../auth/access.js';
import { PAGE_SIZE, type ArticlesParams } from './params.js';
import { SNIPPET_SOURCE_LENGTH } from './snippet.js';
import { windowCanHold } from './plan/windows.js';
import { epoch, pageClause } from './sql.js';
import { hasTrigram, likePrefilter } from './text.js';
import { wordStartTest } from './word-start.js';

/** The text `searchdesk_articles_text_trgm` indexes: any word of an article occurs in it. */
export const ARTICLE_TEXT = `(coalesce(a.title, '') || ' ' || coalesce(a.description, '') || ' ' || coalesce(a.content, ''))`;
/** The text `searchdesk_articles_title_description_trgm` indexes: any word of a title or description occurs in it. */
export const ARTICLE_TITLE_DESCRIPTION = `(coalesce(a.title, '') || ' ' || coalesce(a.description, ''))`;
export type ArticleStatement = 'rank' | 'window' | 'candidates' | 'tiers' | 'trigramTiers' | 'matches' | 'walk';
/** The walk's step that answered or gave way (its overflow row): only tests read it. */
export type WalkStep = 'window' | 'titles' | 'capped' | 'walk' | 'texts';
export type ArticleSizes = Record<'window' | 'candidateCap' | 'contentWindow', number>;

/** Shared clauses, parameters first; `prefilter`: ILIKE supersets a trigram index serves, hidden from the planner if asked. */
function parts(access: Pick<AccessContext, 'accountId'>, params: ArticlesParams, words: string[]) {
  const p = new SqlParams();
  const account = `a.account_id = ${p.add(access.accountId)}::bigint`;
  const patterns = words.map((w) => likePrefilter(w)).filter((pattern) => hasTrigram(pattern));
  const prefilter = (text: string, hidden = false) =>
    patterns.map((pattern) => `${text} ILIKE ${hidden ? `(SELECT ${p.add(pattern)}::text)` : p.add(pattern)}`);
  const starts = words.map((w) => wordStartTest(w, p));
  const inTitle = starts.map((s) => `coalesce(${s('a.title')}, false)`).join(' AND ');
  const inTitleOrDescription = starts.map((s) => `coalesce(${s('a.title')} OR ${s('a.description')}, false)`).join(' AND ');
  const anywhere = starts.map((s) => `(${s('a.title')} OR ${s('a.description')} OR ${s('a.content')})`).join(' AND ');
  const tier = `CASE WHEN ${inTitle} THEN 2 WHEN ${inTitleOrDescription} THEN 1 ELSE 0 END`;
  const page = params.page ?? 1;
  const paged = pageClause(page, PAGE_SIZE, p);
  const ranked = (from: string, where: string[], t = tier) => `SELECT a.id, a.updated_at, ${t} AS tier FROM ${from}
      WHERE ${where.join(' AND ')} ORDER BY tier DESC, a.updated_at DESC, a.id DESC ${paged}`;
  return { p, page, account, prefilter, inTitle, inTitleOrDescription, anywhere, tier, pageClause: paged, ranked };
}
type Parts = ReturnType<typeof parts>;

/** The row a statement adds when it cannot tell the exact answer. */
const overflowRow = (condition: string, step = 'NULL') => `
    UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, true, ${step}
    WHERE ${condition}`;
const count = (cte: string) => `(SELECT count(*) FROM ${cte})`;
const NEWEST = 'ORDER BY a.updated_at DESC, a.id DESC';
/** The newest `rows` articles of the account with `columns`, as `a`. */
const newest = (x: Parts, columns: string, rows: string) =>
  `(SELECT ${columns} FROM articles a WHERE ${x.account} ${NEWEST} LIMIT ${rows}) a`;

type Ctes = { ctes: string; overflow?: string; step?: string };

/** The trigram index's rows, whole (never read again), ranked alone. */
function candidateCtes(x: Parts, candidateCap: number): Ctes {
  const cap = x.p.add(candidateCap);
  return {
    ctes: `cand AS MATERIALIZED (SELECT a.id, a.updated_at, a.title, a.description, a.content FROM articles a
        WHERE ${[x.account, ...x.prefilter(ARTICLE_TEXT)].join(' AND ')} LIMIT ${cap} + 1),
      hits AS (${x.ranked('cand a', [`(SELECT count(*) FROM cand) <= ${cap}`, x.anywhere])})`,
    overflow: overflowRow(`(SELECT count(*) FROM cand) > ${cap}`),
  };
}

/** Tiers 2 and 1 from every title and description (`trigram`: their index's rows), tier 0 from the newest contents. */
function tiersCtes(x: Parts, contentWindow: number, trigram: boolean): Ctes {
  const need = x.p.add(x.page * PAGE_SIZE + 1);
  const rows = x.p.add(contentWindow);
  const topWhere = [x.account, ...(trigram ? x.prefilter(ARTICLE_TITLE_DESCRIPTION) : []), x.inTitleOrDescription];
  return {
    ctes: `top AS MATERIALIZED (SELECT a.id, a.updated_at, ${x.tier} AS tier FROM articles a WHERE ${topWhere.join(' AND ')}),
      rest AS MATERIALIZED (SELECT a.id, a.updated_at, 0 AS tier
        FROM ${newest(x, 'a.id, a.updated_at, a.title, a.description, a.content', rows)}
        WHERE (SELECT count(*) FROM top) < ${need} AND NOT (${x.inTitleOrDescription}) AND ${x.anywhere} ${NEWEST} LIMIT ${need}),
      exact AS MATERIALIZED (SELECT (SELECT count(*) FROM top) + (SELECT count(*) FROM rest) >= ${need}
        OR (SELECT count(*) FROM (SELECT 1 FROM articles a WHERE ${x.account} LIMIT ${rows}) x) < ${rows} AS ok),
      hits AS (SELECT a.id, a.updated_at, a.tier FROM (SELECT * FROM top UNION ALL SELECT * FROM rest) a
        WHERE (SELECT ok FROM exact) ORDER BY a.tier DESC, a.updated_at DESC, a.id DESC ${x.pageClause})`,
    overflow: overflowRow('NOT (SELECT ok FROM exact)'),
  };
}

/** The walk's tier 2: the window's title matches when they fill the page, else every title match. */
function walkTitles(x: Parts, window: number, need: string): string {
  // A function: its patterns are added after the window's length.
  const everyTitle = () => [x.account, ...x.prefilter('a.title', true), x.inTitle].join(' AND ');
  if (!windowCanHold(x.page, window))
    return `t2 AS MATERIALIZED (SELECT a.id, a.updated_at FROM articles a WHERE ${everyTitle()}),`;
  return `win AS MATERIALIZED (SELECT a.id, a.updated_at FROM ${newest(x, 'a.id, a.updated_at, a.title', x.p.add(window))}
        WHERE ${x.inTitle} ${NEWEST} LIMIT ${need}),
      titles AS MATERIALIZED (SELECT a.id, a.updated_at FROM articles a WHERE ${count('win')} < ${need} AND ${everyTitle()}),
      t2 AS MATERIALIZED (SELECT * FROM win WHERE ${count('win')} >= ${need} UNION ALL SELECT * FROM titles),`;
}

/** The walk, each step only while the page is short (docs/plans.md, Articles). */
function walkCtes(x: Parts, { window, candidateCap, contentWindow }: ArticleSizes): Ctes {
  const need = x.p.add(x.page * PAGE_SIZE + 1);
  const cap = x.p.add(candidateCap);
  const tier2 = walkTitles(x, window, need);
  const [whole, short, outsideT2] = [
    `${count('capped')} <= ${cap}`,
    `${count('t2')} < ${need}`,
    'a.id NOT IN (SELECT id FROM t2)',
  ];
  const ctes = `${tier2}
      found AS MATERIALIZED (SELECT a.id, a.updated_at, a.title, a.description FROM articles a
        WHERE ${[short, x.account, ...x.prefilter(ARTICLE_TITLE_DESCRIPTION, true)].join(' AND ')}),
      capped AS MATERIALIZED (SELECT * FROM found LIMIT ${cap} + 1),
      t1 AS MATERIALIZED (SELECT a.id, a.updated_at FROM capped a WHERE ${whole} AND ${x.inTitleOrDescription} AND ${outsideT2}
        UNION ALL
        (SELECT a.id, a.updated_at FROM ${newest(x, 'a.id, a.updated_at, a.title, a.description', x.p.add(contentWindow))}
         WHERE ${short} AND NOT ${whole} AND ${x.inTitleOrDescription} AND ${outsideT2} ${NEWEST} LIMIT ${need})),
      filled AS MATERIALIZED (SELECT ${count('t2')} + ${count('t1')} >= ${need} AS ok),
      texts AS MATERIALIZED (SELECT a.id, a.updated_at, a.title, a.description, a.content FROM articles a
        WHERE ${[`NOT (SELECT ok FROM filled)`, whole, x.account, ...x.prefilter(ARTICLE_TEXT, true)].join(' AND ')}),
      texts_capped AS MATERIALIZED (SELECT * FROM texts LIMIT ${cap} + 1),
      t0 AS MATERIALIZED (SELECT a.id, a.updated_at FROM texts_capped a
        WHERE ${count('texts_capped')} <= ${cap} AND ${x.anywhere}
          AND a.id NOT IN (SELECT id FROM t2 UNION ALL SELECT id FROM t1)),
      exact AS MATERIALIZED (SELECT (SELECT ok FROM filled) OR (${whole} AND ${count('texts_capped')} <= ${cap}) AS ok,
        CASE ${windowCanHold(x.page, window) ? `WHEN ${count('win')} >= ${need} THEN 'window' ` : ''}WHEN ${count('t2')} >= ${need} THEN 'titles'
        WHEN ${whole} THEN CASE WHEN (SELECT ok FROM filled) THEN 'capped' ELSE 'texts' END ELSE 'walk' END AS step),
      hits AS (SELECT a.id, a.updated_at, a.tier
        FROM (SELECT *, 2 AS tier FROM t2 UNION ALL SELECT *, 1 FROM t1 UNION ALL SELECT *, 0 FROM t0) a
        WHERE (SELECT ok FROM exact) ORDER BY a.tier DESC, a.updated_at DESC, a.id DESC ${x.pageClause})`;
  const step = '(SELECT step FROM exact)';
  return { ctes, overflow: overflowRow('NOT (SELECT ok FROM exact)', step), step };
}

const CTES: Record<ArticleStatement, (x: Parts, sizes: ArticleSizes) => Ctes> = {
  rank: (x) => ({ ctes: `hits AS (${x.ranked('articles a', [x.account, x.anywhere])})` }),
  matches: (x) => ({ ctes: `hits AS (${x.ranked('articles a', [x.account, ...x.prefilter(ARTICLE_TEXT), x.anywhere])})` }),
  // The titles of the newest articles, in index order.
  window: (x, { window }) => ({
    ctes: `win AS (SELECT a.id, a.updated_at, a.title FROM articles a WHERE ${x.account} ${NEWEST} LIMIT ${x.p.add(window)}),
      hits AS (${x.ranked('win a', [x.inTitle], '2')})`,
  }),
  candidates: (x, sizes) => candidateCtes(x, sizes.candidateCap),
  tiers: (x, sizes) => tiersCtes(x, sizes.contentWindow, false),
  trigramTiers: (x, sizes) => tiersCtes(x, sizes.contentWindow, true),
  walk: walkCtes,
};

export function buildArticlesQuery(
  access: Pick<AccessContext, 'accountId'>,
  params: ArticlesParams,
  words: string[],
  statement: ArticleStatement,
  sizes: ArticleSizes,
): SqlQuery {
  const x = parts(access, params, words);
  const { ctes, overflow = '', step = 'NULL' } = CTES[statement](x, sizes);
  const text = `
    WITH ${ctes}
    SELECT a.id, a.title, a.slug, p.slug AS portal_slug, p.custom_domain AS portal_custom_domain, a.account_id,
           cat.name AS category_name, a.status, ${epoch('a.updated_at')} AS updated_at, a.locale, a.description,
           left(a.content, ${SNIPPET_SOURCE_LENGTH}) AS content, h.tier, h.updated_at AS ranked_at, false AS overflow, ${step}::text AS step
    FROM hits h JOIN articles a ON a.id = h.id
    LEFT JOIN portals p ON p.id = a.portal_id LEFT JOIN categories cat ON cat.id = a.category_id${overflow}
    ORDER BY tier DESC, ranked_at DESC, id DESC`;
  return { text, values: x.p.values };
}
