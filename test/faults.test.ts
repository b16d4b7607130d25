/**
 * Faults against real servers, no mocks (issue 6, contract §8). The spawned searchdesk talks to
 * Elasticsearch, OpenSearch and Postgres through TCP proxies the test cuts, slows down or stalls,
 * so the shared servers other test files use are never stopped:
 * - a search engine gone mid-run: messages answer through Postgres (`postgres-fallback`) and go
 *   back to the engine once it returns, without a restart;
 * - a slow search engine: each search is bounded by SEARCHDESK_ENGINE_TIMEOUT_MS, then falls back;
 * - Postgres gone mid-run: REST 503, MCP tool error, the server stays up and recovers by itself
 *   (the stdio surface: mcp-stdio.test.ts; Postgres down from the start: http-server.test.ts);
 * - queries past the statement timeout, and a network that hangs without a reset: a clear 503,
 *   and the pool's connections come back (more timeouts than the pool has connections, then
 *   everything answers again).
 */
import type { Client } from '@modelcontextprotocol/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { FaultProxy } from './helpers/fault-proxy.js';
import { createTestIndex, esUrl, hasEs, type TestIndex } from './helpers/es.js';
import { Fixture } from './helpers/fixtures.js';
import { createOpenSearchTestIndex, hasOs, osUrl } from './helpers/opensearch.js';
import { cliEnv, connectHttpMcp, logLines, restSearch } from './helpers/spawn.js';
import { startHttp, type HttpProcess } from './helpers/http.js';
import { asRestBody } from './helpers/mcp-normalise.js';
import { MESSAGES } from '../src/errors.js';

const UNAVAILABLE = 'Search backend unavailable';
const TOOLS = ['search_all', 'search_contacts', 'search_conversations', 'search_messages', 'search_articles'] as const;

let t: TestDatabase;
const f = {} as { account: number; admin: string; contact: number; messages: number[] };
const stoppers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  f.account = await fx.account({ advancedSearch: true });
  const admin = await fx.user();
  await fx.member(f.account, admin, 'administrator');
  f.admin = await fx.token(admin);
  f.contact = await fx.contact(f.account, { name: 'Fiona Fault' });
  const conv = await fx.conversation(f.account, await fx.inbox(f.account), { contact_id: f.contact });
  const now = Math.floor(Date.now() / 1000);
  f.messages = [];
  for (let i = 0; i < 3; i++)
    f.messages.unshift(await fx.message(conv, { content: `fault tolerant ${i}`, created_at: now - 600 + i }));
  await fx.article(f.account, await fx.portal(f.account), { title: 'Fault guide' });
});

afterAll(async () => {
  for (const stop of stoppers.reverse()) await stop();
  await t?.drop();
});

/** Starts a searchdesk HTTP server (stopped after the file) and an MCP client on it. */
async function serve(env: Record<string, string>): Promise<{ server: HttpProcess; client: Client }> {
  const server = await startHttp(cliEnv({ DATABASE_URL: t.url, ...env }));
  stoppers.push(() => server.stop());
  const client = await connectHttpMcp(server.url, { api_access_token: f.admin });
  stoppers.push(() => client.close());
  await client.listTools();
  return { server, client };
}

async function searchMessages(client: Client): Promise<{ ids: number[]; engine: unknown; ms: number }> {
  const started = performance.now();
  const r = await client.callTool({ name: 'search_messages', arguments: { q: 'fault tolerant' } });
  const ms = performance.now() - started;
  expect(r.isError).toBeFalsy();
  const { messages } = (r.structuredContent as { payload: { messages: Array<{ id: number }> } }).payload;
  return { ids: messages.map((m) => m.id), engine: r._meta?.engine, ms };
}

/** Calls until the engine label is `engine` (or gives up), returning how many calls it took. */
async function untilEngine(client: Client, engine: string, tries = 40): Promise<number> {
  for (let i = 1; i <= tries; i++) {
    if ((await searchMessages(client)).engine === engine) return i;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`still not answered by ${engine} after ${tries} calls`);
}

const searchEngines = [
  {
    name: 'elasticsearch',
    skip: !hasEs,
    url: () => esUrl,
    index: (db: TestDatabase['db']) => createTestIndex(db),
    env: (url: string, index: string) => ({ ELASTICSEARCH_URL: url, ELASTICSEARCH_INDEX: index }),
  },
  {
    name: 'opensearch',
    skip: !hasOs,
    url: () => osUrl,
    index: (db: TestDatabase['db']) => createOpenSearchTestIndex(db),
    env: (url: string, index: string) => ({ OPENSEARCH_URL: url, OPENSEARCH_INDEX: index }),
  },
];

describe.each(searchEngines)('$name faults', ({ name, skip, url, index, env }) => {
  let testIndex: TestIndex;
  beforeAll(async () => {
    if (!skip) testIndex = await index(t.db);
  });
  afterAll(() => testIndex?.drop());

  it.skipIf(skip)(`answers through Postgres while ${name} is gone, and through ${name} again once it is back`, async () => {
    const proxy = FaultProxy.for(url());
    await proxy.start();
    stoppers.push(() => proxy.cut());
    const { server, client } = await serve({
      ...env(proxy.proxied(url()), testIndex.index),
      SEARCHDESK_ENGINE_TIMEOUT_MS: '1000',
    });
    const restMessages = () => restSearch(server.url, f.admin, f.account, 'search_messages', { q: 'fault tolerant' });

    expect(await searchMessages(client)).toMatchObject({ ids: f.messages, engine: name });
    const before = await restMessages();

    await proxy.cut();
    for (let i = 0; i < 3; i++)
      expect(await searchMessages(client)).toMatchObject({ ids: f.messages, engine: 'postgres-fallback' });
    const all = await client.callTool({ name: 'search_all', arguments: { q: 'fault' } });
    expect(all._meta).toMatchObject({ engine: 'postgres-fallback' });
    expect((all.structuredContent as { payload: { messages: unknown[] } }).payload.messages).toHaveLength(3);
    expect(await restMessages()).toEqual(before);
    const notReady = await fetch(`${server.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({ status: 'unavailable', checks: { postgres: 'ok', [name]: 'unavailable' } });

    await proxy.restore();
    // Back on the engine at once (its client keeps no dead-node backoff for a single node).
    expect(await untilEngine(client, name)).toBe(1);
    expect(await searchMessages(client)).toMatchObject({ ids: f.messages, engine: name });
    expect(await restMessages()).toEqual(before);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

    const fallbacks = logLines(server.stderr()).filter((l) => l.event === 'engine_fallback');
    expect(fallbacks.length).toBeGreaterThanOrEqual(5);
    expect(fallbacks.every((l) => l.level === 40 && l.engine === name)).toBe(true);
    expect(server.child.exitCode).toBeNull();
  });

  it.skipIf(skip)('bounds a slow engine by SEARCHDESK_ENGINE_TIMEOUT_MS, then answers through Postgres', async () => {
    const proxy = FaultProxy.for(url());
    await proxy.start();
    stoppers.push(() => proxy.close());
    const { client } = await serve({ ...env(proxy.proxied(url()), testIndex.index), SEARCHDESK_ENGINE_TIMEOUT_MS: '300' });
    expect(await searchMessages(client)).toMatchObject({ ids: f.messages, engine: name });

    const DELAY_MS = 5_000;
    proxy.delay(DELAY_MS);
    // Each answer arrives well before the engine would have: timeout (300 ms) + a Postgres query.
    for (let i = 0; i < 4; i++) {
      const r = await searchMessages(client);
      expect(r).toMatchObject({ ids: f.messages, engine: 'postgres-fallback' });
      expect(r.ms).toBeLessThan(DELAY_MS / 2);
    }
    const concurrent = await Promise.all(Array.from({ length: 8 }, () => searchMessages(client)));
    for (const r of concurrent) {
      expect(r).toMatchObject({ ids: f.messages, engine: 'postgres-fallback' });
      expect(r.ms).toBeLessThan(DELAY_MS / 2);
    }

    proxy.pass();
    // Late answers to abandoned requests must not be taken for new ones.
    await untilEngine(client, name);
    for (let i = 0; i < 5; i++) expect(await searchMessages(client)).toMatchObject({ ids: f.messages, engine: name });
  });
});

describe('Postgres faults', () => {
  it('answers 503 and tool errors while Postgres is gone, and recovers without a restart (HTTP)', async () => {
    const proxy = FaultProxy.for(t.url);
    await proxy.start();
    stoppers.push(() => proxy.cut());
    const { server, client } = await serve({ DATABASE_URL: proxy.proxied(t.url) });
    const pid = server.child.pid;
    const contacts = () => restSearch(server.url, f.admin, f.account, 'search_contacts', { q: 'Fiona' });
    const ok = await contacts();
    expect(ok.status).toBe(200);

    await proxy.cut();
    for (const tool of TOOLS) {
      const r = await restSearch(server.url, f.admin, f.account, tool, { q: 'fault' });
      expect(r).toEqual({ status: 503, body: { error: UNAVAILABLE } });
      const viaMcp = await client.callTool({ name: tool, arguments: { q: 'fault' } });
      expect(viaMcp).toEqual({ isError: true, content: [{ type: 'text', text: UNAVAILABLE }] });
    }
    // A token cannot be checked meanwhile: 503, not 401; a missing one is still a 401.
    expect(await restSearch(server.url, 'not-a-token', f.account, 'search_all', { q: 'x' })).toEqual({
      status: 503,
      body: { error: UNAVAILABLE },
    });
    expect((await restSearch(server.url, undefined, f.account, 'search_all', { q: 'x' })).status).toBe(401);
    // A client connecting during the outage gets in, and its tools say what is wrong.
    const late = await connectHttpMcp(server.url, { authorization: `Bearer ${f.admin}` });
    expect(await late.callTool({ name: 'search_contacts', arguments: { q: 'Fiona' } })).toMatchObject({ isError: true });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);

    await proxy.restore();
    expect(await contacts()).toEqual(ok);
    for (const c of [client, late]) {
      const r = await c.callTool({ name: 'search_contacts', arguments: { q: 'Fiona' } });
      expect(asRestBody(r.structuredContent)).toEqual(ok.body);
    }
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    await late.close();
    expect(server.child.pid).toBe(pid);
    expect(server.child.exitCode).toBeNull();
    expect(server.stderr()).not.toMatch(/SELECT|"event":"(http_internal_error|tool_internal_error)"/);
  });

  /** Names this file's timeout server's sessions (the connection string wins over searchdesk's own name). */
  const TIMEOUT_APP = `sd_faults_${process.pid}`;

  /** The timeout server's connections, as Postgres sees them. */
  async function searchdeskSessions(): Promise<Array<{ state: string | null }>> {
    const r = await t.admin.query<{ state: string | null }>('SELECT state FROM pg_stat_activity WHERE application_name = $1', [
      TIMEOUT_APP,
    ]);
    return r.rows;
  }

  it('answers 503 "took too long" (not "unavailable") to queries past the statement timeout, counts them, and gives every connection back to the pool', async () => {
    const POOL = 2;
    const { server, client } = await serve({
      DATABASE_URL: `${t.url}?application_name=${TIMEOUT_APP}`,
      SEARCHDESK_STATEMENT_TIMEOUT_MS: '200',
      SEARCHDESK_PG_POOL_SIZE: String(POOL),
    });
    const contacts = () => restSearch(server.url, f.admin, f.account, 'search_contacts', { q: 'Fiona' });
    const ok = await contacts();
    expect(ok.status).toBe(200);

    // A writer holding the table makes every contact search wait past the statement timeout.
    const locker = new pg.Client({ connectionString: t.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE contacts IN ACCESS EXCLUSIVE MODE');
      const timedOut = await Promise.all(Array.from({ length: 3 * POOL }, contacts));
      for (const r of timedOut) expect(r).toEqual({ status: 503, body: { error: MESSAGES.queryTimeout } });
      const viaMcp = await client.callTool({ name: 'search_contacts', arguments: { q: 'Fiona' } });
      expect(viaMcp).toEqual({ isError: true, content: [{ type: 'text', text: MESSAGES.queryTimeout }] });
      // Searches that do not touch the locked table go on meanwhile.
      expect((await restSearch(server.url, f.admin, f.account, 'search_articles', { q: 'fault' })).status).toBe(200);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }

    // More searches than the pool has connections, concurrently and in a row: all answer.
    for (const r of await Promise.all(Array.from({ length: 3 * POOL }, contacts))) expect(r).toEqual(ok);
    for (let i = 0; i < 3 * POOL; i++) expect(await contacts()).toEqual(ok);
    const sessions = await searchdeskSessions();
    expect(sessions.length).toBeGreaterThan(0);
    // Each of the two pools (planned per run, planned once) keeps at most its size.
    expect(sessions.length).toBeLessThanOrEqual(2 * POOL);
    expect(sessions.every((s) => s.state === 'idle')).toBe(true);
    expect(logLines(server.stderr()).some((l) => l.event === 'db_timeout' && l.code === '57014')).toBe(true);
    expect(logLines(server.stderr()).some((l) => l.event === 'db_unavailable')).toBe(false);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/searchdesk_http_errors_total\{route="[^"]*\/search\/contacts",code="query_timeout"\} [1-9]/);
    expect(metrics).toMatch(/searchdesk_tool_calls_total\{tool="search_contacts",status="query_timeout"\} 1/);
  });

  it('bounds a Postgres that stops answering without a reset, and recovers when it answers again', async () => {
    const POOL = 2;
    const proxy = FaultProxy.for(t.url);
    await proxy.start();
    stoppers.push(() => proxy.close());
    const { server } = await serve({
      DATABASE_URL: proxy.proxied(t.url),
      SEARCHDESK_STATEMENT_TIMEOUT_MS: '200',
      SEARCHDESK_PG_POOL_SIZE: String(POOL),
    });
    const contacts = () => restSearch(server.url, f.admin, f.account, 'search_contacts', { q: 'Fiona' });
    const ok = await contacts();
    expect(ok.status).toBe(200);

    proxy.hold();
    // Held queries hit the client-side bound (statement timeout + 2 s); new connections the 3 s connect timeout.
    const started = performance.now();
    const stalled = await Promise.all(Array.from({ length: 2 * POOL }, contacts));
    for (const r of stalled) expect(r).toEqual({ status: 503, body: { error: UNAVAILABLE } });
    expect(performance.now() - started).toBeLessThan(15_000);

    proxy.pass();
    for (const r of await Promise.all(Array.from({ length: 3 * POOL }, contacts))) expect(r).toEqual(ok);
    expect(server.child.exitCode).toBeNull();
  });
});
