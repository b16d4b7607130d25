/**
 * Reading one contact: the contact record (contacts are account-wide) and a page of its most
 * recent conversations among those the caller may see (inboxes it may access).
 */
import { SqlParams, type SqlQuery } from '../../db/db.js';
import type { AccessContext } from '../../auth/access.js';
import { toContactRecord, type ContactRow } from '../contacts.js';
import { toPage, type SearchContext } from '../context.js';
import { CONVERSATION_WITH_CONTACT, toConversationRecord, type ConversationRow } from '../conversation-record.js';
import { MESSAGES, SearchError } from '../../errors.js';
import { CONTACT_CONVERSATIONS_PAGE_SIZE, type GetContactParams } from '../params.js';
import type { ContactDetail } from '../records.js';
import { checkClause, epoch, pageClause } from '../sql.js';

export function buildContactQuery(access: Pick<AccessContext, 'accountId'>, params: GetContactParams): SqlQuery {
  const p = new SqlParams();
  const text = `
    SELECT c.id, c.name, c.email, c.phone_number, c.identifier, c.additional_attributes,
           ${epoch('c.created_at')} AS created_at, ${epoch('c.last_activity_at')} AS last_activity_at
    FROM contacts c
    WHERE c.account_id = ${p.add(access.accountId)}::bigint AND c.id = ${p.add(params.id)}::bigint`;
  // By primary key, whatever the values: planned once (SqlQuery.planOnce).
  return { text, values: p.values, planOnce: true };
}

/** The contact's conversations in accessible inboxes, most recent activity first, decorated like search results. */
export function buildContactConversationsQuery(
  access: Pick<AccessContext, 'accountId' | 'inboxIds'>,
  params: GetContactParams,
): SqlQuery {
  const p = new SqlParams();
  // The contact's conversations by index_conversations_on_contact_id; the account and the inboxes
  // only check them (checkClause). That is its plan for any values, so the first page, its size
  // written in the text (rowCount), is planned once (SqlQuery.planOnce).
  const planOnce = (params.page ?? 1) === 1;
  const contact = `cv.contact_id = ${p.add(params.id)}::bigint`;
  const [visible] = checkClause([
    `cv.account_id = ${p.add(access.accountId)}::bigint`,
    `cv.inbox_id = ANY(${p.add(access.inboxIds)}::bigint[])`,
  ]);
  const text = `
    WITH hits AS (
      SELECT cv.id, cv.last_activity_at FROM conversations cv
      WHERE ${contact} AND ${visible}
      ORDER BY cv.last_activity_at DESC, cv.id DESC
      ${pageClause(params.page ?? 1, CONTACT_CONVERSATIONS_PAGE_SIZE, p, planOnce)}
    )
    SELECT ${CONVERSATION_WITH_CONTACT}
    FROM hits h
    JOIN conversations c ON c.id = h.id
    LEFT JOIN contacts ct ON ct.id = c.contact_id AND ct.account_id = c.account_id
    ORDER BY h.last_activity_at DESC, h.id DESC`;
  return { text, values: p.values, ...(planOnce && { planOnce }) };
}

export interface ContactDetailPage {
  detail: ContactDetail;
  hasMore: boolean;
}

export async function getContact(ctx: SearchContext, params: GetContactParams): Promise<ContactDetailPage> {
  const [contact] = await ctx.db.query<ContactRow>(buildContactQuery(ctx.access, params), 'get_contact');
  if (!contact) throw new SearchError('not_found', MESSAGES.contactNotFound);
  const rows =
    ctx.access.inboxIds.length === 0
      ? []
      : await ctx.db.query<ConversationRow>(buildContactConversationsQuery(ctx.access, params), 'get_contact_conversations');
  const page = toPage(
    rows.map((row) => toConversationRecord(row, ctx.appUrl)),
    CONTACT_CONVERSATIONS_PAGE_SIZE,
  );
  return { detail: { payload: { contact: toContactRecord(contact), conversations: page.items } }, hasMore: page.hasMore };
}
