/**
 * The searchkick-format engine through the Elasticsearch client. The stripped test server has no
 * analysis-common module, so the index gets core stand-ins for Searchkick's analyzers: this checks
 * the request, filters, order and index checks with that client, not the help desk's matching
 * (which searchkick-search.test.ts checks on OpenSearch).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchDeps } from '../src/search/core.js';
import type { MessageEngine } from '../src/search/messages/engine.js';
import { connectElasticsearch } from '../src/search/messages/elasticsearch.js';
import { createSearchkickEngine } from '../src/search/messages/searchkick.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { esUrl, hasEs } from './helpers/es.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { makeDeps, search } from './helpers/core.js';
import { createHelpdeskIndex, request, type HelpdeskIndex } from './helpers/searchkick.js';

const NOW = Math.floor(Date.now() / 1000);
const clock = () => NOW * 1000;

let t: TestDatabase;
let hd: HelpdeskIndex;
let engine: MessageEngine;
let deps: SearchDeps;
const m: Record<string, number> = {};
const f = {} as { account: number; admin: string; contact: number; inbox2: number };

describe.skipIf(!hasEs)('searchkick format on Elasticsearch (core analysis)', () => {
  beforeAll(async () => {
    t = await createTestDatabase();
    const fx = new Fixture(t.admin);
    f.account = await fx.account({ advancedSearch: true });
    const other = await fx.account();
    const admin = await fx.user();
    await fx.member(f.account, admin, 'administrator');
    f.admin = await fx.token(admin);
    f.contact = await fx.contact(f.account);
    const c1 = await fx.conversation(f.account, await fx.inbox(f.account), { contact_id: f.contact });
    f.inbox2 = await fx.inbox(f.account);
    const c2 = await fx.conversation(f.account, f.inbox2);
    m.first = await fx.message(c1, {
      content: 'parcel arrived',
      created_at: NOW - DAY,
      sender_type: 'Contact',
      sender_id: f.contact,
    });
    m.second = await fx.message(c2, { content: 'parcel lost', created_at: NOW - 2 * DAY });
    m.typo = await fx.message(c2, { content: 'parcle delayed', created_at: NOW - 3 * DAY });
    for (let i = 0; i < 20; i++) m[`bulk${i}`] = await fx.message(c2, { content: `bulkword ${i}`, created_at: NOW - 10 * DAY });
    m.other = await fx.message(await fx.conversation(other, await fx.inbox(other)), { content: 'parcel elsewhere' });
    hd = await createHelpdeskIndex(t.db, { url: esUrl, client: 'elasticsearch', analysis: 'core' });
    await hd.feed();
    engine = hd.engine();
    deps = makeDeps(t.db, { primary: engine, now: clock });
  });

  afterAll(async () => {
    await engine?.close();
    await hd?.drop();
    await t?.drop();
  });

  const nameOf = (id: number) => Object.keys(m).find((k) => m[k] === id) ?? `#${id}`;
  const find = async (params: Record<string, unknown>) => {
    const r = await search(deps, f.admin, f.account, 'messages', params);
    expect(r.meta.engine).toBe('elasticsearch+searchkick');
    return r.payload.messages?.map((x) => nameOf(x.id));
  };

  it('matches with one typo per word, newest first, in the caller’s account only', async () => {
    expect(await find({ q: 'parcel' })).toEqual(['first', 'second', 'typo']);
  });

  it('applies the inbox, sender and window filters', async () => {
    expect(await find({ q: 'parcel', inbox_id: f.inbox2 })).toEqual(['second', 'typo']);
    expect(await find({ q: 'parcel', from: `contact:${f.contact}` })).toEqual(['first']);
    expect(await find({ q: 'parcel', since: NOW - 2 * DAY, until: NOW - 2 * DAY })).toEqual(['second']);
  });

  it('pages in id order within one created_at', async () => {
    expect(await find({ q: 'bulkword' })).toEqual(Array.from({ length: 15 }, (_, i) => `bulk${19 - i}`));
    expect(await find({ q: 'bulkword', page: 2 })).toEqual(Array.from({ length: 5 }, (_, i) => `bulk${4 - i}`));
  });

  it('checks the index: present, missing, not the help desk’s', async () => {
    await expect(engine.check()).resolves.toBeUndefined();
    const engineOn = (index: string) => createSearchkickEngine(connectElasticsearch(esUrl, 5_000), index);
    const missing = engineOn('messages_sdtest_missing');
    const plainName = `sd_plain_${hd.alias}`;
    await request(esUrl, 'PUT', `/${plainName}`, { mappings: { properties: { content: { type: 'keyword' } } } });
    const plain = engineOn(plainName);
    try {
      await expect(missing.check()).rejects.toThrow(
        'index messages_sdtest_missing not found — is advanced search enabled in the help desk?',
      );
      await expect(plain.check()).rejects.toThrow(
        `index ${plainName} does not look like the help desk's index (no content.analyzed field)`,
      );
    } finally {
      await Promise.all([missing.close(), plain.close()]);
      await request(esUrl, 'DELETE', `/${plainName}`);
    }
  });
});
