/**
 * SEARCHDESK_INDEX_FORMAT=searchkick against a real OpenSearch holding a stand-in for the help
 * desk's own index: the help desk's matching (typos, accents, stems, "&", one field), with every
 * access rule, filter, window and record of contract §4.2 unchanged. Through the search core.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchDeps } from '../src/search/core.js';
import type { MessageEngine } from '../src/search/messages/engine.js';
import { SearchError } from '../src/errors.js';
import { buildMessageQuery, type MessageQuery } from '../src/search/messages/query.js';
import { connectOpenSearch } from '../src/search/messages/opensearch.js';
import { createSearchkickEngine } from '../src/search/messages/searchkick.js';
import { messageRecordSchema } from '../src/search/records.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { makeDeps, search } from './helpers/core.js';
import { hasOs, osUrl } from './helpers/opensearch.js';
import { createHelpdeskIndex, request, type HelpdeskExtras, type HelpdeskIndex } from './helpers/searchkick.js';

const NOW = Math.floor(Date.now() / 1000);
const HOUR = 3_600;
const clock = () => NOW * 1000;

let t: TestDatabase;
let hd: HelpdeskIndex;
let engine: MessageEngine;
let deps: SearchDeps;
const m: Record<string, number> = {};
const f = {} as {
  account: number;
  admin: string;
  agent: string;
  agentUser: number;
  contact: number;
  inbox1: number;
  inbox2: number;
  inbox3: number;
};

describe.skipIf(!hasOs)('searchkick format on OpenSearch', () => {
  beforeAll(async () => {
    t = await createTestDatabase();
    const fx = new Fixture(t.admin);
    f.account = await fx.account({ advancedSearch: true });
    const other = await fx.account();
    const admin = await fx.user({ name: 'Ada Admin' });
    f.agentUser = await fx.user({ name: 'Bob Agent' });
    await fx.member(f.account, admin, 'administrator');
    await fx.member(f.account, f.agentUser, 'agent');
    f.admin = await fx.token(admin);
    f.agent = await fx.token(f.agentUser);
    f.inbox1 = await fx.inbox(f.account, { name: 'Web' });
    f.inbox2 = await fx.inbox(f.account, { name: 'Email' });
    f.inbox3 = await fx.inbox(f.account, { name: 'Secret' });
    await fx.inboxMember(f.inbox1, f.agentUser);
    await fx.inboxMember(f.inbox2, f.agentUser);
    f.contact = await fx.contact(f.account, { name: 'Carla Contact' });
    const c1 = await fx.conversation(f.account, f.inbox1, { contact_id: f.contact });
    const c2 = await fx.conversation(f.account, f.inbox2);
    const c3 = await fx.conversation(f.account, f.inbox3);
    const byContact = { sender_type: 'Contact', sender_id: f.contact };
    const byAgent = { message_type: 1, sender_type: 'User', sender_id: f.agentUser };
    const extras = new Map<number, HelpdeskExtras>();

    m.refund = await fx.message(c1, { content: 'I would like a refund for my order', created_at: NOW - DAY, ...byContact });
    m.refunds = await fx.message(c2, {
      content: 'Refunds are processed within five days',
      created_at: NOW - 2 * DAY,
      ...byAgent,
    });
    m.hiddenRefund = await fx.message(c3, { content: 'refund request in the secret inbox', created_at: NOW - 2 * DAY - HOUR });
    m.deja = await fx.message(c1, { content: 'Déjà vu all over again', created_at: NOW - 3 * DAY });
    m.rock = await fx.message(c1, { content: 'Rock & Roll forever', created_at: NOW - 4 * DAY });
    m.salt = await fx.message(c1, { content: 'salt and pepper please', created_at: NOW - 4 * DAY - HOUR });
    m.subjectOnly = await fx.message(c2, { content: 'please see the attached file', created_at: NOW - 5 * DAY });
    extras.set(m.subjectOnly, { subject: 'Quarterly invoice overview' });
    m.transcriptOnly = await fx.message(c1, { content: 'voice message', created_at: NOW - 5 * DAY - HOUR });
    extras.set(m.transcriptOnly, { transcripts: [null, 'the caller asked about pineapple delivery'] });
    m.split = await fx.message(c1, { content: 'orange juice request', created_at: NOW - 6 * DAY });
    extras.set(m.split, { subject: 'mango' });
    m.note = await fx.message(c1, {
      content: 'private note about the lighthouse',
      private: true,
      created_at: NOW - 7 * DAY,
      ...byAgent,
    });
    m.domain = await fx.message(c1, { content: 'write to help@example.com today', created_at: NOW - 7 * DAY - HOUR });
    // Stored with microseconds (milliseconds in the index), shown as T = NOW - 9 days (floor).
    m.fraction = await fx.message(c1, { content: 'fractionword message', created_at: NOW - 9 * DAY + 0.9996 });
    m.old = await fx.message(c1, { content: 'refund from long ago', created_at: NOW - 100 * DAY });
    m.ghost = await fx.message(c1, { content: 'ghostly refund', created_at: NOW - 8 * DAY });
    // Same created_at for all: the page order must fall back to id DESC.
    for (let i = 0; i < 20; i++)
      m[`bulk${i}`] = await fx.message(c2, { content: `bulkword number ${i}`, created_at: NOW - 10 * DAY });
    const otherConv = await fx.conversation(other, await fx.inbox(other));
    m.otherAccount = await fx.message(otherConv, { content: 'refund for another account', created_at: NOW - DAY });

    hd = await createHelpdeskIndex(t.db, { url: osUrl, client: 'opensearch' });
    await hd.feed(extras);
    // Deleted after the help desk indexed it: the index is stale, Postgres is the truth.
    await fx.sql('DELETE FROM messages WHERE id = $1', [m.ghost]);
    engine = hd.engine();
    deps = makeDeps(t.db, { primary: engine, now: clock });
  });

  afterAll(async () => {
    await engine?.close();
    await hd?.drop();
    await t?.drop();
  });

  /** The engine's own query for an administrator (to look at the index without the core's Postgres re-read). */
  const engineQuery = (q: string): MessageQuery => {
    const admin = { accountId: f.account, userId: 0, role: 'administrator' as const, inboxIds: [f.inbox1, f.inbox2, f.inbox3] };
    return buildMessageQuery({ ...admin, flags: { searchWithGin: false, advancedSearch: true } }, { q }, clock())!;
  };
  const nameOf = (id: number) => Object.keys(m).find((k) => m[k] === id) ?? `#${id}`;
  const find = async (params: Record<string, unknown>, as: 'admin' | 'agent' = 'admin') => {
    const r = await search(deps, as === 'admin' ? f.admin : f.agent, f.account, 'messages', params);
    expect(r.meta.engine).toBe('opensearch+searchkick');
    return r.payload.messages?.map((x) => nameOf(x.id));
  };

  it('forgives one typo per word ("refnd" finds "refund")', async () => {
    expect(await find({ q: 'refnd' })).toEqual(['refund', 'refunds', 'hiddenRefund']);
  });

  it('matches English stems both ways ("refunds" ↔ "refund")', async () => {
    expect(await find({ q: 'refunds' })).toEqual(['refund', 'refunds', 'hiddenRefund']);
    expect(await find({ q: 'refund' })).toEqual(['refund', 'refunds', 'hiddenRefund']);
  });

  it('folds accents ("deja vu" finds "Déjà vu")', async () => {
    expect(await find({ q: 'deja vu' })).toEqual(['deja']);
    expect(await find({ q: 'DÉJÀ' })).toEqual(['deja']);
  });

  it('treats "&" and "and" as the same word', async () => {
    expect(await find({ q: 'rock and roll' })).toEqual(['rock']);
    expect(await find({ q: 'salt & pepper' })).toEqual(['salt']);
  });

  it('finds a word that is only in an email subject', async () => {
    expect(await find({ q: 'quarterly' })).toEqual(['subjectOnly']);
  });

  it('finds a word that is only in an attachment transcript', async () => {
    expect(await find({ q: 'pineapple delivery' })).toEqual(['transcriptOnly']);
  });

  it('needs every word in the same field', async () => {
    expect(await find({ q: 'orange juice' })).toEqual(['split']);
    expect(await find({ q: 'mango' })).toEqual(['split']);
    expect(await find({ q: 'orange mango' })).toEqual([]);
  });

  it('returns private notes', async () => {
    expect(await find({ q: 'lighthouse' })).toEqual(['note']);
  });

  it('never returns another account’s messages', async () => {
    const r = await find({ q: 'another account' });
    expect(r).toEqual([]);
  });

  it('leaves out inboxes an agent may not access', async () => {
    expect(await find({ q: 'refund' }, 'agent')).toEqual(['refund', 'refunds']);
  });

  it('ignores an inbox_id the agent may not access, still leaving it out', async () => {
    expect(await find({ q: 'refund', inbox_id: f.inbox3 }, 'agent')).toEqual(['refund', 'refunds']);
  });

  it('restricts to one accessible inbox', async () => {
    expect(await find({ q: 'refund', inbox_id: f.inbox2 }, 'agent')).toEqual(['refunds']);
  });

  it('filters by contact and by agent sender', async () => {
    expect(await find({ q: 'refund', from: `contact:${f.contact}` })).toEqual(['refund']);
    expect(await find({ q: 'refund', from: `agent:${f.agentUser}` })).toEqual(['refunds']);
  });

  it('applies since and until inclusively', async () => {
    expect(await find({ q: 'refund', since: NOW - 2 * DAY })).toEqual(['refund', 'refunds']);
    expect(await find({ q: 'refund', until: NOW - 2 * DAY })).toEqual(['refunds', 'hiddenRefund']);
  });

  it('treats since and until as whole seconds: a message shown as T is in since=T and until=T', async () => {
    const T = NOW - 9 * DAY;
    expect(await find({ q: 'fractionword', until: T })).toEqual(['fraction']);
    expect(await find({ q: 'fractionword', since: T, until: T })).toEqual(['fraction']);
    expect(await find({ q: 'fractionword', until: T - 1 })).toEqual([]);
    expect(await find({ q: 'fractionword', since: T + 1 })).toEqual([]);
  });

  it('searches the last 90 days by default', async () => {
    expect(await find({ q: 'long ago' })).toEqual([]);
    expect(await find({ q: 'refund', since: NOW - 90 * DAY })).toEqual(['refund', 'refunds', 'hiddenRefund']);
  });

  it('rejects since older than 90 days with the contract message', async () => {
    const err = await find({ q: 'refund', since: NOW - 90 * DAY - 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SearchError);
    expect(err).toMatchObject({ code: 'window_exceeded', message: 'Search is limited to the last 90 days' });
  });

  it('drops a message deleted from Postgres that the index still holds', async () => {
    expect(await engine.findIds(engineQuery('ghostly'))).toEqual([m.ghost]);
    expect(await find({ q: 'ghostly' })).toEqual([]);
  });

  it('matches q as typed (the analyzer keeps "example.com" one token)', async () => {
    expect(await find({ q: 'example.com' })).toEqual(['domain']);
  });

  it('pages 15 at a time in id order within one created_at, with an exact has_more', async () => {
    const p1 = await search(deps, f.admin, f.account, 'messages', { q: 'bulkword' });
    expect(p1.payload.messages?.map((x) => nameOf(x.id))).toEqual(Array.from({ length: 15 }, (_, i) => `bulk${19 - i}`));
    expect(p1.meta.has_more).toEqual({ messages: true });
    const p2 = await search(deps, f.admin, f.account, 'messages', { q: 'bulkword', page: 2 });
    expect(p2.payload.messages?.map((x) => nameOf(x.id))).toEqual(Array.from({ length: 5 }, (_, i) => `bulk${4 - i}`));
    expect(p2.meta.has_more).toEqual({ messages: false });
    expect(await find({ q: 'bulkword', page: 3 })).toEqual([]);
  });

  it('builds complete message records from Postgres', async () => {
    const r = await search(deps, f.admin, f.account, 'messages', { q: 'refnd', from: `contact:${f.contact}` });
    expect(messageRecordSchema.strict().parse(r.payload.messages?.[0])).toEqual({
      id: m.refund,
      content: 'I would like a refund for my order',
      message_type: 'incoming',
      private: false,
      created_at: NOW - DAY,
      conversation_id: expect.any(Number),
      conversation_display_id: 1,
      inbox_id: f.inbox1,
      sender: { id: f.contact, type: 'contact', name: 'Carla Contact' },
      conversation_status: 'open',
    });
  });

  describe('index checks and fallback', () => {
    const engineOn = (index: string) => createSearchkickEngine(connectOpenSearch(osUrl, 5_000), index);

    it('accepts the help desk index', async () => {
      await expect(engine.check()).resolves.toBeUndefined();
    });

    it('says when the index is missing', async () => {
      const e = engineOn('messages_production_sdtest_missing');
      try {
        await expect(e.check()).rejects.toThrow(
          'index messages_production_sdtest_missing not found — is advanced search enabled in the help desk?',
        );
      } finally {
        await e.close();
      }
    });

    it('says when the index is not the help desk’s', async () => {
      const plain = `sd_plain_${hd.alias}`;
      await request(osUrl, 'PUT', `/${plain}`, { mappings: { properties: { content: { type: 'keyword' } } } });
      const e = engineOn(plain);
      try {
        await expect(e.check()).rejects.toThrow(
          `index ${plain} does not look like the help desk's index (no content.analyzed field)`,
        );
      } finally {
        await e.close();
        await request(osUrl, 'DELETE', `/${plain}`);
      }
    });

    it('falls back to Postgres when the index is missing', async () => {
      const e = engineOn('messages_sdtest_gone');
      try {
        const r = await search(makeDeps(t.db, { primary: e, now: clock }), f.admin, f.account, 'messages', { q: 'refund' });
        expect(r.meta.engine).toBe('postgres-fallback');
        expect(r.payload.messages?.map((x) => nameOf(x.id))).toEqual(['refund', 'refunds', 'hiddenRefund']);
      } finally {
        await e.close();
      }
    });
  });
});
