/**
 * The notices as the model reads them (contract §10, issue 52): each one on the MCP surface where
 * it applies — in `structuredContent.meta.notices` and in the text block, which is the same JSON,
 * since hosts pass the model one or the other — and absent when its condition is false. Through
 * the real HTTP server (/mcp, SDK client, api_access_token) on Postgres, and on Elasticsearch for
 * the word checks. The context budget holds with `meta` and its notices included.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetNotice } from '../src/mcp/result.js';
import { inboxIgnoredNotice, MESSAGES_NOT_SEARCHED, WINDOW_NOTICE } from '../src/search/messages/notices.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { createTestIndex, esUrl, hasEs, type TestIndex } from './helpers/es.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { buildNoticesWorld } from './helpers/notices-world.js';
import { startHttp, type HttpProcess } from './helpers/http.js';
import { cliEnv, connectHttpMcp } from './helpers/spawn.js';

const NOW = Math.floor(Date.now() / 1000);
/**
 * The budget of the server that shows budget cuts: small enough to cut two long messages, large
 * enough for what is never cut (ids, times, meta): a transcript of two messages is 1,150
 * characters with every text at "…", and rows are never dropped.
 */
const SMALL_BUDGET = 2_000;
const LONG_TEXT = `longtext ${'lorem ipsum '.repeat(300)}`;

let t: TestDatabase;
let esIndex: TestIndex | undefined;
const servers: HttpProcess[] = [];
const clients: Client[] = [];
const f = {} as { account: number; noFlag: number; admin: string; agent: string; web: number; secret: number };

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  const world = await buildNoticesWorld(fx, NOW);
  Object.assign(f, world);
  const long = await fx.conversation(f.account, f.web, { display_id: 3 });
  await fx.message(long, { content: LONG_TEXT, created_at: NOW - 5 * DAY });
  await fx.message(long, { content: `${LONG_TEXT} again`, created_at: NOW - 5 * DAY + 60 });
  if (hasEs) esIndex = await createTestIndex(t.db);
});

afterAll(async () => {
  for (const client of clients) await client.close();
  for (const server of servers) await server.stop();
  await esIndex?.drop();
  await t.drop();
});

/** An HTTP server of `env` (beyond the database) and an MCP client on it for each token. */
async function serve(env: Record<string, string>): Promise<{ admin: Client; agent: Client }> {
  const server = await startHttp(
    cliEnv({ DATABASE_URL: t.url, SEARCHDESK_ACCOUNT_ID: String(f.account), LOG_LEVEL: 'warn', ...env }),
  );
  servers.push(server);
  const admin = await connectHttpMcp(server.url, { api_access_token: f.admin });
  const agent = await connectHttpMcp(server.url, { api_access_token: f.agent });
  clients.push(admin, agent);
  return { admin, agent };
}

interface Meta {
  page?: number;
  next: Record<string, unknown> | null;
  truncated: boolean;
  engine?: string;
  notices: string[];
}

interface Seen {
  meta: Meta;
  notices: string[];
  payload: Record<string, unknown[]>;
  /** The text block, as hosts that read `content` pass it. */
  text: string;
}

/**
 * Calls a tool and returns what the model sees: `structuredContent` (as Claude Code passes it),
 * checked to be the same JSON as the text block, so a notice in one is in the other.
 */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Seen> {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, `${name} ${JSON.stringify(args)}: ${JSON.stringify(r.content)}`).toBeFalsy();
  expect(r.content).toHaveLength(1);
  const text = (r.content[0] as { text: string }).text;
  const structured = r.structuredContent as { meta: Meta; payload: Record<string, unknown[]> };
  expect(JSON.parse(text)).toEqual(structured);
  for (const notice of structured.meta.notices) expect(text).toContain(JSON.stringify(notice));
  return { meta: structured.meta, notices: structured.meta.notices, payload: structured.payload, text };
}

describe('notices on Postgres', () => {
  let pg: { admin: Client; agent: Client };
  beforeAll(async () => {
    pg = await serve({});
  });

  it('says an inbox_id the agent may not access was ignored, and not for one it may', async () => {
    const ignored = await call(pg.agent, 'search_messages', { q: 'damaged', inbox_id: f.secret });
    expect(ignored.payload.messages).toHaveLength(1);
    expect(ignored.notices).toEqual([inboxIgnoredNotice(f.secret), WINDOW_NOTICE]);
    expect(ignored.notices[0]).toMatch(/inbox_id was ignored and every inbox you can access was searched instead/);
    const kept = await call(pg.agent, 'search_messages', { q: 'damaged', inbox_id: f.web });
    expect(kept.notices).toEqual([WINDOW_NOTICE]);
    // An administrator may access every inbox: the filter holds, nothing to say but the window.
    const admin = await call(pg.admin, 'search_messages', { q: 'parcels', inbox_id: f.secret });
    expect(admin.payload.messages).toHaveLength(1);
    expect(admin.notices).toEqual([WINDOW_NOTICE]);
  });

  it('says search_all did not search messages where message search is off, and not where it is on', async () => {
    const off = await call(pg.admin, 'search_all', { q: 'wobble', account_id: f.noFlag });
    expect(off.payload.messages).toEqual([]);
    expect(off.notices).toEqual([MESSAGES_NOT_SEARCHED]);
    const on = await call(pg.admin, 'search_all', { q: 'wobble', account_id: f.account });
    expect(on.notices).not.toContain(MESSAGES_NOT_SEARCHED);
    expect(on.notices).toEqual([WINDOW_NOTICE]);
  });

  it('says only 90 days were searched for a short page without since, not with since or a full page', async () => {
    const old = await call(pg.admin, 'search_messages', { q: 'wobble' });
    expect(old.payload.messages).toEqual([]);
    expect(old.notices).toEqual([WINDOW_NOTICE]);
    expect(WINDOW_NOTICE).toMatch(/last 90 days/);
    const short = await call(pg.admin, 'search_messages', { q: 'damaged' });
    expect(short.notices).toEqual([WINDOW_NOTICE]);
    const since = await call(pg.admin, 'search_messages', {
      q: 'wobble',
      since: new Date((NOW - 30 * DAY) * 1000).toISOString(),
    });
    expect(since.notices).toEqual([]);
    const full = await call(pg.admin, 'search_messages', { q: 'bulkword' });
    expect(full.notices).not.toContain(WINDOW_NOTICE);
  });

  it('says there is a next page and gives its arguments, and on the last page says neither', async () => {
    const first = await call(pg.admin, 'search_messages', { q: 'bulkword' });
    expect(first.payload.messages).toHaveLength(15);
    expect(first.meta).toMatchObject({ page: 1, next: { q: 'bulkword', page: 2 }, truncated: false, engine: 'postgres' });
    expect(first.notices).toEqual(['More messages: call again with page=2 (meta.next).']);
    const last = await call(pg.admin, 'search_messages', first.meta.next!);
    expect(last.payload.messages).toHaveLength(5);
    expect(last.meta).toMatchObject({ page: 2, next: null });
    expect(last.notices.some((n) => n.includes('page='))).toBe(false);
  });

  it('says which shorter form of an article word matches, and nothing when the word matches', async () => {
    const plural = await call(pg.admin, 'search_articles', { q: 'refunds' });
    expect(plural.notices).toEqual([
      '`refunds` finds nothing; `refund` matches — words must start a word of the text, so try the shorter form.',
    ]);
    expect((await call(pg.admin, 'search_articles', { q: 'refund' })).notices).toEqual([]);
  });

  it('says nothing of a budget cut when the result fits', async () => {
    const whole = await call(pg.admin, 'search_messages', { q: 'longtext' });
    expect(whole.meta.truncated).toBe(false);
    expect(whole.notices).toEqual([WINDOW_NOTICE]);
    expect(whole.text).toContain(LONG_TEXT);
  });
});

/** The word checks of an empty search, on each engine that answers search_messages. */
const engines = [
  { name: 'postgres', skip: false, env: (): Record<string, string> => ({}) },
  {
    name: 'elasticsearch',
    skip: !hasEs,
    env: (): Record<string, string> => ({ ELASTICSEARCH_URL: esUrl, ELASTICSEARCH_INDEX: esIndex!.index }),
  },
];

describe.each(engines)('word checks of an empty search on $name', ({ name, skip, env }) => {
  let on: { admin: Client; agent: Client };
  beforeAll(async () => {
    if (!skip) on = await serve(env());
  });

  it.skipIf(skip)('says which words of an empty multi-word search match alone, and nothing when it finds one', async () => {
    const agent = await call(on.agent, 'search_messages', { q: 'damaged parcel' });
    expect(agent.meta.engine).toBe(name);
    expect(agent.payload.messages).toEqual([]);
    expect(agent.notices).toEqual([
      'No message has every word; `damaged` alone matches, `parcel` does not: drop the words that do not match.',
      WINDOW_NOTICE,
    ]);
    const admin = await call(on.admin, 'search_messages', { q: 'damaged parcel' });
    expect(admin.notices).toEqual([
      'No message has every word, though `damaged` and `parcel` each match alone: search fewer words at once.',
      WINDOW_NOTICE,
    ]);
    const found = await call(on.admin, 'search_messages', { q: 'box damaged' });
    expect(found.payload.messages).toHaveLength(1);
    expect(found.notices).toEqual([WINDOW_NOTICE]);
  });

  it.skipIf(skip)('says which shorter form of a word matches, and nothing when the word matches', async () => {
    const plural = await call(on.admin, 'search_messages', { q: 'refunds' });
    expect(plural.meta.engine).toBe(name);
    expect(plural.payload.messages).toEqual([]);
    expect(plural.notices).toEqual([
      '`refunds` finds nothing; `refund` matches — words must start a word of the text, so try the shorter form.',
      WINDOW_NOTICE,
    ]);
    const word = await call(on.admin, 'search_messages', { q: 'refund' });
    expect(word.payload.messages).toHaveLength(1);
    expect(word.notices).toEqual([WINDOW_NOTICE]);
  });

  it.skipIf(skip)('checks no word past page 1 or in a window the caller chose that holds nothing', async () => {
    expect((await call(on.admin, 'search_messages', { q: 'refunds', page: 2 })).notices).toEqual([WINDOW_NOTICE]);
    const since = new Date((NOW - DAY) * 1000).toISOString();
    expect((await call(on.admin, 'search_messages', { q: 'refunds', since })).notices).toEqual([]);
  });
});

describe('the context budget, meta included', () => {
  let small: { admin: Client; agent: Client };
  beforeAll(async () => {
    small = await serve({ SEARCHDESK_MAX_RESULT_CHARS: String(SMALL_BUDGET) });
  });

  it('says which texts a budget cut shortened and how to read them whole', async () => {
    const cut = await call(small.admin, 'search_messages', { q: 'longtext' });
    expect(cut.meta.truncated).toBe(true);
    expect(cut.text.length).toBeLessThanOrEqual(SMALL_BUDGET);
    expect(cut.notices).toEqual([WINDOW_NOTICE, budgetNotice('search_messages', ['content'], 2)]);
    expect(cut.notices[1]).toMatch(/^2 long texts were shortened .*get_conversation/);
    const transcript = await call(small.admin, 'get_conversation', { display_id: 3 });
    expect(transcript.meta.truncated).toBe(true);
    expect(transcript.text.length).toBeLessThanOrEqual(SMALL_BUDGET);
    // Two messages, the last one shown twice (also in the conversation's record): two texts.
    expect(transcript.notices).toEqual([budgetNotice('get_conversation', ['content'], 2)]);
  });

  it('holds with every notice in meta, and cuts nothing when the result fits', async () => {
    const calls: Array<[Client, string, Record<string, unknown>]> = [
      [small.agent, 'search_messages', { q: 'damaged parcel', inbox_id: f.secret }],
      [small.admin, 'search_messages', { q: 'refunds' }],
      [small.admin, 'search_all', { q: 'wobble', account_id: f.noFlag }],
      [small.admin, 'search_articles', { q: 'refunds' }],
      [small.admin, 'search_messages', { q: 'longtext damaged' }],
    ];
    for (const [client, name, args] of calls) {
      const seen = await call(client, name, args);
      expect(seen.text.length, name).toBeLessThanOrEqual(SMALL_BUDGET);
      expect(seen.meta.truncated, name).toBe(false);
      expect(
        seen.notices.some((n) => n.includes('result budget')),
        name,
      ).toBe(false);
    }
  });
});
