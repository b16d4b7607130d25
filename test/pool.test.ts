import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { readFileSync } from 'node:fs';
import { createPgDb, PG_IDLE_TIMEOUT_MS, PreparedStatements } from '../src/db/pg.js';
import type { Db } from '../src/db/db.js';
import { createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';
import { memoryLogger } from './helpers/log.js';

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
});

afterAll(async () => {
  await t.drop();
});

describe('Postgres connections', () => {
  it('keep an idle connection for minutes, so a search after a pause reuses its warm backend', async () => {
    // Only the pool's timers are faked: the connection's own I/O runs for real.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const db = createPgDb({ url: t.url, readOnly: true, statementTimeoutMs: 5_000, poolSize: 2, logger: silentLogger });
    try {
      const backend = async () =>
        (await db.query<{ pid: number }>({ text: 'SELECT pg_backend_pid() AS pid', values: [] }, 'backend'))[0]?.pid;
      const first = await backend();
      expect(first).toBeGreaterThan(0);
      // Five minutes without a search (an assistant between two questions): the same backend.
      vi.advanceTimersByTime(5 * 60_000);
      expect(db.poolStats?.().total).toBe(1);
      expect(await backend()).toBe(first);
      // Past the idle timeout the connection is closed, and the next search opens another.
      vi.advanceTimersByTime(PG_IDLE_TIMEOUT_MS + 1);
      expect(db.poolStats?.().total).toBe(0);
      expect(await backend()).not.toBe(first);
    } finally {
      vi.useRealTimers();
      await db.close();
    }
  });
});

/** One connection, so that every statement below runs on the same backend. */
const onePool = (preparedStatements?: boolean, logger = silentLogger): Db =>
  createPgDb({ url: t.url, readOnly: true, statementTimeoutMs: 5_000, poolSize: 1, logger, preparedStatements });

const SEARCH = { text: 'SELECT id, name FROM contacts WHERE account_id = $1 AND name ILIKE $2 ORDER BY id', values: [1, '%a%'] };

/** The backend's prepared statements of SEARCH's text, with how each was planned (Postgres 14+). */
async function preparedSearch(db: Db) {
  return db.query<{ generic_plans: number; custom_plans: number }>(
    {
      text: 'SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE statement = $1',
      values: [SEARCH.text],
    },
    'test',
  );
}

describe('Prepared statements', () => {
  it('are parsed once per connection and still planned for their values on every run', async () => {
    const db = onePool();
    try {
      const first = await db.query(SEARCH, 'test');
      // Past the five runs after which Postgres would otherwise consider a generic plan.
      for (let i = 0; i < 7; i++) expect(await db.query(SEARCH, 'test')).toEqual(first);
      expect(await preparedSearch(db)).toEqual([{ generic_plans: 0, custom_plans: 8 }]);
    } finally {
      await db.close();
    }
  });

  it('whose plan cannot change (planOnce) are planned once per connection, the others still for their values', async () => {
    const db = onePool();
    // Two connections at most, one in each pool.
    expect(db.poolStats?.().max).toBe(2);
    const once = { text: SEARCH.text.replace('ORDER BY id', 'ORDER BY id DESC'), values: SEARCH.values, planOnce: true };
    const planned = (q: { planOnce?: boolean }) =>
      db.query<{ generic_plans: number; custom_plans: number }>(
        {
          text: 'SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE statement = $1',
          values: [once.text],
          ...q,
        },
        'test',
      );
    try {
      const first = await db.query(once, 'test');
      for (let i = 0; i < 7; i++) expect(await db.query(once, 'test')).toEqual(first);
      // Its connection planned it once and ran that plan eight times.
      expect(await planned({ planOnce: true })).toEqual([{ generic_plans: 8, custom_plans: 0 }]);
      // A statement planned per run, on the same Db in between, is still planned for its values.
      for (let i = 0; i < 7; i++) await db.query(SEARCH, 'test');
      expect(await preparedSearch(db)).toEqual([{ generic_plans: 0, custom_plans: 7 }]);
      // And the two pools are apart: the per-run pool's connection never prepared the other one.
      expect(await planned({})).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('are planned for their values on every run when they cannot be prepared, planOnce or not', async () => {
    const mode = { text: "SELECT current_setting('plan_cache_mode') AS mode, $1::int AS n", values: [1], planOnce: true };
    for (const [prepared, expected] of [
      [true, 'force_generic_plan'],
      [false, 'force_custom_plan'],
    ] as const) {
      const db = onePool(prepared);
      try {
        expect(await db.query(mode, 'test')).toEqual([{ mode: expected, n: 1 }]);
        expect(await db.query({ ...mode, planOnce: false }, 'test')).toEqual([{ mode: 'force_custom_plan', n: 1 }]);
        expect(db.poolStats?.().max).toBe(prepared ? 2 : 1);
      } finally {
        await db.close();
      }
    }
  });

  it('hold no more statement texts than their limit: past it a new text runs unprepared', async () => {
    const pool = new pg.Pool({ connectionString: t.url, max: 1 });
    const prepared = new PreparedStatements(true, silentLogger, 2);
    try {
      for (const n of [1, 2, 3, 4, 1, 4])
        expect((await prepared.query<{ n: number }>(pool, { text: `SELECT $1::int + ${n} AS n`, values: [1] })).rows).toEqual([
          { n: n + 1 },
        ]);
      const names = await pool.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements ORDER BY statement');
      expect(names.rows.map((r) => r.statement)).toEqual(['SELECT $1::int + 1 AS n', 'SELECT $1::int + 2 AS n']);
    } finally {
      await pool.end();
    }
  });

  it('hold only a few texts that name an account: past them, the same statement for any account runs', async () => {
    const pool = new pg.Pool({ connectionString: t.url, max: 1 });
    const prepared = new PreparedStatements(true, silentLogger, 4, 2);
    const general = { text: 'SELECT $1::int + $2::int AS n', values: [1] };
    const run = async (text: string, account?: number) =>
      (
        await prepared.query<{ n: number }>(pool, {
          text,
          values: [1],
          ...(account !== undefined && { anyAccount: () => ({ ...general, values: [1, account] }) }),
        })
      ).rows;
    try {
      // Three accounts' texts: the third account's runs as the general statement, with the same answer.
      for (const account of [7, 8, 9, 7])
        expect(await run(`SELECT $1::int + ${account} AS n`, account)).toEqual([{ n: account + 1 }]);
      expect(await run('SELECT $1::int AS n')).toEqual([{ n: 1 }]);
      const names = await pool.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements ORDER BY statement');
      expect(names.rows.map((r) => r.statement)).toEqual([
        'SELECT $1::int + $2::int AS n',
        'SELECT $1::int + 7 AS n',
        'SELECT $1::int + 8 AS n',
        'SELECT $1::int AS n',
      ]);
    } finally {
      await pool.end();
    }
  });

  it('can be turned off (SEARCHDESK_PG_PREPARED_STATEMENTS=off): nothing is left on the server', async () => {
    const db = onePool(false);
    try {
      await db.query(SEARCH, 'test');
      await db.query(SEARCH, 'test');
      expect(await preparedSearch(db)).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('survive a migration that changes a column the statement returns', async () => {
    await t.admin.query('CREATE TABLE prepared_probe (id int PRIMARY KEY, label varchar(20))');
    await t.admin.query("INSERT INTO prepared_probe VALUES (1, 'before')");
    const db = onePool();
    const probe = { text: 'SELECT id, label FROM prepared_probe WHERE id = $1', values: [1] };
    try {
      expect(await db.query(probe, 'test')).toEqual([{ id: 1, label: 'before' }]);
      await t.admin.query('ALTER TABLE prepared_probe ALTER COLUMN label TYPE text');
      await t.admin.query("UPDATE prepared_probe SET label = 'after'");
      // Postgres refuses the old prepared statement on that connection ("cached plan must not
      // change result type"); the search answers anyway, and keeps answering.
      expect(await db.query(probe, 'test')).toEqual([{ id: 1, label: 'after' }]);
      expect(await db.query(probe, 'test')).toEqual([{ id: 1, label: 'after' }]);
    } finally {
      await db.close();
      await t.admin.query('DROP TABLE prepared_probe');
    }
  });

  it('are given up, with one warning, when the server loses them between calls (a pooler moving sessions)', async () => {
    const log = memoryLogger('warn');
    const db = onePool(true, log.logger);
    try {
      const first = await db.query(SEARCH, 'test');
      // What a transaction-mode pooler does to a session's prepared statements: they are gone.
      await db.query({ text: 'DEALLOCATE ALL', values: [] }, 'test');
      expect(await db.query(SEARCH, 'test')).toEqual(first);
      expect(await db.query(SEARCH, 'test')).toEqual(first);
      expect(await preparedSearch(db)).toEqual([]);
      const warnings = log.lines().filter((l) => l.event === 'pg_prepared_statements_off');
      expect(warnings).toHaveLength(1);
      expect(String(warnings[0]?.msg)).toContain('SEARCHDESK_PG_PREPARED_STATEMENTS=off');
    } finally {
      await db.close();
    }
  });
});

/**
 * A statement that allocates about 2 MB (an in-memory sort of 20,000 texts), as a search's bitmap
 * of trigram candidates or its sort does.
 */
const SORT = 'SELECT count(*)::int AS n FROM (SELECT md5(i::text) FROM generate_series(1, 20000) i ORDER BY 1) s';

/** The minor page faults of a backend so far, from /proc (undefined when Postgres is not on this machine, or not readable). */
function backendFaults(pid: number): number | undefined {
  try {
    // /proc/<pid>/stat: the fields after the command's closing parenthesis; minflt is the 8th.
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[7]);
  } catch {
    return undefined;
  }
}

/** Page faults of SORT per run on a backend, after one run to settle; undefined when they cannot be read. */
async function faultsPerRun(run: () => Promise<unknown>, pid: number, runs = 6): Promise<number | undefined> {
  await run();
  const before = backendFaults(pid);
  for (let i = 0; i < runs; i++) await run();
  const after = backendFaults(pid);
  return before === undefined || after === undefined ? undefined : (after - before) / runs;
}

describe('Postgres connections, memory', () => {
  it("keep their statements' memory: a backend does not fault it in afresh on every statement", async (ctx) => {
    // A plain connection, as a backend starts: glibc gives each large block back when it is
    // freed, and the next statement faults it in again.
    const plain = new pg.Client({ connectionString: t.url });
    await plain.connect();
    const db = onePool();
    try {
      const plainPid = (await plain.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const cold = await faultsPerRun(() => plain.query(SORT), plainPid);
      if (cold === undefined || cold < 100) {
        console.warn(
          cold === undefined
            ? "SKIPPED: the Postgres backend's /proc is not readable here (Postgres on another machine, or another user)"
            : `SKIPPED: this Postgres backend keeps its memory without a warm-up (${cold} page faults a run: not glibc, or its thresholds are set)`,
        );
        ctx.skip();
      }
      const query = () => db.query({ text: SORT, values: [] }, 'test');
      expect(await query()).toEqual([{ n: 20_000 }]);
      const [backend] = await db.query<{ pid: number }>({ text: 'SELECT pg_backend_pid() AS pid', values: [] }, 'test');
      const warm = await faultsPerRun(query, backend!.pid);
      // Hundreds of faults a run on the plain backend (above), next to none on searchdesk's.
      expect(warm).toBeLessThan(20);
    } finally {
      await plain.end();
      await db.close();
    }
  });
});
