/** `searchdesk index [--rebuild] [--follow]`: Postgres → the Elasticsearch/OpenSearch message index. */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.js';
import type { IndexerDeps, IndexerReport } from '../indexer/indexer.js';
import type { IndexStore } from '../indexer/store.js';
import type { Logger } from '../logger.js';
import { EXIT_OK, printHelp, UsageError, type Command } from './shared.js';

const INDEX_HELP = `Usage: searchdesk index [--rebuild] [--follow [--interval SECONDS]] [--batch-size N]

Builds and keeps current the message index behind ELASTICSEARCH_INDEX / OPENSEARCH_INDEX
(an alias; default searchdesk_messages) from DATABASE_URL's messages.

  (no option)     First run, or an index of an earlier format version: full build. Later
                  runs: apply changes since the last run (new, edited, re-typed messages)
                  and remove deleted ones. Twice in a row changes nothing.
  --rebuild       Build a fresh index and swap the alias to it in one request (no downtime).
  --follow        Keep running: apply changes every --interval seconds (default 5) and remove
                  deleted messages every minute, until SIGINT/SIGTERM.
  --batch-size N  Messages per bulk request (default 2000).
  -h, --help      Show this help
`;

const RECONCILE_EVERY_MS = 60_000;

async function openStore(config: Config): Promise<{ store: IndexStore; close: () => Promise<void> }> {
  const engine = config.engine;
  if (engine.kind === 'postgres') {
    throw new ConfigError(
      'searchdesk index needs ELASTICSEARCH_URL or OPENSEARCH_URL (messages are searched in Postgres otherwise)',
    );
  }
  if (engine.format === 'searchkick') {
    const { SEARCHKICK_INDEX_REFUSAL } = await import('../search/messages/searchkick.js');
    throw new ConfigError(SEARCHKICK_INDEX_REFUSAL);
  }
  // Indexing requests are larger than searches: allow them a generous timeout.
  const [{ connectSearchClient }, { createIndexStore }] = await Promise.all([
    import('../search/messages/connect.js'),
    import('../indexer/store.js'),
  ]);
  const client = await connectSearchClient(engine.kind, engine.url, Math.max(config.engineTimeoutMs, 60_000));
  return { store: createIndexStore(client), close: () => client.close() };
}

function summary(r: IndexerReport): string {
  return `${r.index}: indexed ${r.indexed}, deleted ${r.deleted} in ${r.seconds.toFixed(1)} s (${r.docsPerSecond} docs/s)\n`;
}

/** Applies changes every `intervalMs` and reconciles deletions every minute, until a signal. */
async function follow(deps: IndexerDeps, intervalMs: number, logger: Logger): Promise<void> {
  const { syncIndex, reconcileIndex } = await import('../indexer/indexer.js');
  let stopped = false;
  let wake: (() => void) | undefined;
  const stop = () => {
    stopped = true;
    wake?.();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let lastReconcile = performance.now();
  while (!stopped) {
    try {
      const r = await syncIndex(deps);
      if (r.indexed + r.deleted > 0)
        logger.info({ event: 'index_sync', ...r }, `synced: ${r.indexed} indexed, ${r.deleted} deleted`);
      if (performance.now() - lastReconcile >= RECONCILE_EVERY_MS) {
        const c = await reconcileIndex(deps);
        if (c.deleted > 0) logger.info({ event: 'index_reconcile', ...c }, `reconciled: ${c.deleted} deleted`);
        lastReconcile = performance.now();
      }
    } catch (err) {
      // A backend hiccup must not end the follower: log it and try again next round.
      logger.warn({ event: 'index_follow_failed', message: (err as Error).message }, 'index sync failed; retrying');
    }
    await new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, intervalMs);
    });
  }
}

export const indexCommand: Command = async (args, env) => {
  const { values } = parseArgs({
    args,
    options: {
      rebuild: { type: 'boolean' },
      follow: { type: 'boolean' },
      interval: { type: 'string' },
      'batch-size': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return printHelp(INDEX_HELP);
  const interval = Number(values.interval ?? 5);
  const batchSize = Number(values['batch-size'] ?? 2_000);
  if (!Number.isInteger(interval) || interval < 1) throw new UsageError('--interval must be a whole number of seconds ≥ 1');
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 50_000) throw new UsageError('--batch-size must be 1–50000');
  if (values.interval !== undefined && !values.follow) throw new UsageError('--interval needs --follow');

  const config = loadConfig(env);
  const { store, close } = await openStore(config);
  try {
    const [{ createLogger }, { openDatabase }, { runIndex }, { createProgress }] = await Promise.all([
      import('../logger.js'),
      import('../app.js'),
      import('../indexer/indexer.js'),
      import('../indexer/progress.js'),
    ]);
    const logger = createLogger(config.logLevel);
    const { db } = await openDatabase(config, logger, { statementTimeoutMs: 0 });
    const deps: IndexerDeps = {
      db,
      store,
      alias: config.engine.kind === 'postgres' ? '' : config.engine.index,
      logger,
      progress: createProgress(process.stderr),
      batchSize,
    };
    try {
      process.stderr.write(summary(await runIndex(deps, { rebuild: values.rebuild })));
      if (values.follow) await follow(deps, interval * 1000, logger);
    } finally {
      await db.close();
    }
  } finally {
    await close();
  }
  return EXIT_OK;
};
