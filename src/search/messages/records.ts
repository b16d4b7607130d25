/**
 * Which messages are searchable and how a `messages` row becomes a message record; shared by
 * message search, the indexer, conversations and the read operations.
 */
import { CONVERSATION_STATUSES } from '../conversation-state.js';
import type { MessageRecord } from '../records.js';
import { epoch } from '../sql.js';

/**
 * The searchable message types, decided here only: `messages.message_type` 0 (incoming) and
 * 1 (outgoing), by the names records and indexes use. Activity (2) and template (3) never.
 */
export const SEARCHABLE_MESSAGE_TYPES = [
  [0, 'incoming'],
  [1, 'outgoing'],
] as const;

export type MessageTypeName = (typeof SEARCHABLE_MESSAGE_TYPES)[number][1];

/** The `message_type` values of searchable messages, for SQL. */
export const SEARCHABLE_TYPE_CODES: readonly number[] = SEARCHABLE_MESSAGE_TYPES.map(([code]) => code);

/** The names of the searchable types, for the query DSL and documents. */
export const SEARCHABLE_TYPE_NAMES: readonly MessageTypeName[] = SEARCHABLE_MESSAGE_TYPES.map(([, name]) => name);

/** SQL: the message at `alias` is of a searchable type (the same text everywhere, for index matching). */
export function searchableTypeClause(alias = 'm'): string {
  return `${alias}.message_type IN (${SEARCHABLE_TYPE_CODES.join(', ')})`;
}

export function isSearchableType(code: number): boolean {
  return SEARCHABLE_TYPE_CODES.includes(code);
}

/** The name of a message type as records and documents show it: outgoing (1), else incoming. */
export function messageTypeName(code: number): MessageTypeName {
  return code === 1 ? 'outgoing' : 'incoming';
}

export interface MessageRow {
  id: number;
  content: string | null;
  message_type: number;
  private: boolean | null;
  created_at: number | null;
  conversation_id: number;
  conversation_display_id: number | null;
  /** `conversations.status` of the message's conversation (null: no such conversation). */
  conversation_status: number | null;
  inbox_id: number;
  sender_type: string | null;
  sender_id: number | null;
  sender_name: string | null;
}

/**
 * The columns of a MessageRow, as `[name, expression]` over alias m (message). The conversation's
 * display id and status (contract §9.3: a hit says whether its conversation is still open) and the sender's name are scalar subqueries by primary key, not joins: a statement
 * needs no join for them (planning three joins cost 0.3–0.4 ms of a 1–2 ms search statement), and
 * after an ORDER BY … LIMIT Postgres runs them for the rows it returns only. An agent's name has
 * `LIMIT 1`: on a `users` table of a few pages Postgres scans it rather than probe its primary
 * key, and the limit stops the scan at the agent's row instead of the table's end (a page of
 * messages at M, mostly agents' replies, from 181 users: `update` 0.94 → 0.86 ms, `issue` 0.80 → 0.73).
 */
const MESSAGE_FIELDS: ReadonlyArray<readonly [keyof MessageRow, string]> = [
  ['id', 'm.id'],
  ['content', 'm.content'],
  ['message_type', 'm.message_type'],
  ['private', 'm.private'],
  ['created_at', epoch('m.created_at')],
  ['conversation_id', 'm.conversation_id'],
  ['conversation_display_id', '(SELECT cv.display_id FROM conversations cv WHERE cv.id = m.conversation_id)'],
  ['conversation_status', '(SELECT cv.status FROM conversations cv WHERE cv.id = m.conversation_id)'],
  ['inbox_id', 'm.inbox_id'],
  ['sender_type', 'm.sender_type'],
  ['sender_id', 'm.sender_id'],
  [
    'sender_name',
    `CASE m.sender_type
       WHEN 'Contact' THEN (SELECT sc.name FROM contacts sc WHERE sc.id = m.sender_id AND sc.account_id = m.account_id)
       WHEN 'User' THEN (SELECT coalesce(nullif(su.display_name, ''), su.name) FROM users su WHERE su.id = m.sender_id LIMIT 1)
     END`,
  ],
];

/** Select list producing a MessageRow from `messages m` (no join needed). */
export const MESSAGE_COLUMNS = MESSAGE_FIELDS.map(([name, expr]) => `${expr} AS ${name}`).join(', ');

/**
 * The latest searchable message of conversation `c` (a row with the columns of `conversations`
 * in scope as alias c), as a scalar subquery: one json object with the MessageRow keys, null
 * without one. Its display id and status are c's, not looked up again; its sender is looked up for that one
 * message, after the LIMIT. A scalar subquery, not a lateral join: a join adds to the planner's
 * join search (conversation search at M: 0.75 ms a page as a lateral join, 0.46 as a column).
 */
/** The MessageRow keys LATEST_MESSAGE takes from its conversation `c` instead of looking it up again. */
const CONVERSATION_OWN: Partial<Record<keyof MessageRow, string>> = {
  conversation_display_id: 'c.display_id',
  conversation_status: 'c.status',
};

export const LATEST_MESSAGE = `(
      SELECT json_build_object(${MESSAGE_FIELDS.map(([name, expr]) => `'${name}', ${CONVERSATION_OWN[name] ?? expr}`).join(', ')})
      FROM (
        SELECT m.* FROM messages m
        WHERE m.conversation_id = c.id AND ${searchableTypeClause()}
        ORDER BY m.created_at DESC, m.id DESC
        LIMIT 1
      ) m
    )`;

const SENDER_TYPES: Record<string, 'contact' | 'user' | 'agent_bot'> = {
  Contact: 'contact',
  User: 'user',
  AgentBot: 'agent_bot',
};

export function toMessageRecord(row: MessageRow): MessageRecord {
  const senderType = row.sender_type === null ? undefined : SENDER_TYPES[row.sender_type];
  return {
    id: Number(row.id),
    content: row.content,
    message_type: messageTypeName(row.message_type),
    private: row.private === true,
    created_at: row.created_at === null ? null : Number(row.created_at),
    conversation_id: Number(row.conversation_id),
    conversation_display_id: row.conversation_display_id === null ? null : Number(row.conversation_display_id),
    inbox_id: Number(row.inbox_id),
    sender: senderType && row.sender_id !== null ? { id: Number(row.sender_id), type: senderType, name: row.sender_name } : null,
    conversation_status:
      row.conversation_status === null ? null : (CONVERSATION_STATUSES[Number(row.conversation_status)] ?? null),
  };
}
