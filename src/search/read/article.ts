/** Reading one help-center article: its record and its whole content as plain text. */
import { SqlParams, type SqlQuery } from '../../db/db.js';
import type { AccessContext } from '../../auth/access.js';
import { toArticleFields, type ArticleRow } from '../article-record.js';
import type { SearchContext } from '../context.js';
import type { AppUrl } from '../links.js';
import { MESSAGES, SearchError } from '../../errors.js';
import type { GetArticleParams } from '../params.js';
import type { ArticleDetail, ArticleDetailRecord } from '../records.js';
import { toPlainText } from '../plain-text.js';
import { epoch } from '../sql.js';

export interface ArticleDetailRow extends ArticleRow {
  portal_name: string | null;
}

export function buildArticleQuery(access: Pick<AccessContext, 'accountId'>, params: GetArticleParams): SqlQuery {
  const p = new SqlParams();
  const text = `
    SELECT a.id, a.title, a.slug, p.slug AS portal_slug, p.custom_domain AS portal_custom_domain, p.name AS portal_name, a.account_id, cat.name AS category_name,
           a.status, ${epoch('a.updated_at')} AS updated_at, a.locale, a.description, a.content
    FROM articles a
    LEFT JOIN portals p ON p.id = a.portal_id AND p.account_id = a.account_id
    LEFT JOIN categories cat ON cat.id = a.category_id AND cat.account_id = a.account_id
    WHERE a.account_id = ${p.add(access.accountId)}::bigint AND a.id = ${p.add(params.id)}::bigint`;
  // By primary key, whatever the values: planned once (SqlQuery.planOnce).
  return { text, values: p.values, planOnce: true };
}

/** Marks a line or block end through toPlainText, which collapses every whitespace (a private-use character is not whitespace). */
const LINE_END = '\uE000';
const BLOCK_END_TAG = /<\/(?:p|div|h[1-6]|li|tr|blockquote|pre|ul|ol|table)\s*>|<br\s*\/?>/gi;

/**
 * An article's content as plain text with its lines kept: the snippet's HTML/Markdown removal
 * (toPlainText) applied to the whole content, one line per source line or HTML block.
 */
export function toArticleText(content: string): string {
  const marked = content.replace(BLOCK_END_TAG, `$& ${LINE_END}`).replace(/\r?\n/g, ` ${LINE_END}\n`);
  return toPlainText(marked)
    .split(LINE_END)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n');
}

/** The search record's fields (without the snippet), the portal's name and the whole content as plain text. */
export function toArticleDetailRecord(row: ArticleDetailRow, appUrl: AppUrl): ArticleDetailRecord {
  return {
    ...toArticleFields(row, appUrl),
    portal_name: row.portal_name,
    content: row.content === null ? '' : toArticleText(row.content),
  };
}

export async function getArticle(ctx: SearchContext, params: GetArticleParams): Promise<ArticleDetail> {
  const [row] = await ctx.db.query<ArticleDetailRow>(buildArticleQuery(ctx.access, params), 'get_article');
  if (!row) throw new SearchError('not_found', MESSAGES.articleNotFound);
  return { payload: toArticleDetailRecord(row, ctx.appUrl) };
}
