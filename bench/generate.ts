/**
 * `npm run bench:data -- --scale S|M|L [options]`: fills a Postgres database with the benchmark
 * help desk (see generator/generate-data.ts) and, given an Elasticsearch URL, builds the message
 * index with searchdesk's own indexer. Progress and rows/s go to stderr; a JSON summary (ids,
 * tokens, counts, timings) to stdout. Exit codes: 0 done, 1 failure, 2 bad usage or a database
 * that already has rows (without --force).
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createPgDb } from '../src/db/pg.js';
import { runIndex, type IndexerReport } from '../src/indexer/indexer.js';
import { createElasticsearchStore } from '../src/indexer/elasticsearch.js';
import { createProgress } from '../src/indexer/progress.js';
import { createLogger } from '../src/logger.js';
import { createElasticsearchClient } from '../src/search/messages/elasticsearch.js';
import { DatabaseNotEmptyError, ensureDatabase } from './generator/database.js';
import { addDirectoryAccount, generateData, type GeneratedData } from './generator/generate-data.js';
import type { ScaleName } from './generator/scale.js';
import { isShape, type Shape } from './generator/shape.js';

const HELP = `Usage: npm run bench:data -- --scale S|M|L [options]

  --scale S|M|L              S: 10k contacts, 20k conversations, 50k messages in the large account;
                             M: ten times that; L: a hundred times (5M messages). Plus 20 noise accounts.
  --database-url URL         Target database (default: DATABASE_URL, else
                             postgres://postgres@127.0.0.1:5432/searchdesk_bench; created if missing)
  --elasticsearch-url URL    Also build the message index there with searchdesk's indexer
  --index NAME               Index alias (default searchdesk_messages)
  --shape default|skewed     The data's shape (default: default). skewed: a few hundred names shared by
                             thousands of contacts, unique e-mails, a few words in most messages,
                             conversations concentrated on a few contacts, the help desk's full index
                             layout (bench/README.md). The database's comment records it.
  --seed N                   Same seed (and --now) ⇒ identical data (default 1)
  --now ISO-TIME             Where generated time ends (default: now)
  --force                    Truncate the tables if they already have rows
  --only directory           Only add the scale's directory account (500 agents and 100 inboxes at L) to a
                             database generated at that scale without it; nothing else is written, and a
                             database that has it is left as it is
  --concurrency N            Statements at once (default 2)
  -h, --help                 Show this help
`;

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/searchdesk_bench';

class UsageError extends Error {}

interface Args {
  scale: ScaleName;
  shape: Shape;
  databaseUrl: string;
  elasticsearchUrl?: string;
  index: string;
  seed: number;
  now?: Date;
  force: boolean;
  concurrency: number;
  /** Only add the directory account to an existing database. */
  only?: 'directory';
}

function integerArg(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a non-negative integer`);
  return Number(value);
}

function parse(argv: string[]): Args | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      scale: { type: 'string' },
      shape: { type: 'string', default: 'default' },
      'database-url': { type: 'string' },
      'elasticsearch-url': { type: 'string' },
      index: { type: 'string', default: 'searchdesk_messages' },
      seed: { type: 'string' },
      now: { type: 'string' },
      force: { type: 'boolean', default: false },
      concurrency: { type: 'string' },
      only: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return undefined;
  const scale = values.scale?.toUpperCase();
  if (scale !== 'S' && scale !== 'M' && scale !== 'L') throw new UsageError('--scale must be S, M or L');
  const shape = values.shape;
  if (!isShape(shape)) throw new UsageError('--shape must be default or skewed');
  const now = values.now === undefined ? undefined : new Date(values.now);
  if (now && Number.isNaN(now.getTime())) throw new UsageError('--now must be an ISO time, e.g. 2025-01-31T12:00:00Z');
  if (values.only !== undefined && values.only !== 'directory') throw new UsageError('--only must be directory');
  return {
    scale,
    shape,
    databaseUrl: values['database-url'] ?? process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
    elasticsearchUrl: values['elasticsearch-url'],
    index: values.index,
    seed: integerArg('seed', values.seed, 1),
    now,
    force: values.force,
    concurrency: Math.max(1, integerArg('concurrency', values.concurrency, 2)),
    ...(values.only === 'directory' && { only: 'directory' as const }),
  };
}

async function buildIndex(args: Args, esUrl: string): Promise<IndexerReport> {
  const logger = createLogger('warn');
  const db = createPgDb({ url: args.databaseUrl, readOnly: true, statementTimeoutMs: 0, poolSize: 2, logger });
  const client = createElasticsearchClient(esUrl, 120_000);
  try {
    const deps = {
      db,
      store: createElasticsearchStore(client),
      alias: args.index,
      logger,
      progress: createProgress(process.stderr),
    };
    // Always a full build: regenerated rows are older than any existing index's watermark.
    const report = await runIndex(deps, { rebuild: true });
    process.stderr.write(
      `message index ${report.index}: ${report.indexed.toLocaleString('en')} docs in ${report.seconds.toFixed(1)} s ` +
        `(${report.docsPerSecond.toLocaleString('en')} docs/s)\n`,
    );
    return report;
  } finally {
    await client.close();
    await db.close();
  }
}

async function generate(args: Args): Promise<{ data: GeneratedData; index?: IndexerReport }> {
  await ensureDatabase(args.databaseUrl);
  const pool = new pg.Pool({ connectionString: args.databaseUrl, max: args.concurrency, application_name: 'searchdesk-bench' });
  let data: GeneratedData;
  try {
    process.stderr.write(`generating scale ${args.scale}, ${args.shape} shape (seed ${args.seed})\n`);
    data = await generateData({
      db: pool,
      scale: args.scale,
      shape: args.shape,
      seed: args.seed,
      now: args.now,
      force: args.force,
      concurrency: args.concurrency,
      log: (line) => process.stderr.write(`${line}\n`),
      progress: createProgress(process.stderr),
    });
    process.stderr.write(`data generated in ${data.seconds.toFixed(1)} s\n`);
  } finally {
    await pool.end();
  }
  return { data, index: args.elasticsearchUrl ? await buildIndex(args, args.elasticsearchUrl) : undefined };
}

/** `--only directory`: the directory account added to the database as it is. */
async function addDirectory(args: Args) {
  const pool = new pg.Pool({ connectionString: args.databaseUrl, max: 1, application_name: 'searchdesk-bench' });
  try {
    process.stderr.write(`adding the directory account of scale ${args.scale} (seed ${args.seed})\n`);
    return await addDirectoryAccount({
      db: pool,
      scale: args.scale,
      seed: args.seed,
      now: args.now,
      log: (line) => process.stderr.write(`${line}\n`),
      progress: createProgress(process.stderr),
    });
  } finally {
    await pool.end();
  }
}

async function main(argv: string[]): Promise<number> {
  let args: Args | undefined;
  try {
    args = parse(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (!args) {
    process.stdout.write(HELP);
    return 0;
  }
  try {
    const result = args.only === 'directory' ? await addDirectory(args) : await generate(args);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`bench:data failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof DatabaseNotEmptyError || err instanceof UsageError ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
