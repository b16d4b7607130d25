/**
 * A database that starts in the background (issue 51: the stdio handshake never waits for the
 * embedded database). The start begins with `begin()` or the first query, whichever comes first;
 * every query waits for it. A failed start makes
 * that query, and every query after it, fail with `backend_unavailable` and a message that names
 * the cause; each of those queries first tries the start again (one attempt at a time, shared by
 * the queries waiting), so fixing the cause (a data directory that can be written, a lock given
 * up) makes the next call work without a restart.
 */
import { SearchError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Db, SqlQuery } from './db.js';

export interface DeferredDb {
  db: Db;
  /** Starts the database now unless it is starting or up; never rejects (a failure is logged and told to queries). */
  begin: () => void;
}

/** The caller-safe message of a start that failed: its first line, and that the next call tries again. */
export function startFailedMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const reason = message.split('\n')[0] ?? message;
  return `The embedded database could not start: ${reason}. Fix the cause; the next call tries again.`;
}

/** Wraps `start` (which opens the real database) as a `Db` whose queries wait for it. */
export function deferredDb(kind: Db['kind'], start: () => Promise<Db>, logger: Logger): DeferredDb {
  let opening: Promise<Db> | undefined;
  let closed = false;

  const open = (): Promise<Db> => {
    opening ??= start().catch((err: unknown) => {
      opening = undefined;
      logger.error({ event: 'embedded_db_failed', message: startFailedMessage(err) }, 'the embedded database did not start');
      throw new SearchError('backend_unavailable', startFailedMessage(err), { cause: err });
    });
    return opening;
  };

  const current = (): Promise<Db> => {
    if (closed) return Promise.reject(new SearchError('backend_unavailable', 'The embedded database is closed.'));
    return open();
  };

  const db: Db = {
    kind,
    async query<R extends object>(q: SqlQuery, label?: string): Promise<R[]> {
      return (await current()).query<R>(q, label);
    },
    async ping() {
      await (await current()).ping();
    },
    async close() {
      closed = true;
      // A start under way is let finish (a demo half-written is rolled back, not cut), then closed.
      const running = opening;
      if (!running) return;
      const real = await running.catch(() => undefined);
      await real?.close();
    },
  };
  return {
    db,
    begin: () => {
      if (!closed) open().catch(() => undefined); // logged in open(); queries see the error themselves
    },
  };
}
