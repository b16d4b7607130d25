/**
 * Conversation search: literal substring of the display id (as text) or of the contact's name,
 * email, phone number or identifier; only conversations of inboxes the caller may access.
 */
import { SqlParams, type SqlQuery } from '../db/db.js';
import type { AccessContext } from '../auth/access.js';
import { toPage, type Page, type SearchContext } from './context.js';
import { MESSAGE_JOINS, MESSAGE_JSON, toMessageRecord, type MessageRow } from './message-records.js';
import { PAGE_SIZE, type ConversationsParams } from './params.js';
import type { ConversationRecord } from './records.js';
import { epoch, pageClause, timeBounds } from './sql.js';
import { hasTrigram, substringMatch } from './text.js';

export interface ConversationRow {
  id: number;
  display_id: number;
  account_id: number;
  inbox_id: number;
  status: number;
  created_at: number | null;
  last_activity_at: number | null;
  contact_id: number | null;
  contact_name: string | null;
  contact_email: string | null;
  contact_phone_number: string | null;
  contact_identifier: string | null;
  assignee_id: number | null;
  assignee_name: string | null;
  assignee_email: string | null;
  team_id: number | null;
  team_name: string | null;
  inbox_name: string | null;
  inbox_channel_type: string | null;
  latest_message: MessageRow | null;
}

const STATUSES = ['open', 'resolved', 'pending', 'snoozed'] as const;

/** How the matching conversations are found; every strategy returns the same rows in the same order. */
export type ConversationStrategy =
  /** Walk the account's conversations with the match as a filter (the default variant). */
  | 'scan'
  /** Only the newest CONVERSATION_WINDOW accessible conversations: exact when they hold the whole page. */
  | 'window'
  /** Contacts by their trigram index, display ids by theirs, then order what matched. */
  | 'trigram';

/** Rows of the newest-first window the index-backed variant tries first. */
export const CONVERSATION_WINDOW = 1_000;

const CONTACT_FIELDS = ['name', 'email', 'phone_number', 'identifier'] as const;

export function buildConversationsQuery(
  access: Pick<AccessContext, 'accountId' | 'inboxIds'>,
  params: ConversationsParams,
  strategy: ConversationStrategy = 'scan',
): SqlQuery {
  const p = new SqlParams();
  const account = p.add(access.accountId);
  const accessible = [
    `cv.account_id = ${account}::bigint`,
    `cv.inbox_id = ANY(${p.add(access.inboxIds)}::bigint[])`,
    ...timeBounds('cv.last_activity_at', params.since, params.until, p),
  ];
  const contactColumns = CONTACT_FIELDS.map((c) => `ct.${c}`);
  // Built where used: a placeholder that no statement mentions has no type Postgres can infer.
  const match = () => substringMatch(['cv.display_id::text', ...contactColumns], params.q, p);
  const order = 'ORDER BY cv.created_at DESC, cv.id DESC';
  const page = pageClause(params.page ?? 1, PAGE_SIZE, p);
  const joinContact = 'LEFT JOIN contacts ct ON ct.id = cv.contact_id AND ct.account_id = cv.account_id';
  let ctes: string;
  if (strategy === 'window') {
    // Not materialised: the outer LIMIT stops the walk as soon as the page is full.
    ctes = `
      hits AS (
        SELECT cv.id, cv.created_at
        FROM (SELECT cv.* FROM conversations cv WHERE ${accessible.join(' AND ')} ${order} LIMIT ${p.add(CONVERSATION_WINDOW)}) cv
        ${joinContact}
        WHERE ${match()} ${order} ${page}
      )`;
  } else if (strategy === 'trigram') {
    // ANY(ARRAY(…)) makes Postgres find the contacts first (trigram index), then their
    // conversations by contact_id; the union carries what the access filter and order need.
    const columns = 'cv.id, cv.account_id, cv.inbox_id, cv.created_at, cv.last_activity_at';
    ctes = `
      matched AS MATERIALIZED (
        SELECT ${columns} FROM conversations cv
        WHERE cv.account_id = ${account}::bigint AND cv.contact_id = ANY(ARRAY(
          SELECT ct.id FROM contacts ct WHERE ct.account_id = ${account}::bigint AND ${substringMatch(contactColumns, params.q, p)}))
        UNION
        SELECT ${columns} FROM conversations cv
        WHERE cv.account_id = ${account}::bigint AND ${substringMatch(['cv.display_id::text'], params.q, p)}
      ),
      hits AS (
        SELECT cv.id, cv.created_at FROM matched cv
        WHERE ${accessible.join(' AND ')} ${order} ${page}
      )`;
  } else {
    ctes = `
      hits AS (
        SELECT cv.id, cv.created_at FROM conversations cv ${joinContact}
        WHERE ${[...accessible, match()].join(' AND ')} ${order} ${page}
      )`;
  }
  // Find and page the ids first, then decorate only the rows of this page.
  const text = `
    WITH ${ctes}
    SELECT c.id, c.display_id, c.account_id, c.inbox_id, c.status,
           ${epoch('c.created_at')} AS created_at, ${epoch('c.last_activity_at')} AS last_activity_at,
           ct.id AS contact_id, ct.name AS contact_name, ct.email AS contact_email,
           ct.phone_number AS contact_phone_number, ct.identifier AS contact_identifier,
           u.id AS assignee_id, coalesce(nullif(u.display_name, ''), u.name) AS assignee_name, u.email AS assignee_email,
           t.id AS team_id, t.name AS team_name,
           i.name AS inbox_name, i.channel_type AS inbox_channel_type,
           lm.latest_message
    FROM hits h
    JOIN conversations c ON c.id = h.id
    LEFT JOIN contacts ct ON ct.id = c.contact_id AND ct.account_id = c.account_id
    LEFT JOIN users u ON u.id = c.assignee_id
    LEFT JOIN teams t ON t.id = c.team_id AND t.account_id = c.account_id
    LEFT JOIN inboxes i ON i.id = c.inbox_id
    LEFT JOIN LATERAL (
      SELECT ${MESSAGE_JSON} AS latest_message
      FROM messages m ${MESSAGE_JOINS}
      WHERE m.conversation_id = c.id AND m.message_type IN (0, 1)
      ORDER BY m.created_at DESC, m.id DESC
      LIMIT 1
    ) lm ON true
    ORDER BY h.created_at DESC, h.id DESC`;
  return { text, values: p.values };
}

export function toConversationRecord(row: ConversationRow): ConversationRecord {
  return {
    id: row.id,
    display_id: row.display_id,
    account_id: row.account_id,
    inbox_id: row.inbox_id,
    status: STATUSES[row.status] ?? 'open',
    created_at: row.created_at,
    last_activity_at: row.last_activity_at,
    messages: row.latest_message ? [toMessageRecord(row.latest_message)] : [],
    meta: {
      sender:
        row.contact_id === null
          ? null
          : {
              id: row.contact_id,
              name: row.contact_name,
              email: row.contact_email,
              phone_number: row.contact_phone_number,
              identifier: row.contact_identifier,
              type: 'contact',
            },
      assignee:
        row.assignee_id === null
          ? null
          : { id: row.assignee_id, name: row.assignee_name, email: row.assignee_email, type: 'user' },
      team: row.team_id === null ? null : { id: row.team_id, name: row.team_name },
      inbox: { id: row.inbox_id, name: row.inbox_name, channel_type: row.inbox_channel_type },
    },
  };
}

/**
 * The index-backed variant (`search_with_gin`): the newest conversations first — exact when
 * they hold the whole page, and quick for common terms — else the trigram indexes, which are
 * quick for rare terms. A `q` without three letters or digits in a row cannot use a trigram
 * index, so it scans. All three return exactly the default's rows in the default's order.
 */
async function findIndexBacked(ctx: SearchContext, params: ConversationsParams): Promise<ConversationRow[]> {
  const windowed = await ctx.db.query<ConversationRow>(
    buildConversationsQuery(ctx.access, params, 'window'),
    'search_conversations_window',
  );
  // A full page (plus the row telling has_more) inside the window is the exact answer.
  if (windowed.length > PAGE_SIZE) return windowed;
  const strategy = hasTrigram(params.q) ? 'trigram' : 'scan';
  return ctx.db.query<ConversationRow>(buildConversationsQuery(ctx.access, params, strategy), `search_conversations_${strategy}`);
}

export async function searchConversations(ctx: SearchContext, params: ConversationsParams): Promise<Page<ConversationRecord>> {
  if (ctx.access.inboxIds.length === 0) return { items: [], hasMore: false };
  const rows = ctx.access.flags.searchWithGin
    ? await findIndexBacked(ctx, params)
    : await ctx.db.query<ConversationRow>(buildConversationsQuery(ctx.access, params), 'search_conversations');
  return toPage(rows.map(toConversationRecord));
}
