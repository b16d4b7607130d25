/**
 * The message rules (interface §4.4, contract §4.2) as one table, run once per engine:
 * Postgres always, Elasticsearch and OpenSearch when configured (REQUIRE_ES=1 / REQUIRE_OPENSEARCH=1
 * make them mandatory).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchDeps } from '../src/search/core.js';
import type { MessageEngine } from '../src/search/messages/engine.js';
import { SearchError } from '../src/errors.js';
import { MAX_Q_LENGTH } from '../src/search/params.js';
import { messageRecordSchema } from '../src/search/records.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { createTestIndex, hasEs, type TestIndex } from './helpers/es.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { createOpenSearchTestIndex, hasOs } from './helpers/opensearch.js';
import { makeDeps, search } from './helpers/core.js';

const NOW = Math.floor(Date.now() / 1000);
const clock = () => NOW * 1000;
const HEX_DUMP = '0123456789abcdef'.repeat(250);

let t: TestDatabase;
let esIndex: TestIndex | undefined;
let osIndex: TestIndex | undefined;
const m: Record<string, number> = {};
const f = {} as {
  account: number;
  noFlag: number;
  admin: string;
  agent: string;
  noFlagAdmin: string;
  inbox1: number;
  inbox2: number;
  inbox3: number;
  inbox4: number;
  contact1: number;
  agentUser: number;
};

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  f.account = await fx.account({ advancedSearch: true });
  f.noFlag = await fx.account({ advancedSearch: false });
  const other = await fx.account();
  const admin = await fx.user({ name: 'Ada Admin' });
  f.agentUser = await fx.user({ name: 'Bob Agent', display_name: 'Bobby' });
  await fx.member(f.account, admin, 'administrator');
  await fx.member(f.account, f.agentUser, 'agent');
  await fx.member(f.noFlag, admin, 'administrator');
  f.admin = await fx.token(admin);
  f.agent = await fx.token(f.agentUser);
  f.noFlagAdmin = f.admin;
  f.inbox1 = await fx.inbox(f.account, { name: 'Web' });
  f.inbox2 = await fx.inbox(f.account, { name: 'Email' });
  f.inbox3 = await fx.inbox(f.account, { name: 'Secret' });
  await fx.inboxMember(f.inbox1, f.agentUser);
  await fx.inboxMember(f.inbox2, f.agentUser);
  f.contact1 = await fx.contact(f.account, { name: 'Carla Contact' });
  const c1 = await fx.conversation(f.account, f.inbox1, { contact_id: f.contact1 });
  const c2 = await fx.conversation(f.account, f.inbox2);
  const c3 = await fx.conversation(f.account, f.inbox3);
  const from = (id: number) => ({ sender_type: 'Contact', sender_id: id });
  m.crossing = await fx.message(c1, { content: 'Zebra crossing ahead', created_at: NOW - 1 * DAY, ...from(f.contact1) });
  m.testing = await fx.message(c2, {
    content: 'Testing the zebra',
    message_type: 1,
    sender_type: 'User',
    sender_id: f.agentUser,
    created_at: NOW - 2 * DAY,
  });
  m.hidden = await fx.message(c3, { content: 'zebra test1 in the secret inbox', created_at: NOW - 3 * DAY });
  m.privateNote = await fx.message(c1, {
    content: 'private zebra note',
    message_type: 1,
    private: true,
    sender_type: 'User',
    sender_id: f.agentUser,
    created_at: NOW - 5 * DAY,
  });
  m.zebraish = await fx.message(c1, { content: 'Zebraish patterns', created_at: NOW - 6 * DAY });
  m.inside = await fx.message(c1, { content: 'nozebra here', created_at: NOW - 7 * DAY });
  m.old = await fx.message(c1, { content: 'zebra from long ago', created_at: NOW - 100 * DAY });
  m.activity = await fx.message(c1, { content: 'zebra assigned (activity)', message_type: 2, created_at: NOW - 1 * DAY });
  m.template = await fx.message(c1, { content: 'zebra template', message_type: 3, created_at: NOW - 1 * DAY });
  m.unicode = await fx.message(c1, { content: 'Über das Café von Müller — 東京 ✓', created_at: NOW - 8 * DAY });
  m.greek = await fx.message(c1, { content: 'ΚΩΔΙΚΟΣ ΠΡΟΣΒΑΣΗΣ ξεχάστηκε', created_at: NOW - 8 * DAY - 60 });
  m.turkish = await fx.message(c1, { content: 'İstanbul şubesi ISPARTA', created_at: NOW - 8 * DAY - 120 });
  m.literal = await fx.message(c1, { content: 'Get 50% off_sale now', created_at: NOW - 9 * DAY });
  m.bot = await fx.message(c1, {
    content: 'botreply hello',
    message_type: 1,
    sender_type: 'AgentBot',
    sender_id: 7,
    created_at: NOW - 9 * DAY,
  });
  // Same created_at for all: the page order must fall back to id DESC.
  for (let i = 0; i < 20; i++)
    m[`bulk${i}`] = await fx.message(c2, { content: `bulkword number ${i}`, created_at: NOW - 10 * DAY });
  // Stored with microseconds (milliseconds in the index), shown as T = NOW - 11 days (floor).
  m.fraction = await fx.message(c1, { content: 'fractionword at a fractional second', created_at: NOW - 11 * DAY + 0.9996 });
  m.ghost = await fx.message(c1, { content: 'ghostword deleted later', created_at: NOW - 2 * DAY });
  m.moved = await fx.message(c1, { content: 'movedword moved later', created_at: NOW - 2 * DAY });
  m.retyped = await fx.message(c1, { content: 'retypedword becomes activity', created_at: NOW - 2 * DAY });
  // An inbox deleted after indexing while its messages remain (the help desk deletes them later):
  // its message leads an administrator's search without the inbox filter (everyInbox), before
  // exactly one page of others.
  f.inbox4 = await fx.inbox(f.account, { name: 'Closing' });
  const c4 = await fx.conversation(f.account, f.inbox4);
  m.orphan = await fx.message(c4, { content: 'pagedword in a deleted inbox', created_at: NOW - 12 * DAY + 60 });
  for (let i = 0; i < 15; i++)
    m[`paged${i}`] = await fx.message(c1, { content: `pagedword number ${i}`, created_at: NOW - 12 * DAY - i });
  // Word characters are letters, marks and numbers on every engine (README, "Word boundaries").
  m.emoji = await fx.message(c1, { content: '⚠️Warning light is on', created_at: NOW - 13 * DAY });
  m.thai = await fx.message(c1, { content: 'ไม่ได้รับสินค้า', created_at: NOW - 13 * DAY - 60 });
  m.hindi = await fx.message(c1, { content: 'नमस्ते दोस्तों', created_at: NOW - 13 * DAY - 120 });
  m.superscript = await fx.message(c1, { content: 'x²abc formula', created_at: NOW - 13 * DAY - 180 });
  m.circled = await fx.message(c1, { content: 'Ⓐpple pie', created_at: NOW - 13 * DAY - 240 });
  // A word far longer than the index holds of a word (MAX_WORD_LENGTH).
  m.hexdump = await fx.message(c1, { content: `dump ${HEX_DUMP} end`, created_at: NOW - 14 * DAY });
  // Two messages within one millisecond, stored out of id order: the later microsecond first.
  m.tieLater = await fx.message(c1, { content: 'tieword later', created_at: NOW - 15 * DAY + 0.0009 });
  m.tieEarlier = await fx.message(c1, { content: 'tieword earlier', created_at: NOW - 15 * DAY + 0.0001 });
  const otherInbox = await fx.inbox(other);
  const oc = await fx.conversation(other, otherInbox);
  m.otherAccount = await fx.message(oc, { content: 'zebra of another account', created_at: NOW - 1 * DAY });
  const nc = await fx.conversation(f.noFlag, await fx.inbox(f.noFlag));
  m.noFlag = await fx.message(nc, { content: 'zebra without the flag', created_at: NOW - 1 * DAY });

  if (hasEs) esIndex = await createTestIndex(t.db);
  if (hasOs) osIndex = await createOpenSearchTestIndex(t.db);
  // Changes after indexing: the index is now stale, Postgres is the truth.
  await fx.sql('DELETE FROM messages WHERE id = $1', [m.ghost]);
  await fx.sql('UPDATE messages SET inbox_id = $1 WHERE id = $2', [f.inbox3, m.moved]);
  await fx.sql('UPDATE messages SET message_type = 2 WHERE id = $1', [m.retyped]);
  await fx.sql('DELETE FROM inboxes WHERE id = $1', [f.inbox4]);
});

afterAll(async () => {
  await esIndex?.drop();
  await osIndex?.drop();
  await t.drop();
});

type Caller = 'admin' | 'agent';
interface Case {
  name: string;
  as?: Caller;
  params: () => Record<string, unknown>;
  expect: string[];
}

const cases = (): Case[] => [
  {
    name: 'finds every word prefix, newest first',
    params: () => ({ q: 'zebra' }),
    expect: ['crossing', 'testing', 'hidden', 'privateNote', 'zebraish'],
  },
  {
    name: 'is case-insensitive',
    params: () => ({ q: 'ZEBRA' }),
    expect: ['crossing', 'testing', 'hidden', 'privateNote', 'zebraish'],
  },
  { name: 'requires every word ("zeb cross" finds "Zebra crossing")', params: () => ({ q: 'zeb cross' }), expect: ['crossing'] },
  {
    name: 'matches word prefixes ("test" finds "Testing" and "test1")',
    params: () => ({ q: 'test' }),
    expect: ['testing', 'hidden'],
  },
  { name: 'does not match inside a word', params: () => ({ q: 'ebra' }), expect: [] },
  {
    name: 'leaves out inboxes an agent may not access (rule 5)',
    as: 'agent',
    params: () => ({ q: 'zebra' }),
    expect: ['crossing', 'testing', 'privateNote', 'zebraish'],
  },
  { name: 'filters by contact sender', params: () => ({ q: 'zebra', from: `contact:${f.contact1}` }), expect: ['crossing'] },
  {
    name: 'filters by agent sender',
    params: () => ({ q: 'zebra', from: `agent:${f.agentUser}` }),
    expect: ['testing', 'privateNote'],
  },
  {
    name: 'ignores a malformed from (rule 4)',
    params: () => ({ q: 'zebra', from: 'bogus' }),
    expect: ['crossing', 'testing', 'hidden', 'privateNote', 'zebraish'],
  },
  {
    name: 'ignores from with a non-numeric id',
    params: () => ({ q: 'zebra', from: 'contact:abc' }),
    expect: ['crossing', 'testing', 'hidden', 'privateNote', 'zebraish'],
  },
  {
    name: 'ignores from with another prefix',
    params: () => ({ q: 'zebra', from: `user:${f.agentUser}` }),
    expect: ['crossing', 'testing', 'hidden', 'privateNote', 'zebraish'],
  },
  {
    name: 'finds nothing for an id no row can have',
    params: () => ({ q: 'zebra', from: 'contact:99999999999999999999999' }),
    expect: [],
  },
  { name: 'restricts to one accessible inbox', params: () => ({ q: 'zebra', inbox_id: f.inbox2 }), expect: ['testing'] },
  {
    name: 'ignores an inbox_id the agent may not access, still leaving it out',
    as: 'agent',
    params: () => ({ q: 'zebra', inbox_id: f.inbox3 }),
    expect: ['crossing', 'testing', 'privateNote', 'zebraish'],
  },
  { name: 'applies since inclusively', params: () => ({ q: 'zebra', since: NOW - 2 * DAY }), expect: ['crossing', 'testing'] },
  {
    name: 'applies until inclusively',
    params: () => ({ q: 'zebra', until: NOW - 2 * DAY }),
    expect: ['testing', 'hidden', 'privateNote', 'zebraish'],
  },
  {
    name: 'gives an empty list when since > until',
    params: () => ({ q: 'zebra', since: NOW - DAY, until: NOW - 2 * DAY }),
    expect: [],
  },
  {
    name: 'allows since exactly 90 days ago',
    params: () => ({ q: 'zebra', since: NOW - 90 * DAY }),
    expect: ['crossing', 'testing', 'hidden', 'privateNote', 'zebraish'],
  },
  {
    name: 'combines every filter (rule 6)',
    params: () => ({ q: 'zebra', from: `agent:${f.agentUser}`, inbox_id: f.inbox1, since: NOW - 6 * DAY, until: NOW - 4 * DAY }),
    expect: ['privateNote'],
  },
  {
    name: 'includes a message shown as T in until=T (whole seconds)',
    params: () => ({ q: 'fractionword', until: NOW - 11 * DAY }),
    expect: ['fraction'],
  },
  {
    name: 'includes a message shown as T in since=T&until=T',
    params: () => ({ q: 'fractionword', since: NOW - 11 * DAY, until: NOW - 11 * DAY }),
    expect: ['fraction'],
  },
  {
    name: 'leaves a message shown as T out of since=T+1',
    params: () => ({ q: 'fractionword', since: NOW - 11 * DAY + 1 }),
    expect: [],
  },
  {
    name: 'leaves a message shown as T out of until=T-1',
    params: () => ({ q: 'fractionword', until: NOW - 11 * DAY - 1 }),
    expect: [],
  },
  { name: 'matches Unicode words', params: () => ({ q: 'müller caf' }), expect: ['unicode'] },
  // One folding everywhere (README): per character lower case, with İ → i and final ς → σ.
  { name: 'folds a final sigma typed in capitals', params: () => ({ q: 'ΚΩΔΙΚΟΣ' }), expect: ['greek'] },
  { name: 'folds a final sigma typed as ς', params: () => ({ q: 'κωδικος προσβασης' }), expect: ['greek'] },
  { name: 'folds a final sigma typed as σ', params: () => ({ q: 'κωδικοσ' }), expect: ['greek'] },
  { name: 'folds a sigma in a prefix typed as ς', params: () => ({ q: 'προς' }), expect: ['greek'] },
  { name: 'folds İ to i (q "istanbul")', params: () => ({ q: 'istanbul' }), expect: ['turkish'] },
  { name: 'folds İ to i (q "İstanbul")', params: () => ({ q: 'İstanbul' }), expect: ['turkish'] },
  { name: 'folds İ to i (q "İSPARTA" finds "ISPARTA")', params: () => ({ q: 'İSPARTA' }), expect: ['turkish'] },
  { name: 'keeps dotless ı apart from i', params: () => ({ q: 'ıstanbul' }), expect: [] },
  { name: 'matches CJK words', params: () => ({ q: '東京' }), expect: ['unicode'] },
  { name: 'treats % and _ as separators, never wildcards', params: () => ({ q: '50% off_sale' }), expect: ['literal'] },
  { name: 'finds nothing for a lone wildcard', params: () => ({ q: '%' }), expect: [] },
  { name: 'returns agent bot messages with their sender type', params: () => ({ q: 'botreply' }), expect: ['bot'] },
  { name: 'never returns a message deleted since indexing', params: () => ({ q: 'ghostword' }), expect: [] },
  {
    name: 'follows a message moved to an inaccessible inbox since indexing',
    as: 'agent',
    params: () => ({ q: 'movedword' }),
    expect: [],
  },
  { name: 'never returns a message that became an activity since indexing', params: () => ({ q: 'retypedword' }), expect: [] },
  {
    name: 'keeps a full page when a message of a deleted inbox is still indexed',
    params: () => ({ q: 'pagedword' }),
    expect: Array.from({ length: 15 }, (_, i) => `paged${i}`),
  },
  {
    name: 'pages 15 at a time, ordered by id within one created_at',
    params: () => ({ q: 'bulkword' }),
    expect: Array.from({ length: 15 }, (_, i) => `bulk${19 - i}`),
  },
  {
    name: 'returns the rest on page 2',
    params: () => ({ q: 'bulkword', page: 2 }),
    expect: Array.from({ length: 5 }, (_, i) => `bulk${4 - i}`),
  },
  { name: 'returns an empty page past the end', params: () => ({ q: 'bulkword', page: 3 }), expect: [] },
  {
    name: 'orders messages within one millisecond by their stored microseconds',
    params: () => ({ q: 'tieword' }),
    expect: ['tieLater', 'tieEarlier'],
  },
  {
    name: 'treats an emoji variation selector as a mark (no word starts after it)',
    params: () => ({ q: 'warning' }),
    expect: [],
  },
  { name: 'finds a word that starts with an emoji variation selector', params: () => ({ q: '⚠️Warning' }), expect: ['emoji'] },
  { name: 'treats Thai tone marks as part of a word', params: () => ({ q: 'ได้รับ' }), expect: [] },
  { name: 'finds a Thai word by its start', params: () => ({ q: 'ไม่ได้' }), expect: ['thai'] },
  { name: 'treats a Devanagari virama as part of a word', params: () => ({ q: 'ते' }), expect: [] },
  { name: 'finds a Devanagari word by its start', params: () => ({ q: 'नमस' }), expect: ['hindi'] },
  { name: 'treats a superscript digit as part of a word', params: () => ({ q: 'abc' }), expect: [] },
  { name: 'finds a word holding a superscript digit', params: () => ({ q: 'x²' }), expect: ['superscript'] },
  { name: 'starts a word after a circled letter (a symbol)', params: () => ({ q: 'pple' }), expect: ['circled'] },
  {
    name: 'finds a word longer than the index holds by a prefix',
    params: () => ({ q: HEX_DUMP.slice(0, 40) }),
    expect: ['hexdump'],
  },
  {
    name: 'finds a word longer than the index holds by the longest prefix q can hold',
    params: () => ({ q: HEX_DUMP.slice(0, MAX_Q_LENGTH) }),
    expect: ['hexdump'],
  },
  {
    name: 'finds a word longer than the index holds with a word after it',
    params: () => ({ q: `${HEX_DUMP.slice(0, 100)} end` }),
    expect: ['hexdump'],
  },
];

const engines: Array<{ name: string; skip: boolean; make: () => MessageEngine | undefined }> = [
  { name: 'postgres', skip: false, make: () => undefined },
  { name: 'elasticsearch', skip: !hasEs, make: () => esIndex?.engine },
  { name: 'opensearch', skip: !hasOs, make: () => osIndex?.engine },
];

const nameOf = (id: number) => Object.keys(m).find((k) => m[k] === id) ?? `#${id}`;

describe.each(engines)('message search on $name', ({ name, skip, make }) => {
  let deps: SearchDeps;
  beforeAll(() => {
    deps = makeDeps(t.db, { primary: make(), now: clock });
  });
  const tokenOf = (as: Caller = 'admin') => (as === 'admin' ? f.admin : f.agent);

  it.skipIf(skip).each(cases())('$name', async (c) => {
    const r = await search(deps, tokenOf(c.as), f.account, 'messages', c.params());
    expect(r.payload.messages?.map((x) => nameOf(x.id))).toEqual(c.expect);
    expect(r.meta.engine).toBe(name);
  });

  it.skipIf(skip)('reports has_more exactly', async () => {
    expect((await search(deps, f.admin, f.account, 'messages', { q: 'bulkword' })).meta.has_more).toEqual({ messages: true });
    expect((await search(deps, f.admin, f.account, 'messages', { q: 'bulkword', page: 2 })).meta.has_more).toEqual({
      messages: false,
    });
    // A message of a deleted inbox still indexed before exactly one page of others.
    expect((await search(deps, f.admin, f.account, 'messages', { q: 'pagedword' })).meta.has_more).toEqual({ messages: false });
    const second = await search(deps, f.admin, f.account, 'messages', { q: 'pagedword', page: 2 });
    expect(second.payload.messages).toEqual([]);
    expect(second.meta.has_more).toEqual({ messages: false });
  });

  it.skipIf(skip)('rejects since older than 90 days with the contract message (rule 2)', async () => {
    const err = await search(deps, f.admin, f.account, 'messages', { q: 'zebra', since: NOW - 90 * DAY - 1 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SearchError);
    expect(err).toMatchObject({ code: 'window_exceeded', message: 'Search is limited to the last 90 days' });
  });

  it.skipIf(skip)('builds complete message records', async () => {
    const r = await search(deps, f.admin, f.account, 'messages', { q: 'zebra crossing' });
    const [rec] = r.payload.messages ?? [];
    expect(messageRecordSchema.strict().parse(rec)).toEqual({
      id: m.crossing,
      content: 'Zebra crossing ahead',
      message_type: 'incoming',
      private: false,
      created_at: NOW - DAY,
      conversation_id: expect.any(Number),
      conversation_display_id: 1,
      inbox_id: f.inbox1,
      sender: { id: f.contact1, type: 'contact', name: 'Carla Contact' },
      conversation_status: 'open',
    });
    // The conversation's status as it is now, read from Postgres whatever the engine.
    await t.admin.query('UPDATE conversations SET status = 1 WHERE id = $1', [rec!.conversation_id]);
    try {
      const again = await search(deps, f.admin, f.account, 'messages', { q: 'zebra crossing' });
      expect(again.payload.messages?.[0]).toMatchObject({ id: m.crossing, conversation_status: 'resolved' });
    } finally {
      await t.admin.query('UPDATE conversations SET status = 0 WHERE id = $1', [rec!.conversation_id]);
    }
    const agentMsg = await search(deps, f.admin, f.account, 'messages', { q: 'private zebra' });
    expect(agentMsg.payload.messages?.[0]).toMatchObject({
      message_type: 'outgoing',
      private: true,
      sender: { id: f.agentUser, type: 'user', name: 'Bobby' },
    });
    const bot = await search(deps, f.admin, f.account, 'messages', { q: 'botreply' });
    expect(bot.payload.messages?.[0]?.sender).toEqual({ id: 7, type: 'agent_bot', name: null });
  });
});

describe('message search gate (contract §4.2)', () => {
  it('refuses an account without advanced_search', async () => {
    const deps = makeDeps(t.db, { now: clock });
    const err = await search(deps, f.noFlagAdmin, f.noFlag, 'messages', { q: 'zebra' }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'feature_disabled',
      message: 'Message search is not enabled for this account',
    });
  });

  it('lets SEARCHDESK_MESSAGE_SEARCH=all lift the gate', async () => {
    const deps = makeDeps(t.db, { now: clock, gate: 'all' });
    const r = await search(deps, f.noFlagAdmin, f.noFlag, 'messages', { q: 'zebra' });
    expect(r.payload.messages?.map((x) => x.id)).toEqual([m.noFlag]);
  });

  it('checks the gate before the 90-day rule', async () => {
    const deps = makeDeps(t.db, { now: clock });
    const err = await search(deps, f.noFlagAdmin, f.noFlag, 'messages', { q: 'zebra', since: 0 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'feature_disabled' });
  });
});
