/** One real Postgres database per test file, cloned from the schema template. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createSearchIndexes } from '../../src/db/admin.js';
import type { Db, SqlQuery } from '../../src/db/db.js';
import { createPgDb } from '../../src/db/pg.js';
import { createLogger } from '../../src/logger.js';

export interface TestDatabase {
  url: string;
  /** The read-only search pool searchdesk itself would use. */
  db: Db;
  /** A writable connection for fixtures. */
  admin: pg.Pool;
  /** Creates searchdesk's own indexes (`searchdesk db indexes`) on a writable pool of its own. */
  createSearchIndexes(): Promise<void>;
  drop(): Promise<void>;
}

export const silentLogger = createLogger('silent');

/**
 * `db` with statistics of messages of a table of a million messages whose sampled contents are
 * `hist` (the histogram's bounds): by default none with a word, so that every word is one the
 * statistics never saw (estimateShare 0). Other statements go to `db`.
 */
export function blindStatistics(db: Db, hist: readonly string[] = ['-']): Db {
  return {
    ...db,
    query: <R extends object>(q: SqlQuery, label?: string) =>
      label?.startsWith('statistics')
        ? Promise.resolve([
            { attname: 'content', null_frac: 0, mcv: null, mcf: null, hist, n_distinct: -1, table_rows: 1e6 },
          ] as R[])
        : db.query<R>(q, label),
  };
}

/**
 * A pool on `url` as searchdesk opens one: read-only search sessions with a statement timeout, or
 * (`writable`) an admin command's, with none.
 */
export function openDb(url: string, opts: { writable?: boolean; poolSize?: number } = {}): Db {
  const writable = opts.writable === true;
  return createPgDb({
    url,
    readOnly: !writable,
    statementTimeoutMs: writable ? 0 : 10_000,
    poolSize: opts.poolSize ?? 1,
    logger: silentLogger,
  });
}

/**
 * A new login role (a random name and password) that may connect to `t`'s database and use its
 * schema, and nothing more: the URL that logs in as it, or undefined when the server does not let
 * the tests create roles. Drop it with dropTestRole.
 */
export async function createTestRole(t: TestDatabase, prefix: string): Promise<{ role: string; url: string } | undefined> {
  const role = `${prefix}_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(9).toString('hex');
  try {
    await t.admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
  } catch {
    return undefined; // a test server without CREATEROLE
  }
  const url = new URL(t.url);
  await t.admin.query(`GRANT CONNECT ON DATABASE ${url.pathname.slice(1)} TO ${role}`);
  await t.admin.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
  url.username = role;
  url.password = password;
  return { role, url: url.toString() };
}

/**
 * Drops a login role a test created on `t`'s database: its privileges there (on the database too)
 * go first, then the role itself, which is cluster-wide.
 */
export async function dropTestRole(t: TestDatabase, role: string): Promise<void> {
  await t.admin.query(`DROP OWNED BY ${role}`);
  const server = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await server.connect();
  try {
    await server.query(`DROP ROLE IF EXISTS ${role}`);
  } finally {
    await server.end();
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('pgAdminUrl');
  const name = `sd_test_${randomBytes(6).toString('hex')}`;
  const server = new pg.Client({ connectionString: adminUrl });
  await server.connect();
  await server.query(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')}`);
  await server.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const admin = new pg.Pool({ connectionString: url.toString(), max: 2 });
  // DROP DATABASE … WITH (FORCE) at teardown may end a client the pool is still closing.
  admin.on('error', () => undefined);
  const db = openDb(url.toString(), { poolSize: 4 });
  return {
    url: url.toString(),
    db,
    admin,
    async createSearchIndexes() {
      const writable = openDb(url.toString(), { writable: true });
      try {
        await createSearchIndexes(writable, silentLogger);
      } finally {
        await writable.close();
      }
    },
    async drop() {
      await db.close();
      await admin.end();
      const s = new pg.Client({ connectionString: adminUrl });
      await s.connect();
      await s.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await s.end();
    },
  };
}
