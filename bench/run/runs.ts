/**
 * The run phase of `npm run bench`: searchdesk's servers started one after another (Postgres engine,
 * Elasticsearch, OpenSearch in both formats, then per-column contact indexes), each tool's queries
 * at concurrency 1 paired with the direct baseline and the help desk's own SQL, the default variant
 * with search_with_gin cleared, the throughput test, and bench/overhead.js (cold start, fixed cost).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LARGE_ADMIN_TOKEN, LARGE_AGENT_TOKEN } from '../generator/org.js';
import {
  elasticsearchEngine,
  opensearchEngine,
  postgresEngine,
  searchkickEngine,
  type Direct,
  type DirectEngine,
} from '../perf/direct.js';
import { runHelpdesk } from '../perf/helpdesk.js';
import { setContactLayout } from '../perf/indexes.js';
import {
  directWarmers,
  measureLatency,
  messageFloor,
  SHORT_STATEMENT_MS,
  measureThroughput,
  restrict,
  warmEngine,
  warmUp,
  type Clients,
  type LatencyResult,
  type ThroughputResult,
} from '../perf/measure.js';
import {
  cliEnv,
  connectHttp,
  rawCall,
  rssMb,
  serverCliEnv,
  startServer,
  stdioColdStart,
  type HttpServer,
} from '../perf/server.js';
import { TOOL_NAMES, type BenchQuery, type ToolName, type Workload } from '../perf/workload.js';
import { ACCOUNT_ID, log, serverDatabaseUrl, STATEMENT_TIMEOUT_MS, type Args } from './args.js';
import { setGin, type Bench } from './data.js';
import type { Overhead, Phase, PostgresIndexes, Results } from './results.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const PER_COLUMN_PHASE = 'Postgres engine, per-column contact indexes';
/** Per tool and phase: the paired runs stop taking new queries after this many seconds. */
const BUDGET_SECONDS = 240;

async function openClients(url: string): Promise<Clients> {
  return { admin: await connectHttp(url, LARGE_ADMIN_TOKEN), agent: await connectHttp(url, LARGE_AGENT_TOKEN) };
}

async function closeClients(list: Clients[]) {
  for (const c of list) for (const client of Object.values(c)) await client.close().catch(() => undefined);
}

async function withServer<T>(env: Record<string, string>, fn: (server: HttpServer) => Promise<T>): Promise<T> {
  const server = await startServer(env);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

function serverEnv(args: Args, extra: Record<string, string> = {}): Record<string, string> {
  return serverCliEnv({
    DATABASE_URL: serverDatabaseUrl(args),
    SEARCHDESK_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    ...extra,
  });
}

/** bench/overhead.js as a child process (its own server and spawns), its JSON summary back. */
function runOverhead(args: Args): Promise<Overhead> {
  const script = join(ROOT, 'dist-bench', 'bench', 'overhead.js');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [script, '--database-url', serverDatabaseUrl(args), '--json'],
      { maxBuffer: 4 * 2 ** 20, timeout: 15 * 60_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`overhead.js failed: ${err.message}\n${stderr.slice(-2000)}`));
        else resolve(JSON.parse(stdout) as Overhead);
      },
    );
  });
}

interface Ctx {
  args: Args;
  direct: Direct;
  workload: Workload;
  notes: string[];
  /** Help desk SQL runs so far per contact layout and query, and the first one's ms (helpdeskRunsAgain). */
  helpdeskRuns: Map<string, Map<BenchQuery, { runs: number; firstMs: number }>>;
}

/**
 * Whether the help desk's SQL of `q` runs again on `layout`: until it has --helpdesk-reps runs
 * over all phases (its SQL does not depend on searchdesk's engine or variant, so they are pooled),
 * and always when its first run took under SHORT_STATEMENT_MS. The cap is for the statements that
 * take seconds at L; a short one run once there left the core-only figure of its query to one
 * run of a few ms.
 */
function helpdeskRunsAgain(ctx: Ctx, layout: Phase['contactLayout'], q: BenchQuery): boolean {
  const done = ctx.helpdeskRuns.get(layout)?.get(q);
  return done === undefined || done.runs < ctx.args.helpdeskReps || done.firstMs < SHORT_STATEMENT_MS;
}

/** The help desk's SQL for a query, right next to searchdesk's call, while it runs again (helpdeskRunsAgain); then undefined. */
function helpdeskRunner(ctx: Ctx, layout: Phase['contactLayout']) {
  const runs = ctx.helpdeskRuns.get(layout) ?? new Map<BenchQuery, { runs: number; firstMs: number }>();
  ctx.helpdeskRuns.set(layout, runs);
  return async (q: BenchQuery): Promise<number | undefined> => {
    if (!helpdeskRunsAgain(ctx, layout, q)) return undefined;
    const ms = await runHelpdesk(ctx.direct.helpdeskPool, ctx.direct.accessOf(q.role), q);
    const done = runs.get(q);
    runs.set(q, { runs: (done?.runs ?? 0) + 1, firstMs: done?.firstMs ?? ms });
    return ms;
  };
}

async function latencyPhase(
  ctx: Ctx,
  server: HttpServer,
  label: string,
  engine: DirectEngine,
  tools: readonly ToolName[],
  opts: { helpdesk: boolean; contactLayout: Phase['contactLayout'] },
): Promise<Phase> {
  const { direct, workload } = ctx;
  const clients = await openClients(server.url);
  const phase: Phase = { label, engine: engine.kind, gin: true, contactLayout: opts.contactLayout, byTool: {} };
  const helpdeskRun = opts.helpdesk ? helpdeskRunner(ctx, opts.contactLayout) : undefined;
  try {
    await warmEngine(direct, workload.byTool.search_messages, engine);
    for (const tool of tools) {
      const queries = workload.byTool[tool];
      log(
        `${label}: ${tool} (${queries.length} queries × ${ctx.args.reps}, paired with the direct baseline${helpdeskRun ? ', then the help desk SQL' : ''})…`,
      );
      // The help desk's SQL warm too, one query at a time, for the queries it will still run;
      // first, so that searchdesk's warm-up comes right before its measured calls (the help
      // desk's statements are measured in a block after them: measureLatency).
      if (helpdeskRun)
        for (const q of queries)
          if (helpdeskRunsAgain(ctx, opts.contactLayout, q))
            await runHelpdesk(direct.helpdeskPool, direct.accessOf(q.role), q).catch(() => undefined);
      const warmDirect = directWarmers(direct, queries, true, engine);
      await warmUp(clients, ACCOUNT_ID, queries, warmDirect);
      phase.byTool[tool] = await measureLatency(clients, ACCOUNT_ID, queries, {
        reps: ctx.args.reps,
        budgetSeconds: BUDGET_SECONDS,
        directRun: (q) => direct.run(q, { gin: true, engine }),
        rawRun: (q) => rawCall(server.url, q.role === 'agent' ? LARGE_AGENT_TOKEN : LARGE_ADMIN_TOKEN, ACCOUNT_ID, q),
        helpdeskRun,
      });
    }
    if (tools.includes('search_messages')) phase.messageFloorMs = await messageFloor(direct, engine);
  } finally {
    await closeClients([clients]);
  }
  for (const w of server.warnings) ctx.notes.push(`${label} server: ${w}`);
  return phase;
}

/** The same queries with the account's search_with_gin cleared (one call each, the help desk SQL of the same queries after them). */
async function defaultVariant(ctx: Ctx, server: HttpServer, onPhase: Phase): Promise<Results['defaultVariant']> {
  const { direct, workload, args } = ctx;
  const out: Results['defaultVariant'] = {};
  const clients = await openClients(server.url);
  try {
    for (const tool of ['search_contacts', 'search_articles', 'search_conversations', 'search_all'] as const) {
      const queries = workload.byTool[tool].slice(0, args.defaultCap);
      await setGin(direct, false);
      log(`default variant (search_with_gin off): ${tool}, ${queries.length} queries × 1…`);
      let off: LatencyResult;
      try {
        off = await measureLatency(clients, ACCOUNT_ID, queries, {
          reps: 1,
          budgetSeconds: 900,
          helpdeskRun: helpdeskRunner(ctx, 'combined'),
        });
      } finally {
        await setGin(direct, true);
      }
      // The index-backed figures of the same queries (measured before, warm).
      out[tool] = { off, on: restrict(onPhase.byTool[tool] as LatencyResult, new Set(queries)) };
    }
  } finally {
    await closeClients([clients]);
  }
  return out;
}

async function throughputTest(ctx: Ctx, server: HttpServer): Promise<{ idleRssMb: number; results: ThroughputResult[] }> {
  const { workload, args } = ctx;
  // Interleave the tools so every worker sees the mix.
  const byTool = TOOL_NAMES.map((t) => workload.byTool[t]);
  const total = byTool.reduce((n, l) => n + l.length, 0);
  const interleaved: BenchQuery[] = [];
  for (let i = 0; interleaved.length < total; i++)
    for (const list of byTool) if (list[i]) interleaved.push(list[i] as BenchQuery);
  const results: ThroughputResult[] = [];
  const pool: Clients[] = [];
  for (let i = 0; i < 32; i++) pool.push(await openClients(server.url));
  try {
    const idleRssMb = rssMb(server.pid);
    for (const c of [1, 8, 32]) {
      log(`throughput at concurrency ${c} for ${args.duration} s…`);
      results.push(
        await measureThroughput(pool, ACCOUNT_ID, interleaved, { concurrency: c, seconds: args.duration, pid: server.pid }),
      );
    }
    return { idleRssMb, results };
  } finally {
    await closeClients(pool);
  }
}

export interface Measured {
  coldStart: number[];
  overhead?: Overhead;
  idleRssMb: number;
  phases: Phase[];
  defaultVariant: Results['defaultVariant'];
  throughput: ThroughputResult[];
  throughputEngine: string;
}

export async function measureAll(
  args: Args,
  bench: Bench,
  workload: Workload,
  pgIndexes: PostgresIndexes,
  notes: string[],
): Promise<Measured> {
  const { direct } = bench;
  const ctx: Ctx = { args, direct, workload, notes, helpdeskRuns: new Map() };
  const m: Measured = {
    coldStart: [],
    idleRssMb: Number.NaN,
    phases: [],
    defaultVariant: {},
    throughput: [],
    throughputEngine: 'postgres',
  };

  if (args.overhead) {
    log('bench/overhead.js: stdio cold start and per-call fixed cost (MCP over HTTP, REST)…');
    try {
      m.overhead = await runOverhead(args);
    } catch (err) {
      notes.push((err as Error).message.split('\n')[0] ?? 'overhead.js failed');
    }
  }
  if (!m.overhead) {
    log('stdio cold start ×5…');
    for (let i = 0; i < 5; i++)
      m.coldStart.push(
        await stdioColdStart(cliEnv({ DATABASE_URL: serverDatabaseUrl(args), SEARCHDESK_ACCESS_TOKEN: LARGE_ADMIN_TOKEN })),
      );
  }

  // 1. Postgres engine: every tool, index-backed; then the default variant on the same server.
  await withServer(serverEnv(args), async (server) => {
    const pg = await latencyPhase(ctx, server, 'Postgres engine', postgresEngine(direct), TOOL_NAMES, {
      helpdesk: true,
      contactLayout: 'combined',
    });
    m.phases.push(pg);
    m.defaultVariant = await defaultVariant(ctx, server, pg);
    if (!args.elasticsearchUrl) {
      const t = await throughputTest(ctx, server);
      m.idleRssMb = t.idleRssMb;
      m.throughput = t.results;
      m.throughputEngine = 'Postgres engine';
    }
  });

  // 2. Elasticsearch: messages and search_all; the throughput test runs on this (production-like) setup.
  if (args.elasticsearchUrl) {
    const engine = elasticsearchEngine(args.elasticsearchUrl, args.esIndex);
    try {
      await withServer(
        serverEnv(args, { ELASTICSEARCH_URL: args.elasticsearchUrl, ELASTICSEARCH_INDEX: args.esIndex }),
        async (server) => {
          m.phases.push(
            await latencyPhase(ctx, server, 'Elasticsearch', engine, ['search_messages', 'search_all'], {
              helpdesk: true,
              contactLayout: 'combined',
            }),
          );
          const t = await throughputTest(ctx, server);
          m.idleRssMb = t.idleRssMb;
          m.throughput = t.results;
          m.throughputEngine = 'Elasticsearch messages, index-backed';
        },
      );
    } finally {
      await engine.close();
    }
  }

  // 3. OpenSearch, searchdesk format and the help desk's Searchkick format.
  if (args.opensearchUrl) {
    const os = opensearchEngine(args.opensearchUrl, args.osIndex);
    try {
      await withServer(
        serverEnv(args, { OPENSEARCH_URL: args.opensearchUrl, OPENSEARCH_INDEX: args.osIndex }),
        async (server) => {
          m.phases.push(
            await latencyPhase(ctx, server, 'OpenSearch', os, ['search_messages'], {
              helpdesk: false,
              contactLayout: 'combined',
            }),
          );
        },
      );
    } finally {
      await os.close();
    }
    if (args.searchkick) {
      const sk = searchkickEngine(args.opensearchUrl, args.searchkickIndex);
      try {
        await withServer(
          serverEnv(args, {
            OPENSEARCH_URL: args.opensearchUrl,
            OPENSEARCH_INDEX: args.searchkickIndex,
            SEARCHDESK_INDEX_FORMAT: 'searchkick',
          }),
          async (server) => {
            m.phases.push(
              await latencyPhase(ctx, server, 'OpenSearch (Searchkick format)', sk, ['search_messages'], {
                helpdesk: false,
                contactLayout: 'combined',
              }),
            );
          },
        );
      } finally {
        await sk.close();
      }
    }
  }

  // 4. One trigram index per contact column instead of the help desk's combined one (put back on close).
  if (args.perColumn) {
    log('contact layout: per-column trigram indexes…');
    pgIndexes.layoutSeconds.perColumn = await setContactLayout(args.databaseUrl, direct.pool, 'per-column', log);
    try {
      await withServer(serverEnv(args), async (server) => {
        m.phases.push(
          await latencyPhase(ctx, server, PER_COLUMN_PHASE, postgresEngine(direct), ['search_contacts', 'search_conversations'], {
            helpdesk: true,
            contactLayout: 'per-column',
          }),
        );
      });
    } finally {
      // Back to the main layout, so the plans of misses are taken on what was measured.
      log('contact layout: back to the combined index…');
      await setContactLayout(args.databaseUrl, direct.pool, 'combined', log);
    }
  }
  return m;
}
