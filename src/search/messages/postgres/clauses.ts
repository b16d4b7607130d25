/** The WHERE clauses of the Postgres message engine's statements, over alias `m`. */
import type { SqlParams } from '../../../db/db.js';
import { checkClause, rowCount, timeBounds } from '../../sql.js';
import { asciiLikePattern, foldedRegex, likePrefilter, patternTest } from '../../text.js';
import { wordStartTest } from '../../word-start.js';
import type { MessageQuery } from '../query.js';
import { searchableTypeClause } from '../records.js';

export type MessageFilters = Omit<MessageQuery, 'words' | 'text' | 'offset' | 'limit'>;
/** How a trigram read uses the account and inboxes: conditions an index serves, or `hidden` in one check (checkClause). */
export type ScopeIndex = 'indexed' | 'hidden';
/** Result order of every message engine. */
export const NEWEST_FIRST = 'ORDER BY m.created_at DESC, m.id DESC';

/** The columns a record is made of. */
export const RECORD_SOURCE =
  'm.id, m.content, m.message_type, m.private, m.created_at, m.conversation_id, m.inbox_id, m.sender_type, m.sender_id, m.account_id';

/** The account: a parameter, or in the text (rowCount) for a plan made once for its rows (anyAccount). */
export function accountClause(query: MessageFilters, p: SqlParams, inText = false): string {
  return `m.account_id = ${inText ? rowCount(query.accountId) : p.add(query.accountId)}::bigint`;
}
export function inboxClause(query: MessageFilters, p: SqlParams): string {
  return `m.inbox_id = ANY(${p.add(query.inboxIds)}::bigint[])`;
}
export function senderClauses(query: MessageFilters, p: SqlParams): string[] {
  return query.sender ? [`m.sender_type = ${p.add(query.sender.type)}`, `m.sender_id = ${p.add(query.sender.id)}::bigint`] : [];
}
/** What the index on (account_id, created_at, message_type) checks as it walks. */
export function scopeClauses(query: MessageFilters, p: SqlParams, accountInText = false): string[] {
  return [
    accountClause(query, p, accountInText),
    searchableTypeClause(),
    ...timeBounds('m.created_at', query.since, query.until, p),
  ];
}
/** The filters that narrow the scope: the inboxes and the sender. */
export function narrowingClauses(query: MessageFilters, p: SqlParams): string[] {
  return [inboxClause(query, p), ...senderClauses(query, p)];
}
/** Every filter but the words (`hidden`: as one check, see ScopeIndex). Shared with the record loader. */
export function messageFilterClauses(query: MessageFilters, p: SqlParams, scope: ScopeIndex = 'indexed'): string[] {
  const filters = [...scopeClauses(query, p), ...narrowingClauses(query, p)];
  return scope === 'hidden' ? checkClause(filters) : filters;
}
/** Each word starts a word of the content: a cheap ILIKE to reject with, then the word-start test. */
export function plainWordClauses(words: string[], p: SqlParams): string[] {
  return words.flatMap((w) => [`m.content ILIKE ${p.add(likePrefilter(w))}`, wordStartTest(w, p)(`(m.content || '')`)]);
}
/** The same test for a walk: the C collation's ILIKE (or the folded regex), hidden from the planner, then the word start. */
export function walkWordClauses(words: string[], p: SqlParams, content = 'm.content'): string[] {
  return words.flatMap((w) => {
    const like = asciiLikePattern(w);
    const first = like
      ? `${content} COLLATE "C" ${patternTest('ILIKE', like.pattern, p, true)}`
      : `${content} ${patternTest('~', foldedRegex(w), p, true)}`;
    return [first, wordStartTest(w, p)(`(m.content || '')`)];
  });
}
