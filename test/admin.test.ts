import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearchIndexes, SEARCHDESK_INDEXES, setupSchema } from '../src/db/admin.js';
import { INDEX, INDEX_CATALOG_TTL_MS, searchdeskIndexes, STATISTICS_FUNCTIONS } from '../src/db/catalog.js';
import { createPgDb } from '../src/db/pg.js';
import type { Db } from '../src/db/db.js';
import { memoryLogger } from './helpers/log.js';
import { createTestDatabase, createTestRole, dropTestRole, openDb, silentLogger, type TestDatabase } from './helpers/db.js';

let t: TestDatabase;
let writable: Db;

beforeAll(async () => {
  t = await createTestDatabase();
  writable = openDb(t.url, { writable: true });
});
afterAll(async () => {
  await writable.close();
  await t.drop();
});

describe('admin commands', () => {
  it('db setup is idempotent on an existing schema', async () => {
    await setupSchema(writable);
    await setupSchema(writable);
    const rows = await t.db.query<{ n: number }>({
      text: "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'messages'",
      values: [],
    });
    expect(rows[0]?.n).toBe(1);
  });

  it('db indexes creates every searchdesk_ index, and a second run creates none', async () => {
    const first = await createSearchIndexes(writable, silentLogger);
    const fn = `public.${STATISTICS_FUNCTIONS[INDEX.messagesWords]}()`;
    expect(first).toEqual([
      ...SEARCHDESK_INDEXES.map((i) => ({ name: i.name, action: 'created' })),
      { name: fn, action: 'created' },
    ]);
    const second = await createSearchIndexes(writable, silentLogger);
    expect(second.map((r) => r.action)).toEqual(first.map(() => 'exists'));
    expect(SEARCHDESK_INDEXES.every((i) => i.name.startsWith('searchdesk_'))).toBe(true);
  });

  it('rebuilds an index left invalid by an interrupted run', async () => {
    const name = SEARCHDESK_INDEXES[0]!.name;
    await t.admin.query(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = '${name}'::regclass`);
    const again = await createSearchIndexes(writable, silentLogger);
    expect(again.find((r) => r.name === name)?.action).toBe('created');
    const valid = await t.admin.query(`SELECT indisvalid FROM pg_index WHERE indexrelid = '${name}'::regclass`);
    expect(valid.rows[0].indisvalid).toBe(true);
  });

  it('db indexes replaces a statistics function that is not its own definition, keeping its grants', async () => {
    const fn = `${STATISTICS_FUNCTIONS[INDEX.messagesWords]}()`;
    await t.admin.query(`ALTER FUNCTION ${fn} RESET search_path`);
    await t.admin.query(`GRANT EXECUTE ON FUNCTION ${fn} TO pg_monitor`);
    expect((await createSearchIndexes(writable, silentLogger)).at(-1)).toEqual({ name: `public.${fn}`, action: 'created' });
    const { rows } = await t.admin.query(
      `SELECT p.proconfig AS config, has_function_privilege('pg_monitor', p.oid, 'EXECUTE') AS granted FROM pg_proc p WHERE p.oid = $1::regprocedure`,
      [fn],
    );
    expect(rows).toEqual([{ config: ['search_path=pg_catalog, pg_temp'], granted: true }]);
    await t.admin.query(`REVOKE EXECUTE ON FUNCTION ${fn} FROM pg_monitor`);
  });

  it("db indexes gives the statistics function to the tables' owner, even when a superuser runs it", async (ctx) => {
    const owner = await createTestRole(t, 'sd_owner');
    if (!owner) return ctx.skip();
    const fn = `${STATISTICS_FUNCTIONS[INDEX.messagesWords]}()`;
    const ownerOf = async () =>
      (await t.admin.query(`SELECT pg_get_userbyid(proowner) AS owner FROM pg_proc WHERE oid = $1::regprocedure`, [fn])).rows[0]
        .owner as string;
    try {
      await t.admin.query(`GRANT CREATE ON SCHEMA public TO ${owner.role}`);
      for (const i of SEARCHDESK_INDEXES) await t.admin.query(`ALTER TABLE ${i.table} OWNER TO ${owner.role}`);
      // Replaced: its owner is no longer the one wanted.
      expect((await createSearchIndexes(writable, silentLogger)).at(-1)).toEqual({ name: `public.${fn}`, action: 'created' });
      expect(await ownerOf()).toBe(owner.role);
      expect((await createSearchIndexes(writable, silentLogger)).at(-1)?.action).toBe('exists');
      const { rows } = await t.admin.query(`SELECT has_function_privilege('public', $1, 'EXECUTE') AS public_may`, [fn]);
      expect(rows[0].public_may).toBe(false);
    } finally {
      for (const i of SEARCHDESK_INDEXES) await t.admin.query(`ALTER TABLE ${i.table} OWNER TO CURRENT_USER`);
      await createSearchIndexes(writable, silentLogger);
      await t.admin.query(`REVOKE CREATE ON SCHEMA public FROM ${owner.role}`);
      await dropTestRole(t, owner.role);
    }
    expect(await ownerOf()).toBe((await t.admin.query('SELECT current_user AS me')).rows[0].me);
  });

  it("db indexes skips the statistics function, with a warning, where its role may not create functions in the tables' schema", async (ctx) => {
    const owner = await createTestRole(t, 'sd_owner');
    if (!owner) return ctx.skip();
    const fn = `${STATISTICS_FUNCTIONS[INDEX.messagesWords]}()`;
    const log = memoryLogger('info');
    // The tables' owner, without CREATE on their schema (Postgres 15's default for public; older
    // servers gave it to PUBLIC).
    const publicMayCreate = (await t.admin.query(`SELECT has_schema_privilege('public', 'public', 'CREATE') AS may`)).rows[0].may;
    try {
      if (publicMayCreate) await t.admin.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
      for (const i of SEARCHDESK_INDEXES) await t.admin.query(`ALTER TABLE ${i.table} OWNER TO ${owner.role}`);
      await t.admin.query(`DROP FUNCTION ${fn}`);
      const db = openDb(owner.url, { writable: true });
      try {
        const done = await createSearchIndexes(db, log.logger);
        expect(done.at(-1)).toEqual({ name: `public.${fn}`, action: 'skipped' });
        expect(done.slice(0, -1).every((r) => r.action === 'exists')).toBe(true);
      } finally {
        await db.close();
      }
      expect(log.lines().filter((l) => l.event === 'db_statistics_function_skipped')).toHaveLength(1);
      expect(log.lines().filter((l) => Number(l.level) >= 50)).toEqual([]);
    } finally {
      for (const i of SEARCHDESK_INDEXES) await t.admin.query(`ALTER TABLE ${i.table} OWNER TO CURRENT_USER`);
      if (publicMayCreate) await t.admin.query(`GRANT CREATE ON SCHEMA public TO PUBLIC`);
      await dropTestRole(t, owner.role);
      await createSearchIndexes(writable, silentLogger);
    }
  });

  it('the read-only search pool cannot create indexes', async () => {
    await t.admin.query(`DROP INDEX ${SEARCHDESK_INDEXES[0]!.name}`);
    await expect(createSearchIndexes(t.db, silentLogger)).rejects.toMatchObject({ code: 'internal' });
  });

  it('searches notice searchdesk indexes created or dropped later, within the catalog TTL and not before', async () => {
    const db = createPgDb({ url: t.url, readOnly: true, statementTimeoutMs: 5_000, poolSize: 1, logger: silentLogger });
    try {
      const t0 = 1_000_000;
      await t.admin.query(`DROP INDEX IF EXISTS ${INDEX.conversationsCreated}`);
      expect((await searchdeskIndexes(db, t0)).has(INDEX.conversationsCreated)).toBe(false);
      await createSearchIndexes(writable, silentLogger);
      // Cached: one catalog look-up per TTL, not one per search.
      expect((await searchdeskIndexes(db, t0 + INDEX_CATALOG_TTL_MS - 1)).has(INDEX.conversationsCreated)).toBe(false);
      expect((await searchdeskIndexes(db, t0 + INDEX_CATALOG_TTL_MS)).has(INDEX.conversationsCreated)).toBe(true);
      await t.admin.query(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = '${INDEX.conversationsCreated}'::regclass`);
      expect((await searchdeskIndexes(db, t0 + 2 * INDEX_CATALOG_TTL_MS)).has(INDEX.conversationsCreated)).toBe(false);
    } finally {
      await db.close();
      await createSearchIndexes(writable, silentLogger);
    }
  });
});
