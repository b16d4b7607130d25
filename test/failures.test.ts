import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDb } from '../src/db/pg.js';
import { connectElasticsearch } from '../src/search/messages/elasticsearch.js';
import { createSearchdeskEngine } from '../src/search/messages/searchdesk.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { makeDeps, search } from './helpers/core.js';
import { memoryLogger } from './helpers/log.js';

let t: TestDatabase;
let token: string;
let account: number;
let msg: number;
let silent: Server;
let silentPort: number;

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  account = await fx.account({ advancedSearch: true });
  const user = await fx.user();
  await fx.member(account, user, 'administrator');
  token = await fx.token(user);
  const conv = await fx.conversation(account, await fx.inbox(account));
  msg = await fx.message(conv, { content: 'fallback works' });
  // A server that accepts connections and never answers: a hung search engine.
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
});

afterAll(async () => {
  silent.close();
  await t.drop();
});

describe('Elasticsearch failures (contract §8)', () => {
  it('answers from Postgres when Elasticsearch is unreachable, and logs a warning', async () => {
    const log = memoryLogger('warn');
    const primary = createSearchdeskEngine(connectElasticsearch('http://127.0.0.1:1', 500), 'x');
    const deps = { ...makeDeps(t.db, { primary }), logger: log.logger };
    const r = await search(deps, token, account, 'messages', { q: 'fallback' });
    expect(r.payload.messages?.map((m) => m.id)).toEqual([msg]);
    expect(r.meta.engine).toBe('postgres-fallback');
    expect(log.lines().some((l) => l.event === 'engine_fallback' && l.level === 40)).toBe(true);
    expect(log.text()).not.toContain(token);
  });

  it('bounds a hung Elasticsearch by its timeout, then falls back', async () => {
    const primary = createSearchdeskEngine(connectElasticsearch(`http://127.0.0.1:${silentPort}`, 300), 'x');
    const deps = makeDeps(t.db, { primary });
    const started = Date.now();
    const r = await search(deps, token, account, 'all', { q: 'fallback' });
    expect(r.meta.engine).toBe('postgres-fallback');
    expect(r.payload.messages?.map((m) => m.id)).toEqual([msg]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('Postgres failures (contract §8)', () => {
  it('turns an unreachable Postgres into "Search backend unavailable" without SQL or secrets', async () => {
    const log = memoryLogger('debug');
    const db = createPgDb({
      url: 'postgres://u:secretpw@127.0.0.1:1/x',
      readOnly: true,
      statementTimeoutMs: 1000,
      poolSize: 1,
      logger: log.logger,
    });
    const err = await search(makeDeps(db), token, account, 'contacts', { q: 'x' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'backend_unavailable', message: 'Search backend unavailable' });
    expect(log.text()).not.toContain('secretpw');
    expect(log.text()).not.toMatch(/SELECT/i);
    await db.close();
  });

  it('turns a refused login or a missing database into "Search backend unavailable"', async () => {
    const url = new URL(t.url);
    for (const broken of [
      `postgres://no_such_role@${url.host}${url.pathname}`,
      `postgres://postgres@${url.host}/no_such_database`,
    ]) {
      const db = createPgDb({
        url: broken,
        readOnly: true,
        statementTimeoutMs: 1000,
        poolSize: 1,
        logger: memoryLogger().logger,
      });
      await expect(db.ping()).rejects.toMatchObject({ code: 'backend_unavailable', message: 'Search backend unavailable' });
      await db.close();
    }
  });

  it('turns a statement timeout into its own "took too long" error, never an outage, and keeps the pool usable', async () => {
    const log = memoryLogger();
    const db = createPgDb({ url: t.url, readOnly: true, statementTimeoutMs: 100, poolSize: 1, logger: log.logger });
    const err = await db.query({ text: 'SELECT pg_sleep(1)', values: [] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'query_timeout' });
    expect((err as Error).message).toMatch(/took too long.*longer or more specific q.*since\/until.*inbox_id/);
    expect((err as Error).message).not.toMatch(/unavailable/i);
    expect(log.lines().some((l) => l.event === 'db_timeout' && l.code === '57014')).toBe(true);
    expect(log.lines().some((l) => l.event === 'db_unavailable')).toBe(false);
    await expect(db.query<{ one: number }>({ text: 'SELECT 1 AS one', values: [] })).resolves.toEqual([{ one: 1 }]);
    await db.close();
  });

  it('runs search sessions read-only', async () => {
    await expect(t.db.query({ text: "INSERT INTO accounts (name) VALUES ('x')", values: [] })).rejects.toMatchObject({
      code: 'internal',
    });
    const rows = await t.db.query<{ default_transaction_read_only: string }>({
      text: 'SHOW default_transaction_read_only',
      values: [],
    });
    expect(rows[0]?.default_transaction_read_only).toBe('on');
  });

  it('never compiles a statement with JIT (compiling one costs more than searchdesk statements run)', async () => {
    const rows = await t.db.query<{ jit: string }>({ text: 'SHOW jit', values: [] });
    expect(rows[0]?.jit).toBe('off');
  });
});
