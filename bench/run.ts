/**
 * `npm run bench -- --scale M|L [options]`: measures searchdesk through its real MCP Streamable HTTP
 * surface (a spawned `node dist/cli.js serve --http --port 0`) on a bench database made by
 * `npm run bench:data`, with baselines measured in the same run: the same query straight to
 * Postgres/Elasticsearch, the default vs the index-backed (search_with_gin) variant, and the message
 * engines side by side. Writes a Markdown section per scale to bench/RESULTS.md and prints it.
 * See bench/README.md ("Performance benchmark").
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FEATURE_BITS } from '../src/auth/access.js';
import { buildSearchdeskQuery } from '../src/search/messages/searchdesk.js';
import { buildMessageQuery } from '../src/search/messages/query.js';
import { parseParams } from '../src/search/params.js';
import { LARGE_ADMIN_TOKEN, LARGE_AGENT_TOKEN } from './generator/org.js';
import {
  Direct,
  elasticsearchEngine,
  opensearchEngine,
  postgresEngine,
  searchkickEngine,
  type DirectEngine,
} from './perf/direct.js';
import { ensureElasticsearchIndex, ensureOpenSearchIndex, ensureSearchkickIndex, type IndexStatus } from './perf/indexes.js';
import {
  directWarmers,
  measureLatency,
  measureThroughput,
  slowest,
  warmUp,
  type Clients,
  type LatencyResult,
  type ThroughputResult,
} from './perf/measure.js';
import { cliEnv, connectHttp, rawCall, rssMb, startServer, stdioColdStart, type HttpServer } from './perf/server.js';
import { median, ms, ratio, summarize, table } from './perf/stats.js';
import { buildWorkload, TOOL_NAMES, type BenchQuery, type ToolName, type Workload } from './perf/workload.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const HELP = `Usage: npm run bench -- --scale S|M|L [options]

  --scale S|M|L              Which bench database (npm run bench:data) this is; names the report section
  --database-url URL         Bench database (default: postgres://postgres@127.0.0.1:5432/sd_bench_<scale>)
  --elasticsearch-url URL    Measure Elasticsearch too (index built with searchdesk's indexer if missing)
  --opensearch-url URL       Measure OpenSearch too: searchdesk format, and the help desk's Searchkick format
  --es-index NAME            Elasticsearch alias (default sdbench_messages_<scale>)
  --os-index NAME            OpenSearch alias, searchdesk format (default sdbench_messages_<scale>)
  --searchkick-index NAME    OpenSearch alias, Searchkick format (default sdbench_searchkick_<scale>)
  --no-searchkick            Do not build or measure the Searchkick-format index
  --indexes-only             Build the missing message indexes, then stop (no measurement)
  --duration S               Seconds per concurrency level (1, 8, 32) of the throughput test (default 15)
  --per-tool N               Sampled queries per tool (default 40)
  --reps N                   Measured calls per query at concurrency 1 (default 3)
  --default-cap N            Queries of the default (flag off) variant per tool (default: 20 at L, else all)
  --seed N                   Sample seed (default 1)
  --out FILE                 Report file; its section for this scale is replaced (default bench/RESULTS.md)
  -h, --help                 Show this help
`;

interface Args {
  scale: 'S' | 'M' | 'L';
  databaseUrl: string;
  elasticsearchUrl?: string;
  opensearchUrl?: string;
  esIndex: string;
  osIndex: string;
  searchkickIndex: string;
  searchkick: boolean;
  indexesOnly: boolean;
  duration: number;
  perTool: number;
  reps: number;
  defaultCap: number;
  seed: number;
  out: string;
  argv: string[];
}

const STATEMENT_TIMEOUT_MS = 60_000;
const ACCOUNT_ID = 1;
const GIN_BIT = FEATURE_BITS.searchWithGin.toString();

function parse(argv: string[]): Args | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      scale: { type: 'string' },
      'database-url': { type: 'string' },
      'elasticsearch-url': { type: 'string' },
      'opensearch-url': { type: 'string' },
      'es-index': { type: 'string' },
      'os-index': { type: 'string' },
      'searchkick-index': { type: 'string' },
      'no-searchkick': { type: 'boolean', default: false },
      'indexes-only': { type: 'boolean', default: false },
      duration: { type: 'string', default: '15' },
      'per-tool': { type: 'string', default: '40' },
      reps: { type: 'string', default: '3' },
      'default-cap': { type: 'string' },
      seed: { type: 'string', default: '1' },
      out: { type: 'string', default: 'bench/RESULTS.md' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return undefined;
  const scale = values.scale?.toUpperCase();
  if (scale !== 'S' && scale !== 'M' && scale !== 'L') throw new Error('--scale must be S, M or L');
  const int = (name: string, v: string, min: number) => {
    if (!/^\d+$/.test(v) || Number(v) < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
    return Number(v);
  };
  const s = scale.toLowerCase();
  const perTool = int('per-tool', values['per-tool'], 4);
  return {
    scale,
    databaseUrl: values['database-url'] ?? `postgres://postgres@127.0.0.1:5432/sd_bench_${s}`,
    elasticsearchUrl: values['elasticsearch-url']?.replace(/\/$/, ''),
    opensearchUrl: values['opensearch-url']?.replace(/\/$/, ''),
    esIndex: values['es-index'] ?? `sdbench_messages_${s}`,
    osIndex: values['os-index'] ?? `sdbench_messages_${s}`,
    searchkickIndex: values['searchkick-index'] ?? `sdbench_searchkick_${s}`,
    searchkick: !values['no-searchkick'],
    indexesOnly: values['indexes-only'],
    duration: int('duration', values.duration, 1),
    perTool,
    reps: int('reps', values.reps, 1),
    defaultCap: values['default-cap'] !== undefined ? int('default-cap', values['default-cap'], 1) : scale === 'L' ? 20 : perTool,
    seed: int('seed', values.seed, 0),
    out: values.out,
    argv,
  };
}

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const redact = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:***@');

// ---------------------------------------------------------------- environment

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

const load = () =>
  loadavg()
    .map((v) => v.toFixed(2))
    .join(' / ');

// ---------------------------------------------------------------- run

interface Phase {
  label: string;
  engine: string;
  gin: boolean;
  byTool: Partial<Record<ToolName, LatencyResult>>;
}

interface Results {
  args: Args;
  startedAt: Date;
  seconds: number;
  machine: Record<string, string>;
  workload: Workload;
  indexes: Record<string, IndexStatus | string>;
  coldStart: number[];
  idleRssMb: number;
  phases: Phase[];
  defaultVariant: Partial<Record<ToolName, { off: LatencyResult; on: LatencyResult }>>;
  throughput: ThroughputResult[];
  throughputEngine: string;
  plans: Record<string, string>;
  notes: string[];
}

async function openClients(url: string): Promise<Clients> {
  return { admin: await connectHttp(url, LARGE_ADMIN_TOKEN), agent: await connectHttp(url, LARGE_AGENT_TOKEN) };
}

async function closeClients(list: Clients[]) {
  for (const c of list) for (const client of Object.values(c) as Client[]) await client.close().catch(() => undefined);
}

async function setGin(direct: Direct, on: boolean): Promise<void> {
  // The bench pool is read-only: a separate writable statement.
  const sql = on
    ? `UPDATE accounts SET feature_flags = feature_flags | $1::bigint WHERE id = ${ACCOUNT_ID}`
    : `UPDATE accounts SET feature_flags = feature_flags & ~$1::bigint WHERE id = ${ACCOUNT_ID}`;
  const client = await direct.pool.connect();
  try {
    await client.query('BEGIN READ WRITE');
    await client.query(sql, [GIN_BIT]);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
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
  return cliEnv({ DATABASE_URL: args.databaseUrl, SEARCHDESK_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS), ...extra });
}

async function run(args: Args): Promise<Results | undefined> {
  const startedAt = new Date();
  const t0 = performance.now();
  const notes: string[] = [];
  const direct = new Direct(args.databaseUrl, STATEMENT_TIMEOUT_MS);
  const flagRow = await direct.pool.query<{ flags: string }>('SELECT feature_flags::text AS flags FROM accounts WHERE id = $1', [
    ACCOUNT_ID,
  ]);
  const originalFlags = flagRow.rows[0]?.flags;
  if (originalFlags === undefined) throw new Error(`account ${ACCOUNT_ID} not found: is this a bench database?`);
  const restore = async () => {
    const client = await direct.pool.connect();
    try {
      await client.query('BEGIN READ WRITE');
      await client.query('UPDATE accounts SET feature_flags = $1::bigint WHERE id = $2', [originalFlags, ACCOUNT_ID]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  };
  const onSignal = () => {
    void restore().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const pgVersion = (await direct.pool.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? '?';
    const machine: Record<string, string> = {
      CPU: `${cpuModel()} × ${cpus().length} (nproc ${execFileSync('nproc').toString().trim()})`,
      Memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB (${(freemem() / 2 ** 30).toFixed(1)} GiB free at start)`,
      Node: process.version,
      PostgreSQL: pgVersion,
      Elasticsearch: await serverVersion(args.elasticsearchUrl, '/_nodes/_local'),
      OpenSearch: await serverVersion(args.opensearchUrl, '/'),
      'Load average at start (1/5/15 min)': load(),
    };

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

    // Indexes first, so building them does not overlap a measurement.
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
        ? await ensureSearchkickIndex(direct.pool, args.databaseUrl, args.opensearchUrl, args.searchkickIndex, log)
        : 'skipped (--no-searchkick)';
    }

    if (args.indexesOnly) {
      for (const [name, status] of Object.entries(indexes)) log(`${name}: ${JSON.stringify(status)}`);
      return undefined;
    }
    log('stdio cold start ×5…');
    const coldStart: number[] = [];
    for (let i = 0; i < 5; i++)
      coldStart.push(
        await stdioColdStart(cliEnv({ DATABASE_URL: args.databaseUrl, SEARCHDESK_ACCESS_TOKEN: LARGE_ADMIN_TOKEN })),
      );

    const phases: Phase[] = [];
    const defaultVariant: Results['defaultVariant'] = {};
    const pgEngine = postgresEngine(direct.pool);
    const reps = args.reps;
    const budgetSeconds = 150;
    let idleRssMb = Number.NaN;
    let throughput: ThroughputResult[] = [];
    let throughputEngine = 'postgres';

    const latencyPhase = async (server: HttpServer, label: string, engine: DirectEngine, tools: ToolName[]): Promise<Phase> => {
      const clients = await openClients(server.url);
      const phase: Phase = { label, engine: engine.kind, gin: true, byTool: {} };
      try {
        for (const tool of tools) {
          const queries = workload.byTool[tool];
          log(`${label}: ${tool} (${queries.length} queries × ${reps}, paired with the direct baseline)…`);
          await warmUp(clients, ACCOUNT_ID, queries, directWarmers(direct, queries, true, engine));
          phase.byTool[tool] = await measureLatency(clients, ACCOUNT_ID, queries, {
            reps,
            budgetSeconds,
            directRun: (q) => direct.run(q, { gin: true, engine }),
            rawRun: (q) => rawCall(server.url, q.role === 'agent' ? LARGE_AGENT_TOKEN : LARGE_ADMIN_TOKEN, ACCOUNT_ID, q),
          });
        }
      } finally {
        await closeClients([clients]);
      }
      for (const w of server.warnings) notes.push(`${label} server: ${w}`);
      return phase;
    };

    const runThroughput = async (server: HttpServer, engineLabel: string) => {
      const mixed = TOOL_NAMES.flatMap((t) => workload.byTool[t]);
      // Interleave the tools so every worker sees the mix.
      const byTool = TOOL_NAMES.map((t) => workload.byTool[t]);
      const interleaved: BenchQuery[] = [];
      for (let i = 0; interleaved.length < mixed.length; i++)
        for (const list of byTool) if (list[i]) interleaved.push(list[i] as BenchQuery);
      const results: ThroughputResult[] = [];
      const pool: Clients[] = [];
      for (let i = 0; i < 32; i++) pool.push(await openClients(server.url));
      try {
        idleRssMb = rssMb(server.pid);
        for (const c of [1, 8, 32]) {
          log(`throughput at concurrency ${c} for ${args.duration} s (${engineLabel})…`);
          results.push(
            await measureThroughput(pool, ACCOUNT_ID, interleaved, { concurrency: c, seconds: args.duration, pid: server.pid }),
          );
        }
      } finally {
        await closeClients(pool);
      }
      throughput = results;
      throughputEngine = engineLabel;
    };

    // 1. Postgres engine: every tool, index-backed; then the default variant on the same server.
    await withServer(serverEnv(args), async (server) => {
      phases.push(await latencyPhase(server, 'Postgres engine', pgEngine, [...TOOL_NAMES]));
      const clients = await openClients(server.url);
      try {
        const onPhase = phases[phases.length - 1] as Phase;
        for (const tool of ['search_contacts', 'search_articles', 'search_conversations'] as const) {
          const queries = workload.byTool[tool].slice(0, args.defaultCap);
          await setGin(direct, false);
          log(`default variant (search_with_gin off): ${tool}, ${queries.length} queries × 1…`);
          let off: LatencyResult;
          try {
            off = await measureLatency(clients, ACCOUNT_ID, queries, { reps: 1, budgetSeconds: 600 });
          } finally {
            await setGin(direct, true);
          }
          // The index-backed figures of the same queries (measured above, warm).
          const full = onPhase.byTool[tool] as LatencyResult;
          const keep = new Set(queries);
          const samples = full.samples.filter((s) => keep.has(s.query));
          const on: LatencyResult = {
            ...full,
            samples,
            mcp: summarize(samples.flatMap((s) => s.mcp)),
            direct: summarize(samples.flatMap((s) => s.direct)),
            raw: summarize(samples.flatMap((s) => s.raw)),
          };
          defaultVariant[tool] = { off, on };
        }
      } finally {
        await closeClients([clients]);
      }
      if (!args.elasticsearchUrl) await runThroughput(server, 'Postgres engine');
    });

    // 2. Elasticsearch: messages and search_all; the throughput test runs on this (production-like) setup.
    if (args.elasticsearchUrl) {
      const engine = elasticsearchEngine(args.elasticsearchUrl, args.esIndex);
      try {
        await withServer(
          serverEnv(args, { ELASTICSEARCH_URL: args.elasticsearchUrl, ELASTICSEARCH_INDEX: args.esIndex }),
          async (server) => {
            phases.push(await latencyPhase(server, 'Elasticsearch', engine, ['search_messages', 'search_all']));
            await runThroughput(server, 'Elasticsearch messages, index-backed');
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
            phases.push(await latencyPhase(server, 'OpenSearch', os, ['search_messages']));
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
              phases.push(await latencyPhase(server, 'OpenSearch (Searchkick format)', sk, ['search_messages']));
            },
          );
        } finally {
          await sk.close();
        }
      }
    }

    machine['Load average at end (1/5/15 min)'] = load();
    const results: Results = {
      args,
      startedAt,
      seconds: (performance.now() - t0) / 1000,
      machine,
      workload,
      indexes,
      coldStart,
      idleRssMb,
      phases,
      defaultVariant,
      throughput,
      throughputEngine,
      plans: {},
      notes,
    };
    await savePlans(results, direct);
    return results;
  } finally {
    await restore();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await direct.close();
  }
}

// ---------------------------------------------------------------- targets and plans

interface Target {
  name: string;
  limit: number;
  unit: 'ms' | 'MB';
  measured: number;
  /** Which tool's slowest query explains a miss. */
  tool?: ToolName;
  phase?: string;
}

function toolResult(r: Results, phaseLabel: string, tool: ToolName): LatencyResult | undefined {
  return r.phases.find((p) => p.label === phaseLabel)?.byTool[tool];
}

function targets(r: Results): Target[] {
  const pg = 'Postgres engine';
  const es = r.phases.some((p) => p.label === 'Elasticsearch') ? 'Elasticsearch' : pg;
  const p95 = (phase: string, tool: ToolName) => toolResult(r, phase, tool)?.mcp.p95 ?? Number.NaN;
  const overheads = r.phases.flatMap((p) => Object.values(p.byTool).flatMap((t) => t.overheads));
  const serverOverheads = r.phases.flatMap((p) => Object.values(p.byTool).flatMap((t) => t.serverOverheads));
  return [
    {
      name: 'search_contacts p95',
      limit: 30,
      unit: 'ms',
      measured: p95(pg, 'search_contacts'),
      tool: 'search_contacts',
      phase: pg,
    },
    {
      name: 'search_conversations p95',
      limit: 50,
      unit: 'ms',
      measured: p95(pg, 'search_conversations'),
      tool: 'search_conversations',
      phase: pg,
    },
    {
      name: `search_messages p95 (${es === pg ? 'Postgres — no Elasticsearch measured' : 'Elasticsearch'})`,
      limit: 30,
      unit: 'ms',
      measured: p95(es, 'search_messages'),
      tool: 'search_messages',
      phase: es,
    },
    {
      name: 'search_articles p95',
      limit: 20,
      unit: 'ms',
      measured: p95(pg, 'search_articles'),
      tool: 'search_articles',
      phase: pg,
    },
    {
      name: `search_all p95 (${es === pg ? 'Postgres messages' : 'Elasticsearch messages'})`,
      limit: 80,
      unit: 'ms',
      measured: p95(es, 'search_all'),
      tool: 'search_all',
      phase: es,
    },
    {
      name: 'median MCP HTTP overhead (server surface: JSON-RPC POST − direct)',
      limit: 2,
      unit: 'ms',
      measured: median(serverOverheads),
    },
    {
      name: 'median MCP HTTP overhead, SDK client end to end (callTool − direct)',
      limit: 2,
      unit: 'ms',
      measured: median(overheads),
    },
    { name: 'stdio cold start (median of 5)', limit: 500, unit: 'ms', measured: median(r.coldStart) },
    {
      name: 'server RSS, peak at concurrency 32',
      limit: 200,
      unit: 'MB',
      measured: r.throughput.find((t) => t.concurrency === 32)?.peakRssMb ?? Number.NaN,
    },
  ];
}

async function explain(direct: Direct, sql: { text: string; values: unknown[] }): Promise<string> {
  const res = await direct.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql.text}`, sql.values);
  return res.rows.map((row) => row['QUERY PLAN']).join('\n');
}

/** EXPLAIN (ANALYZE, BUFFERS) of the slowest query of every tool that misses its target. */
async function savePlans(r: Results, direct: Direct): Promise<void> {
  const dir = join(ROOT, 'bench', 'plans');
  for (const t of targets(r)) {
    if (!t.tool || !t.phase || !(t.measured > t.limit)) continue;
    const result = toolResult(r, t.phase, t.tool);
    const worst = result && slowest(result);
    if (!worst) continue;
    const q = worst.query;
    const header = [
      `-- scale ${r.args.scale}, ${t.phase}, index-backed (search_with_gin on), ${new Date().toISOString()}`,
      `-- ${t.tool} as ${q.role}: ${JSON.stringify(q.args)} (${q.kind})`,
      `-- MCP median ${ms(median(worst.mcp))} ms, direct median ${ms(median(worst.direct))} ms`,
    ];
    const parts: string[] = [];
    try {
      if (t.tool === 'search_conversations') {
        for (const strategy of ['window', 'candidates', 'scan'] as const) {
          const sql = direct.sqlOf(q, true, strategy);
          if (sql) parts.push(`-- strategy ${strategy}\n${await explain(direct, sql)}`);
        }
      } else if (t.tool === 'search_all') {
        for (const tool of ['search_contacts', 'search_conversations', 'search_articles'] as const) {
          const sub: BenchQuery = { ...q, tool, args: { q: q.args.q as string } };
          const sql = direct.sqlOf(sub, true, tool === 'search_conversations' ? 'window' : undefined);
          if (sql) parts.push(`-- ${tool}\n${await explain(direct, sql)}`);
        }
      } else if (t.tool === 'search_messages' && t.phase === 'Elasticsearch') {
        const query = buildMessageQuery(direct.accessOf(q.role), parseParams('messages', q.args), Date.now());
        if (query)
          parts.push(`-- Elasticsearch request (searchdesk format)\n${JSON.stringify(buildSearchdeskQuery(query), null, 2)}`);
      } else {
        const sql = direct.sqlOf(q, true);
        if (sql) parts.push(await explain(direct, sql));
      }
    } catch (err) {
      parts.push(`-- EXPLAIN failed: ${(err as Error).message}`);
    }
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${r.args.scale}-${t.tool}.txt`);
    writeFileSync(file, `${header.join('\n')}\n\n${parts.join('\n\n')}\n`);
    r.plans[t.tool] = relative(ROOT, file);
  }
}

// ---------------------------------------------------------------- report

function report(r: Results): string {
  const a = r.args;
  const out: string[] = [];
  const pgPhase = r.phases.find((p) => p.label === 'Postgres engine');
  out.push(`## Scale ${a.scale}`, '');
  out.push(
    `Run ${r.startedAt.toISOString()}, ${(r.seconds / 60).toFixed(1)} min. Database \`${redact(a.databaseUrl)}\`; ` +
      `${Object.values(r.workload.byTool).reduce((n, l) => n + l.length, 0)} queries sampled from the data (seed ${a.seed}), ` +
      `${a.reps} measured calls each at concurrency 1 after one warm-up call, through \`node dist/cli.js serve --http --port 0\` ` +
      `(MCP Streamable HTTP, SDK client, header \`api_access_token\`; ⅓ of the queries as the agent \`bench-agent-token\`, the rest as the administrator). ` +
      `Statement timeout ${STATEMENT_TIMEOUT_MS / 1000} s (SEARCHDESK_STATEMENT_TIMEOUT_MS).`,
    '',
  );
  out.push('```sh', `npm run bench -- ${a.argv.join(' ')}`, '```', '');
  out.push('### Machine', '', table(['', ''], Object.entries(r.machine)), '');
  out.push(
    'Other engineers ran tests on this machine at the same time (see the load averages): figures are from a shared 2-core box, not an idle one.',
    '',
  );
  const idx = Object.entries(r.indexes).map(([k, v]) =>
    typeof v === 'string'
      ? [k, v, '', '']
      : [
          k,
          `\`${v.alias}\``,
          v.docs.toLocaleString('en'),
          v.builtSeconds > 0 ? `built in this run, ${v.builtSeconds.toFixed(0)} s` : 'existed',
        ],
  );
  if (idx.length > 0) out.push('### Message indexes', '', table(['Index', 'Alias', 'Documents', ''], idx), '');

  // Targets
  out.push('### Targets (index-backed, warm)', '');
  if (a.scale !== 'L') out.push(`The targets are set for scale L; at scale ${a.scale} they are shown for reference.`, '');
  out.push(
    table(
      ['Target', 'Limit', 'Measured', ''],
      targets(r).map((t) => [
        t.name,
        `≤ ${t.limit} ${t.unit}`,
        `${ms(t.measured)} ${t.unit}`,
        Number.isFinite(t.measured)
          ? t.measured <= t.limit
            ? '✓'
            : `✗${t.tool && r.plans[t.tool] ? ` (plan: \`${r.plans[t.tool]}\`)` : ''}`
          : '–',
      ]),
    ),
    '',
  );

  // Latency per tool
  const latRows: string[][] = [];
  for (const phase of r.phases)
    for (const [tool, res] of Object.entries(phase.byTool)) {
      const ov = res.overheads;
      latRows.push([
        tool,
        phase.label,
        String(res.mcp.n),
        ms(res.mcp.p50),
        ms(res.mcp.p95),
        ms(res.mcp.p99),
        `${ms(res.direct.p50)} / ${ms(res.direct.p95)}`,
        `${ratio(res.mcp.p50, res.direct.p50)} / ${ratio(res.mcp.p95, res.direct.p95)}`,
        ms(median(ov)),
        ms(res.raw.p50),
        ms(median(res.serverOverheads)),
        String(res.errors.length + (res.skipped ? ` (+${res.skipped} skipped)` : '')),
        Object.entries(res.engines)
          .map(([e, n]) => `${e}:${n}`)
          .join(' '),
      ]);
    }
  out.push(
    '### Latency per tool (MCP over HTTP, concurrency 1, index-backed variant)',
    '',
    "Direct = the same search without the MCP surface, measured right next to each MCP call: the core's SQL builders on a plain pg Pool, " +
      "message ids from the engine's own request (SQL, or the query DSL through the Elasticsearch/OpenSearch client), then the core's record SQL. " +
      'Ratio = MCP ÷ direct; overhead (SDK) = median of (SDK callTool − direct) over paired calls; ' +
      "overhead (server) = median of (the same tools/call as one plain JSON-RPC POST with fetch − direct), i.e. the server surface without the SDK client's own request and result handling.",
    '',
    table(
      [
        'Tool',
        'Message engine',
        'Calls',
        'p50 ms',
        'p95 ms',
        'p99 ms',
        'Direct p50 / p95 ms',
        'Ratio p50 / p95',
        'Overhead ms (SDK)',
        'JSON-RPC POST p50 ms',
        'Overhead ms (server)',
        'Errors',
        'Answered by',
      ],
      latRows,
    ),
    '',
  );

  // Default vs index-backed
  const dvRows = Object.entries(r.defaultVariant).map(([tool, { off, on }]) => [
    tool,
    String(off.mcp.n),
    ms(off.mcp.p50),
    ms(off.mcp.p95),
    ms(off.mcp.max),
    ms(on.mcp.p50),
    ms(on.mcp.p95),
    `${ratio(off.mcp.p50, on.mcp.p50)} / ${ratio(off.mcp.p95, on.mcp.p95)}`,
    String(off.errors.length),
  ]);
  out.push(
    '### Default vs index-backed variant (search_with_gin off → on)',
    '',
    `The same queries through MCP with the account's flag off (one call each, right after the index-backed runs), then the index-backed figures of those queries. ` +
      (a.defaultCap < a.perTool
        ? `**Capped**: only the first ${a.defaultCap} queries per tool run with the flag off, because the default variant takes seconds per query at this scale. `
        : '') +
      'search_contacts has one SQL for both variants (its trigram indexes serve either), so its ratio only shows noise.',
    '',
    table(
      [
        'Tool',
        'Queries',
        'Default p50 ms',
        'Default p95 ms',
        'Default max ms',
        'Index-backed p50 ms',
        'Index-backed p95 ms',
        'Speed-up p50 / p95',
        'Errors (default)',
      ],
      dvRows,
    ),
    '',
  );

  // Message engines
  const engineRows = r.phases
    .map((p) => [p.label, p.byTool.search_messages] as const)
    .filter((x): x is readonly [string, LatencyResult] => x[1] !== undefined)
    .map(([label, res]) => [
      label,
      String(res.mcp.n),
      ms(res.mcp.p50),
      ms(res.mcp.p95),
      ms(res.mcp.p99),
      `${ms(res.direct.p50)} / ${ms(res.direct.p95)}`,
      ratio(res.mcp.p50, res.direct.p50),
      label === 'Postgres engine' ? '(no target)' : res.mcp.p95 <= 30 ? '✓ ≤ 30' : '✗ > 30',
    ]);
  out.push(
    '### Message engines side by side (search_messages)',
    '',
    table(['Engine', 'Calls', 'p50 ms', 'p95 ms', 'p99 ms', 'Direct p50 / p95 ms', 'Ratio p50', 'p95 target'], engineRows),
    '',
  );
  if (!r.phases.some((p) => p.label === 'OpenSearch (Searchkick format)'))
    out.push(
      `The help desk's Searchkick-format index was not measured at this scale${
        typeof r.indexes['OpenSearch (Searchkick format)'] === 'string' ? ` (${r.indexes['OpenSearch (Searchkick format)']})` : ''
      }.`,
      '',
    );

  // Throughput
  out.push(
    `### Throughput (mixed workload of all five tools, ${r.throughputEngine}, ${a.duration} s per level)`,
    '',
    `Server RSS idle (after the latency runs' warm-up): ${ms(r.idleRssMb)} MB.`,
    '',
    table(
      ['Concurrency', 'Calls/s', 'p50 ms', 'p95 ms', 'p99 ms', 'Errors', 'Peak RSS MB'],
      r.throughput.map((t) => [
        String(t.concurrency),
        t.callsPerSecond.toFixed(1),
        ms(t.latency.p50),
        ms(t.latency.p95),
        ms(t.latency.p99),
        String(t.errors),
        ms(t.peakRssMb),
      ]),
    ),
    '',
  );
  const tErr = r.throughput.flatMap((t) => t.firstErrors.map((e) => `c=${t.concurrency}: ${e}`));

  // Cold start
  out.push(
    '### stdio cold start',
    '',
    `\`node dist/cli.js\` (stdio) with DATABASE_URL and SEARCHDESK_ACCESS_TOKEN, from spawn to the answer of the first \`tools/list\`: ` +
      `median ${ms(median(r.coldStart))} ms over ${r.coldStart.length} runs (${r.coldStart.map((v) => ms(v)).join(', ')} ms).`,
    '',
  );

  // Per kind (index-backed, Postgres phase + engines)
  const kindRows: string[][] = [];
  for (const phase of r.phases)
    for (const [tool, res] of Object.entries(phase.byTool)) {
      if (phase.label !== 'Postgres engine' && tool !== 'search_messages') continue;
      if (phase.label === 'Postgres engine' && tool === 'search_all' && r.phases.some((p) => p.byTool.search_all && p !== phase))
        continue;
      const kinds = new Map<string, number[]>();
      for (const s of res.samples) kinds.set(s.query.kind, [...(kinds.get(s.query.kind) ?? []), ...s.mcp]);
      for (const [kind, values] of kinds)
        kindRows.push([
          tool,
          phase.label,
          kind,
          String(values.length),
          ms(median(values)),
          ms(values.length ? Math.max(...values) : Number.NaN),
        ]);
    }
  out.push(
    '### Latency by kind of query (MCP, index-backed)',
    '',
    table(['Tool', 'Engine', 'Kind', 'Calls', 'p50 ms', 'max ms'], kindRows),
    '',
  );

  const slowRows: string[][] = [];
  for (const phase of r.phases)
    for (const [tool, res] of Object.entries(phase.byTool)) {
      const worst = [...res.samples]
        .filter((s) => s.mcp.length > 0)
        .sort((x, y) => median(y.mcp) - median(x.mcp))
        .slice(0, 2);
      for (const w of worst)
        slowRows.push([
          tool,
          phase.label,
          w.query.role,
          `\`${JSON.stringify(w.query.args)}\``,
          ms(median(w.mcp)),
          ms(median(w.direct)),
        ]);
    }
  out.push(
    '### Slowest queries (median of their calls)',
    '',
    table(['Tool', 'Engine', 'As', 'Arguments', 'MCP ms', 'Direct ms'], slowRows),
    '',
  );

  const errs = [
    ...r.phases.flatMap((p) => Object.values(p.byTool).flatMap((t) => t.errors.map((e) => `${p.label}: ${e}`))),
    ...Object.values(r.defaultVariant).flatMap((d) => d.off.errors.map((e) => `default variant: ${e}`)),
    ...tErr,
  ];
  if (errs.length > 0 || r.notes.length > 0) {
    out.push('### Errors and notes', '');
    for (const e of [...r.notes, ...errs].slice(0, 30)) out.push(`- ${e.replace(/\n/g, ' ')}`);
    if (errs.length > 30) out.push(`- … ${errs.length - 30} more`);
    out.push('');
  }
  if (!pgPhase) out.push('(no Postgres phase)', '');
  return out.join('\n');
}

const FILE_HEADER = `# searchdesk benchmark results

Produced by \`npm run bench\` (bench/run.ts; see bench/README.md). Each scale has its own section,
replaced when that scale is run again. Analysis of misses is written by hand below the generated sections.
`;

function writeSection(file: string, scale: string, section: string): void {
  const start = `<!-- bench:${scale}:start -->`;
  const end = `<!-- bench:${scale}:end -->`;
  const block = `${start}\n${section}\n${end}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : FILE_HEADER;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i !== -1 && j > i) text = text.slice(0, i) + block + text.slice(j + end.length);
  else {
    // Sections in scale order S, M, L, before any hand-written text that follows them.
    const later = ['S', 'M', 'L']
      .slice(['S', 'M', 'L'].indexOf(scale) + 1)
      .map((s) => text.indexOf(`<!-- bench:${s}:start -->`))
      .filter((k) => k !== -1);
    const at = later.length > 0 ? Math.min(...later) : -1;
    if (at !== -1) text = `${text.slice(0, at)}${block}\n\n${text.slice(at)}`;
    else {
      const lastEnd = ['S', 'M', 'L']
        .map((s) => `<!-- bench:${s}:end -->`)
        .map((m) => [text.indexOf(m), m.length] as const)
        .filter(([k]) => k !== -1);
      const after = lastEnd.length > 0 ? Math.max(...lastEnd.map(([k, n]) => k + n)) : -1;
      text = after !== -1 ? `${text.slice(0, after)}\n\n${block}${text.slice(after)}` : `${text.trimEnd()}\n\n${block}\n`;
    }
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

async function main(): Promise<number> {
  let args: Args | undefined;
  try {
    args = parse(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (!args) {
    process.stdout.write(HELP);
    return 0;
  }
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) {
    process.stderr.write('dist/cli.js is missing: run `npm run build` first\n');
    return 2;
  }
  const results = await run(args);
  if (!results) return 0;
  const section = report(results);
  const file = resolve(ROOT, args.out);
  writeSection(file, args.scale, section);
  process.stdout.write(`${section}\n`);
  log(`report written to ${relative(ROOT, file)}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
