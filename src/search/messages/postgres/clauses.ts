/** The WHERE clauses of the Postgres message engine's statements, over alias `m`. */
import type { SqlParams } from '../../../db/db.js';
import { checkClause, rowCount, timeBounds } from '../../sql.js';
import { asciiLikePattern, foldedRegex, likePrefilter, patternTest } from '../../text.js';
import { wordStartTest } from '../../word-start.js';
import type { MessageQuery } from '../query.js';
import { searchableTypeClause } from '../records.js';

export type MessageFilters = Omit<MessageQuery, 'words' | 'text' | 'offset' | 'limit'>;

/**
 * How a trigram read may use the account and the inboxes: `indexed`, as conditions the index on
 * (account_id, inbox_id) can serve; `hidden`, as one check no index serves (checkClause), so the
 * trigram index is the only way in and the planner does not weigh each filter.
 */
export type ScopeIndex = 'indexed' | 'hidden';

/** Result order: newest first, ties by id (the order of every message engine). */
export const NEWEST_FIRST = 'ORDER BY m.created_at DESC, m.id DESC';

/** The columns a record is made of: what a statement reading the messages returns for records. */
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

/**
 * The same test for rows a walk reads in order: first the C collation's ILIKE (asciiLikePattern),
 * or the folded regular expression for a word it would not narrow, hidden from the planner
 * (patternTest); then the word start. `content || ''` keeps a trigram index out of the plan.
 */
export function walkWordClauses(words: string[], p: SqlParams, content = 'm.content'): string[] {
  return words.flatMap((w) => {
    const like = asciiLikePattern(w);
    const first = like
      ? `${content} COLLATE "C" ${patternTest('ILIKE', like.pattern, p, true)}`
      : `${content} ${patternTest('~', foldedRegex(w), p, true)}`;
    return [first, wordStartTest(w, p)(`(m.content || '')`)];
  });
}
