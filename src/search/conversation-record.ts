/**
 * A conversation's row and record: the select lists that decorate a conversation (contract §9.3)
 * and the row → record mapper, shared by the search, the triage list and the reads.
 */
import { LATEST_MESSAGE, toMessageRecord, type MessageRow } from './messages/records.js';
import type { ConversationRecord } from './records.js';
import { CONVERSATION_PRIORITIES, CONVERSATION_STATUSES, jsonObject } from './conversation-state.js';
import { CONVERSATION_LABELS } from './labels.js';
import { conversationUrl, type AppUrl } from './links.js';
import { epoch } from './sql.js';

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
  /** CONVERSATION_DECORATION's state columns (contract §9.3). */
  priority: number | null;
  labels: string[] | null;
  waiting_since: number | null;
  snoozed_until: number | null;
  first_reply_created_at: number | null;
  custom_attributes: Record<string, unknown> | null;
  /** CONVERSATION_DECORATION's objects: null where there is none (no assignee, a deleted team). */
  assignee: { id: number; name: string | null; email: string | null } | null;
  team: { id: number; name: string | null } | null;
  inbox: { name: string | null; channel_type: string | null } | null;
  latest_message: MessageRow | null;
  /** The window strategy's estimate of the conversations table's rows (see tableRows). */
  table_rows?: number | null;
}

/**
 * The select list that decorates a conversation row (alias `c`, with the columns of
 * `conversations`): its triage state (priority, custom attributes, the waiting, snoozed and
 * first-reply times, labels: contract §9.3), its assignee, team and inbox as json objects and its
 * latest message. Each lookup is a scalar subquery by primary key, run for the rows a statement
 * returns only; none is a join, so none adds to the planner's join search (evidence:
 * docs/plans.md, Conversations). LIMIT 1 keeps a probe from becoming a scan of a whole small
 * table for every row.
 */
export const CONVERSATION_DECORATION = `
    c.priority, c.custom_attributes, ${epoch('c.waiting_since')} AS waiting_since,
    ${epoch('c.snoozed_until')} AS snoozed_until, ${epoch('c.first_reply_created_at')} AS first_reply_created_at,
    ${CONVERSATION_LABELS} AS labels,
    (SELECT json_build_object('id', u.id, 'name', coalesce(nullif(u.display_name, ''), u.name), 'email', u.email)
     FROM users u WHERE u.id = c.assignee_id LIMIT 1) AS assignee,
    (SELECT json_build_object('id', t.id, 'name', t.name)
     FROM teams t WHERE t.id = c.team_id AND t.account_id = c.account_id LIMIT 1) AS team,
    (SELECT json_build_object('name', i.name, 'channel_type', i.channel_type) FROM inboxes i WHERE i.id = c.inbox_id LIMIT 1) AS inbox,
    ${LATEST_MESSAGE} AS latest_message`;

/**
 * A conversation record's whole select list, for a statement that reads `conversations c` and
 * its contact `ct` (a read, the triage list); the search's own list reads its hits instead.
 */
export const CONVERSATION_WITH_CONTACT = `c.id, c.display_id, c.account_id, c.inbox_id, c.status,
           ${epoch('c.created_at')} AS created_at, ${epoch('c.last_activity_at')} AS last_activity_at,
           ct.id AS contact_id, ct.name AS contact_name, ct.email AS contact_email,
           ct.phone_number AS contact_phone_number, ct.identifier AS contact_identifier,
           ${CONVERSATION_DECORATION}`;

/**
 * A row (with CONVERSATION_DECORATION's columns) as a conversation record; with `appUrl` (the
 * request's SearchContext.appUrl) it carries the agent app's `url`.
 */
export function toConversationRecord(row: ConversationRow, appUrl: AppUrl): ConversationRecord {
  const url = conversationUrl(appUrl, row.account_id, row.display_id);
  return {
    id: row.id,
    display_id: row.display_id,
    account_id: row.account_id,
    inbox_id: row.inbox_id,
    status: CONVERSATION_STATUSES[row.status] ?? 'open',
    priority: row.priority === null ? null : (CONVERSATION_PRIORITIES[row.priority] ?? null),
    labels: row.labels ?? [],
    created_at: row.created_at,
    last_activity_at: row.last_activity_at,
    waiting_since: row.waiting_since,
    snoozed_until: row.snoozed_until,
    first_reply_created_at: row.first_reply_created_at,
    custom_attributes: jsonObject(row.custom_attributes),
    ...(url !== undefined && { url }),
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
      assignee: row.assignee === null ? null : { ...row.assignee, type: 'user' },
      team: row.team,
      inbox: { id: row.inbox_id, name: row.inbox?.name ?? null, channel_type: row.inbox?.channel_type ?? null },
    },
  };
}
