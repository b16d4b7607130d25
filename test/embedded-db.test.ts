/**
 * The embedded database on real PGlite in a temporary directory: first start creates the demo,
 * later starts reuse it; the session is read-only; int8 is a number; one connection, many callers;
 * a locked or damaged directory fails with one clear line.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/db.js';
import { DEMO_VERSION } from '../src/db/demo-data.js';
import { openEmbeddedDb, type EmbeddedDb } from '../src/db/pglite.js';
import { SearchError } from '../src/errors.js';
import { silentLogger } from './helpers/db.js';

const NOW_MS = Date.now();
const root = mkdtempSync(join(tmpdir(), 'searchdesk-embedded-'));
const dataDir = join(root, 'data');
/** A copy of the closed demo database, for the tests that need a directory of their own. */
const pristine = join(root, 'pristine');
let first: EmbeddedDb;
const copyOfDemo = (name: string) => {
  const dir = join(root, name);
  cpSync(pristine, dir, { recursive: true });
  return dir;
};

const COUNTS_SQL = `
  SELECT (SELECT count(*) FROM accounts) AS accounts, (SELECT count(*) FROM contacts) AS contacts,
         (SELECT count(*) FROM conversations) AS conversations, (SELECT count(*) FROM messages) AS messages,
         (SELECT count(*) FROM articles) AS articles, (SELECT max(created_at) FROM messages)::text AS newest`;
const counts = (db: Db) => db.query<Record<string, number | string>>({ text: COUNTS_SQL, values: [] }, 'counts');

beforeAll(async () => {
  const started = performance.now();
  first = await openEmbeddedDb({ dataDir, logger: silentLogger, now: () => NOW_MS });
  console.log(`[embedded] first open with demo creation took ${Math.round(performance.now() - started)} ms`);
}, 180_000);

afterAll(async () => {
  await first.db.close();
  rmSync(root, { recursive: true, force: true });
});

describe('first start', () => {
  it('creates the demo help desk and says so', async () => {
    expect(first.created).toBe(true);
    expect(first.db.kind).toBe('pglite');
    const [row] = await counts(first.db);
    console.log('[embedded] demo rows:', row);
    expect(row).toMatchObject({ accounts: 2, articles: 27 });
    expect(row!.messages).toBeGreaterThan(1300);
    expect(first.demo.users.map((u) => u.token)).toContain('demo-admin-token');
  });

  it('records the demo version and creation time in its own table', async () => {
    const rows = await first.db.query<{ version: number; created: number }>(
      { text: 'SELECT version, floor(extract(epoch FROM created_at))::bigint AS created FROM searchdesk_demo', values: [] },
      'marker',
    );
    expect(rows).toEqual([{ version: DEMO_VERSION, created: Math.floor(NOW_MS / 1000) }]);
  });

  it('returns int8 columns as numbers', async () => {
    const [row] = await first.db.query<Record<string, unknown>>(
      {
        text: `SELECT a.feature_flags, au.id AS account_user_id, m.sender_id, count(*) OVER () AS total
               FROM accounts a JOIN account_users au ON au.account_id = a.id
               JOIN messages m ON m.account_id = a.id AND m.sender_type = 'User'
               WHERE a.id = 1 LIMIT 1`,
        values: [],
      },
      'int8',
    );
    expect(row).toEqual({
      feature_flags: 2 ** 52 + 2 ** 41,
      account_user_id: expect.any(Number),
      sender_id: expect.any(Number),
      total: expect.any(Number),
    });
  });

  it('rejects every write: the session is read-only', async () => {
    const writes = [
      "INSERT INTO accounts (name) VALUES ('Intruder')",
      'UPDATE contacts SET name = NULL',
      'DELETE FROM messages',
      'CREATE TABLE scratch (id int)',
    ];
    for (const text of writes) {
      const err = await first.db.query({ text, values: [] }, 'write').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SearchError);
      expect(err).toMatchObject({ code: 'internal', cause: { code: '25006' } });
    }
    const [row] = await counts(first.db);
    expect(row!.accounts).toBe(2);
  });

  it('answers concurrent queries on its single connection, each with its own rows', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => i + 1);
    const results = await Promise.all([
      ...ids.map((id) => first.db.query<{ id: number }>({ text: 'SELECT id FROM contacts WHERE id = $1', values: [id] }, 'c')),
      first.db.query({ text: 'SELECT no_such_column FROM contacts', values: [] }, 'bad').catch((e: unknown) => e),
      first.db.ping().then(() => 'pong'),
    ]);
    expect(results.slice(0, ids.length)).toEqual(ids.map((id) => [{ id }]));
    expect(results[ids.length]).toMatchObject({ code: 'internal' });
    expect(results[ids.length + 1]).toBe('pong');
  });

  it('keeps SQL text and parameter values out of errors and logs, as pg does', async () => {
    const secret = 'demo-secret-value-1234';
    const err = await first.db
      .query({ text: 'SELECT id FROM access_tokens WHERE token = $1 AND no_such_column', values: [secret] }, 'leak')
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'internal', cause: { code: '42703' } });
    const cause = (err as Error).cause as Record<string, unknown>;
    expect(Object.keys(cause)).not.toEqual(expect.arrayContaining(['params']));
    expect(Object.keys(cause)).not.toEqual(expect.arrayContaining(['query']));
    // What the surfaces log for an internal error: the serialised cause.
    expect(JSON.stringify(pino.stdSerializers.err(cause as unknown as Error))).not.toContain(secret);
  });

  it('refuses a second open of the same directory while it is open', async () => {
    await expect(openEmbeddedDb({ dataDir, logger: silentLogger })).rejects.toThrow(
      /^the embedded database in .* is already open in this process$/,
    );
  });
});

describe('later starts', () => {
  it('reuse the data instead of creating it again', async () => {
    const before = await counts(first.db);
    await first.db.close();
    expect(existsSync(join(dataDir, 'searchdesk.lock'))).toBe(false);
    cpSync(dataDir, pristine, { recursive: true });
    const started = performance.now();
    // A later clock must not move anything: the demo keeps the times of its creation.
    first = await openEmbeddedDb({ dataDir, logger: silentLogger, now: () => NOW_MS + 5 * 86_400_000 });
    console.log(`[embedded] reopen took ${Math.round(performance.now() - started)} ms`);
    expect(first.created).toBe(false);
    expect(await counts(first.db)).toEqual(before);
    await expect(first.db.query({ text: 'DELETE FROM messages', values: [] })).rejects.toMatchObject({ code: 'internal' });
  }, 60_000);

  it('recreate the demo of an older searchdesk, whose schema lacks the triage columns and label tables', async () => {
    const dir = copyOfDemo('older');
    const old = await openEmbeddedDb({ dataDir: dir, logger: silentLogger, now: () => NOW_MS });
    // What a version-1 directory looks like: no labels, tags, taggings, no triage columns.
    for (const text of [
      'SET default_transaction_read_only = off',
      'DROP TABLE labels, tags, taggings',
      'ALTER TABLE conversations DROP COLUMN priority, DROP COLUMN waiting_since, DROP COLUMN custom_attributes',
      'ALTER TABLE portals DROP COLUMN custom_domain',
      'UPDATE searchdesk_demo SET version = 1',
    ])
      await old.db.query({ text, values: [] }, 'downgrade');
    await old.db.close();
    const later = NOW_MS + 86_400_000;
    const upgraded = await openEmbeddedDb({ dataDir: dir, logger: silentLogger, now: () => later });
    try {
      expect(upgraded.created).toBe(true);
      const [row] = await upgraded.db.query<Record<string, number>>(
        {
          text: `SELECT (SELECT version FROM searchdesk_demo) AS version, (SELECT count(*) FROM searchdesk_demo) AS markers,
                        (SELECT count(*) FROM taggings) AS taggings, (SELECT count(*) FROM accounts) AS accounts,
                        (SELECT count(*) FROM conversations WHERE priority IS NOT NULL) AS prioritised`,
          values: [],
        },
        'upgraded',
      );
      expect(row).toMatchObject({ version: DEMO_VERSION, markers: 1, accounts: 2 });
      expect(row!.taggings).toBeGreaterThan(50);
      expect(row!.prioritised).toBeGreaterThan(50);
      expect(await counts(upgraded.db)).toEqual(
        await counts(first.db).then((rows) => rows.map((r) => ({ ...r, newest: expect.any(String) }))),
      );
    } finally {
      await upgraded.db.close();
    }
  }, 60_000);

  it('map a query on a closed database to backend unavailable', async () => {
    const other = await openEmbeddedDb({ dataDir: copyOfDemo('closed'), logger: silentLogger });
    await other.db.close();
    await other.db.close(); // idempotent
    await expect(other.db.ping()).rejects.toMatchObject({ code: 'backend_unavailable', message: 'Search backend unavailable' });
  }, 60_000);
});

describe('a directory it cannot use', () => {
  it('fails with one line when another live process holds the lock', async () => {
    const dir = join(root, 'locked');
    mkdirSync(dir);
    writeFileSync(join(dir, 'searchdesk.lock'), `${process.ppid}\n`);
    const err = (await openEmbeddedDb({ dataDir: dir, logger: silentLogger }).catch((e: unknown) => e)) as Error;
    expect(err.message).toBe(
      `the embedded database in ${dir} is in use by another searchdesk process (pid ${process.ppid}); stop it or set SEARCHDESK_DATA_DIR to another directory`,
    );
    expect(existsSync(join(dir, 'pgdata'))).toBe(false);
  });

  it('takes over a lock left by a process that is gone', async () => {
    const dir = copyOfDemo('stale');
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(join(dir, 'searchdesk.lock'), `${gone}\n`);
    const opened = await openEmbeddedDb({ dataDir: dir, logger: silentLogger });
    expect(opened.created).toBe(false);
    await opened.db.close();
  }, 60_000);

  it('fails with one line naming the directory when the database is damaged, and releases the lock', async () => {
    const dir = copyOfDemo('damaged');
    writeFileSync(join(dir, 'pgdata', 'global', 'pg_control'), 'not a control file');
    const exitCode = process.exitCode;
    const err = (await openEmbeddedDb({ dataDir: dir, logger: silentLogger }).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(
      new RegExp(`^cannot open the embedded database in ${join(dir, 'pgdata')} \\(.+\\); .* delete ${dir} `),
    );
    expect(err.message).not.toContain('\n');
    expect(existsSync(join(dir, 'searchdesk.lock'))).toBe(false);
    expect(process.exitCode).toBe(exitCode);
  }, 60_000);
});
