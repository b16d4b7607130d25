/** The background start of a database (db/deferred.ts): one attempt at a time, retried after a failure, closed once up. */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Db } from './db.js';
import { deferredDb } from './deferred.js';

const logger = pino({ level: 'silent' });
const SELECT = { text: 'SELECT 1', values: [] };

/** A Db that answers every query with one row and counts its closes. */
function fakeDb(): Db & { closes: number } {
  const db = {
    kind: 'pglite' as const,
    closes: 0,
    query: <R extends object>() => Promise.resolve([{ one: 1 }] as unknown as R[]),
    ping: () => Promise.resolve(),
    close() {
      db.closes++;
      return Promise.resolve();
    },
  };
  return db;
}

describe('deferredDb', () => {
  it('starts once for the queries that wait together, and not before begin or a query', async () => {
    let starts = 0;
    const real = fakeDb();
    const { db, begin } = deferredDb('pglite', () => (starts++, Promise.resolve(real)), logger);
    expect(starts).toBe(0);
    begin();
    const rows = await Promise.all([db.query(SELECT), db.query(SELECT), db.ping()]);
    expect(starts).toBe(1);
    expect(rows[0]).toEqual([{ one: 1 }]);
  });

  it('fails every query with the cause while the start fails, and tries again on each', async () => {
    let starts = 0;
    let fixed = false;
    const start = () => {
      starts++;
      return fixed ? Promise.resolve(fakeDb()) : Promise.reject(new Error("ENOTDIR: not a directory, mkdir '/x/data'\nstack"));
    };
    const { db, begin } = deferredDb('pglite', start, logger);
    begin();
    for (let i = 0; i < 2; i++) {
      await expect(db.query(SELECT)).rejects.toMatchObject({
        code: 'backend_unavailable',
        message:
          "The embedded database could not start: ENOTDIR: not a directory, mkdir '/x/data'. Fix the cause; the next call tries again.",
      });
    }
    // The first query waited for begin's attempt; the second tried again.
    expect(starts).toBe(2);
    fixed = true;
    await expect(db.query(SELECT)).resolves.toEqual([{ one: 1 }]);
    expect(starts).toBe(3);
  });

  it('lets a start under way finish, then closes what it opened', async () => {
    const real = fakeDb();
    let open!: (db: Db) => void;
    const { db, begin } = deferredDb('pglite', () => new Promise<Db>((resolve) => (open = resolve)), logger);
    begin();
    const closing = db.close();
    open(real);
    await closing;
    expect(real.closes).toBe(1);
    await expect(db.query(SELECT)).rejects.toMatchObject({ code: 'backend_unavailable' });
  });
});
