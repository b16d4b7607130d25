/** The admin commands as an operator runs them: `db setup`, `db indexes`, `index` (build, no-op, follow). */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createElasticsearchStore } from '../src/indexer/elasticsearch.js';
import { createElasticsearchClient } from '../src/search/messages/elasticsearch.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { esUrl, hasEs } from './helpers/es.js';
import { Fixture } from './helpers/fixtures.js';
import { CLI, cliEnv, runCli } from './helpers/spawn.js';

describe('searchdesk db', () => {
  const name = `sd_blank_${randomBytes(5).toString('hex')}`;
  let url: string;
  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(inject('pgAdminUrl'));
    u.pathname = `/${name}`;
    url = u.toString();
  });
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('setup creates the schema in an empty database, and can run again', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['db', 'setup'], cliEnv({ DATABASE_URL: url, LOG_LEVEL: 'warn' }));
      expect(r).toMatchObject({ code: 0, stderr: 'schema ready\n' });
    }
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const tables = await c.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'");
    await c.end();
    expect(tables.rows[0].n).toBe(16); // schema.md: 13 tables, then labels, tags and taggings (issue 48)
  });

  it('indexes creates the searchdesk_ indexes once', async () => {
    const first = await runCli(['db', 'indexes'], cliEnv({ DATABASE_URL: url, LOG_LEVEL: 'warn' }));
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/searchdesk_conversations_account_created: created/);
    const second = await runCli(['db', 'indexes'], cliEnv({ DATABASE_URL: url, LOG_LEVEL: 'warn' }));
    expect(second.stderr).not.toMatch(/: created/);
    expect(second.stderr).toMatch(/: exists/);
  });
});

describe.skipIf(!hasEs)('searchdesk index (Elasticsearch)', () => {
  let t: TestDatabase;
  let fx: Fixture;
  let conv: number;
  const alias = `sd_cli_${randomBytes(5).toString('hex')}`;
  const client = hasEs ? createElasticsearchClient(esUrl, 30_000) : undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await createTestDatabase();
    fx = new Fixture(t.admin);
    const account = await fx.account();
    conv = await fx.conversation(account, await fx.inbox(account));
    for (let i = 0; i < 30; i++) await fx.message(conv, { content: `cli indexed ${i}` });
    env = cliEnv({ DATABASE_URL: t.url, ELASTICSEARCH_URL: esUrl, ELASTICSEARCH_INDEX: alias, LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    if (client) {
      const store = createElasticsearchStore(client);
      for (const index of await store.listIndices(`${alias}_`)) await store.deleteIndex(index);
    }
    await client?.close();
    await t.drop();
  });

  const count = async () => (await client!.count({ index: alias })).count;

  it('builds the index and reports documents per second', async () => {
    const r = await runCli(['index'], env, undefined, 60_000);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`${alias}_\\d{17}: indexed 30, deleted 0 in [\\d.]+ s \\(\\d+ docs/s\\)`));
    expect(await count()).toBe(30);
  });

  it('changes nothing when run again', async () => {
    const r = await runCli(['index'], env, undefined, 60_000);
    expect(r.stderr).toMatch(/indexed 0, deleted 0/);
  });

  it('follows new messages until SIGTERM', async () => {
    const child = spawn(process.execPath, [CLI, 'index', '--follow', '--interval', '1'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await vi.waitFor(() => expect(stderr).toMatch(/indexed 0, deleted 0/), { timeout: 20_000 });
    const id = await fx.message(conv, { content: 'followed message' });
    await fx.sql("UPDATE messages SET updated_at = now() AT TIME ZONE 'UTC' WHERE id = $1", [id]);
    await vi.waitFor(async () => expect(await count()).toBe(31), { timeout: 20_000, interval: 250 });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
