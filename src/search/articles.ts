/**
 * Article search: every word of `q` starts a word of the title, description or content
 * (case-insensitive). Ordered by relevance tier, then most recently updated.
 */
import { SqlParams, type SqlQuery } from '../db/db.js';
import type { AccessContext } from '../auth/access.js';
import { INDEX, searchdeskIndexes } from '../db/catalog.js';
import { toPage, type Page, type SearchContext } from './context.js';
import { PAGE_SIZE, type ArticlesParams } from './params.js';
import type { ArticleRecord } from './records.js';
import { buildSnippet } from './snippet.js';
import { epoch, pageClause } from './sql.js';
import { hasTrigram, likePrefilter, splitWords, wordStartRegex } from './text.js';

export interface ArticleRow {
  id: number;
  title: string | null;
  slug: string | null;
  portal_slug: string | null;
  account_id: number;
  category_name: string | null;
  status: number | null;
  updated_at: number | null;
  locale: string | null;
  description: string | null;
  content: string | null;
}

const STATUSES = ['draft', 'published', 'archived'] as const;

/**
 * Relevance tiers: 2 when every word is in the title, 1 when every word is in the title or the
 * description, 0 when the content was needed. Ties go to the most recently updated article.
 */
/** The text `searchdesk_articles_text_trgm` indexes: any word of an article occurs in it. */
export const ARTICLE_TEXT = `(coalesce(a.title, '') || ' ' || coalesce(a.description, '') || ' ' || coalesce(a.content, ''))`;

export function buildArticlesQuery(
  access: Pick<AccessContext, 'accountId'>,
  params: ArticlesParams,
  words: string[],
  indexBacked = false,
): SqlQuery {
  const p = new SqlParams();
  // A word that starts a word of a field is a substring of ARTICLE_TEXT, so this filter (a
  // superset: likePrefilter) never drops a match and lets searchdesk_articles_text_trgm narrow
  // the rows first; the folded regular expressions decide.
  const prefilter = indexBacked
    ? words
        .map((w) => likePrefilter(w))
        .filter((pattern) => hasTrigram(pattern))
        .map((pattern) => `${ARTICLE_TEXT} ILIKE ${p.add(pattern)}`)
    : [];
  const regexes = words.map((w) => p.add(wordStartRegex(w)));
  const inTitle = regexes.map((r) => `coalesce(a.title ~ ${r}, false)`);
  const inTitleOrDescription = regexes.map((r) => `coalesce(a.title ~ ${r} OR a.description ~ ${r}, false)`);
  const anywhere = regexes.map((r) => `(a.title ~ ${r} OR a.description ~ ${r} OR a.content ~ ${r})`);
  const tier = `CASE WHEN ${inTitle.join(' AND ')} THEN 2 WHEN ${inTitleOrDescription.join(' AND ')} THEN 1 ELSE 0 END`;
  // Rank and page the ids first; only the page's rows are joined and carry their content.
  const text = `
    WITH hits AS (
      SELECT a.id, a.updated_at, ${tier} AS tier
      FROM articles a
      WHERE a.account_id = ${p.add(access.accountId)}::bigint
        AND ${[...prefilter, ...anywhere].join('\n        AND ')}
      ORDER BY tier DESC, a.updated_at DESC, a.id DESC
      ${pageClause(params.page ?? 1, PAGE_SIZE, p)}
    )
    SELECT a.id, a.title, a.slug, p.slug AS portal_slug, a.account_id, cat.name AS category_name, a.status,
           ${epoch('a.updated_at')} AS updated_at, a.locale, a.description, a.content
    FROM hits h
    JOIN articles a ON a.id = h.id
    LEFT JOIN portals p ON p.id = a.portal_id
    LEFT JOIN categories cat ON cat.id = a.category_id
    ORDER BY h.tier DESC, h.updated_at DESC, h.id DESC`;
  return { text, values: p.values };
}

export function toArticleRecord(row: ArticleRow, words: string[]): ArticleRecord {
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
    snippet: buildSnippet(row.content, words),
  };
}

/**
 * The trigram prefilter is used by the index-backed variant, and by the default one when
 * `searchdesk db indexes` created its index (it only narrows; the regular expressions decide).
 */
export async function searchArticles(ctx: SearchContext, params: ArticlesParams): Promise<Page<ArticleRecord>> {
  const words = splitWords(params.q);
  // A query of punctuation only has no word to match.
  if (words.length === 0) return { items: [], hasMore: false };
  const indexed = ctx.access.flags.searchWithGin || (await searchdeskIndexes(ctx.db)).has(INDEX.articlesTextTrgm);
  const rows = await ctx.db.query<ArticleRow>(buildArticlesQuery(ctx.access, params, words, indexed), 'search_articles');
  return toPage(rows.map((row) => toArticleRecord(row, words)));
}
