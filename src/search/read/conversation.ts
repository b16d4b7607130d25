/**
 * Reading one conversation: its record (as in search results) and a page of its messages, oldest
 * first, with `before`/`after` message-id cursors. Only conversations of inboxes the caller may
 * access are found; any other (unknown, another account's, an inaccessible inbox's) is the same
 * "Conversation not found". No 90-day window: this is reading, not searching.
 */
import { SqlParams, type SqlQuery } from '../../db/db.js';
import type { AccessContext } from '../../auth/access.js';
import type { SearchContext } from '../context.js';
import { CONVERSATION_DECORATION, toConversationRecord, type ConversationRow } from '../conversation-record.js';
import type { AppUrl } from '../links.js';
import { MESSAGES, SearchError } from '../../errors.js';
import { MESSAGE_COLUMNS, toMessageRecord, type MessageRow } from '../messages/records.js';
import { TRANSCRIPT_PAGE_SIZE, type GetConversationParams } from '../params.js';
import type { ConversationTranscript, TranscriptMessage } from '../records.js';
import { checkClause, epoch, rowCount } from '../sql.js';

/** incoming, outgoing, template; activity (2) only when asked. */
const SHOWN_TYPES = [0, 1, 3];
const WITH_ACTIVITY = [0, 1, 2, 3];
const TYPE_NAMES = ['incoming', 'outgoing', 'activity', 'template'] as const;

export interface ConversationLookupRow extends ConversationRow {
  /** The cursor is a message of this conversation (null when no cursor was given). */
  cursor_found: boolean | null;
  /** A shown message exists at or beyond the cursor (the far side of the page). */
  beyond_cursor: boolean | null;
}

/** The cursor of a page: which message, and on which side of it the page lies. */
export interface Cursor {
  side: 'before' | 'after';
  id: number;
}

export function cursorOf(params: GetConversationParams): Cursor | undefined {
  if (params.before !== undefined) return { side: 'before', id: params.before };
  if (params.after !== undefined) return { side: 'after', id: params.after };
  return undefined;
}

export function shownTypes(params: GetConversationParams): number[] {
  return params.include_activity === true ? WITH_ACTIVITY : SHOWN_TYPES;
}

/** `(created_at, id)` of the cursor message, only if it belongs to conversation `conv`. */
function anchor(conv: string, cursorId: string): string {
  return `(SELECT a.created_at, a.id FROM messages a WHERE a.id = ${cursorId}::bigint AND a.conversation_id = ${conv})`;
}

/** The conversation (decorated like a search result) plus what the cursor needs, in one statement. */
export function buildConversationLookupQuery(
  access: Pick<AccessContext, 'accountId' | 'inboxIds'>,
  params: GetConversationParams,
): SqlQuery {
  const p = new SqlParams();
  const account = `c.account_id = ${p.add(access.accountId)}::bigint`;
  const inboxes = `c.inbox_id = ANY(${p.add(access.inboxIds)}::bigint[])`;
  // Found by (account_id, display_id) or by primary key; the rest only checks that one row
  // (checkClause): 0.05 ms of a 0.65–0.71 ms lookup at M.
  const where =
    params.display_id !== undefined
      ? [account, `c.display_id = ${p.add(params.display_id)}::bigint`, ...checkClause([inboxes])]
      : [`c.id = ${p.add(params.id)}::bigint`, ...checkClause([account, inboxes])];
  const cursor = cursorOf(params);
  let cursorColumns = 'NULL::boolean AS cursor_found, NULL::boolean AS beyond_cursor';
  if (cursor) {
    const id = p.add(cursor.id);
    const cmp = cursor.side === 'before' ? '>=' : '<=';
    cursorColumns = `
      EXISTS (SELECT 1 FROM messages a WHERE a.id = ${id}::bigint AND a.conversation_id = c.id) AS cursor_found,
      EXISTS (SELECT 1 FROM messages n WHERE n.conversation_id = c.id AND n.message_type = ANY(${p.add(shownTypes(params))}::int[])
              AND (n.created_at, n.id) ${cmp} ${anchor('c.id', id)}) AS beyond_cursor`;
  }
  const text = `
    SELECT c.id, c.display_id, c.account_id, c.inbox_id, c.status,
           ${epoch('c.created_at')} AS created_at, ${epoch('c.last_activity_at')} AS last_activity_at,
           ct.id AS contact_id, ct.name AS contact_name, ct.email AS contact_email,
           ct.phone_number AS contact_phone_number, ct.identifier AS contact_identifier,
           ${CONVERSATION_DECORATION},
           ${cursorColumns}
    FROM conversations c
    LEFT JOIN contacts ct ON ct.id = c.contact_id AND ct.account_id = c.account_id
    WHERE ${where.join(' AND ')}`;
  // By primary key or by the unique (account_id, display_id), whatever the values: planned once
  // (SqlQuery.planOnce).
  return { text, values: p.values, planOnce: true };
}

/**
 * One page of messages of a conversation already found (so already access-checked), fetching one
 * extra row on the side the page grows towards. Without a cursor: the newest page. Rows come in
 * walking order (newest first for `before` and no cursor); the mapper puts them oldest first.
 */
export function buildTranscriptQuery(conversation: { id: number; account_id: number }, params: GetConversationParams): SqlQuery {
  const p = new SqlParams();
  const conv = `${p.add(conversation.id)}::bigint`;
  // The conversation's messages by index_messages_on_conversation_id; the account and the types
  // only check them (checkClause), so the account's (account_id, created_at) index, which the
  // ORDER BY … LIMIT could make look cheap, is never a way in. That is its plan for any values,
  // so it is planned once (SqlQuery.planOnce), its page's size written in the text (rowCount).
  const where = [
    `m.conversation_id = ${conv}`,
    ...checkClause([
      `m.account_id = ${p.add(conversation.account_id)}::bigint`,
      `m.message_type = ANY(${p.add(shownTypes(params))}::int[])`,
    ]),
  ];
  const cursor = cursorOf(params);
  const forward = cursor?.side === 'after';
  if (cursor) where.push(`(m.created_at, m.id) ${forward ? '>' : '<'} ${anchor(conv, p.add(cursor.id))}`);
  const dir = forward ? 'ASC' : 'DESC';
  const text = `
    SELECT ${MESSAGE_COLUMNS}
    FROM messages m
    WHERE ${where.join(' AND ')}
    ORDER BY m.created_at ${dir}, m.id ${dir}
    LIMIT ${rowCount(TRANSCRIPT_PAGE_SIZE + 1)}`;
  return { text, values: p.values, planOnce: true };
}

/** A message row as a transcript message: the message record, with activity and template types named. */
export function toTranscriptMessage(row: MessageRow): TranscriptMessage {
  return { ...toMessageRecord(row), message_type: TYPE_NAMES[row.message_type] ?? 'incoming' };
}

/** Rows in walking order → the page oldest first, and whether more exist on each side. */
export function toTranscript(
  lookup: ConversationLookupRow,
  rows: MessageRow[],
  params: GetConversationParams,
  appUrl: AppUrl,
): ConversationTranscript {
  const cursor = cursorOf(params);
  const forward = cursor?.side === 'after';
  const extra = rows.length > TRANSCRIPT_PAGE_SIZE;
  const page = rows.slice(0, TRANSCRIPT_PAGE_SIZE).map(toTranscriptMessage);
  if (!forward) page.reverse();
  const beyond = lookup.beyond_cursor === true;
  return {
    meta: {
      conversation: toConversationRecord(lookup, appUrl),
      has_more: forward ? { before: beyond, after: extra } : { before: extra, after: beyond },
    },
    payload: page,
  };
}

export async function getConversation(ctx: SearchContext, params: GetConversationParams): Promise<ConversationTranscript> {
  if (ctx.access.inboxIds.length === 0) throw new SearchError('not_found', MESSAGES.conversationNotFound);
  const [lookup] = await ctx.db.query<ConversationLookupRow>(
    buildConversationLookupQuery(ctx.access, params),
    'get_conversation',
  );
  if (!lookup) throw new SearchError('not_found', MESSAGES.conversationNotFound);
  const cursor = cursorOf(params);
  if (cursor && lookup.cursor_found !== true)
    throw new SearchError('invalid_params', `${cursor.side} must be the id of a message of this conversation`);
  const rows = await ctx.db.query<MessageRow>(buildTranscriptQuery(lookup, params), 'get_conversation_messages');
  return toTranscript(lookup, rows, params, ctx.appUrl);
}
