import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPgDb, PG_IDLE_TIMEOUT_MS } from '../src/db/pg.js';
import { createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';

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
