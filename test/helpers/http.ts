/**
 * searchdesk's HTTP server in the test process: the same path as `searchdesk serve --http`
 * (loadConfig → createApp → startHttpServer) on 127.0.0.1, port 0, over a real socket, against real
 * Postgres and engines, without building or spawning the CLI. Its log lines are kept in memory and
 * read as `stderr()`, like a spawned server's. The spawned smoke tests (helpers/spawn.ts) cover
 * what only the built CLI can show: flags, exit codes, the bundle.
 */
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/db.js';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/logger.js';
import type { HttpProcess } from './spawn.js';

export type { HttpProcess } from './spawn.js';

/**
 * A database that counts the statements it is asked to run, to show that a request made none:
 * all of them, or those whose label (`Db.query`'s) starts with `prefix` (`auth_`: the lookups of
 * a token, src/auth/access.ts).
 */
export function countingDb(db: Db): { db: Db; statements: (prefix?: string) => number } {
  const labels: string[] = [];
  return {
    db: {
      kind: db.kind,
      query: (q, label) => {
        labels.push(label ?? '');
        return db.query(q, label);
      },
      ping: () => db.ping(),
      close: () => db.close(),
      poolStats: db.poolStats?.bind(db),
    },
    statements: (prefix = '') => labels.filter((l) => l.startsWith(prefix)).length,
  };
}

export interface StartHttpOptions {
  /** Wraps the app's database (countingDb); the app still closes its own. */
  db?: (db: Db) => Db;
}

/**
 * Starts the HTTP server of the configuration `env` describes (cliEnv() builds one), the way
 * `serve --http --port 0` would; `stop()` shuts it down as SIGTERM does (connections, engines,
 * pool) and resolves with 0 once everything is closed.
 */
export async function startHttp(env: Record<string, string>, opts: StartHttpOptions = {}): Promise<HttpProcess> {
  const config = loadConfig({ ...env, HOST: env.HOST ?? '127.0.0.1', PORT: '0' });
  let log = '';
  const logger = createLogger(config.logLevel, { write: (line: string) => void (log += line) });
  const app: App = await createApp(config, logger);
  const served: App = opts.db ? { ...app, deps: { ...app.deps, db: opts.db(app.deps.db) } } : app;
  let http: RunningHttpServer;
  try {
    http = await startHttpServer(served, { logger });
  } catch (err) {
    await app.close();
    throw err;
  }
  let exitCode: number | null = null;
  let stopping: Promise<number | null> | undefined;
  return {
    url: http.url,
    // What a test asks of the process: whether it still runs (the server still listens), and its id.
    child: {
      pid: process.pid,
      get exitCode() {
        return http.server.listening ? null : (exitCode ?? 1);
      },
    },
    stderr: () => log,
    stop() {
      stopping ??= (async () => {
        logger.info({ event: 'shutdown', signal: 'SIGTERM' }, 'shutting down');
        await http.close();
        await app.close();
        exitCode = 0;
        return exitCode;
      })();
      return stopping;
    },
  };
}
