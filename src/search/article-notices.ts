/**
 * The word checks of an empty article search (notices.ts): every word must start a word of the
 * title, description or content, as in searchArticles, so an empty search of several words, or of
 * a form no article holds, gets the same sentences as a message search. One statement per word.
 */
import { SqlParams, type SqlQuery } from '../db/db.js';
import { ARTICLE_TEXT } from './articles.js';
import type { Page, SearchContext } from './context.js';
import { wordCheckNotices } from './notices.js';
import type { ArticlesParams } from './params.js';
import { hasTrigram, likePrefilter, splitWords, wordStartRegex } from './text.js';

/**
 * One statement: `first`, the index of the first form some article of the account matches, or
 * null. Each check is searchArticles' own test: the ILIKE prefilter on ARTICLE_TEXT (hidden from
 * the planner, so the trigram index on that text reads it, as in searchArticles) and the
 * word-start expression on each field. CASE stops at the first check that holds.
 */
export function buildArticleFirstMatchQuery(accountId: number, forms: string[]): SqlQuery {
  const p = new SqlParams();
  const account = `a.account_id = ${p.add(accountId)}::bigint`;
  const branches = forms.map((form, i) => {
    const pattern = likePrefilter(form);
    const regex = p.add(wordStartRegex(form));
    const test = [
      account,
      ...(hasTrigram(pattern) ? [`${ARTICLE_TEXT} ILIKE (SELECT ${p.add(pattern)}::text)`] : []),
      `(a.title ~ ${regex} OR a.description ~ ${regex} OR a.content ~ ${regex})`,
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
  const firstMatch = async (forms: string[]) => {
    const [row] = await ctx.db.query<{ first: number | null }>(
      buildArticleFirstMatchQuery(ctx.access.accountId, forms),
      'search_articles_first_match',
    );
    return row?.first ?? undefined;
  };
  return wordCheckNotices(words, firstMatch, { shorter: true, noun: 'article', logger: ctx.logger });
}
