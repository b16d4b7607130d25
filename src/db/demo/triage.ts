/**
 * The demo's triage queue (contract §9): labels (the `labels` directory, the shared `tags` and a
 * conversation's `taggings`) on about half of the conversations, by topic; priorities; more
 * pending and snoozed conversations, with snooze times; custom attributes; and the reply times the help desk keeps, derived from the messages
 * themselves: `first_reply_created_at` (an agent's first public reply) and `waiting_since` (the
 * contact's first message since the last such reply, while the conversation is not resolved).
 *
 * Drawn from a Random of its own, after everything else: the rest of the demo (ids, texts, times,
 * and every status but those of some open generated conversations) is the same as before the
 * queue existed, so the README's examples still hold.
 */
import { Random } from './random.js';
import type { DemoRow } from './rows.js';

const SEED = 48_2024;
const HOUR = 3_600;
const DAY = 86_400;

/** Label titles by conversation topic (the generator's script). */
const TOPIC_LABELS: Record<string, readonly string[]> = {
  shipping_delay: ['shipping'],
  damaged_refund: ['refund', 'damaged-item'],
  password_reset: ['account-access'],
  invoice_copy: ['billing'],
  double_charge: ['billing', 'refund'],
  change_address: ['shipping'],
  cancel_subscription: ['billing', 'churn-risk'],
  app_crash: ['bug', 'mobile-app'],
  discount_code: ['promotions'],
  account_deletion: ['account-access', 'gdpr'],
  two_factor: ['account-access'],
  wrong_item: ['refund', 'wrong-item'],
  wholesale: ['sales-lead'],
  card_declined: ['billing'],
  warranty: ['warranty'],
};

/** Every label of the directory: title, description, colour. `feedback` is on no conversation yet. */
const LABELS: ReadonlyArray<readonly [string, string, string]> = [
  ['account-access', 'Login, password and two-factor problems', '#1f93ff'],
  ['billing', 'Invoices, charges and subscriptions', '#f39c12'],
  ['bug', 'Something in the product does not work', '#e74c3c'],
  ['churn-risk', 'The customer may leave', '#c0392b'],
  ['damaged-item', 'Arrived broken', '#d35400'],
  ['escalated', 'Handed to a senior agent', '#8e44ad'],
  ['feedback', 'Ideas and praise', '#27ae60'],
  ['gdpr', 'Data deletion and export requests', '#34495e'],
  ['mobile-app', 'The iOS or Android app', '#16a085'],
  ['promotions', 'Discount codes and offers', '#2ecc71'],
  ['refund', 'Money back', '#e67e22'],
  ['sales-lead', 'Wholesale and bulk enquiries', '#9b59b6'],
  ['shipping', 'Delivery times and addresses', '#3498db'],
  ['vip', 'Key customers', '#f1c40f'],
  ['warranty', 'Repairs and replacements', '#7f8c8d'],
  ['wrong-item', 'Sent the wrong product', '#e84393'],
];

const PLANS = ['free', 'starter', 'pro', 'business'] as const;

export interface TriageTables {
  labels: DemoRow[];
  tags: DemoRow[];
  taggings: DemoRow[];
}

/** Reply times from a conversation's messages (rows in time order). */
function replyTimes(messages: readonly DemoRow[], resolved: boolean): { first: number | null; waiting: number | null } {
  let first: number | null = null;
  let waiting: number | null = null;
  for (const m of messages) {
    const at = m.created_at as number;
    if (m.message_type === 0) waiting ??= at;
    else if (m.message_type === 1 && m.private === false && m.sender_type === 'User') {
      first ??= at;
      waiting = null;
    }
  }
  return { first, waiting: resolved ? null : waiting };
}

/**
 * Sets the triage columns of the numbered `conversations` (in place) and returns the label
 * tables. `topics[i]` is the topic of conversation id i + 1, if it has one.
 */
export function addTriage(
  conversations: DemoRow[],
  messages: readonly DemoRow[],
  topics: ReadonlyArray<string | undefined>,
  now: number,
): TriageTables {
  const r = new Random(SEED);
  const byConversation = new Map<number, DemoRow[]>();
  for (const m of messages) {
    const list = byConversation.get(m.conversation_id as number) ?? [];
    list.push(m);
    byConversation.set(m.conversation_id as number, list);
  }
  const tagIds = new Map(LABELS.map(([title], i) => [title, i + 1]));
  const taggings: DemoRow[] = [];
  const used = new Map<number, Set<string>>();
  for (const c of conversations) {
    const id = c.id as number;
    const own = byConversation.get(id) ?? [];
    const { first, waiting } = replyTimes(own, c.status === 1);
    // The generator leaves few conversations pending or snoozed; the queue gets more, from open
    // generated ones only (the stories keep theirs): snoozed after an agent's reply, pending
    // while the bot alone has answered (the help desk's "pending" is the bot's queue).
    if (c.status === 0 && topics[id - 1] !== undefined) {
      if (first !== null && waiting === null && r.chance(0.45)) c.status = 3;
      else if (first === null && own.some((m) => m.sender_type === 'AgentBot') && r.chance(0.6)) c.status = 2;
    }
    const priority = r.weighted<number | null>([
      [null, 55],
      [0, 13],
      [1, 15],
      [2, 12],
      [3, 5],
    ]);
    c.priority = priority;
    c.first_reply_created_at = first;
    c.waiting_since = waiting;
    c.snoozed_until = c.status === 3 && r.chance(0.8) ? now + r.int(2, 120) * HOUR : null;
    c.custom_attributes = r.chance(0.3) ? { plan: r.pick(PLANS), order_value: r.int(15, 900) } : {};
    const topical = TOPIC_LABELS[topics[id - 1] ?? ''] ?? [];
    if (!r.chance(0.5)) continue;
    const titles = new Set(topical.length > 0 ? topical : [r.pick(['vip', 'feedback', 'billing'])]);
    if (r.chance(0.1)) titles.add('vip');
    if (priority === 3) titles.add('escalated');
    const account = used.get(c.account_id as number) ?? new Set<string>();
    used.set(c.account_id as number, account);
    for (const title of titles) {
      account.add(title);
      taggings.push({
        id: taggings.length + 1,
        tag_id: tagIds.get(title)!,
        taggable_type: 'Conversation',
        taggable_id: id,
        context: 'labels',
        created_at: Math.min((c.created_at as number) + r.int(1, 48) * HOUR, now - 60),
      });
    }
    c.cached_label_list = [...titles].join(', ');
  }
  const counts = new Map<number, number>();
  for (const t of taggings) counts.set(t.tag_id as number, (counts.get(t.tag_id as number) ?? 0) + 1);
  const created = now - 365 * DAY;
  const labels = [...used.entries()]
    .sort(([a], [b]) => a - b)
    .flatMap(([accountId, titles]) =>
      LABELS.filter(([title]) => titles.has(title) || title === 'feedback' || title === 'escalated').map(
        ([title, description, color]) => ({ account_id: accountId, title, description, color, show_on_sidebar: true }),
      ),
    );
  return {
    labels: labels.map((l, i) => ({ id: i + 1, ...l, created_at: created, updated_at: created })),
    tags: LABELS.map(([title], i) => ({ id: i + 1, name: title, taggings_count: counts.get(i + 1) ?? 0 })),
    taggings,
  };
}
