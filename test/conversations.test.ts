import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchDeps } from '../src/search/core.js';
import { conversationRecordSchema } from '../src/search/records.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { ids, makeDeps, search } from './helpers/core.js';

const NOW = Math.floor(Date.now() / 1000);
let t: TestDatabase;
let deps: SearchDeps;
let admin: string;
let agent: string;
let account: number;
const f: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestDatabase();
  deps = makeDeps(t.db);
  const fx = new Fixture(t.admin);
  account = await fx.account();
  const other = await fx.account();
  const adminUser = await fx.user({ name: 'Ada Admin', email: 'ada@desk.test' });
  const agentUser = await fx.user();
  await fx.member(account, adminUser, 'administrator');
  await fx.member(account, agentUser, 'agent');
  admin = await fx.token(adminUser);
  agent = await fx.token(agentUser);
  f.inbox = await fx.inbox(account, { name: 'Website', channel_type: 'Channel::WebWidget' });
  f.secret = await fx.inbox(account, { name: 'VIP', channel_type: 'Channel::Email' });
  await fx.inboxMember(f.inbox, agentUser);
  f.team = await fx.team(account, 'Billing');
  f.alice = await fx.contact(account, {
    name: 'Alice Moreau',
    email: 'alice@shop.example',
    phone_number: '+33 6 12 34 56 78',
    identifier: 'cust_42%',
  });
  f.bob = await fx.contact(account, { name: 'Bob Stone', email: 'bob@stone.example' });
  f.conv1 = await fx.conversation(account, f.inbox, {
    display_id: 7,
    contact_id: f.alice,
    assignee_id: adminUser,
    team_id: f.team,
    status: 2,
    created_at: NOW - 3 * DAY,
    last_activity_at: NOW - 1 * DAY,
    priority: 3,
    waiting_since: NOW - 1 * DAY,
    first_reply_created_at: NOW - 2 * DAY,
    custom_attributes: { plan: 'pro', order_value: 120 },
  });
  // Two labels; a tag of another context and one of a contact with the same id are not labels.
  await fx.label(account, 'vip');
  await fx.tagging(f.conv1, 'vip');
  await fx.tagging(f.conv1, 'billing');
  await fx.tagging(f.conv1, 'spam', { context: 'tags' });
  await fx.tagging(f.conv1, 'lead', { taggable_type: 'Contact' });
  f.conv2 = await fx.conversation(account, f.inbox, {
    display_id: 70,
    contact_id: f.bob,
    created_at: NOW - 2 * DAY,
    last_activity_at: NOW - 2 * DAY,
  });
  f.conv3 = await fx.conversation(account, f.secret, {
    display_id: 700,
    contact_id: f.alice,
    created_at: NOW - 1 * DAY,
    last_activity_at: NOW - 3 * DAY,
    status: 3,
    snoozed_until: NOW + DAY,
  });
  f.noContact = await fx.conversation(account, f.inbox, { display_id: 8, contact_id: null, created_at: NOW - 4 * DAY });
  await fx.message(f.conv1, { content: 'first', created_at: NOW - 3 * DAY, sender_type: 'Contact', sender_id: f.alice });
  f.latest = await fx.message(f.conv1, {
    content: 'latest reply',
    message_type: 1,
    created_at: NOW - 2 * DAY,
    sender_type: 'User',
    sender_id: adminUser,
  });
  await fx.message(f.conv1, { content: 'resolved by Ada', message_type: 2, created_at: NOW - 1 * DAY });
  // last_activity_at stored with microseconds, shown as T = NOW - 6 days (floor).
  const fractional = await fx.contact(account, { name: 'Fractional Second' });
  f.fraction = await fx.conversation(account, f.inbox, {
    contact_id: fractional,
    display_id: 5000,
    created_at: NOW - 7 * DAY,
    last_activity_at: NOW - 6 * DAY + 0.5,
  });
  const otherInbox = await fx.inbox(other);
  const otherContact = await fx.contact(other, { name: 'Alice Moreau' });
  await fx.conversation(other, otherInbox, { display_id: 7, contact_id: otherContact });
  for (let i = 0; i < 16; i++) {
    const ct = await fx.contact(account, { name: `Samename ${i}` });
    f[`same${i}`] = await fx.conversation(account, f.inbox, { contact_id: ct, display_id: 1000 + i, created_at: NOW - 5 * DAY });
  }
});

afterAll(() => t.drop());

const find = async (params: Record<string, unknown>, token = admin) =>
  ids(await search(deps, token, account, 'conversations', params), 'conversations');

describe('conversation search (contract §4)', () => {
  it('matches the display id as text', async () => {
    expect(await find({ q: '70' })).toEqual([f.conv3, f.conv2]);
    expect(await find({ q: '7' })).toEqual([f.conv3, f.conv2, f.conv1, f.same7]);
  });

  it("matches the contact's name, email, phone number and identifier, case-insensitively", async () => {
    expect(await find({ q: 'MOREAU' })).toEqual([f.conv3, f.conv1]);
    expect(await find({ q: 'stone.example' })).toEqual([f.conv2]);
    expect(await find({ q: '34 56' })).toEqual([f.conv3, f.conv1]);
    expect(await find({ q: 'cust_42%' })).toEqual([f.conv3, f.conv1]);
    expect(await find({ q: 't_4' })).toEqual([f.conv3, f.conv1]);
  });

  it('treats % and _ literally', async () => {
    expect(await find({ q: '%' })).toEqual([f.conv3, f.conv1]);
    expect(await find({ q: 'cust%' })).toEqual([]);
  });

  it('returns only conversations of inboxes an agent may access', async () => {
    expect(await find({ q: 'Moreau' }, agent)).toEqual([f.conv1]);
  });

  it('filters last_activity_at inclusively', async () => {
    expect(await find({ q: 'Moreau', since: NOW - DAY })).toEqual([f.conv1]);
    expect(await find({ q: 'Moreau', until: NOW - 3 * DAY })).toEqual([f.conv3]);
    expect(await find({ q: 'Moreau', since: NOW - 3 * DAY, until: NOW - DAY })).toEqual([f.conv3, f.conv1]);
  });

  it('treats since and until as whole seconds: a record shown as T is in since=T and until=T', async () => {
    const T = NOW - 6 * DAY;
    const shown = await search(deps, admin, account, 'conversations', { q: 'fractional' });
    expect(shown.payload.conversations?.[0]?.last_activity_at).toBe(T);
    expect(await find({ q: 'fractional', until: T })).toEqual([f.fraction]);
    expect(await find({ q: 'fractional', since: T, until: T })).toEqual([f.fraction]);
    expect(await find({ q: 'fractional', until: T - 1 })).toEqual([]);
    expect(await find({ q: 'fractional', since: T + 1 })).toEqual([]);
  });

  it('orders by created_at then id descending and pages without overlap', async () => {
    const p1 = await search(deps, admin, account, 'conversations', { q: 'Samename' });
    const p2 = await search(deps, admin, account, 'conversations', { q: 'Samename', page: 2 });
    expect([...ids(p1, 'conversations'), ...ids(p2, 'conversations')]).toEqual(
      Array.from({ length: 16 }, (_, i) => f[`same${15 - i}`]),
    );
    expect(p1.meta.has_more).toEqual({ conversations: true });
    expect(p2.meta.has_more).toEqual({ conversations: false });
  });

  it('builds a full record with meta and the latest incoming/outgoing message', async () => {
    const r = await search(deps, admin, account, 'conversations', { q: 'alice@shop', since: NOW - DAY });
    const rec = conversationRecordSchema.strict().parse(r.payload.conversations?.[0]);
    expect(rec).toMatchObject({
      id: f.conv1,
      display_id: 7,
      account_id: account,
      inbox_id: f.inbox,
      status: 'pending',
      priority: 'urgent',
      labels: ['billing', 'vip'],
      created_at: NOW - 3 * DAY,
      last_activity_at: NOW - DAY,
      waiting_since: NOW - DAY,
      snoozed_until: null,
      first_reply_created_at: NOW - 2 * DAY,
      custom_attributes: { plan: 'pro', order_value: 120 },
      meta: {
        sender: {
          id: f.alice,
          name: 'Alice Moreau',
          email: 'alice@shop.example',
          phone_number: '+33 6 12 34 56 78',
          identifier: 'cust_42%',
          type: 'contact',
        },
        assignee: { id: expect.any(Number), name: 'Ada Admin', email: 'ada@desk.test', type: 'user' },
        team: { id: f.team, name: 'Billing' },
        inbox: { id: f.inbox, name: 'Website', channel_type: 'Channel::WebWidget' },
      },
    });
    expect(rec.messages).toEqual([
      {
        id: f.latest,
        content: 'latest reply',
        message_type: 'outgoing',
        private: false,
        created_at: NOW - 2 * DAY,
        conversation_id: f.conv1,
        conversation_display_id: 7,
        inbox_id: f.inbox,
        sender: { id: expect.any(Number), type: 'user', name: 'Ada Admin' },
        conversation_status: 'pending',
      },
    ]);
    expect(rec).not.toHaveProperty('url');
  });

  it("links a conversation to the help desk's agent app when SEARCHDESK_APP_URL is set", async () => {
    const linked = makeDeps(t.db, { appUrl: 'https://desk.example.com' });
    const r = await search(linked, admin, account, 'conversations', { q: 'alice@shop', since: NOW - DAY });
    const rec = conversationRecordSchema.strict().parse(r.payload.conversations?.[0]);
    expect(rec.url).toBe(`https://desk.example.com/app/accounts/${account}/conversations/7`);
  });

  it('gives null meta parts and no messages where there are none', async () => {
    const r = await search(deps, admin, account, 'conversations', { q: '8' });
    const rec = r.payload.conversations?.find((c) => c.id === f.noContact);
    expect(rec).toMatchObject({
      status: 'open',
      priority: null,
      labels: [],
      waiting_since: null,
      first_reply_created_at: null,
      custom_attributes: {},
      messages: [],
      meta: { sender: null, assignee: null, team: null },
    });
    const snoozed = (await search(deps, admin, account, 'conversations', { q: '700' })).payload.conversations?.[0];
    expect(snoozed).toMatchObject({ status: 'snoozed', snoozed_until: NOW + DAY });
  });

  it('never returns conversations of another account', async () => {
    const r = await search(deps, admin, account, 'conversations', { q: 'Alice' });
    expect(r.payload.conversations?.every((c) => c.account_id === account)).toBe(true);
  });
});
