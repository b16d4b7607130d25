/** Measurement loops: paired MCP/direct latency at concurrency 1, and throughput at concurrency N. */
import type { Client } from '@modelcontextprotocol/client';
import type { Direct, DirectEngine } from './direct.js';
import { callTool, sampleRss, type CallOutcome } from './server.js';
import { median, summarize, type Summary } from './stats.js';
import type { BenchQuery, Role } from './workload.js';

export type Clients = Record<Role, Client>;

export interface QuerySample {
  query: BenchQuery;
  mcp: number[];
  direct: number[];
  /** The same call as a plain JSON-RPC POST (no SDK client). */
  raw: number[];
  /** The help desk's own SQL for the same search (perf/helpdesk.ts), in a block after searchdesk's calls. */
  helpdesk: number[];
  /**
   * The direct path again, in that block, right next to each of the help desk's statements (order
   * alternating per rep): the two sides of "core only" measured alike, neither between MCP calls.
   */
  directBlock: number[];
}

export interface LatencyResult {
  samples: QuerySample[];
  mcp: Summary;
  direct: Summary;
  raw: Summary;
  helpdesk: Summary;
  /** Per paired call: MCP (SDK client) ms − direct ms. */
  overheads: number[];
  /** Per paired call: plain JSON-RPC POST ms − direct ms: the server's surface alone. */
  serverOverheads: number[];
  errors: string[];
  engines: Record<string, number>;
  /** Queries not run because the time budget ran out. */
  skipped: number;
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Calls each query once through MCP (and the direct path when given), results unused. */
export async function warmUp(clients: Clients, accountId: number, queries: BenchQuery[], direct?: () => Promise<unknown>[]) {
  for (const q of queries) await callTool(clients[q.role], accountId, q);
  if (direct) for (const d of direct()) await d;
}

/**
 * A help desk statement shorter than this (ms) runs beside every call whatever --helpdesk-reps
 * says (bench/run/runs.ts), and its query gets SHORT_STATEMENT_PAIRS pairs in the help desk's block
 * instead of --reps. Such statements are where the two sides are closest, and a median of three
 * runs of a few ms (one run of the help desk's at L) put four kinds of one query at ×0.68–0.98 in
 * the full bench at L, which `bench:core` (40 queries a tool, 7 rounds) put at ×1.02–1.40. The
 * extra pairs cost well under 0.1 s a query.
 */
export const SHORT_STATEMENT_MS = 25;
export const SHORT_STATEMENT_PAIRS = 9;

/**
 * How many help desk runs every query of `runs` (one list a query) has: a short statement runs
 * more often (SHORT_STATEMENT_MS), and a p50 or p95 over all the runs of a tool would weigh its
 * queries by their number of runs. Per-query medians use them all.
 */
export function evenRunCount(runs: ReadonlyArray<readonly number[]>): number {
  return Math.min(...runs.filter((r) => r.length > 0).map((r) => r.length));
}

/** Each query's first evenRunCount runs, together. */
export function evenRuns(runs: ReadonlyArray<readonly number[]>): number[] {
  const n = evenRunCount(runs);
  return runs.flatMap((r) => r.slice(0, n));
}

/**
 * Each query `reps` times at concurrency 1; with `directRun`, the direct baseline runs right next to
 * each MCP call (order alternating per rep), so both see the same cache and machine load; with
 * `helpdeskRun`, the help desk's SQL of the same queries afterwards, in a block of its own.
 */
export async function measureLatency(
  clients: Clients,
  accountId: number,
  queries: BenchQuery[],
  opts: {
    reps: number;
    budgetSeconds: number;
    directRun?: (q: BenchQuery) => Promise<number>;
    rawRun?: (q: BenchQuery) => Promise<CallOutcome>;
    /** ms of the help desk's SQL, or undefined when it is not run for this call (run after searchdesk's calls; not against the budget). */
    helpdeskRun?: (q: BenchQuery) => Promise<number | undefined>;
  },
): Promise<LatencyResult> {
  const samples: QuerySample[] = queries.map((query) => ({ query, mcp: [], direct: [], raw: [], helpdesk: [], directBlock: [] }));
  const overheads: number[] = [];
  const serverOverheads: number[] = [];
  const errors: string[] = [];
  const engines: Record<string, number> = {};
  const deadline = performance.now() + opts.budgetSeconds * 1000;
  let skipped = 0;
  for (let rep = 0; rep < opts.reps; rep++) {
    for (const s of samples) {
      if (performance.now() > deadline) {
        skipped++;
        continue;
      }
      const runDirect = async () => {
        if (!opts.directRun) return undefined;
        try {
          return await opts.directRun(s.query);
        } catch (err) {
          errors.push(`direct ${s.query.tool} ${JSON.stringify(s.query.args)}: ${(err as Error).message.slice(0, 160)}`);
          return undefined;
        }
      };
      let d: number | undefined;
      if (rep % 2 === 0) d = await runDirect();
      const out = await callTool(clients[s.query.role], accountId, s.query);
      if (rep % 2 === 1) d = await runDirect();
      if (!out.ok) {
        errors.push(`${s.query.tool} ${JSON.stringify(s.query.args)}: ${out.error ?? ''}`);
        continue;
      }
      if (out.engine) engines[out.engine] = (engines[out.engine] ?? 0) + 1;
      s.mcp.push(out.ms);
      const raw = opts.rawRun ? await opts.rawRun(s.query) : undefined;
      if (raw?.ok) s.raw.push(raw.ms);
      else if (raw) errors.push(`raw ${s.query.tool} ${JSON.stringify(s.query.args)}: ${raw.error ?? ''}`);
      if (d !== undefined) {
        s.direct.push(d);
        overheads.push(out.ms - d);
        if (raw?.ok) serverOverheads.push(raw.ms - d);
      }
    }
  }
  // The help desk's statements of these queries in a block of their own, after searchdesk's calls:
  // one that reads a whole table (seconds at L) between two calls would evict the other's pages
  // from shared_buffers, and neither side would be warm. The direct path runs again next to each
  // of them (also where the help desk's statement already has its runs from an earlier phase), so
  // "core only" compares two statements measured alike: the direct runs between MCP calls share
  // the two cores with the server process and its connections. Not against the budget.
  const short = (s: QuerySample) => s.helpdesk.length > 0 && median(s.helpdesk) < SHORT_STATEMENT_MS;
  if (opts.helpdeskRun)
    for (let rep = 0; rep < Math.max(opts.reps, SHORT_STATEMENT_PAIRS); rep++)
      for (const s of samples) {
        if (rep >= opts.reps && !short(s)) continue;
        const directFirst = rep % 2 === 1;
        const blockDirect = async () => {
          if (!opts.directRun || s.mcp.length === 0) return;
          try {
            s.directBlock.push(await opts.directRun(s.query));
          } catch (err) {
            errors.push(`direct ${s.query.tool} ${JSON.stringify(s.query.args)}: ${(err as Error).message.slice(0, 160)}`);
          }
        };
        if (directFirst) await blockDirect();
        try {
          const v = await opts.helpdeskRun(s.query);
          if (v !== undefined) s.helpdesk.push(v);
        } catch (err) {
          errors.push(`help desk SQL ${s.query.tool} ${JSON.stringify(s.query.args)}: ${(err as Error).message.slice(0, 160)}`);
        }
        if (!directFirst) await blockDirect();
      }
  return {
    samples,
    mcp: summarize(samples.flatMap((s) => s.mcp)),
    direct: summarize(samples.flatMap((s) => s.direct)),
    raw: summarize(samples.flatMap((s) => s.raw)),
    helpdesk: summarize(evenRuns(samples.map((s) => s.helpdesk))),
    overheads,
    serverOverheads,
    errors,
    engines,
    skipped,
  };
}

/** The figures of `result` for the queries in `keep` only. */
export function restrict(result: LatencyResult, keep: ReadonlySet<BenchQuery>): LatencyResult {
  const samples = result.samples.filter((s) => keep.has(s.query));
  return {
    ...result,
    samples,
    mcp: summarize(samples.flatMap((s) => s.mcp)),
    direct: summarize(samples.flatMap((s) => s.direct)),
    raw: summarize(samples.flatMap((s) => s.raw)),
    helpdesk: summarize(evenRuns(samples.map((s) => s.helpdesk))),
  };
}

/** Direct runs of `queries` (warm-up of the baseline path). */
export function directWarmers(direct: Direct, queries: BenchQuery[], gin: boolean, engine: DirectEngine) {
  return () => queries.map((q) => direct.run(q, { gin, engine }).catch(() => undefined));
}

/** Rounds of the message queries through a search engine before it is measured (warmEngine). */
export const ENGINE_WARM_ROUNDS = 20;

/**
 * Warms a search engine (Elasticsearch, OpenSearch: a JVM compiling its search path as it runs)
 * with ENGINE_WARM_ROUNDS rounds of the message queries, one at a time, on the direct path. One
 * warm-up call a query is not enough for it: on a freshly started server an empty search took
 * 3.6 ms (median of the first 40), and 1.2 ms after 1,000; a cluster that serves a help desk is
 * warm. Postgres needs no more than its one call a query (its cache is the data's, warmed by it).
 */
export async function warmEngine(direct: Direct, queries: BenchQuery[], engine: DirectEngine): Promise<void> {
  if (engine.kind === 'postgres') return;
  for (let round = 0; round < ENGINE_WARM_ROUNDS; round++)
    for (const q of queries) await direct.run(q, { gin: true, engine }).catch(() => undefined);
}

/** A message search that no message matches: `qzxjqv` is in no message of the bench data, at any scale. */
const NO_MATCH: BenchQuery = { tool: 'search_messages', kind: 'no match', role: 'admin', args: { q: 'qzxjqv' } };

/**
 * What a message search costs on `engine` before it finds anything: the median of 40 runs of
 * NO_MATCH through the core, warm. On Elasticsearch or OpenSearch that is the search's one round
 * trip, with no ids and so no records to read; a page of matches adds that read from Postgres.
 * No message search on the engine can be faster, whatever its words.
 */
export async function messageFloor(direct: Direct, engine: DirectEngine): Promise<number> {
  for (let i = 0; i < 5; i++) await direct.run(NO_MATCH, { gin: true, engine });
  const times: number[] = [];
  for (let i = 0; i < 40; i++) times.push(await direct.run(NO_MATCH, { gin: true, engine }));
  return median(times);
}

export interface ThroughputResult {
  concurrency: number;
  seconds: number;
  calls: number;
  errors: number;
  callsPerSecond: number;
  latency: Summary;
  peakRssMb: number;
  firstErrors: string[];
}

/** `concurrency` workers calling the mixed workload in turn for `seconds`; RSS sampled meanwhile. */
export async function measureThroughput(
  clientsPerWorker: Clients[],
  accountId: number,
  queries: BenchQuery[],
  opts: { concurrency: number; seconds: number; pid: number },
): Promise<ThroughputResult> {
  const latencies: number[] = [];
  const firstErrors: string[] = [];
  let errors = 0;
  const rss = sampleRss(opts.pid);
  const started = performance.now();
  const deadline = started + opts.seconds * 1000;
  const worker = async (w: number) => {
    const clients = clientsPerWorker[w % clientsPerWorker.length] as Clients;
    let i = Math.floor((w * queries.length) / opts.concurrency);
    while (performance.now() < deadline) {
      const q = queries[i++ % queries.length] as BenchQuery;
      const out = await callTool(clients[q.role], accountId, q);
      if (out.ok) latencies.push(out.ms);
      else {
        errors++;
        if (firstErrors.length < 5) firstErrors.push(`${q.tool} ${JSON.stringify(q.args)}: ${out.error ?? ''}`);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, (_, w) => worker(w)));
  const seconds = (performance.now() - started) / 1000;
  const peakRssMb = rss.stop();
  await wait(200);
  return {
    concurrency: opts.concurrency,
    seconds,
    calls: latencies.length,
    errors,
    callsPerSecond: latencies.length / seconds,
    latency: summarize(latencies),
    peakRssMb,
    firstErrors,
  };
}

/** The query whose median MCP latency is the highest. */
export function slowest(result: LatencyResult): QuerySample | undefined {
  return [...result.samples].filter((s) => s.mcp.length > 0).sort((a, b) => median(b.mcp) - median(a.mcp))[0];
}
