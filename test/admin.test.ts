import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearchIndexes, SEARCHDESK_INDEXES, setupSchema } from '../src/db/admin.js';
import { INDEX, INDEX_CATALOG_TTL_MS, searchdeskIndexes } from '../src/db/catalog.js';
import { createPgDb } from '../src/db/pg.js';
import type { Db } from '../src/db/db.js';
import { createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';

let t: TestDatabase;
let writable: Db;

beforeAll(async () => {
  t = await createTestDatabase();
  writable = createPgDb({ url: t.url, readOnly: false, statementTimeoutMs: 0, poolSize: 1, logger: silentLogger });
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
    expect(first.map((r) => r.action)).toEqual(SEARCHDESK_INDEXES.map(() => 'created'));
    const second = await createSearchIndexes(writable, silentLogger);
    expect(second.every((r) => r.action === 'exists')).toBe(true);
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
