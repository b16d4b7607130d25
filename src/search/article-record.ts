/** An article's row and record, shared by the search and the read. */
import { articleUrl, type AppUrl } from './links.js';
import type { ArticleRecord } from './records.js';
import { buildSnippet } from './snippet.js';

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
