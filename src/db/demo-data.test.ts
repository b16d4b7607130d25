import { describe, expect, it, vi } from 'vitest';
import { buildDemoData, DEMO_COLUMNS, type DemoRow, type DemoTables } from './demo-data.js';
import type { DemoValue } from './demo/rows.js';

const DAY = 86_400;
const NOW_MS = Date.UTC(2025, 4, 20, 12, 0, 0);
const NOW = NOW_MS / 1000;
const data = buildDemoData(NOW_MS);
const t = data.tables;

/** The data with every time column made relative to `now`, so two creations can be compared. */
function relative(tables: DemoTables, now: number): DemoTables {
  const out = {} as DemoTables;
  for (const [table, rows] of Object.entries(tables) as Array<[keyof DemoTables, DemoRow[]]>) {
    const spec: Record<string, string> = DEMO_COLUMNS[table];
    out[table] = rows.map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, spec[k] === 'time' && typeof v === 'number' ? v - now : v])),
    );
  }
  return out;
}

const byId = <R extends DemoRow>(rows: R[]) => new Map(rows.map((r) => [r.id as number, r]));
/** A composite key of row values. */
const key = (...values: Array<DemoValue | undefined>) => JSON.stringify(values);
const text = (m: DemoRow) => (typeof m.content === 'string' ? m.content : '');

describe('demo data', () => {
  it('has the same content on every creation; only the times follow now', () => {
    const later = buildDemoData(NOW_MS + 400 * DAY * 1000);
    expect(relative(later.tables, NOW + 400 * DAY)).toEqual(relative(t, NOW));
    expect(later.info).toEqual(data.info);
  });

  it('never uses Math.random', () => {
    const spy = vi.spyOn(Math, 'random');
    buildDemoData(NOW_MS);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });

  it('is a help desk of the announced size', () => {
    expect(t.accounts).toHaveLength(2);
    expect(t.contacts.length).toBeGreaterThanOrEqual(250);
    expect(t.conversations.length).toBeGreaterThanOrEqual(250);
    expect(t.messages.length).toBeGreaterThanOrEqual(1300);
    expect(t.messages.length).toBeLessThanOrEqual(1800);
    expect(t.articles.length).toBeGreaterThanOrEqual(25);
    const statuses = new Set(t.articles.map((a) => a.status));
    expect(statuses).toEqual(new Set([0, 1, 2]));
    expect(new Set(t.articles.map((a) => a.locale)).size).toBeGreaterThan(2);
    expect(new Set(t.inboxes.map((i) => i.channel_type))).toEqual(
      new Set(['Channel::WebWidget', 'Channel::Email', 'Channel::Whatsapp', 'Channel::Api']),
    );
    const types = new Set(t.messages.map((m) => m.message_type));
    expect(types).toEqual(new Set([0, 1, 2, 3]));
    expect(t.messages.some((m) => m.private === true)).toBe(true);
    expect(new Set(t.conversations.map((c) => c.status))).toEqual(new Set([0, 1, 2, 3]));
  });

  it('spreads messages over the last 120 days, some outside the 90-day window, none in the future', () => {
    const ages = t.messages.map((m) => NOW - (m.created_at as number));
    expect(Math.min(...ages)).toBeGreaterThan(0);
    expect(Math.max(...ages)).toBeLessThanOrEqual(121 * DAY);
    expect(ages.filter((a) => a > 90 * DAY).length).toBeGreaterThan(50);
    expect(t.contacts.some((c) => c.last_activity_at === null)).toBe(true);
  });

  it('sets advanced_search and search_with_gin on Acme only, as a bigint string', () => {
    expect(t.accounts.map((a) => [a.name, a.feature_flags])).toEqual([
      ['Acme Support', String(2n ** 52n + 2n ** 41n)],
      ['Globex Help', '0'],
    ]);
  });

  it('keeps every reference inside its account and respects inbox membership', () => {
    const inboxes = byId(t.inboxes);
    const contacts = byId(t.contacts);
    const teams = byId(t.teams);
    const conversations = byId(t.conversations);
    const roles = new Map(t.account_users.map((au) => [key(au.account_id, au.user_id), au.role]));
    const members = new Set(t.inbox_members.map((m) => key(m.inbox_id, m.user_id)));
    for (const c of t.conversations) {
      expect(inboxes.get(c.inbox_id as number)?.account_id).toBe(c.account_id);
      expect(contacts.get(c.contact_id as number)?.account_id).toBe(c.account_id);
      if (c.team_id !== null) expect(teams.get(c.team_id as number)?.account_id).toBe(c.account_id);
      if (c.assignee_id !== null) {
        const role = roles.get(key(c.account_id, c.assignee_id));
        expect(role === 1 || members.has(key(c.inbox_id, c.assignee_id))).toBe(true);
      }
    }
    for (const m of t.messages) {
      const c = conversations.get(m.conversation_id as number);
      expect([m.account_id, m.inbox_id]).toEqual([c?.account_id, c?.inbox_id]);
      if (m.sender_type === 'Contact') expect(contacts.get(m.sender_id as number)?.account_id).toBe(m.account_id);
      if (m.sender_type === 'User') expect(roles.has(key(m.account_id, m.sender_id))).toBe(true);
      if (m.message_type === 2) expect(m.sender_type).toBeNull();
    }
  });

  it('numbers conversations and messages in time order, display ids 1..n per account', () => {
    for (const rows of [t.conversations, t.messages]) {
      const times = rows.map((r) => r.created_at as number);
      expect(times).toEqual([...times].sort((a, b) => a - b));
    }
    for (const account of [1, 2]) {
      const displayIds = t.conversations.filter((c) => c.account_id === account).map((c) => c.display_id);
      expect(displayIds).toEqual(displayIds.map((_, i) => i + 1));
    }
  });

  it('has unique e-mails per account and unique tokens', () => {
    for (const account of [1, 2]) {
      const emails = t.contacts.filter((c) => c.account_id === account && c.email !== null).map((c) => c.email);
      expect(new Set(emails).size).toBe(emails.length);
    }
    expect(new Set(t.access_tokens.map((a) => a.token)).size).toBe(t.access_tokens.length);
  });

  it('keeps the story words to the stories, and activity texts to activity messages', () => {
    const hopper = t.messages.filter((m) => /hopper/i.test(text(m)));
    expect(new Set(hopper.map((m) => m.conversation_id)).size).toBe(2);
    expect(t.messages.filter((m) => /gift card/i.test(text(m)))).toHaveLength(2);
    const activityWords = /\bmarked resolved\b|self-assigned|^Assigned to /;
    for (const m of t.messages) expect(activityWords.test(text(m))).toBe(m.message_type === 2);
  });

  it('has a triage queue: labels on about half, priorities, snoozed, pending and unattended conversations', () => {
    const convs = t.conversations;
    const labelled = new Set(t.taggings.map((g) => g.taggable_id));
    expect(labelled.size / convs.length).toBeGreaterThan(0.4);
    expect(labelled.size / convs.length).toBeLessThan(0.6);
    expect(new Set(convs.map((c) => c.priority))).toEqual(new Set([null, 0, 1, 2, 3]));
    expect(new Set(convs.map((c) => c.status))).toEqual(new Set([0, 1, 2, 3]));
    expect(convs.filter((c) => c.snoozed_until !== null).every((c) => c.status === 3 && (c.snoozed_until as number) > NOW)).toBe(
      true,
    );
    expect(convs.some((c) => c.snoozed_until !== null)).toBe(true);
    const unattended = convs.filter((c) => c.status === 0 && (c.first_reply_created_at === null || c.waiting_since !== null));
    expect(unattended.length).toBeGreaterThan(10);
    expect(convs.some((c) => c.status === 0 && c.first_reply_created_at === null && c.assignee_id === null)).toBe(true);
    expect(convs.filter((c) => Object.keys(c.custom_attributes as object).length > 0).length).toBeGreaterThan(50);
    expect(new Set(convs.map((c) => c.team_id)).size).toBeGreaterThan(3);
  });

  it('derives first replies and waiting times from the messages, as the help desk records them', () => {
    const replies = new Map<number, number>();
    for (const m of t.messages)
      if (m.message_type === 1 && m.private === false && m.sender_type === 'User' && !replies.has(m.conversation_id as number))
        replies.set(m.conversation_id as number, m.created_at as number);
    for (const c of t.conversations) {
      expect(c.first_reply_created_at, `conversation ${c.id as number}`).toBe(replies.get(c.id as number) ?? null);
      if (c.status === 1) expect(c.waiting_since).toBeNull();
      if (c.waiting_since !== null) expect(c.waiting_since as number).toBeGreaterThanOrEqual(c.created_at as number);
    }
  });

  it('labels like the help desk: taggings of shared tags, each title in its account’s labels, counts and cache equal', () => {
    const conv = byId(t.conversations);
    const tags = byId(t.tags);
    const titles = new Map<number, string[]>();
    for (const g of t.taggings) {
      expect(g).toMatchObject({ taggable_type: 'Conversation', context: 'labels' });
      const title = tags.get(g.tag_id as number)!.name as string;
      const account = conv.get(g.taggable_id as number)!.account_id;
      expect(t.labels.some((l) => l.account_id === account && l.title === title)).toBe(true);
      titles.set(g.taggable_id as number, [...(titles.get(g.taggable_id as number) ?? []), title]);
    }
    for (const c of t.conversations) expect(c.cached_label_list ?? null).toBe(titles.get(c.id as number)?.join(', ') ?? null);
    for (const tag of t.tags) expect(tag.taggings_count).toBe(t.taggings.filter((g) => g.tag_id === tag.id).length);
    expect(new Set(t.labels.map((l) => key(l.account_id, l.title))).size).toBe(t.labels.length);
  });

  it('describes the demo users, their tokens and inboxes', () => {
    expect(data.info.accounts).toEqual([
      { id: 1, name: 'Acme Support' },
      { id: 2, name: 'Globex Help' },
    ]);
    expect(data.info.users.map((u) => [u.token, u.role, u.accountId, u.inboxes.map((i) => i.id)])).toEqual([
      ['demo-admin-token', 'administrator', 1, [1, 2, 3, 4]],
      ['demo-agent-token', 'agent', 1, [1, 2]],
      ['demo-agent2-token', 'agent', 1, [2, 3]],
      ['demo-globex-token', 'administrator', 2, [5, 6]],
    ]);
    expect(t.access_tokens.find((a) => a.token === data.info.botToken)?.owner_type).toBe('AgentBot');
  });
});
