/** The indexer against real Postgres and Elasticsearch / OpenSearch: build, sync, reconcile, resume, swap. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createElasticsearchStore } from '../src/indexer/elasticsearch.js';
import { createOpenSearchStore } from '../src/indexer/opensearch.js';
import { buildIndex, runIndex, type IndexerDeps } from '../src/indexer/indexer.js';
import { silentProgress } from '../src/indexer/progress.js';
import { currentWatermark } from '../src/indexer/source.js';
import { INDEX_FORMAT_VERSION, type IndexStore } from '../src/indexer/store.js';
import { connectElasticsearch, createElasticsearchClient } from '../src/search/messages/elasticsearch.js';
import type { MessageEngine } from '../src/search/messages/engine.js';
import { connectOpenSearch, createOpenSearchClient } from '../src/search/messages/opensearch.js';
import { createSearchdeskEngine } from '../src/search/messages/searchdesk.js';
import { createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';
import { esUrl, hasEs } from './helpers/es.js';
import { Fixture } from './helpers/fixtures.js';
import { memoryLogger } from './helpers/log.js';
import { hasOs, osUrl } from './helpers/opensearch.js';
import { makeDeps, search } from './helpers/core.js';

const bump = "updated_at = now() AT TIME ZONE 'UTC'";

/** A search engine the indexer writes to, opened: its store, a plain-index creator and a search engine. */
interface OpenBackend {
  store: IndexStore;
  /** Searchable segments of `index`, over its shards. */
  segments: (index: string) => Promise<number>;
  createPlainIndex: (name: string) => Promise<unknown>;
  engine: (index: string) => MessageEngine;
  close: () => Promise<void>;
}

/** The searchable segments among `_cat/segments` rows. */
const searchable = (rows: unknown) =>
  (rows as Array<{ searchable?: unknown }>).filter((r) => String(r.searchable) === 'true').length;

interface Backend {
  name: 'elasticsearch' | 'opensearch';
  skip: boolean;
  open: () => OpenBackend;
}

const backends: Backend[] = [
  {
    name: 'elasticsearch',
    skip: !hasEs,
    open: () => {
      const client = createElasticsearchClient(esUrl, 30_000);
      return {
        store: createElasticsearchStore(client),
        segments: async (index) => searchable(await client.cat.segments({ index, format: 'json' })),
        createPlainIndex: (index) => client.indices.create({ index }),
        engine: (index) => createSearchdeskEngine(connectElasticsearch(esUrl, 10_000), index),
        close: () => client.close(),
      };
    },
  },
  {
    name: 'opensearch',
    skip: !hasOs,
    open: () => {
      const client = createOpenSearchClient(osUrl, 30_000);
      return {
        store: createOpenSearchStore(client),
        segments: async (index) => searchable((await client.cat.segments({ index, format: 'json' })).body),
        createPlainIndex: (index) => client.indices.create({ index }),
        engine: (index) => createSearchdeskEngine(connectOpenSearch(osUrl, 10_000), index),
        close: () => client.close(),
      };
    },
  },
];

describe.each(backends)('indexer ($name)', ({ name, skip, open }) => {
  let t: TestDatabase;
  let fx: Fixture;
  let store: IndexStore;
  let deps: IndexerDeps;
  let token: string;
  let account: number;
  let conv: number;
  let backend: OpenBackend;
  const alias = `sd_idx_${randomBytes(5).toString('hex')}`;

  async function searchableCount(): Promise<number> {
    const r = await fx.sql('SELECT count(*)::int AS n FROM messages WHERE message_type IN (0, 1)');
    return r.rows[0].n as number;
  }

  beforeAll(async () => {
    if (skip) return;
    backend = open();
    t = await createTestDatabase();
    fx = new Fixture(t.admin);
    account = await fx.account({ advancedSearch: true });
    const user = await fx.user();
    await fx.member(account, user, 'administrator');
    token = await fx.token(user);
    conv = await fx.conversation(account, await fx.inbox(account));
    for (let i = 0; i < 45; i++) await fx.message(conv, { content: `indexed message ${i} alpha`, message_type: i % 2 });
    await fx.message(conv, { content: 'alpha activity never indexed', message_type: 2 });
    await fx.message(conv, { content: 'alpha template never indexed', message_type: 3 });
    store = backend.store;
    deps = { db: t.db, store, alias, logger: silentLogger, progress: silentProgress, batchSize: 10 };
  });

  afterAll(async () => {
    if (skip) return;
    for (const index of await store.listIndices(`${alias}_`)) await store.deleteIndex(index);
    await backend.close();
    await t.drop();
  });

  const searchIds = async (q: string) => {
    const engine = backend.engine(alias);
    try {
      const r = await search(makeDeps(t.db, { primary: engine }), token, account, 'messages', { q });
      expect(r.meta.engine).toBe(name);
      return r.payload.messages?.map((m) => m.id) ?? [];
    } finally {
      await engine.close();
    }
  };

  it.skipIf(skip)('builds the index behind an alias with exactly the searchable messages', async () => {
    const r = await runIndex(deps);
    expect(r.indexed).toBe(45);
    expect(r.docsPerSecond).toBeGreaterThan(0);
    const target = await store.resolveAlias(alias);
    expect(target).toEqual({ kind: 'alias', indices: [r.index] });
    expect(await store.count(alias)).toBe(await searchableCount());
    expect(await searchIds('never')).toEqual([]);
  });

  it.skipIf(skip)('changes nothing when run again', async () => {
    const r = await runIndex(deps);
    expect({ indexed: r.indexed, deleted: r.deleted }).toEqual({ indexed: 0, deleted: 0 });
  });

  it.skipIf(skip)('picks up new, edited, re-typed and deleted messages', async () => {
    const fresh = await fx.message(conv, { content: 'brandnew message', created_at: Math.floor(Date.now() / 1000) });
    // As the help desk does: updated_at is the time of the write.
    await fx.sql(`UPDATE messages SET ${bump} WHERE id = $1`, [fresh]);
    const [edited, retyped, deleted] = (
      await fx.sql(`SELECT id FROM messages WHERE message_type IN (0,1) ORDER BY id LIMIT 3`)
    ).rows.map((r) => Number(r.id));
    await fx.sql(`UPDATE messages SET content = 'rewritten words', ${bump} WHERE id = $1`, [edited]);
    await fx.sql(`UPDATE messages SET message_type = 2, ${bump} WHERE id = $1`, [retyped]);
    await fx.sql('DELETE FROM messages WHERE id = $1', [deleted]);
    const r = await runIndex(deps);
    expect(r.indexed).toBe(2);
    expect(r.deleted).toBe(2);
    expect(await store.count(alias)).toBe(await searchableCount());
    expect(await searchIds('brandnew')).toEqual([fresh]);
    expect(await searchIds('rewritten')).toEqual([edited]);
    const second = await runIndex(deps);
    expect({ indexed: second.indexed, deleted: second.deleted }).toEqual({ indexed: 0, deleted: 0 });
  });

  it.skipIf(skip)('resumes an interrupted build after its last copied id', async () => {
    const ids = (await fx.sql('SELECT id FROM messages WHERE message_type IN (0,1) ORDER BY id')).rows.map((r) => Number(r.id));
    const cut = ids[20]!;
    const interrupted = `${alias}_00000000000000001`;
    await store.createIndex(interrupted, {
      format: 'searchdesk',
      version: INDEX_FORMAT_VERSION,
      state: 'building',
      lastId: cut,
      watermark: await currentWatermark(t.db),
    });
    const r = await buildIndex(deps);
    expect(r.index).toBe(interrupted);
    expect(await store.count(alias)).toBe(ids.filter((id) => id > cut).length);
    await buildIndex(deps); // a full rebuild restores everything
    expect(await store.count(alias)).toBe(ids.length);
  });

  it.skipIf(skip)('rebuilds an index of an earlier format version instead of syncing it', async () => {
    const built = (await runIndex(deps)).index;
    const meta = (await store.getMeta(built))!;
    await store.putMeta(built, { ...meta, version: INDEX_FORMAT_VERSION - 1 });
    const stale = `${alias}_00000000000000000`;
    await store.createIndex(stale, { ...meta, version: INDEX_FORMAT_VERSION - 1, state: 'building', lastId: 0 });
    const r = await runIndex(deps);
    expect(r.index).not.toBe(built);
    expect(r.index).not.toBe(stale);
    expect(await store.resolveAlias(alias)).toEqual({ kind: 'alias', indices: [r.index] });
    expect((await store.getMeta(r.index))?.version).toBe(INDEX_FORMAT_VERSION);
    // Neither the old index nor one half built by the earlier version is left behind.
    expect(await store.listIndices(`${alias}_`)).toEqual([r.index]);
    expect(await store.count(alias)).toBe(await searchableCount());
  });

  it.skipIf(skip)('keeps search answering while a rebuild swaps the alias', async () => {
    const before = await store.resolveAlias(alias);
    let stop = false;
    const answers: number[] = [];
    const searching = (async () => {
      while (!stop) answers.push((await searchIds('alpha')).length);
    })();
    const r = await runIndex(deps, { rebuild: true });
    stop = true;
    await searching;
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((n) => n === 15)).toBe(true);
    expect(await store.resolveAlias(alias)).toEqual({ kind: 'alias', indices: [r.index] });
    expect(before.kind === 'alias' && before.indices).not.toContain(r.index);
    expect(await store.listIndices(`${alias}_`)).toEqual([r.index]);
  });

  it.skipIf(skip)('merges a rebuilt index into one segment before searches see it', async () => {
    // Each batch made searchable on its own: one segment per batch, as a long build leaves dozens.
    const perBatch: IndexStore = { ...store, bulk: (index, docs, ids) => store.bulk(index, docs, ids, true) };
    const r = await runIndex({ ...deps, store: perBatch }, { rebuild: true });
    expect(await backend.segments(r.index)).toBe(1);
    expect(await searchIds('alpha')).toHaveLength(15);
  });

  it.skipIf(skip)('swaps in a rebuilt index whose merge failed, and says so', async () => {
    const log = memoryLogger('info');
    const failing: IndexStore = { ...store, forceMerge: () => Promise.reject(new Error('merge refused')) };
    const r = await runIndex({ ...deps, store: failing, logger: log.logger }, { rebuild: true });
    expect(await store.resolveAlias(alias)).toEqual({ kind: 'alias', indices: [r.index] });
    expect(await searchIds('alpha')).toHaveLength(15);
    expect(log.lines()).toContainEqual(expect.objectContaining({ event: 'index_merge_failed', index: r.index, level: 40 }));
  });

  it.skipIf(skip)('refuses to manage an alias name that is a plain index', async () => {
    const plain = `${alias}plain`;
    await backend.createPlainIndex(plain);
    await expect(runIndex({ ...deps, alias: plain })).rejects.toThrow(/is an index, not an alias/);
    await store.deleteIndex(plain);
  });
});
