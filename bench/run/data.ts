/**
 * The data phase of `npm run bench`: the machine, the bench database's flags (saved, toggled,
 * restored), the workload sampled from the rows, the message indexes, and the Postgres index layout
 * the runs measure with (searchdesk's `db indexes`, the help desk's combined contact index).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { FEATURE_BITS } from '../../src/auth/access.js';
import { LARGE_ADMIN_TOKEN, LARGE_AGENT_TOKEN } from '../generator/org.js';
import { describeData, readData, SHAPES } from '../generator/shape.js';
import { Direct } from '../perf/direct.js';
import { ensureReadOnlyRole } from '../perf/role.js';
import {
  contactTrigramIndexes,
  ensureElasticsearchIndex,
  ensureOpenSearchIndex,
  ensureSearchdeskIndexes,
  ensureSearchkickIndex,
  restoreContactIndexes,
  setContactLayout,
  type IndexDef,
} from '../perf/indexes.js';
import { buildWorkload, type Workload } from '../perf/workload.js';
import { ACCOUNT_ID, log, STATEMENT_TIMEOUT_MS, type Args } from './args.js';
import type { PostgresIndexes, Results } from './results.js';

const GIN_BIT = FEATURE_BITS.searchWithGin.toString();

async function serverVersion(url: string | undefined, path: string): Promise<string> {
  if (!url) return 'not measured';
  try {
    const body = (await (await fetch(`${url}${path}`)).json()) as Record<string, unknown>;
    if (path === '/') return String((body.version as { number?: string } | undefined)?.number ?? '?');
    const nodes = Object.values((body.nodes as Record<string, { version?: string }>) ?? {});
    return String(nodes[0]?.version ?? '?');
  } catch (err) {
    return `unknown (${(err as Error).message})`;
  }
}

function cpuModel(): string {
  try {
    return /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpus()[0]?.model ?? '?';
  } catch {
    return cpus()[0]?.model ?? '?';
  }
}

export const load = () =>
  loadavg()
    .map((v) => v.toFixed(2))
    .join(' / ');

export async function machineInfo(args: Args, direct: Direct): Promise<Record<string, string>> {
  const pgVersion = (await direct.pool.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? '?';
  return {
    CPU: `${cpuModel()} × ${cpus().length} (nproc ${execFileSync('nproc').toString().trim()})`,
    Memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB (${(freemem() / 2 ** 30).toFixed(1)} GiB free at start)`,
    Node: process.version,
    PostgreSQL: pgVersion,
    Elasticsearch: await serverVersion(args.elasticsearchUrl, '/_nodes/_local'),
    OpenSearch: await serverVersion(args.opensearchUrl, '/'),
    'Bench data (shape)': describeData(await readData(direct.pool)),
    "Server's database role": args.serverRole === undefined ? "the URL's own" : `${args.serverRole} (README "Production" grants)`,
    'Load average at start (1/5/15 min)': load(),
  };
}

/** A writable statement on the read-only bench pool. */
async function write(direct: Direct, sql: string, values: unknown[]): Promise<void> {
  const client = await direct.pool.connect();
  try {
    await client.query('BEGIN READ WRITE');
    await client.query(sql, values);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

/** Sets or clears the account's search_with_gin bit (2^41). */
export function setGin(direct: Direct, on: boolean): Promise<void> {
  return write(
    direct,
    on
      ? `UPDATE accounts SET feature_flags = feature_flags | $1::bigint WHERE id = ${ACCOUNT_ID}`
      : `UPDATE accounts SET feature_flags = feature_flags & ~$1::bigint WHERE id = ${ACCOUNT_ID}`,
    [GIN_BIT],
  );
}

export interface Bench {
  direct: Direct;
  /** Contact trigram indexes found at the start (filled by preparePostgresIndexes). */
  contactsAtStart?: IndexDef[];
  /** Puts back the account's flags and the contact indexes the run started with, closes the pool. */
  close(): Promise<void>;
}

/**
 * Opens the bench database, remembers the account's flags, and puts them (and the contact indexes)
 * back on close and on Ctrl-C. Sets `args.shape` to the data shape the database records.
 */
export async function openBench(args: Args): Promise<Bench> {
  const direct = new Direct(args.databaseUrl, STATEMENT_TIMEOUT_MS, args.serverRole);
  // Before the core's first session: it logs in as that role.
  if (args.serverRole !== undefined) await ensureReadOnlyRole(direct.pool, args.serverRole);
  const flagRow = await direct.pool.query<{ flags: string }>('SELECT feature_flags::text AS flags FROM accounts WHERE id = $1', [
    ACCOUNT_ID,
  ]);
  const originalFlags = flagRow.rows[0]?.flags;
  if (originalFlags === undefined) {
    await direct.close();
    throw new Error(`account ${ACCOUNT_ID} not found: is this a bench database?`);
  }
  args.shape = (await readData(direct.pool))?.shape ?? SHAPES[0];
  const bench: Bench = {
    direct,
    async close() {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      await restore();
      await direct.close();
    },
  };
  let restored = false;
  const restore = async () => {
    if (restored) return;
    restored = true;
    await write(direct, 'UPDATE accounts SET feature_flags = $1::bigint WHERE id = $2', [originalFlags, ACCOUNT_ID]);
    if (bench.contactsAtStart) {
      const seconds = await restoreContactIndexes(args.databaseUrl, direct.pool, bench.contactsAtStart, log);
      if (seconds > 1) log(`contact indexes restored in ${seconds.toFixed(0)} s`);
    }
  };
  const onSignal = () => {
    void restore().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return bench;
}

/** Resolves both callers' access and samples the workload from the data. */
export async function sampleWorkload(args: Args, bench: Bench, notes: string[]): Promise<Workload> {
  const { direct } = bench;
  await setGin(direct, true);
  await direct.resolve('admin', LARGE_ADMIN_TOKEN, ACCOUNT_ID);
  const agent = await direct.resolve('agent', LARGE_AGENT_TOKEN, ACCOUNT_ID);
  if (!direct.accessOf('admin').flags.advancedSearch)
    notes.push('The account lacks advanced_search: message search is disabled.');
  log('sampling the workload from the data…');
  const workload = await buildWorkload(direct.pool, {
    seed: args.seed,
    accountId: ACCOUNT_ID,
    perTool: args.perTool,
    agentInboxIds: agent.inboxIds,
  });
  // --tools: the same sample (the same seed draws every tool's queries), the other tools left empty.
  for (const tool of Object.keys(workload.byTool) as Array<keyof Workload['byTool']>)
    if (args.tools && !args.tools.has(tool)) workload.byTool[tool] = [];
  return workload;
}

/** The message indexes (built when missing), first, so building them does not overlap a measurement. */
export async function messageIndexes(args: Args, bench: Bench): Promise<Results['indexes']> {
  const indexes: Results['indexes'] = {};
  if (args.elasticsearchUrl)
    indexes['Elasticsearch (searchdesk format)'] = await ensureElasticsearchIndex(
      args.databaseUrl,
      args.elasticsearchUrl,
      args.esIndex,
      log,
    );
  if (args.opensearchUrl) {
    indexes['OpenSearch (searchdesk format)'] = await ensureOpenSearchIndex(
      args.databaseUrl,
      args.opensearchUrl,
      args.osIndex,
      log,
    );
    indexes['OpenSearch (Searchkick format)'] = args.searchkick
      ? await ensureSearchkickIndex(bench.direct.pool, args.databaseUrl, args.opensearchUrl, args.searchkickIndex, log)
      : 'skipped (--no-searchkick)';
  }
  return indexes;
}

/**
 * searchdesk's own indexes (as `searchdesk db indexes` makes them), and the help desk's contact
 * layout — its ONE combined trigram index, no per-column ones — for the main phases.
 */
export async function preparePostgresIndexes(args: Args, bench: Bench): Promise<PostgresIndexes> {
  const { direct } = bench;
  bench.contactsAtStart = await contactTrigramIndexes(direct.pool);
  log('searchdesk indexes (db indexes)…');
  const searchdesk = await ensureSearchdeskIndexes(args.databaseUrl);
  // `db indexes` may just have made the word statistics function: README step 2's grant on it.
  if (args.serverRole !== undefined) await ensureReadOnlyRole(direct.pool, args.serverRole);
  const main = await setContactLayout(args.databaseUrl, direct.pool, 'combined', log);
  return {
    searchdesk,
    contactsAtStart: bench.contactsAtStart,
    contactsMain: await contactTrigramIndexes(direct.pool),
    layoutSeconds: { main },
  };
}
