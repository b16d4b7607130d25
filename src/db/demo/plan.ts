/**
 * Conversations as planned by the generator and the hand-written stories, before ids exist.
 * Numbering them chronologically (ids and per-account display ids grow with time, as in a real
 * help desk) turns them into table rows.
 */
import type { DemoRow } from './rows.js';

export type Sender = { type: 'Contact' | 'User' | 'AgentBot'; id: number } | null;

export interface PlannedMessage {
  at: number;
  content: string;
  /** 0 incoming, 1 outgoing, 2 activity, 3 template. */
  type: 0 | 1 | 2 | 3;
  private: boolean;
  sender: Sender;
}

export interface PlannedConversation {
  accountId: number;
  inboxId: number;
  contactId: number | null;
  assigneeId: number | null;
  teamId: number | null;
  /** 0 open, 1 resolved, 2 pending, 3 snoozed. */
  status: 0 | 1 | 2 | 3;
  /** In time order; the first one's time is the conversation's creation time. */
  messages: PlannedMessage[];
  /** What it is about (the generator's script), for its labels; none for the hand-written stories. */
  topic?: string;
}

export interface NumberedConversations {
  conversations: DemoRow[];
  messages: DemoRow[];
  /** Per contact id: time of its first conversation and of its latest activity. */
  contactTimes: Map<number, { first: number; last: number }>;
  /** The topic of conversation id i + 1 at index i. */
  topics: Array<string | undefined>;
}

function startOf(c: PlannedConversation): number {
  const first = c.messages[0];
  if (!first) throw new Error('a demo conversation needs at least one message');
  return first.at;
}

function endOf(c: PlannedConversation): number {
  return c.messages.reduce((max, m) => Math.max(max, m.at), startOf(c));
}

/** Assigns ids in creation order (stable for equal times) and builds the rows. */
export function numberConversations(plans: readonly PlannedConversation[]): NumberedConversations {
  const ordered = plans
    .map((plan, index) => ({ plan, index }))
    .sort((a, b) => startOf(a.plan) - startOf(b.plan) || a.index - b.index);
  const displayIds = new Map<number, number>();
  const conversations: DemoRow[] = [];
  const pending: Array<{ row: Omit<DemoRow, 'id'>; at: number; order: number }> = [];
  const contactTimes = new Map<number, { first: number; last: number }>();
  const topics = ordered.map(({ plan }) => plan.topic);
  ordered.forEach(({ plan }, i) => {
    const id = i + 1;
    const displayId = (displayIds.get(plan.accountId) ?? 0) + 1;
    displayIds.set(plan.accountId, displayId);
    const created = startOf(plan);
    const last = endOf(plan);
    conversations.push({
      id,
      account_id: plan.accountId,
      inbox_id: plan.inboxId,
      display_id: displayId,
      status: plan.status,
      contact_id: plan.contactId,
      assignee_id: plan.assigneeId,
      team_id: plan.teamId,
      created_at: created,
      updated_at: last,
      last_activity_at: last,
    });
    for (const m of plan.messages) {
      pending.push({
        at: m.at,
        order: pending.length,
        row: {
          account_id: plan.accountId,
          inbox_id: plan.inboxId,
          conversation_id: id,
          content: m.content,
          message_type: m.type,
          private: m.private,
          sender_type: m.sender?.type ?? null,
          sender_id: m.sender?.id ?? null,
          created_at: m.at,
          updated_at: m.at,
        },
      });
    }
    if (plan.contactId !== null) {
      const seen = contactTimes.get(plan.contactId);
      contactTimes.set(plan.contactId, {
        first: Math.min(seen?.first ?? created, created),
        last: Math.max(seen?.last ?? last, last),
      });
    }
  });
  pending.sort((a, b) => a.at - b.at || a.order - b.order);
  const messages = pending.map(({ row }, i) => ({ id: i + 1, ...row }));
  return { conversations, messages, contactTimes, topics };
}
