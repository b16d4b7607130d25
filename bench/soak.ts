/**
 * Load soak (issue 6), never part of `npm test`: a bounded run of mixed MCP tool calls over
 * Streamable HTTP against a spawned `node dist/cli.js serve --http` on a bench database
 * (`npm run bench:data -- --scale M`). Reports failed calls (must be 0), the server's open
 * connections and sockets over time, its RSS after warm-up and at the end (must stay within
 * 20 %), calls/s and latency percentiles. Stops by itself: a call count and a time limit.
 *
 *   npm run build && npm run bench:build && node dist-bench/bench/soak.js --database-url URL
 *
 * Exit code 0 when every check passed, 1 when one failed, 2 on bad usage.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LARGE_ADMIN_TOKEN, LARGE_AGENT_TOKEN } from './generator/org.js';
import { newLoadState, runLoad, type LoadState } from './soak-load.js';
import { percentile, rssMb, sampleProcess, type ProcessSample } from './soak-probe.js';

const HELP = `Usage: node dist-bench/bench/soak.js [options]

  --database-url URL     Bench database (default: DATABASE_URL, else postgres://postgres@127.0.0.1:5432/sd_soak)
  --calls N              Tool calls to make (default 50000)
  --concurrency N        Calls in flight (default 32)
  --warmup N             Calls before the RSS baseline and the latency figures (default 2000)
  --max-seconds N        Stop issuing calls after this long, whatever the count (default 2400)
  --seed N               Call mix seed (default 1)
  --admin-token T        Caller 1 (default ${LARGE_ADMIN_TOKEN}); --agent-token T: caller 2 (default ${LARGE_AGENT_TOKEN})
  --json                 Print the summary as JSON instead of text
  -h, --help             Show this help
`;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.js');
const RSS_TOLERANCE = 0.2;
/** RSS moves with every garbage collection: compare medians of this many 1-second samples. */
const RSS_WINDOW = 15;

interface Args {
  databaseUrl: string;
  calls: number;
  concurrency: number;
  warmup: number;
  maxSeconds: number;
  seed: number;
  adminToken: string;
  agentToken: string;
  json: boolean;
}

function parse(argv: string[]): Args | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      'database-url': { type: 'string' },
      calls: { type: 'string', default: '50000' },
      concurrency: { type: 'string', default: '32' },
      warmup: { type: 'string', default: '2000' },
      'max-seconds': { type: 'string', default: '2400' },
      seed: { type: 'string', default: '1' },
      'admin-token': { type: 'string', default: LARGE_ADMIN_TOKEN },
      'agent-token': { type: 'string', default: LARGE_AGENT_TOKEN },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return undefined;
  const int = (name: keyof typeof values, min: number) => {
    const v = Number(values[name]);
    if (!Number.isSafeInteger(v) || v < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
    return v;
  };
  const args: Args = {
    databaseUrl: values['database-url'] ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sd_soak',
    calls: int('calls', 1),
    concurrency: int('concurrency', 1),
    warmup: int('warmup', 0),
    maxSeconds: int('max-seconds', 1),
    seed: int('seed', 0),
    adminToken: values['admin-token'],
    agentToken: values['agent-token'],
    json: values.json,
  };
  if (args.warmup >= args.calls) throw new Error('--warmup must be smaller than --calls');
  return args;
}

interface Server {
  child: ChildProcess;
  url: string;
  port: number;
  /** Log lines at warn (40) or above, as the server wrote them. */
  problems: string[];
  stop(): Promise<number | null>;
}

/** Starts `searchdesk serve --http --port 0` (info logs, as in production) and waits until it listens. */
function startServer(databaseUrl: string): Promise<Server> {
  const child = spawn(process.execPath, [CLI, 'serve', '--http', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const problems: string[] = [];
  let pending = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not start within 20 s')), 20_000);
    void exited.then((code) => reject(new Error(`the server exited with ${code}: ${problems.join('\n')}`)));
    child.stderr.on('data', (d: Buffer) => {
      const lines = (pending + d.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        let entry: { level?: number; event?: string; url?: string };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          entry = { level: 40 }; // not a log line: worth a look
        }
        if ((entry.level ?? 0) >= 40 && problems.length < 50) problems.push(line);
        if (entry.event === 'listening' && entry.url) {
          clearTimeout(timer);
          const port = Number(new URL(entry.url).port);
          resolve({ child, url: entry.url, port, problems, stop: () => (child.kill('SIGTERM'), exited) });
        }
      }
    });
  });
}

/** Tool calls the server counted, by status (from /metrics). */
async function serverToolCalls(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const byStatus: Record<string, number> = {};
  for (const m of text.matchAll(/^searchdesk_tool_calls_total\{tool="[^"]+",status="([^"]+)"\} (\d+)$/gm))
    byStatus[m[1]!] = (byStatus[m[1]!] ?? 0) + Number(m[2]);
  return byStatus;
}

interface Report {
  command: string;
  machine: string;
  calls: { requested: number; done: number; failed: number; expectedToolErrors: number; byTool: Record<string, number> };
  seconds: number;
  callsPerSecond: number;
  latencyMs: Latency & { byTool: Record<string, Latency> };
  /** afterWarmup and end: medians of RSS_WINDOW samples; growth in %. */
  rssMb: { start: number; afterWarmup: number; end: number; growth: number; min: number; max: number };
  connections: { httpMin: number; httpMax: number; socketsMin: number; socketsMax: number; timeline: ProcessSample[] };
  serverToolCalls: Record<string, number>;
  serverWarnings: number;
  failures: LoadState['failures'];
  checks: Record<string, boolean>;
}

async function soak(args: Args): Promise<Report> {
  const server = await startServer(args.databaseUrl);
  const pid = server.child.pid!;
  const state = newLoadState(args.calls);
  const samples: ProcessSample[] = [];
  const startLoad = loadavg()[0]!;
  const startRss = rssMb(pid);
  const started = Date.now();
  const sample = () => {
    const s = sampleProcess(pid, server.port, (Date.now() - started) / 1000, state.done);
    samples.push(s);
    return s;
  };
  const sampler = setInterval(() => {
    const s = sample();
    if (samples.length % 10 === 0)
      process.stderr.write(
        `${s.t.toFixed(0)} s: ${s.calls} calls, ${state.failed} failed, rss ${s.rssMb} MB, ${s.httpConnections} connections, ${s.sockets} sockets\n`,
      );
  }, 1_000);
  try {
    await runLoad(
      {
        baseUrl: server.url,
        tokens: { admin: args.adminToken, agent: args.agentToken },
        seed: args.seed,
        calls: args.calls,
        concurrency: args.concurrency,
        deadline: started + args.maxSeconds * 1000,
        callTimeoutMs: 30_000,
      },
      state,
    );
  } finally {
    clearInterval(sampler);
  }
  const seconds = (Date.now() - started) / 1000;
  sample();
  const toolCalls = await serverToolCalls(server.url);
  const exitCode = await server.stop();

  const during = samples.filter((s) => s.calls >= args.warmup && s.calls < state.done);
  const warmRss = median(during.slice(0, RSS_WINDOW).map((s) => s.rssMb));
  const endRss = median(during.slice(-RSS_WINDOW).map((s) => s.rssMb));
  const growth = (endRss - warmRss) / warmRss;
  const serverTotal = Object.values(toolCalls).reduce((a, b) => a + b, 0);
  const errors = Object.entries(toolCalls).filter(([status]) => !['ok', 'invalid_params', 'window_exceeded'].includes(status));
  return {
    command: `node dist-bench/bench/soak.js ${process.argv.slice(2).join(' ')}`.trim(),
    machine: `${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load average ${startLoad.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end (client, server and Postgres share the machine)`,
    calls: {
      requested: args.calls,
      done: state.done,
      failed: state.failed,
      expectedToolErrors: state.expectedErrors,
      byTool: state.byTool,
    },
    seconds: Math.round(seconds * 10) / 10,
    callsPerSecond: Math.round(state.done / seconds),
    latencyMs: {
      ...latency(state, args.warmup, () => true),
      byTool: Object.fromEntries(Object.keys(state.byTool).map((tool) => [tool, latency(state, args.warmup, (t) => t === tool)])),
    },
    rssMb: {
      start: startRss,
      afterWarmup: warmRss,
      end: endRss,
      growth: Math.round(growth * 1000) / 10,
      min: Math.min(...during.map((s) => s.rssMb)),
      max: Math.max(...during.map((s) => s.rssMb)),
    },
    connections: {
      httpMin: Math.min(...during.map((s) => s.httpConnections)),
      httpMax: Math.max(...during.map((s) => s.httpConnections)),
      socketsMin: Math.min(...during.map((s) => s.sockets)),
      socketsMax: Math.max(...during.map((s) => s.sockets)),
      timeline: samples,
    },
    serverToolCalls: toolCalls,
    serverWarnings: server.problems.length,
    failures: state.failures,
    checks: {
      'every call made': state.done === args.calls,
      'zero failed calls': state.failed === 0,
      'server counted every call, none failed': serverTotal === state.done && errors.length === 0,
      'RSS at the end within 20 % of after warm-up': Math.abs(growth) <= RSS_TOLERANCE,
      // One keep-alive connection per call in flight, plus a few idle ones: no accumulation.
      'HTTP connections bounded by the concurrency': during.every((s) => s.httpConnections <= args.concurrency * 2),
      'no warning or error logged': server.problems.length === 0,
      'clean shutdown (exit 0)': exitCode === 0,
    },
  };
}

const round = (v: number) => Math.round(v * 10) / 10;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)]!;
}

interface Latency {
  calls: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Latency percentiles (ms) of the calls after warm-up whose tool passes `keep`. */
function latency(state: LoadState, warmup: number, keep: (tool: string) => boolean): Latency {
  const values: number[] = [];
  for (let i = warmup; i < state.latencies.length; i++)
    if (!Number.isNaN(state.latencies[i]!) && keep(state.tools[i]!)) values.push(state.latencies[i]!);
  const sorted = Float64Array.from(values).sort();
  return {
    calls: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? NaN),
  };
}

function formatReport(r: Report): string {
  const every = Math.max(1, Math.ceil(r.connections.timeline.length / 12));
  const timeline = r.connections.timeline
    .filter((_, i, all) => i % every === 0 || i === all.length - 1)
    .map((s) => `| ${s.t.toFixed(0)} | ${s.calls} | ${s.httpConnections} | ${s.timeWait} | ${s.sockets} | ${s.rssMb} |`);
  return [
    `command: ${r.command}`,
    `machine: ${r.machine}`,
    `calls: ${r.calls.done} of ${r.calls.requested} in ${r.seconds} s = ${r.callsPerSecond} calls/s; failed ${r.calls.failed}; expected tool errors ${r.calls.expectedToolErrors}`,
    `by tool: ${JSON.stringify(r.calls.byTool)}; server counted: ${JSON.stringify(r.serverToolCalls)}`,
    `latency after warm-up (ms): p50 ${r.latencyMs.p50}, p95 ${r.latencyMs.p95}, p99 ${r.latencyMs.p99}, max ${r.latencyMs.max}`,
    ...Object.entries(r.latencyMs.byTool).map(
      ([tool, l]) => `  ${tool}: ${l.calls} calls, p50 ${l.p50}, p95 ${l.p95}, p99 ${l.p99}, max ${l.max}`,
    ),
    `RSS (MB): start ${r.rssMb.start}, after warm-up ${r.rssMb.afterWarmup}, end ${r.rssMb.end} (medians of ${RSS_WINDOW} s; ${r.rssMb.growth >= 0 ? '+' : ''}${r.rssMb.growth} %); range during the run ${r.rssMb.min}–${r.rssMb.max}`,
    `HTTP connections during the run: ${r.connections.httpMin}–${r.connections.httpMax}; server sockets ${r.connections.socketsMin}–${r.connections.socketsMax}`,
    '',
    '| s | calls | HTTP connections | TIME_WAIT | server sockets | RSS MB |',
    '| --: | --: | --: | --: | --: | --: |',
    ...timeline,
    '',
    ...Object.entries(r.checks).map(([name, ok]) => `${ok ? 'PASS' : 'FAIL'} ${name}`),
    ...r.failures.map((f) => `failure #${f.i} ${f.tool}: ${f.reason}`),
  ].join('\n');
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
  const report = await soak(args);
  process.stdout.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
  return Object.values(report.checks).every(Boolean) ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
