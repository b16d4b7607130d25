/**
 * The help desk's own search SQL: what its search service runs without searchdesk, written as a
 * faithful equivalent of its production queries (plain ILIKE '%q%' on the four contact columns,
 * conversations joined to their contact, message content; articles through a `simple` tsvector
 * with a prefix tsquery ordered by ts_rank), with the caller's access applied as searchdesk applies
 * it (the account always; accessible inboxes for conversations and messages; the 90-day message
 * window; since/until, `from` and `inbox_id` where the interface has them), so both sides return
 * comparable rows. Only the search statement is timed: the help desk renders its records from
 * the rows it loaded, searchdesk's figure includes its record reads and the MCP surface.
 */
import type pg from 'pg';
import type { AccessContext } from '../../src/auth/access.js';
import { buildMessageQuery } from '../../src/search/messages/query.js';
import { parseParams, type MessagesParams } from '../../src/search/params.js';
import { splitWords } from '../../src/search/text.js';
import type { ListConversationsParams } from '../../src/search/list-params.js';
import type { BenchQuery, ToolName } from './workload.js';

const PAGE_SIZE = 15;

export interface HelpdeskSql {
  /** Which search of the help desk (search_all runs all four). */
  part: 'contacts' | 'conversations' | 'messages' | 'articles';
  text: string;
  values: unknown[];
}

class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Inclusive whole-second bounds on a UTC `timestamp without time zone` column. */
function bounds(column: string, since: number | undefined, until: number | undefined, p: Params): string[] {
  const out: string[] = [];
  if (since !== undefined) out.push(`${column} >= (to_timestamp(${p.add(since)}::double precision) AT TIME ZONE 'UTC')`);
  if (until !== undefined) out.push(`${column} < (to_timestamp(${p.add(until + 1)}::double precision) AT TIME ZONE 'UTC')`);
  return out;
}

const page = (n: number | undefined, p: Params) => `LIMIT ${p.add(PAGE_SIZE)} OFFSET ${p.add(((n ?? 1) - 1) * PAGE_SIZE)}`;

interface TextParams {
  q: string;
  page?: number;
  since?: number;
  until?: number;
}

export function contactsSql(access: AccessContext, params: TextParams): HelpdeskSql {
  const p = new Params();
  const like = p.add(`%${params.q}%`);
  const where = [
    `account_id = ${p.add(access.accountId)}`,
    `(name ILIKE ${like} OR email ILIKE ${like} OR phone_number ILIKE ${like} OR identifier ILIKE ${like})`,
    ...bounds('last_activity_at', params.since, params.until, p),
  ];
  return {
    part: 'contacts',
    text: `SELECT * FROM contacts WHERE ${where.join(' AND ')} ORDER BY last_activity_at DESC NULLS LAST, id DESC ${page(params.page, p)}`,
    values: p.values,
  };
}

export function conversationsSql(access: AccessContext, params: TextParams): HelpdeskSql {
  const p = new Params();
  const like = p.add(`%${params.q}%`);
  const where = [
    `conversations.account_id = ${p.add(access.accountId)}`,
    `conversations.inbox_id = ANY(${p.add(access.inboxIds)}::int[])`,
    `(cast(conversations.display_id as text) ILIKE ${like} OR contacts.name ILIKE ${like} OR contacts.email ILIKE ${like}` +
      ` OR contacts.phone_number ILIKE ${like} OR contacts.identifier ILIKE ${like})`,
    ...bounds('conversations.last_activity_at', params.since, params.until, p),
  ];
  return {
    part: 'conversations',
    text:
      `SELECT conversations.* FROM conversations INNER JOIN contacts ON conversations.contact_id = contacts.id ` +
      `WHERE ${where.join(' AND ')} ORDER BY conversations.created_at DESC, conversations.id DESC ${page(params.page, p)}`,
    values: p.values,
  };
}

/** undefined when the search cannot match (no accessible inbox, impossible sender). */
export function messagesSql(access: AccessContext, params: MessagesParams, nowMs: number): HelpdeskSql | undefined {
  const query = buildMessageQuery(access, params, nowMs);
  if (!query) return undefined;
  const p = new Params();
  const where = [
    `account_id = ${p.add(query.accountId)}`,
    `inbox_id = ANY(${p.add(query.inboxIds)}::int[])`,
    `message_type IN (0, 1)`,
    `content ILIKE ${p.add(`%${query.text}%`)}`,
    ...bounds('created_at', query.since, query.until, p),
  ];
  if (query.sender) where.push(`sender_type = ${p.add(query.sender.type)}`, `sender_id = ${p.add(query.sender.id)}::bigint`);
  return {
    part: 'messages',
    text: `SELECT * FROM messages WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${p.add(PAGE_SIZE)} OFFSET ${p.add(query.offset)}`,
    values: p.values,
  };
}

/** undefined when `q` has no word (the help desk would search for nothing). */
export function articlesSql(access: AccessContext, params: TextParams): HelpdeskSql | undefined {
  const words = splitWords(params.q);
  if (words.length === 0) return undefined;
  const p = new Params();
  const doc = `to_tsvector('simple', coalesce(title, '') || ' ' || coalesce(description, '') || ' ' || coalesce(content, ''))`;
  const tsquery = `to_tsquery('simple', ${p.add(words.map((w) => `${w}:*`).join(' & '))})`;
  return {
    part: 'articles',
    text:
      `SELECT articles.*, ts_rank(${doc}, ${tsquery}) AS rank FROM articles ` +
      `WHERE account_id = ${p.add(access.accountId)} AND ${doc} @@ ${tsquery} ` +
      `ORDER BY rank DESC, updated_at DESC, id DESC ${page(params.page, p)}`,
    values: p.values,
  };
}

/** The help desk's statements for one bench query, in the order it runs them (search_all: all four, one after another). */
export function helpdeskSql(access: AccessContext, q: BenchQuery, nowMs: number): HelpdeskSql[] {
  const tool: ToolName = q.tool;
  switch (tool) {
    case 'search_contacts':
      return [contactsSql(access, parseParams('contacts', q.args))];
    case 'search_conversations':
      return [conversationsSql(access, parseParams('conversations', q.args))];
    case 'search_messages':
      return [messagesSql(access, parseParams('messages', q.args), nowMs)].filter((s) => s !== undefined);
    case 'search_articles':
      return [articlesSql(access, parseParams('articles', q.args))].filter((s) => s !== undefined);
    case 'search_all': {
      const { q: text, page: n, since, until } = parseParams('all', q.args);
      return [
        contactsSql(access, { q: text, page: n, since, until }),
        conversationsSql(access, { q: text, page: n, since, until }),
        access.flags.advancedSearch ? messagesSql(access, { q: text, page: n }, nowMs) : undefined,
        articlesSql(access, { q: text, page: n }),
      ].filter((s) => s !== undefined);
    }
  }
}

/**
 * Runs the help desk's statements for `q` as its request would: a connection checked out of its
 * pool, the statements one after another on it. Resolves with the ms taken, the checkout included
 * (searchdesk's figure includes its own).
 */
export async function runHelpdesk(pool: pg.Pool, access: AccessContext, q: BenchQuery): Promise<number> {
  const statements = helpdeskSql(access, q, Date.now());
  const started = performance.now();
  const client = await pool.connect();
  try {
    for (const s of statements) await client.query(s.text, s.values);
    return performance.now() - started;
  } finally {
    client.release();
  }
}

const LIST_STATUS = { open: 0, resolved: 1, pending: 2, snoozed: 3 } as const;
const LIST_PRIORITY = { low: 0, medium: 1, high: 2, urgent: 3, none: null } as const;

/**
 * The help desk's statements for one list (list_conversations), as its ConversationFinder issues
 * them: three ActiveRecord `.count`s (mine, unassigned, all) and the page (`ORDER BY … LIMIT 25
 * OFFSET …`, labels through acts-as-taggable-on's `tagged_with any`), run one after the other.
 */
export function helpdeskListStatements(accountId: number, userId: number, inboxIds: number[], a: ListConversationsParams) {
  const values: unknown[] = [accountId, inboxIds];
  const add = (v: unknown) => `$${values.push(v)}`;
  const where = ['conversations.account_id = $1', 'conversations.inbox_id = ANY($2)'];
  if ((a.status ?? 'open') !== 'all')
    where.push(`conversations.status = ${add(LIST_STATUS[a.status as keyof typeof LIST_STATUS] ?? 0)}`);
  if (a.inbox_id !== undefined) where.push(`conversations.inbox_id = ${add(a.inbox_id)}`);
  if (a.team_id !== undefined) where.push(`conversations.team_id = ${add(a.team_id)}`);
  if (a.priority !== undefined)
    where.push(
      a.priority === 'none' ? 'conversations.priority IS NULL' : `conversations.priority = ${add(LIST_PRIORITY[a.priority])}`,
    );
  if (a.conversation_type === 'unattended')
    where.push('(conversations.first_reply_created_at IS NULL OR conversations.waiting_since IS NOT NULL)');
  if (a.labels)
    where.push(`EXISTS (SELECT 1 FROM taggings WHERE taggings.taggable_id = conversations.id AND taggings.taggable_type = 'Conversation'
      AND taggings.context = 'labels' AND taggings.tag_id IN (SELECT tags.id FROM tags WHERE LOWER(tags.name) = ANY(${add(a.labels)})))`);
  const base = where.join(' AND ');
  const order = {
    last_activity_at_desc: 'last_activity_at DESC',
    created_at_desc: 'created_at DESC',
    created_at_asc: 'created_at ASC',
    priority_desc: 'priority DESC NULLS LAST, last_activity_at DESC',
    waiting_since_asc: 'waiting_since ASC NULLS LAST, created_at ASC',
  }[a.sort_by ?? 'last_activity_at_desc'];
  const assignee = {
    me: `AND conversations.assignee_id = ${userId}`,
    unassigned: 'AND conversations.assignee_id IS NULL',
    assigned: 'AND conversations.assignee_id IS NOT NULL',
    all: '',
  }[a.assignee_type ?? 'all'];
  return [
    { text: `SELECT COUNT(*) FROM conversations WHERE ${base} AND conversations.assignee_id = ${userId}`, values },
    { text: `SELECT COUNT(*) FROM conversations WHERE ${base} AND conversations.assignee_id IS NULL`, values },
    { text: `SELECT COUNT(*) FROM conversations WHERE ${base}`, values },
    {
      text: `SELECT conversations.* FROM conversations WHERE ${base} ${assignee} ORDER BY ${order} LIMIT 25 OFFSET ${((a.page ?? 1) - 1) * 25}`,
      values,
    },
  ];
}
