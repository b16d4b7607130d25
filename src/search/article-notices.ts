/**
 * The word checks of an empty article search (notices.ts): every word must start a word of the
 * title, description or content, as in searchArticles, so an empty search of several words, or of
 * a form no article holds, gets the same sentences as a message search. One statement per word.
 */
import { INDEX, searchdeskIndexes } from '../db/catalog.js';
import { SqlParams, type SqlQuery } from '../db/db.js';
import { ARTICLE_TEXT } from './article-statements.js';
import type { Page, SearchContext } from './context.js';
import { wordCheckNotices } from './notices.js';
import type { ArticlesParams } from './params.js';
import { hasTrigram, likePrefilter, splitWords } from './text.js';
import { wordStartTest } from './word-start.js';

/**
 * One statement: `first`, the index of the first form some article of the account matches, or
 * null. Each check is searchArticles' own test: the word-start expression on each field, after
 * the ILIKE prefilter on ARTICLE_TEXT when `trigramIndex` (searchdesk_articles_text_trgm) can
 * read it (hidden from the planner, which then takes that index); without the index the
 * prefilter would only add work to the scan of the account's articles. CASE stops at the first
 * check that holds.
 */
export function buildArticleFirstMatchQuery(accountId: number, forms: string[], trigramIndex = true): SqlQuery {
  const p = new SqlParams();
  const account = `a.account_id = ${p.add(accountId)}::bigint`;
  const branches = forms.map((form, i) => {
    const pattern = likePrefilter(form);
    const starts = wordStartTest(form, p);
    const test = [
      account,
      ...(trigramIndex && hasTrigram(pattern) ? [`${ARTICLE_TEXT} ILIKE (SELECT ${p.add(pattern)}::text)`] : []),
      `(${starts('a.title')} OR ${starts('a.description')} OR ${starts('a.content')})`,
    ];
    return `WHEN EXISTS (SELECT 1 FROM articles a WHERE ${test.join(' AND ')}) THEN ${i}`;
  });
  return { text: `SELECT CASE ${branches.join(' ')} END AS first`, values: p.values };
}

/** The notices of an article search: the word checks, when its first page is empty and `checks` allows them. */
export async function articleNotices(
  ctx: SearchContext,
  params: ArticlesParams,
  page: Page<unknown>,
  checks: boolean,
): Promise<string[]> {
  const words = splitWords(params.q);
  if (!checks || page.items.length > 0 || (params.page ?? 1) > 1 || words.length === 0) return [];
  // As searchArticles decides: the index-backed variant counts on searchdesk's indexes.
  const trigramIndex = ctx.access.flags.searchWithGin || (await searchdeskIndexes(ctx.db)).has(INDEX.articlesTextTrgm);
  const firstMatch = async (forms: string[]) => {
    const [row] = await ctx.db.query<{ first: number | null }>(
      buildArticleFirstMatchQuery(ctx.access.accountId, forms, trigramIndex),
      'search_articles_first_match',
    );
    return row?.first ?? undefined;
  };
  return wordCheckNotices(words, firstMatch, { shorter: true, noun: 'article', logger: ctx.logger });
}
