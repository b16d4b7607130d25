/** The Postgres message engine: trigram-assisted word-prefix matching on `messages.content`. */
import { SqlParams, type Db } from '../../db/db.js';
import { SEARCHABLE_MESSAGE_TYPES } from '../message-records.js';
import type { MessageQuery } from '../message-query.js';
import { timeBounds } from '../sql.js';
import { likePrefilter, wordStartRegex } from '../text.js';
import type { MessageEngine } from './engine.js';

/** Every filter of a MessageQuery except the words, over alias `m`. Shared with the record loader. */
export function messageFilterClauses(query: Omit<MessageQuery, 'words' | 'offset' | 'limit'>, p: SqlParams): string[] {
  const clauses = [
    `m.account_id = ${p.add(query.accountId)}::bigint`,
    `m.inbox_id = ANY(${p.add(query.inboxIds)}::bigint[])`,
    `m.message_type IN (${SEARCHABLE_MESSAGE_TYPES.join(', ')})`,
    ...timeBounds('m.created_at', query.since, query.until, p),
  ];
  if (query.sender) {
    clauses.push(`m.sender_type = ${p.add(query.sender.type)}`, `m.sender_id = ${p.add(query.sender.id)}::bigint`);
  }
  return clauses;
}

/**
 * Each (folded) word must start a word of the content. `ILIKE '%word%'` (likePrefilter) is implied
 * by that and lets the trigram index on messages.content narrow the rows; the folded regular
 * expression then decides, the same way for every database locale.
 */
export function messageWordClauses(words: string[], p: SqlParams): string[] {
  return words.flatMap((w) => [`m.content ILIKE ${p.add(likePrefilter(w))}`, `m.content ~ ${p.add(wordStartRegex(w))}`]);
}

export function buildMessageIdsQuery(query: MessageQuery) {
  const p = new SqlParams();
  const where = [...messageFilterClauses(query, p), ...messageWordClauses(query.words, p)];
  const text = `
    SELECT m.id FROM messages m
    WHERE ${where.join('\n      AND ')}
    ORDER BY m.created_at DESC, m.id DESC
    LIMIT ${p.add(query.limit)} OFFSET ${p.add(query.offset)}`;
  return { text, values: p.values };
}

export function createPostgresEngine(db: Db): MessageEngine {
  return {
    name: 'postgres',
    label: 'postgres',
    async findIds(query) {
      const rows = await db.query<{ id: number }>(buildMessageIdsQuery(query), 'search_messages_pg');
      return rows.map((r) => Number(r.id));
    },
    check: () => db.ping(),
    async close() {},
  };
}
