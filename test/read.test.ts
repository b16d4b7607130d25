/**
 * Reading one record through the core (issue 14): a conversation's transcript (order, 50 per page,
 * cursors, private notes, activity only when asked, no 90-day limit), a contact with the
 * conversations the caller may see, an article's whole plain text — and "not found", the same for
 * an unknown record and one the caller may not see.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchDeps } from '../src/search/core.js';
import type { ArticleDetail, ContactDetail, ConversationTranscript } from '../src/search/records.js';
import { articleDetailSchema, contactDetailSchema, conversationTranscriptSchema } from '../src/search/records.js';
import { makeDeps, read } from './helpers/core.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { DAY, Fixture } from './helpers/fixtures.js';

const NOW = Math.floor(Date.now() / 1000);
let t: TestDatabase;
let deps: SearchDeps;
const f = {} as {
  account: number;
  other: number;
  admin: string;
  agent: string;
  outsider: string;
  inboxSeen: number;
  inboxHidden: number;
  contact: number;
  long: { id: number; display: number; messages: number[] };
  short: { id: number; display: number; incoming: number; note: number; activity: number; template: number; old: number };
  hidden: { id: number; display: number };
  foreign: { id: number; display: number; contact: number; article: number };
  article: number;
};

beforeAll(async () => {
  t = await createTestDatabase();
  deps = makeDeps(t.db);
  const fx = new Fixture(t.admin);
  f.account = await fx.account();
  f.other = await fx.account();
  const admin = await fx.user();
  const agent = await fx.user({ name: 'Reading Agent' });
  const outsider = await fx.user();
  await fx.member(f.account, admin, 'administrator');
  await fx.member(f.account, agent, 'agent');
  await fx.member(f.other, outsider, 'administrator');
  f.admin = await fx.token(admin);
  f.agent = await fx.token(agent);
  f.outsider = await fx.token(outsider);
  f.inboxSeen = await fx.inbox(f.account);
  f.inboxHidden = await fx.inbox(f.account);
  await fx.inboxMember(f.inboxSeen, agent);
  f.contact = await fx.contact(f.account, { name: 'Reading Person' });

  // 120 messages, one a minute, inserted newest first so ids do not follow time.
  const longId = await fx.conversation(f.account, f.inboxSeen, {
    contact_id: f.contact,
    created_at: NOW - 10 * DAY,
    last_activity_at: NOW - DAY,
  });
  const messages: Array<{ id: number; at: number }> = [];
  for (let i = 119; i >= 0; i--) {
    const at = NOW - 10 * DAY + i * 60;
    messages.push({ id: await fx.message(longId, { content: `line ${i}`, created_at: at, message_type: i % 2 }), at });
  }
  messages.sort((a, b) => a.at - b.at);
  f.long = { id: longId, display: 0, messages: messages.map((m) => m.id) };

  const shortId = await fx.conversation(f.account, f.inboxSeen, {
    contact_id: f.contact,
    created_at: NOW - 200 * DAY,
    last_activity_at: NOW - 2 * DAY,
  });
  f.short = {
    id: shortId,
    display: 0,
    old: await fx.message(shortId, {
      content: 'from long ago',
      created_at: NOW - 200 * DAY,
      sender_type: 'Contact',
      sender_id: f.contact,
    }),
    incoming: await fx.message(shortId, {
      content: 'where is my order',
      created_at: NOW - 3 * DAY,
      sender_type: 'Contact',
      sender_id: f.contact,
    }),
    activity: await fx.message(shortId, {
      content: 'Conversation was resolved',
      message_type: 2,
      created_at: NOW - 3 * DAY + 10,
    }),
    note: await fx.message(shortId, {
      content: 'internal: check the warehouse',
      message_type: 1,
      private: true,
      created_at: NOW - 3 * DAY + 20,
      sender_type: 'User',
      sender_id: agent,
    }),
    template: await fx.message(shortId, { content: 'Rate us', message_type: 3, created_at: NOW - 3 * DAY + 30 }),
  };
  const hiddenId = await fx.conversation(f.account, f.inboxHidden, {
    contact_id: f.contact,
    created_at: NOW - 5 * DAY,
    last_activity_at: NOW - 5 * DAY,
  });
  await fx.message(hiddenId, { content: 'hidden inbox message' });
  f.hidden = { id: hiddenId, display: 0 };
  for (let i = 0; i < 16; i++)
    await fx.conversation(f.account, f.inboxSeen, {
      contact_id: f.contact,
      created_at: NOW - 30 * DAY,
      last_activity_at: NOW - (30 + i) * DAY,
    });

  const otherInbox = await fx.inbox(f.other);
  const foreignContact = await fx.contact(f.other, { name: 'Reading Person' });
  const foreignId = await fx.conversation(f.other, otherInbox, { contact_id: foreignContact });
  await fx.message(foreignId, { content: 'another account' });
  f.foreign = {
    id: foreignId,
    display: 0,
    contact: foreignContact,
    article: await fx.article(f.other, await fx.portal(f.other)),
  };

  const portal = await fx.portal(f.account, 'help');
  const category = await fx.category(f.account, portal, 'Orders');
  f.article = await fx.article(f.account, portal, {
    title: 'Returns',
    status: 2,
    category_id: category,
    content:
      '<h1>Returns</h1><p>Send it <b>back</b> within 30&nbsp;days.</p>\n\n## Refunds\n\n- **Card**: 5 days\n- [Bank](https://x.test): 10 days',
  });
  const displays = await fx.sql('SELECT id, display_id FROM conversations WHERE id = ANY($1)', [
    [longId, shortId, hiddenId, foreignId],
  ]);
  const displayOf = (id: number) =>
    (displays.rows as Array<{ id: number; display_id: number }>).find((r) => Number(r.id) === id)!.display_id;
  f.long.display = displayOf(longId);
  f.short.display = displayOf(shortId);
  f.hidden.display = displayOf(hiddenId);
  f.foreign.display = displayOf(foreignId);
}, 60_000);

afterAll(async () => {
  await t.drop();
});

const transcript = async (token: string, raw: Record<string, unknown>, account = f.account) => {
  const r = await read(deps, token, account, 'get_conversation', raw);
  return conversationTranscriptSchema.parse(r.body) satisfies ConversationTranscript;
};
const ids = (body: ConversationTranscript) => body.payload.map((m) => m.id);

describe('get_conversation', () => {
  it('returns the latest 50 messages oldest first, and pages back and forth with before/after', async () => {
    const all = f.long.messages;
    const latest = await transcript(f.admin, { display_id: f.long.display });
    expect(ids(latest)).toEqual(all.slice(70));
    expect(latest.meta.has_more).toEqual({ before: true, after: false });
    expect(latest.meta.conversation).toMatchObject({ id: f.long.id, display_id: f.long.display, inbox_id: f.inboxSeen });
    const older = await transcript(f.admin, { display_id: f.long.display, before: all[70] });
    expect(ids(older)).toEqual(all.slice(20, 70));
    expect(older.meta.has_more).toEqual({ before: true, after: true });
    const oldest = await transcript(f.admin, { display_id: f.long.display, before: all[20] });
    expect(ids(oldest)).toEqual(all.slice(0, 20));
    expect(oldest.meta.has_more).toEqual({ before: false, after: true });
    const forward = await transcript(f.admin, { id: f.long.id, after: all[9] });
    expect(ids(forward)).toEqual(all.slice(10, 60));
    expect(forward.meta.has_more).toEqual({ before: true, after: true });
    const end = await transcript(f.admin, { id: f.long.id, after: all[69] });
    expect(ids(end)).toEqual(all.slice(70));
    expect(end.meta.has_more).toEqual({ before: true, after: false });
  });

  it('finds the conversation by display_id or id alike', async () => {
    expect(await transcript(f.admin, { id: f.short.id })).toEqual(await transcript(f.admin, { display_id: f.short.display }));
  });

  it('shows incoming, outgoing, private notes and templates, activity only when asked, with no 90-day limit', async () => {
    const plain = await transcript(f.admin, { display_id: f.short.display });
    expect(ids(plain)).toEqual([f.short.old, f.short.incoming, f.short.note, f.short.template]);
    expect(plain.payload.map((m) => [m.message_type, m.private])).toEqual([
      ['incoming', false],
      ['incoming', false],
      ['outgoing', true],
      ['template', false],
    ]);
    expect(plain.payload[2]).toMatchObject({
      content: 'internal: check the warehouse',
      sender: { type: 'user', name: 'Reading Agent' },
    });
    const withActivity = await transcript(f.admin, { display_id: f.short.display, include_activity: true });
    expect(ids(withActivity)).toEqual([f.short.old, f.short.incoming, f.short.activity, f.short.note, f.short.template]);
    expect(withActivity.payload[2]?.message_type).toBe('activity');
  });

  it('answers "Conversation not found" alike for an unknown one, another account\'s, and an inbox the agent may not see', async () => {
    const notFound = { code: 'not_found', message: 'Conversation not found' };
    await expect(read(deps, f.admin, f.account, 'get_conversation', { display_id: 99_999 })).rejects.toMatchObject(notFound);
    await expect(read(deps, f.admin, f.account, 'get_conversation', { id: f.foreign.id })).rejects.toMatchObject(notFound);
    await expect(read(deps, f.agent, f.account, 'get_conversation', { display_id: f.hidden.display })).rejects.toMatchObject(
      notFound,
    );
    await expect(read(deps, f.agent, f.account, 'get_conversation', { id: f.hidden.id })).rejects.toMatchObject(notFound);
    // The administrator sees every inbox.
    expect(ids(await transcript(f.admin, { id: f.hidden.id }))).toHaveLength(1);
    // Another account's conversation with the same display id is that account's, never this one's.
    const foreign = await transcript(f.outsider, { display_id: f.foreign.display }, f.other);
    expect(foreign.payload.map((m) => m.content)).toEqual(['another account']);
  });

  it('refuses a cursor that is not a message of this conversation', async () => {
    await expect(
      read(deps, f.admin, f.account, 'get_conversation', { id: f.short.id, before: f.long.messages[5] }),
    ).rejects.toMatchObject({ code: 'invalid_params', message: 'before must be the id of a message of this conversation' });
    // An activity message is a fine cursor even when activity is not shown.
    const after = await transcript(f.admin, { id: f.short.id, after: f.short.activity });
    expect(ids(after)).toEqual([f.short.note, f.short.template]);
    expect(after.meta.has_more).toEqual({ before: true, after: false });
  });
});

describe('get_contact', () => {
  const detail = async (token: string, raw: Record<string, unknown>) => {
    const r = await read(deps, token, f.account, 'get_contact', raw);
    return { body: contactDetailSchema.parse(r.body) satisfies ContactDetail, meta: r.meta };
  };

  it('returns the contact and its conversations the caller may see, most recent activity first, 15 per page', async () => {
    const admin = await detail(f.admin, { id: f.contact });
    expect(admin.body.payload.contact).toMatchObject({ id: f.contact, name: 'Reading Person' });
    const first = admin.body.payload.conversations.map((c) => c.id);
    expect(first.slice(0, 4)).toEqual([f.long.id, f.short.id, f.hidden.id, expect.any(Number)]);
    expect(first).toHaveLength(15);
    expect(admin.meta).toMatchObject({ page: 1, per_page: 15, has_more: { conversations: true } });
    const second = await detail(f.admin, { id: f.contact, page: 2 });
    expect(second.body.payload.conversations).toHaveLength(19 - 15);
    expect(second.meta.has_more).toEqual({ conversations: false });
    const agent = await detail(f.agent, { id: f.contact, page: 2 });
    expect(agent.body.payload.conversations.map((c) => c.inbox_id)).not.toContain(f.inboxHidden);
    const agentAll = [
      ...(await detail(f.agent, { id: f.contact })).body.payload.conversations,
      ...agent.body.payload.conversations,
    ];
    expect(agentAll.map((c) => c.id)).not.toContain(f.hidden.id);
    expect(agentAll).toHaveLength(18);
  });

  it('answers "Contact not found" for an unknown contact and another account\'s', async () => {
    const notFound = { code: 'not_found', message: 'Contact not found' };
    await expect(read(deps, f.admin, f.account, 'get_contact', { id: 99_999_999 })).rejects.toMatchObject(notFound);
    await expect(read(deps, f.admin, f.account, 'get_contact', { id: f.foreign.contact })).rejects.toMatchObject(notFound);
  });
});

describe('get_article', () => {
  it('returns the whole article as plain text, one line per paragraph, with status, portal and category', async () => {
    const r = await read(deps, f.agent, f.account, 'get_article', { id: f.article });
    const { payload } = articleDetailSchema.parse(r.body) satisfies ArticleDetail;
    expect(payload).toMatchObject({
      id: f.article,
      title: 'Returns',
      status: 'archived',
      portal_slug: 'help',
      portal_name: 'Portal help',
      category_name: 'Orders',
      updated_at: expect.any(Number) as unknown,
    });
    expect(payload.content).toBe('Returns\nSend it back within 30 days.\nRefunds\nCard: 5 days\nBank: 10 days');
    expect(payload).not.toHaveProperty('snippet');
  });

  it('answers "Article not found" for an unknown article and another account\'s', async () => {
    const notFound = { code: 'not_found', message: 'Article not found' };
    await expect(read(deps, f.admin, f.account, 'get_article', { id: 424_242 })).rejects.toMatchObject(notFound);
    await expect(read(deps, f.admin, f.account, 'get_article', { id: f.foreign.article })).rejects.toMatchObject(notFound);
  });
});

describe('triage state and links on read records (contract §9.3)', () => {
  const APP = 'https://desk.example.com';

  it('shows labels, priority and the agent-app url in get_conversation and get_contact, conversation_status on each message', async () => {
    const fx = new Fixture(t.admin);
    await fx.sql('UPDATE conversations SET priority = 1, custom_attributes = $2 WHERE id = $1', [f.short.id, { tier: 'gold' }]);
    await fx.tagging(f.short.id, 'returns');
    await fx.tagging(f.short.id, 'damaged-item');
    await fx.tagging(f.short.id, 'ignored', { context: 'skills' });
    const linked = makeDeps(t.db, { appUrl: APP });
    const body = conversationTranscriptSchema.parse(
      (await read(linked, f.admin, f.account, 'get_conversation', { id: f.short.id })).body,
    );
    const url = `${APP}/app/accounts/${f.account}/conversations/${f.short.display}`;
    expect(body.meta.conversation).toMatchObject({
      priority: 'medium',
      labels: ['damaged-item', 'returns'],
      custom_attributes: { tier: 'gold' },
      url,
    });
    expect(body.payload.length).toBeGreaterThan(0);
    expect(body.payload.every((m) => m.conversation_status === 'open')).toBe(true);
    const contact = contactDetailSchema.parse((await read(linked, f.admin, f.account, 'get_contact', { id: f.contact })).body);
    const listed = contact.payload.conversations.find((c) => c.id === f.short.id);
    expect(listed).toMatchObject({ priority: 'medium', labels: ['damaged-item', 'returns'], url });
    expect(contact.payload.conversations.every((c) => c.url?.startsWith(`${APP}/app/accounts/`))).toBe(true);
    // Without the setting: the same state, no url.
    const plain = await transcript(f.admin, { id: f.short.id });
    expect(plain.meta.conversation.labels).toEqual(['damaged-item', 'returns']);
    expect(plain.meta.conversation).not.toHaveProperty('url');
  });

  it("links get_article to the public help-center page, on the portal's custom domain when it has one", async () => {
    const linked = makeDeps(t.db, { appUrl: APP });
    const article = async (d = linked) =>
      articleDetailSchema.parse((await read(d, f.agent, f.account, 'get_article', { id: f.article })).body).payload;
    const { slug } = await article();
    expect((await article()).url).toBe(`${APP}/hc/help/articles/${slug}`);
    await t.admin.query(`UPDATE portals SET custom_domain = 'support.shop.example' WHERE account_id = $1 AND slug = 'help'`, [
      f.account,
    ]);
    try {
      expect((await article()).url).toBe(`https://support.shop.example/hc/help/articles/${slug}`);
      expect(await article(deps)).not.toHaveProperty('url');
    } finally {
      await t.admin.query(`UPDATE portals SET custom_domain = NULL WHERE account_id = $1`, [f.account]);
    }
  });
});
