/**
 * The notices of the search core (contract §10): each shows when its condition holds and not
 * otherwise, driven through handle() as both surfaces drive it, and the word checks of an empty
 * search are bounded: one statement (or request) per word at most, five words at most, none when
 * the page has a message. Postgres always; Elasticsearch and OpenSearch when configured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, SqlQuery } from '../src/db/db.js';
import type { SearchClient } from '../src/search/messages/client.js';
import type { MessageEngine } from '../src/search/messages/engine.js';
import {
  connectElasticsearch,
  createElasticsearchClient,
  elasticsearchSearchClient,
} from '../src/search/messages/elasticsearch.js';
import { inboxIgnoredNotice, MESSAGES_NOT_SEARCHED, WINDOW_NOTICE } from '../src/search/messages/notices.js';
import { createOpenSearchClient, openSearchSearchClient } from '../src/search/messages/opensearch.js';
import { createPostgresEngine } from '../src/search/messages/postgres.js';
import { createSearchdeskEngine } from '../src/search/messages/searchdesk.js';
import { createSearchkickEngine } from '../src/search/messages/searchkick.js';
import { connectOpenSearch } from '../src/search/messages/opensearch.js';
import { parseParams } from '../src/search/params.js';
import { handle } from '../src/search/pipeline.js';
import { makeDeps, search } from './helpers/core.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { createTestIndex, esUrl, hasEs, type TestIndex } from './helpers/es.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { buildNoticesWorld } from './helpers/notices-world.js';
import { createOpenSearchTestIndex, hasOs, osUrl } from './helpers/opensearch.js';
import { createHelpdeskIndex, type HelpdeskIndex } from './helpers/searchkick.js';
import { startHttp } from './helpers/http.js';
import { cliEnv, restSearch } from './helpers/spawn.js';

const NOW = Math.floor(Date.now() / 1000);
const clock = () => NOW * 1000;

let t: TestDatabase;
let esIndex: TestIndex | undefined;
let osIndex: TestIndex | undefined;
const f = {} as { account: number; noFlag: number; admin: string; agent: string; web: number; secret: number };

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  const world = await buildNoticesWorld(fx, NOW);
  Object.assign(f, world);
  await fx.article(f.account, world.portal, { title: 'Delivery times', content: 'Tracking every shipment' });
  if (hasEs) esIndex = await createTestIndex(t.db);
  if (hasOs) osIndex = await createOpenSearchTestIndex(t.db);
});

afterAll(async () => {
  await esIndex?.drop();
  await osIndex?.drop();
  await t.drop();
});

/** `db` counting its statements, by label. */
function countingDb(db: Db): { db: Db; counts: Map<string, number>; total: () => number } {
  const counts = new Map<string, number>();
  return {
    db: {
      ...db,
      query: <R extends object>(q: SqlQuery, label?: string) => {
        counts.set(label ?? '', (counts.get(label ?? '') ?? 0) + 1);
        return db.query<R>(q, label);
      },
    },
    counts,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
  };
}

/** `client` counting its search requests. */
function countingClient(client: SearchClient): { client: SearchClient; searches: () => number } {
  let n = 0;
  return {
    client: {
      ...client,
      search: (index, body) => {
        n++;
        return client.search(index, body);
      },
    },
    searches: () => n,
  };
}

const notices = async (token: string, op: 'messages' | 'all', raw: Record<string, unknown>, account = f.account) =>
  (await search(makeDeps(t.db, { now: clock }), token, account, op, raw)).meta.notices;

describe('notices that need no check', () => {
  it('says an inaccessible inbox_id was ignored and what was searched instead', async () => {
    const r = await search(makeDeps(t.db, { now: clock }), f.agent, f.account, 'messages', { q: 'damaged', inbox_id: f.secret });
    expect(r.payload.messages).toHaveLength(1);
    expect(r.meta.notices).toContain(inboxIgnoredNotice(f.secret));
    expect(inboxIgnoredNotice(f.secret)).toMatch(/every inbox you can access was searched/);
    expect(await notices(f.agent, 'messages', { q: 'damaged', inbox_id: f.web })).not.toContain(inboxIgnoredNotice(f.web));
    expect(await notices(f.agent, 'messages', { q: 'damaged' })).toEqual([WINDOW_NOTICE]);
  });

  it('says search_all did not search messages, and why, only where message search is off', async () => {
    const off = await search(makeDeps(t.db, { now: clock }), f.admin, f.noFlag, 'all', { q: 'wobble' });
    expect(off.payload.messages).toEqual([]);
    expect(off.meta.notices).toEqual([MESSAGES_NOT_SEARCHED]);
    expect(MESSAGES_NOT_SEARCHED).toMatch(/not enabled for this account/);
    expect(await notices(f.admin, 'all', { q: 'wobble' })).not.toContain(MESSAGES_NOT_SEARCHED);
  });

  it('says only 90 days were searched when since is omitted and the page is short or empty', async () => {
    expect(await notices(f.admin, 'messages', { q: 'wobble' })).toEqual([WINDOW_NOTICE]);
    expect(await notices(f.admin, 'messages', { q: 'damaged' })).toEqual([WINDOW_NOTICE]);
    expect(await notices(f.admin, 'all', { q: 'wobble' })).toEqual([WINDOW_NOTICE]);
    // A full page, or a window the caller chose: nothing to say.
    expect(await notices(f.admin, 'messages', { q: 'bulkword' })).toEqual([]);
    expect(await notices(f.admin, 'messages', { q: 'bulkword', page: 2 })).toEqual([WINDOW_NOTICE]);
    expect(await notices(f.admin, 'messages', { q: 'wobble', since: NOW - 30 * DAY })).toEqual([]);
    expect(await notices(f.admin, 'all', { q: 'bulkword' })).toEqual([]);
  });

  it('gives every other operation an empty list', async () => {
    const deps = makeDeps(t.db, { now: clock });
    for (const op of ['contacts', 'conversations'] as const)
      expect((await search(deps, f.admin, f.account, op, { q: 'nothing-here' })).meta.notices).toEqual([]);
  });
});

const engines: Array<{ name: string; skip: boolean; make: () => { engine?: MessageEngine; searches?: () => number } }> = [
  { name: 'postgres', skip: false, make: () => ({}) },
  {
    name: 'elasticsearch',
    skip: !hasEs,
    make: () => {
      const c = countingClient(elasticsearchSearchClient(createElasticsearchClient(esUrl, 10_000)));
      return { engine: createSearchdeskEngine(c.client, esIndex!.index), searches: c.searches };
    },
  },
  {
    name: 'opensearch',
    skip: !hasOs,
    make: () => {
      const c = countingClient(openSearchSearchClient(createOpenSearchClient(osUrl, 10_000)));
      return { engine: createSearchdeskEngine(c.client, osIndex!.index), searches: c.searches };
    },
  },
];

describe.each(engines)('word checks of an empty search on $name', ({ name, skip, make }) => {
  /** One search on a fresh counting seam: its notices, its statements and (search engines) its requests. */
  const run = async (token: string, raw: Record<string, unknown>, checks = true) => {
    const counting = countingDb(t.db);
    const made = make();
    const { searches } = made;
    // Without its checks: the same engine, its firstMatch left out.
    const engine = checks ? made.engine : { ...(made.engine ?? createPostgresEngine(counting.db)), firstMatch: undefined };
    const deps = makeDeps(counting.db, { now: clock, primary: engine });
    const r = await search(deps, token, f.account, 'messages', raw);
    await engine?.close();
    expect(r.meta.engine).toBe(name);
    return {
      notices: r.meta.notices,
      rows: r.payload.messages?.length ?? 0,
      checks: counting.counts.get('search_messages_pg_first_match') ?? 0,
      statements: counting.total(),
      requests: searches?.() ?? 0,
    };
  };
  /** Word checks of one search: statements on Postgres, requests beyond the page's one on a search engine. */
  const checksOf = (r: { checks: number; requests: number }) => (name === 'postgres' ? r.checks : r.requests - 1);

  it.skipIf(skip)('says which words match alone, with one check per word and the caller’s access', async () => {
    const agent = await run(f.agent, { q: 'damaged parcel' });
    expect(agent.rows).toBe(0);
    expect(agent.notices).toEqual([
      'No message has every word; `damaged` alone matches, `parcel` does not: drop the words that do not match.',
      WINDOW_NOTICE,
    ]);
    expect(checksOf(agent)).toBe(2);
    const admin = await run(f.admin, { q: 'damaged parcel' });
    expect(admin.notices[0]).toBe(
      'No message has every word, though `damaged` and `parcel` each match alone: search fewer words at once.',
    );
    const none = await run(f.admin, { q: 'zyzzyva quokka' });
    expect(none.notices[0]).toBe('No message has any of the words `zyzzyva` and `quokka`, even alone.');
  });

  it.skipIf(skip)('says which shorter form matches, in the same one check per word', async () => {
    const one = await run(f.admin, { q: 'refunds' });
    expect(one.notices).toEqual([
      '`refunds` finds nothing; `refund` matches — words must start a word of the text, so try the shorter form.',
      WINDOW_NOTICE,
    ]);
    expect(checksOf(one)).toBe(1);
    // Two letters off at most: `refundings` is three letters from `refund`.
    expect((await run(f.admin, { q: 'refundings' })).notices).toEqual([WINDOW_NOTICE]);
    // Never below four letters: `boxes` has one shorter form, `boxe`, which finds nothing (`box` would be three).
    expect((await run(f.admin, { q: 'boxes' })).notices).toEqual([WINDOW_NOTICE]);
    const several = await run(f.agent, { q: 'damaged refunds' });
    expect(several.notices).toEqual([
      'No message has every word; `damaged` alone matches, `refunds` does not: drop the words that do not match.',
      '`refunds` finds nothing; `refund` matches — words must start a word of the text, so try the shorter form.',
      WINDOW_NOTICE,
    ]);
    expect(checksOf(several)).toBe(2);
  });

  it.skipIf(skip)('checks under every filter of the search: sender, window, account', async () => {
    const nobody = await run(f.admin, { q: 'damaged parcel', from: 'contact:999999' });
    expect(nobody.notices[0]).toBe('No message has any of the words `damaged` and `parcel`, even alone.');
    // `wobble` is in a message older than the window and in another account's.
    const old = await run(f.admin, { q: 'damaged wobble' });
    expect(old.notices[0]).toBe(
      'No message has every word; `damaged` alone matches, `wobble` does not: drop the words that do not match.',
    );
    const since = await run(f.admin, { q: 'damaged wobble', since: NOW - DAY });
    expect(since.notices).toEqual(['No message has any of the words `damaged` and `wobble`, even alone.']);
  });

  it.skipIf(skip)('checks at most five words', async () => {
    const r = await run(f.admin, { q: 'damaged aaaa bbbb cccc dddd eeee ffff' });
    expect(r.notices[0]).toMatch(/\(the first 5 words were checked\)/);
    expect(checksOf(r)).toBe(5);
  });

  it.skipIf(skip)('adds no statement or request when the page has a message, or past page 1', async () => {
    const found = await run(f.admin, { q: 'refund' });
    expect(found.rows).toBe(1);
    expect(found.notices).toEqual([WINDOW_NOTICE]);
    expect(checksOf(found)).toBe(0);
    const past = await run(f.admin, { q: 'damaged parcel', page: 2 });
    expect(checksOf(past)).toBe(0);
    // The whole cost of the notices of an empty two-word search: two statements (or requests).
    const checked = await run(f.agent, { q: 'damaged parcel' });
    const unchecked = await run(f.agent, { q: 'damaged parcel' }, false);
    expect(unchecked.notices).toEqual([WINDOW_NOTICE]);
    expect(checked.statements + checked.requests - (unchecked.statements + unchecked.requests)).toBe(2);
  });
});

describe.skipIf(!hasOs)("word checks on the help desk's index (searchkick format, OpenSearch)", () => {
  let hd: HelpdeskIndex;
  beforeAll(async () => {
    hd = await createHelpdeskIndex(t.db, { url: osUrl, client: 'opensearch' });
    await hd.feed();
  });
  afterAll(() => hd?.drop());

  const run = async (token: string, raw: Record<string, unknown>) => {
    const counted = countingClient(connectOpenSearch(osUrl, 10_000));
    const engine = createSearchkickEngine(counted.client, hd.alias);
    const r = await search(makeDeps(t.db, { now: clock, primary: engine }), token, f.account, 'messages', raw);
    await engine.close();
    expect(r.meta.engine).toBe('opensearch+searchkick');
    return { notices: r.meta.notices, rows: r.payload.messages?.length ?? 0, requests: counted.searches() };
  };

  it('says which words match alone, as the help desk matches them, one request per word', async () => {
    const agent = await run(f.agent, { q: 'damaged parcel' });
    expect(agent.rows).toBe(0);
    expect(agent.notices).toEqual([
      'No message has every word; `damaged` alone matches, `parcel` does not: drop the words that do not match.',
      WINDOW_NOTICE,
    ]);
    expect(agent.requests).toBe(1 + 2);
  });

  it('offers no shorter form: its stems and typos already find them, so a single word costs no check', async () => {
    // Stemmed, `refunds` finds the refund itself: nothing to say but the window.
    expect(await run(f.admin, { q: 'refunds' })).toEqual({ notices: [WINDOW_NOTICE], rows: 1, requests: 1 });
    expect(await run(f.admin, { q: 'zyzzyvas' })).toEqual({ notices: [WINDOW_NOTICE], rows: 0, requests: 1 });
  });
});

describe('word checks after a fallback', () => {
  it('are asked of Postgres, which answered the search', async () => {
    const counting = countingDb(t.db);
    // A search engine that does not answer (nothing listens on port 9): the search falls back to Postgres.
    const dead = createSearchdeskEngine(connectElasticsearch('http://127.0.0.1:9', 2_000), 'none');
    const r = await search(makeDeps(counting.db, { now: clock, primary: dead }), f.agent, f.account, 'messages', {
      q: 'damaged parcel',
    });
    await dead.close();
    expect(r.meta.engine).toBe('postgres-fallback');
    expect(r.meta.notices[0]).toBe(
      'No message has every word; `damaged` alone matches, `parcel` does not: drop the words that do not match.',
    );
    expect(counting.counts.get('search_messages_pg_first_match')).toBe(2);
  });
});

describe('word checks of an empty article search', () => {
  const run = async (raw: Record<string, unknown>) => {
    const counting = countingDb(t.db);
    const r = await search(makeDeps(counting.db, { now: clock }), f.admin, f.account, 'articles', raw);
    return {
      notices: r.meta.notices,
      rows: r.payload.articles?.length ?? 0,
      checks: counting.counts.get('search_articles_first_match') ?? 0,
    };
  };

  it('says which words match alone and which shorter form matches, one statement per word', async () => {
    // Each word alone is in another article: every word must match in one.
    expect(await run({ q: 'refund tracking' })).toEqual({
      notices: ['No article has every word, though `refund` and `tracking` each match alone: search fewer words at once.'],
      rows: 0,
      checks: 2,
    });
    expect(await run({ q: 'refunds' })).toEqual({
      notices: ['`refunds` finds nothing; `refund` matches — words must start a word of the text, so try the shorter form.'],
      rows: 0,
      checks: 1,
    });
    // Both notices for one word: `shipments` does not match alone, its shorter form does.
    expect(await run({ q: 'shipments policy zzzz' })).toEqual({
      notices: [
        'No article has every word; `policy` alone matches, `shipments` and `zzzz` do not: drop the words that do not match.',
        '`shipments` finds nothing; `shipment` matches — words must start a word of the text, so try the shorter form.',
      ],
      rows: 0,
      checks: 3,
    });
  });

  it('checks nothing when the page has an article or is past page 1', async () => {
    expect(await run({ q: 'refund' })).toEqual({ notices: [], rows: 1, checks: 0 });
    expect(await run({ q: 'refund tracking', page: 2 })).toEqual({ notices: [], rows: 0, checks: 0 });
  });
});

describe('a surface that shows no notices', () => {
  it('spends no statement on them (checks: false, as REST asks)', async () => {
    const counting = countingDb(t.db);
    const request = { token: f.agent, account: f.account, operation: 'messages' as const, checks: false };
    const out = await handle(makeDeps(counting.db, { now: clock }), {
      ...request,
      params: () => parseParams('messages', { q: 'damaged parcel' }),
    });
    expect(out.result?.meta.notices).toEqual([WINDOW_NOTICE]);
    expect(counting.counts.get('search_messages_pg_first_match')).toBeUndefined();
  });
});

describe('REST bodies', () => {
  it('are the payload alone, with no notices, when the core has some to give', async () => {
    const server = await startHttp(cliEnv({ DATABASE_URL: t.url }));
    try {
      const messages = await restSearch(server.url, f.agent, f.account, 'search_messages', {
        q: 'damaged parcel',
        inbox_id: f.secret,
      });
      expect(messages).toEqual({ status: 200, body: { payload: { messages: [] } } });
      const all = await restSearch(server.url, f.admin, f.noFlag, 'search_all', { q: 'wobble' });
      expect(all.status).toBe(200);
      expect(Object.keys(all.body)).toEqual(['payload']);
      expect(JSON.stringify(all.body)).not.toMatch(/notice|not enabled/);
    } finally {
      await server.stop();
    }
  });
});
