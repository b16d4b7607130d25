/**
 * The benchmark's `--server-role` (bench/perf/role.ts): the role it makes must hold exactly the
 * README's "Production" grants, so that a run with it measures what production runs.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRoleName, ensureReadOnlyRole, README_TABLES, urlAsRole } from '../bench/perf/role.js';
import { INDEX, STATISTICS_FUNCTIONS } from '../src/db/catalog.js';
import { createTestDatabase, dropTestRole, type TestDatabase } from './helpers/db.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe("the benchmark's read-only server role", () => {
  let t: TestDatabase;
  const role = `sd_bench_ro_${randomBytes(4).toString('hex')}`;
  let canCreateRoles = true;
  const may = async (check: string, ...args: string[]) =>
    (
      await t.admin.query<{ ok: boolean }>(`SELECT ${check}($1, ${args.map((_, i) => `$${i + 2}`).join(', ')}) AS ok`, [
        role,
        ...args,
      ])
    ).rows[0]!.ok;

  beforeAll(async () => {
    t = await createTestDatabase();
    try {
      await ensureReadOnlyRole(t.admin, role);
    } catch (err) {
      if (!/permission denied/i.test((err as Error).message)) throw err;
      canCreateRoles = false; // a test server without CREATEROLE
    }
  });

  afterAll(async () => {
    if (canCreateRoles) await dropTestRole(t, role);
    await t.drop();
  });

  it("grants SELECT on the tables of README's Production step 1, and only those", () => {
    const grant = /GRANT SELECT ON ([\s\S]+?) TO searchdesk_ro;/.exec(README)?.[1];
    expect(
      grant
        ?.split(',')
        .map((s) => s.trim())
        .sort(),
    ).toEqual([...README_TABLES].sort());
  });

  it('may connect and read those tables, may write none, and may call the word statistics function once it exists', async (ctx) => {
    if (!canCreateRoles) ctx.skip();
    const db = new URL(t.url).pathname.slice(1);
    expect(await may('has_database_privilege', db, 'CONNECT')).toBe(true);
    expect(await may('has_schema_privilege', 'public', 'USAGE')).toBe(true);
    expect(await may('has_schema_privilege', 'public', 'CREATE')).toBe(false);
    for (const table of README_TABLES) {
      expect(await may('has_table_privilege', table, 'SELECT')).toBe(true);
      for (const write of ['INSERT', 'UPDATE', 'DELETE', 'TRUNCATE'])
        expect(await may('has_table_privilege', table, write), `${write} on ${table}`).toBe(false);
    }
    const fn = `${STATISTICS_FUNCTIONS[INDEX.messagesWords]!}()`;
    // No function before `db indexes`: nothing to grant, and no error.
    expect((await t.admin.query('SELECT to_regprocedure($1) AS f', [fn])).rows[0].f).toBeNull();
    await t.createSearchIndexes();
    expect(await may('has_function_privilege', fn, 'EXECUTE')).toBe(false);
    // The bench runs it again after `db indexes`: the same role, now with step 2's grant.
    await ensureReadOnlyRole(t.admin, role);
    expect(await may('has_function_privilege', fn, 'EXECUTE')).toBe(true);
  });

  it('refuses a role name it would have to quote, and logs in as the role on the same database', () => {
    for (const bad of ['Ro', 'ro; DROP TABLE messages', '1ro', '']) expect(() => checkRoleName(bad)).toThrow(/--server-role/);
    expect(urlAsRole('postgres://postgres:pw@127.0.0.1:5432/sd_bench_m', 'sd_bench_ro')).toBe(
      'postgres://sd_bench_ro:pw@127.0.0.1:5432/sd_bench_m',
    );
  });
});
