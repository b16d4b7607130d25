/**
 * The real search core on the embedded PGlite demo: every operation with the demo tokens, the
 * access and window rules visible on the demo stories, and the core's SQL (regexes, bigint arrays,
 * epoch casts, json_build_object, LATERAL) running on PGlite without errors.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/db.js';
import { openEmbeddedDb } from '../src/db/pglite.js';
import type { SearchDeps } from '../src/search/core.js';
import { envelopeSchemas } from '../src/search/records.js';
import { ids, makeDeps, search } from './helpers/core.js';
import { silentLogger } from './helpers/db.js';

const NOW_MS = Date.now();
const NOW = Math.floor(NOW_MS / 1000);
const DAY = 86_400;
const ACME = 1;
const GLOBEX = 2;
const ADMIN = 'demo-admin-token'; // Maya Patel, every Acme inbox
const TOM = 'demo-agent-token'; // Website Chat, Support Email
const LENA = 'demo-agent2-token'; // Support Email, WhatsApp
const GLOBEX_ADMIN = 'demo-globex-token';

const root = mkdtempSync(join(tmpdir(), 'searchdesk-embedded-search-'));
let db: Db;
let deps: SearchDeps;

/** Ids of the demo stories' rows, looked up by content rather than assumed. */
const story = {} as { hopperOld: number[]; hopperNew: number[]; hopperNote: number; rahulIncoming: number[]; gift: number[] };

async function messageIds(where: string): Promise<number[]> {
  const rows = await db.query<{ id: number }>(
    { text: `SELECT m.id FROM messages m WHERE ${where} ORDER BY m.created_at DESC, m.id DESC`, values: [] },
    'test',
  );
  return rows.map((r) => r.id);
}

beforeAll(async () => {
  ({ db } = await openEmbeddedDb({ dataDir: join(root, 'data'), logger: silentLogger, now: () => NOW_MS }));
  deps = makeDeps(db, { now: () => NOW_MS });
  const hopper = "m.content ILIKE '%hopper%' AND m.message_type IN (0, 1)";
  story.hopperOld = await messageIds(`${hopper} AND m.inbox_id = 2`);
  story.hopperNew = await messageIds(`${hopper} AND m.inbox_id = 3`);
  story.hopperNote = (await messageIds(`${hopper} AND m.private`))[0]!;
  story.rahulIncoming = await messageIds(`${hopper} AND m.inbox_id = 3 AND m.sender_type = 'Contact' AND m.sender_id = 2`);
  story.gift = await messageIds("m.content ILIKE '%gift card%'");
}, 180_000);

afterAll(async () => {
  await db.close();
  rmSync(root, { recursive: true, force: true });
});

describe('contacts on the demo', () => {
  it('finds a contact by a fragment of its e-mail, phone number or identifier', async () => {
    const found = await search(deps, ADMIN, ACME, 'contacts', { q: 'bennett@exa' });
    envelopeSchemas.contacts.parse({ payload: found.payload });
    expect(found.payload.contacts).toEqual([
      expect.objectContaining({
        id: 1,
        name: 'Olivia Bennett',
        email: 'olivia.bennett@example.com',
        additional_attributes: { city: 'Portland', country: 'United States', company_name: 'Bennett Design Studio' },
        created_at: expect.any(Number),
        last_activity_at: expect.any(Number),
      }),
    ]);
    expect(ids(await search(deps, ADMIN, ACME, 'contacts', { q: 'cus_OB10' }), 'contacts')).toEqual([1]);
    expect(ids(await search(deps, ADMIN, ACME, 'contacts', { q: '+447700900123' }), 'contacts')).toContain(2);
  });

  it("keeps each account's contacts to itself", async () => {
    expect(ids(await search(deps, ADMIN, ACME, 'contacts', { q: 'bennett' }), 'contacts')).toEqual([1]);
    expect(ids(await search(deps, GLOBEX_ADMIN, GLOBEX, 'contacts', { q: 'bennett' }), 'contacts')).toEqual([4]);
  });

  it('orders by last activity, never-active last, and pages without overlap', async () => {
    const page1 = await search(deps, ADMIN, ACME, 'contacts', { q: 'example' });
    const page2 = await search(deps, ADMIN, ACME, 'contacts', { q: 'example', page: 2 });
    expect(page1.meta.has_more.contacts).toBe(true);
    const times = page1.payload.contacts!.map((c) => c.last_activity_at ?? -1);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(ids(page1, 'contacts').filter((id) => ids(page2, 'contacts').includes(id))).toEqual([]);
  });

  it('filters on last activity with since and until', async () => {
    const since = NOW - 7 * DAY;
    const recent = await search(deps, ADMIN, ACME, 'contacts', { q: 'a', since });
    expect(recent.payload.contacts!.length).toBeGreaterThan(0);
    for (const c of recent.payload.contacts!) expect(c.last_activity_at).toBeGreaterThanOrEqual(since);
  });
});

describe('conversations on the demo', () => {
  it('returns the conversation with its contact, assignee, team, inbox and latest message', async () => {
    const found = await search(deps, LENA, ACME, 'conversations', { q: 'rahul' });
    envelopeSchemas.conversations.parse({ payload: found.payload });
    expect(found.payload.conversations).toEqual([
      expect.objectContaining({
        account_id: ACME,
        inbox_id: 3,
        status: 'open',
        messages: [expect.objectContaining({ content: 'Ok, thanks Lena 👍', message_type: 'incoming' })],
        meta: {
          sender: expect.objectContaining({ id: 2, name: 'Rahul Mehta', email: null, type: 'contact' }),
          assignee: { id: 3, name: 'Lena Fischer', email: 'lena.fischer@acme.example', type: 'user' },
          team: { id: 3, name: 'Shipping & Returns' },
          inbox: { id: 3, name: 'WhatsApp', channel_type: 'Channel::Whatsapp' },
        },
      }),
    ]);
  });

  it("shows each conversation's queue state, and each message hit its conversation's status (the README's examples)", async () => {
    const [rahul] = (await search(deps, LENA, ACME, 'conversations', { q: 'rahul' })).payload.conversations!;
    expect(rahul).toMatchObject({ display_id: 275, priority: 'low', labels: ['vip'], waiting_since: expect.any(Number) });
    const [damaged] = (await search(deps, ADMIN, ACME, 'messages', { q: 'damaged refund' })).payload.messages!;
    expect(damaged).toMatchObject({ conversation_display_id: 273, conversation_status: 'resolved' });
    const [ethan] = (await search(deps, ADMIN, ACME, 'conversations', { q: '273' })).payload.conversations!;
    expect(ethan).toMatchObject({ display_id: 273, status: 'resolved', priority: 'medium', labels: [] });
  });

  it('hides conversations of inboxes an agent is not a member of', async () => {
    expect(await search(deps, TOM, ACME, 'conversations', { q: 'rahul' })).toMatchObject({ payload: { conversations: [] } });
    expect(ids(await search(deps, ADMIN, ACME, 'conversations', { q: 'rahul' }), 'conversations')).toHaveLength(1);
  });

  it('finds a conversation by its display id', async () => {
    const [row] = await db.query<{ id: number; display_id: number }>(
      { text: 'SELECT id, display_id FROM conversations WHERE account_id = 1 ORDER BY display_id DESC LIMIT 1', values: [] },
      'test',
    );
    expect(ids(await search(deps, ADMIN, ACME, 'conversations', { q: String(row!.display_id) }), 'conversations')).toContain(
      row!.id,
    );
  });
});

describe('messages on the demo', () => {
  it('finds recent messages, private notes included, but not those older than 90 days', async () => {
    expect(story.hopperOld.length).toBeGreaterThan(0);
    const found = await search(deps, ADMIN, ACME, 'messages', { q: 'hopper' });
    envelopeSchemas.messages.parse({ payload: found.payload });
    expect(ids(found, 'messages')).toEqual(story.hopperNew);
    expect(found.meta.engine).toBe('postgres');
    expect(found.payload.messages!.find((m) => m.id === story.hopperNote)).toMatchObject({
      private: true,
      message_type: 'outgoing',
      inbox_id: 3,
      sender: { id: 3, type: 'user', name: 'Lena Fischer' },
    });
  });

  it('leaves out inboxes the agent is not a member of, even when asked for one', async () => {
    expect(ids(await search(deps, LENA, ACME, 'messages', { q: 'hopper' }), 'messages')).toEqual(story.hopperNew);
    expect(ids(await search(deps, TOM, ACME, 'messages', { q: 'hopper' }), 'messages')).toEqual([]);
    expect(ids(await search(deps, TOM, ACME, 'messages', { q: 'hopper', inbox_id: 3 }), 'messages')).toEqual([]);
    expect(ids(await search(deps, TOM, ACME, 'messages', { q: 'gift cards' }), 'messages')).toEqual(story.gift);
    expect(ids(await search(deps, LENA, ACME, 'messages', { q: 'gift cards' }), 'messages')).toEqual([]);
  });

  it('filters by sender and time', async () => {
    expect(ids(await search(deps, ADMIN, ACME, 'messages', { q: 'hopper', from: 'contact:2' }), 'messages')).toEqual(
      story.rahulIncoming,
    );
    expect(ids(await search(deps, ADMIN, ACME, 'messages', { q: 'hopper', until: NOW - 4 * DAY }), 'messages')).toEqual([]);
  });

  it('never returns activity messages', async () => {
    expect(ids(await search(deps, ADMIN, ACME, 'messages', { q: 'marked resolved' }), 'messages')).toEqual([]);
    expect(ids(await search(deps, ADMIN, ACME, 'messages', { q: 'self-assigned' }), 'messages')).toEqual([]);
  });

  it('shows bot replies with an agent_bot sender', async () => {
    const found = await search(deps, ADMIN, ACME, 'messages', { q: 'assistant agent shortly' });
    expect(found.payload.messages!.length).toBeGreaterThan(0);
    for (const m of found.payload.messages!) expect(m.sender).toEqual({ id: 1, type: 'agent_bot', name: null });
  });

  it('pages through a common word with has_more', async () => {
    const page1 = await search(deps, ADMIN, ACME, 'messages', { q: 'refund' });
    const page2 = await search(deps, ADMIN, ACME, 'messages', { q: 'refund', page: 2 });
    expect(page1.payload.messages).toHaveLength(15);
    expect(page1.meta.has_more.messages).toBe(true);
    const times = [...page1.payload.messages!, ...page2.payload.messages!].map((m) => m.created_at!);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    for (const m of page1.payload.messages!) expect(m.content).toMatch(/\brefund/i);
  });

  it('refuses a since older than 90 days (422)', async () => {
    await expect(search(deps, ADMIN, ACME, 'messages', { q: 'hopper', since: NOW - 91 * DAY })).rejects.toMatchObject({
      code: 'window_exceeded',
    });
  });

  it('is disabled for Globex, which lacks advanced_search (403)', async () => {
    await expect(search(deps, GLOBEX_ADMIN, GLOBEX, 'messages', { q: 'desk' })).rejects.toMatchObject({
      code: 'feature_disabled',
      message: 'Message search is not enabled for this account',
    });
  });
});

describe('articles on the demo', () => {
  it('ranks title matches first and returns the help center fields', async () => {
    const found = await search(deps, ADMIN, ACME, 'articles', { q: 'reset password' });
    envelopeSchemas.articles.parse({ payload: found.payload });
    expect(found.payload.articles![0]).toMatchObject({
      title: 'How to reset your password',
      slug: 'how-to-reset-your-password',
      portal_slug: 'acme-help',
      category_name: 'Account & Security',
      status: 'published',
      locale: 'en',
      snippet: expect.stringMatching(/password/i),
    });
  });

  it('finds drafts, archived and translated articles too', async () => {
    const title = async (q: string) =>
      (await search(deps, ADMIN, ACME, 'articles', { q })).payload.articles!.map((a) => [a.title, a.status, a.locale]);
    expect(await title('passwort')).toEqual([['Passwort zurücksetzen', 'published', 'de']]);
    expect(await title('holiday')).toEqual([['Holiday shipping deadlines', 'archived', 'en']]);
    expect(await title('reembolso')).toEqual([['Cómo solicitar un reembolso', 'draft', 'es']]);
  });

  it('shows no articles to an account without a help center', async () => {
    expect(await search(deps, GLOBEX_ADMIN, GLOBEX, 'articles', { q: 'password' })).toMatchObject({ payload: { articles: [] } });
  });
});

describe('search all on the demo', () => {
  it('returns the four kinds together for Acme', async () => {
    const found = await search(deps, ADMIN, ACME, 'all', { q: 'bennett' });
    envelopeSchemas.all.parse({ payload: found.payload });
    expect(ids(found, 'contacts')).toEqual([1]);
    expect(found.payload.conversations!.map((c) => c.meta.sender?.name)).toEqual(['Olivia Bennett']);
    // Her messages are older than the 90-day window.
    expect(found.payload.messages).toEqual([]);
  });

  it('gives Globex an empty message list instead of an error', async () => {
    const found = await search(deps, GLOBEX_ADMIN, GLOBEX, 'all', { q: 'bennett' });
    expect(ids(found, 'contacts')).toEqual([4]);
    expect(ids(found, 'conversations')).toHaveLength(1);
    expect(found.payload.messages).toEqual([]);
    expect(found.payload.articles).toEqual([]);
  });
});

describe('callers on the demo', () => {
  it("refuses the AgentBot's token and unknown tokens", async () => {
    await expect(search(deps, 'demo-bot-token', ACME, 'contacts', { q: 'a' })).rejects.toMatchObject({ code: 'bot_token' });
    await expect(search(deps, 'not-a-demo-token', ACME, 'contacts', { q: 'a' })).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('refuses an account the user is not a member of', async () => {
    await expect(search(deps, TOM, GLOBEX, 'contacts', { q: 'a' })).rejects.toMatchObject({ code: 'not_account_member' });
  });

  it('runs many searches at once on the single PGlite connection, with the same results as one by one', async () => {
    const calls = [ADMIN, TOM, LENA].flatMap((token) =>
      (['contacts', 'conversations', 'messages', 'articles', 'all'] as const).map(
        (op) => () => search(deps, token, ACME, op, { q: 'or' }),
      ),
    );
    const oneByOne = [];
    for (const call of calls) oneByOne.push(await call());
    expect(oneByOne.filter((r) => Object.values(r.payload).some((rows) => rows.length > 0))).toHaveLength(calls.length);
    expect(await Promise.all(calls.map((call) => call()))).toEqual(oneByOne);
  });
});
