/**
 * The fixed cost of the surfaces and the stdio cold start (issue 11, items 4 and 5), on its own:
 *
 * - stdio cold start: ms from spawning `node dist/cli.js` (stdio, DATABASE_URL set) to the answer of
 *   `tools/list` (initialize → initialized → tools/list, as an MCP client does), and the child's
 *   peak RSS (VmHWM), median of `--spawns` runs;
 * - per-call fixed cost: for cheap queries, (one plain JSON-RPC `tools/call` POST to /mcp) − (the
 *   same search run directly through the core in-process, access resolved once), and the same for
 *   the REST route; paired, alternating order, median over `--calls` pairs. Each surface is called
 *   through two clients: a minimal keep-alive HTTP client (perf/rawhttp.ts: the server's own
 *   cost, the figure the targets use) and `fetch` (undici, what most clients use: its own
 *   per-request work included). GET /healthz through both shows what the clients themselves take.
 *
 * Run: `npm run build && npm run bench:build && node dist-bench/bench/overhead.js`
 * Options: --database-url URL (default sd_bench_m), --token T, --account N, --spawns N, --calls N,
 * --json (one JSON summary on stdout instead of the text; `npm run bench` runs it that way),
 * --era 2025-06-18|2026-07-28 (the protocol the stdio and HTTP clients speak; default 2025-06-18).
 * `--embedded first|later`: only the stdio cold start, on the embedded demo database (no
 * DATABASE_URL, no token): `first` gives every spawn a new SEARCHDESK_DATA_DIR (the demo is created
 * in the background while the handshake is answered), `later` one directory the demo already has.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { resolveAccess, type AccessContext } from '../src/auth/access.js';
import { createPgDb } from '../src/db/pg.js';
import { createPostgresEngine } from '../src/search/messages/postgres.js';
import type { MessageEngines } from '../src/search/messages/index.js';
import { parseParams, type Operation } from '../src/search/params.js';
import { runSearch } from '../src/search/service.js';
import { RawHttp } from './perf/rawhttp.js';
import { CLI, cliEnv, serverCliEnv, startServer } from './perf/server.js';
import { median, ms, quantile } from './perf/stats.js';
import type { Overhead } from './run/results.js';

const { values: opts } = parseArgs({
  options: {
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/sd_bench_m' },
    token: { type: 'string', default: 'bench-admin-token' },
    account: { type: 'string', default: '1' },
    spawns: { type: 'string', default: '9' },
    calls: { type: 'string', default: '300' },
    'log-level': { type: 'string', default: 'info' },
    json: { type: 'boolean', default: false },
    embedded: { type: 'string' },
    era: { type: 'string', default: '2025-06-18' },
  },
});
/** The clients' protocol version; 2026-07-28 sends discovery and every request with its `_meta` envelope (src/mcp/modern.ts answers). */
const ERA = opts.era;
const MODERN = ERA === '2026-07-28';
/** What a 2026-07-28 request carries in `params`: the per-request envelope. */
const ENVELOPE = MODERN
  ? {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': ERA,
        'io.modelcontextprotocol/clientInfo': { name: 'overhead', version: '0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    }
  : {};
const DATABASE_URL = opts['database-url'];
const TOKEN = opts.token;
const ACCOUNT = Number(opts.account);
const SPAWNS = Math.max(7, Number(opts.spawns));
const CALLS = Math.max(200, Number(opts.calls));

/** Peak resident set (VmHWM) of a live process, in MB. */
function peakRssMb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** CPU ms (user + system) a live process has used so far. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
  } catch {
    return Number.NaN;
  }
}

/** One spawn → tools/list answer, with a plain JSON-RPC client (no SDK in the measured path). */
function coldStart(
  env = cliEnv({ DATABASE_URL, SEARCHDESK_ACCESS_TOKEN: TOKEN, LOG_LEVEL: opts['log-level'] }),
): Promise<{ ms: number; rssMb: number; cpuMs: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const send = (msg: object) => child.stdin.write(`${JSON.stringify(msg)}\n`);
  send(
    MODERN
      ? { jsonrpc: '2.0', id: 1, method: 'server/discover', params: ENVELOPE }
      : {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: ERA, capabilities: {}, clientInfo: { name: 'overhead', version: '0' } },
        },
  );
  return new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no tools/list answer in 60 s:\n${stderr}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before answering:\n${stderr}`));
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) !== -1) {
        const msg = JSON.parse(buffer.slice(0, nl)) as { id?: number; result?: { tools?: unknown[] } };
        buffer = buffer.slice(nl + 1);
        if (msg.id === 1) {
          if (!MODERN) send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: ENVELOPE });
        } else if (msg.id === 2) {
          const elapsed = performance.now() - started;
          const rssMb = peakRssMb(child.pid as number);
          const cpu = cpuMs(child.pid as number);
          child.removeAllListeners('exit');
          clearTimeout(timer);
          child.once('exit', () => resolve({ ms: elapsed, rssMb, cpuMs: cpu }));
          if (!msg.result?.tools?.length) reject(new Error('tools/list answered no tools'));
          child.stdin.end();
        }
      }
    });
  });
}

/** ms to spawn `node -e ''` and see it exit: what the machine's Node start costs right now. */
function bareNode(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  return new Promise((resolve) => child.once('exit', () => resolve(performance.now() - started)));
}

interface Cheap {
  label: string;
  tool: string;
  op: Operation;
  args: Record<string, string | number>;
  rest: string;
}

const CHEAP: Cheap[] = [
  {
    label: 'search_articles, rare term',
    tool: 'search_articles',
    op: 'articles',
    args: { q: 'zyxwvut' },
    rest: 'articles?q=zyxwvut',
  },
  {
    label: 'search_contacts, common term',
    tool: 'search_contacts',
    op: 'contacts',
    args: { q: 'example' },
    rest: 'contacts?q=example',
  },
];

let rpcId = 1;

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': ERA,
  ...(MODERN ? { 'mcp-method': 'tools/call' } : {}),
  api_access_token: TOKEN,
};

/** The headers of one call (2026-07-28 also names the tool in `Mcp-Name`). */
const mcpHeaders = (c: Cheap): Record<string, string> => (MODERN ? { ...MCP_HEADERS, 'mcp-name': c.tool } : MCP_HEADERS);

const mcpBody = (c: Cheap) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: rpcId++,
    method: 'tools/call',
    params: { name: c.tool, arguments: { ...c.args, account_id: ACCOUNT }, ...ENVELOPE },
  });

const restPath = (c: Cheap) => `/api/v1/accounts/${ACCOUNT}/search/${c.rest}`;

function checkMcp(status: number, text: string): void {
  if (status !== 200 || text.includes('"isError":true') || text.includes('"error"')) throw new Error(`MCP ${status}: ${text}`);
}

function checkRest(status: number, text: string): void {
  if (status !== 200) throw new Error(`REST ${status}: ${text}`);
}

/** One surface call through one client: resolves with its ms. */
type Call = (c: Cheap) => Promise<number>;

function fetchClient(base: string): { mcp: Call; rest: Call; healthz: () => Promise<number> } {
  return {
    async mcp(c) {
      const started = performance.now();
      const res = await fetch(`${base}/mcp`, { method: 'POST', headers: mcpHeaders(c), body: mcpBody(c) });
      const text = await res.text();
      const elapsed = performance.now() - started;
      checkMcp(res.status, text);
      return elapsed;
    },
    async rest(c) {
      const started = performance.now();
      const res = await fetch(`${base}${restPath(c)}`, { headers: { api_access_token: TOKEN } });
      const text = await res.text();
      const elapsed = performance.now() - started;
      checkRest(res.status, text);
      return elapsed;
    },
    async healthz() {
      const started = performance.now();
      await (await fetch(`${base}/healthz`)).text();
      return performance.now() - started;
    },
  };
}

function rawClient(raw: RawHttp): { mcp: Call; rest: Call; healthz: () => Promise<number> } {
  return {
    async mcp(c) {
      const started = performance.now();
      const res = await raw.request('POST', '/mcp', mcpHeaders(c), mcpBody(c));
      const elapsed = performance.now() - started;
      checkMcp(res.status, res.body);
      return elapsed;
    },
    async rest(c) {
      const started = performance.now();
      const res = await raw.request('GET', restPath(c), { api_access_token: TOKEN });
      const elapsed = performance.now() - started;
      checkRest(res.status, res.body);
      return elapsed;
    },
    async healthz() {
      const started = performance.now();
      await raw.request('GET', '/healthz', {});
      return performance.now() - started;
    },
  };
}

/** The stdio cold start on the embedded demo database (`--embedded first|later`), printed on its own. */
async function embeddedColdStarts(mode: string): Promise<void> {
  if (mode !== 'first' && mode !== 'later') throw new Error('--embedded takes first or later');
  const root = mkdtempSync(join(tmpdir(), 'searchdesk-coldstart-'));
  const env = (dir: string) => cliEnv({ SEARCHDESK_DATA_DIR: join(root, dir), LOG_LEVEL: opts['log-level'] });
  try {
    await coldStart(env('shared')); // the file-system cache, and the demo of `later` (created before the exit)
    const starts: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < SPAWNS; i++) {
      starts.push((await coldStart(env(mode === 'first' ? `fresh-${i}` : 'shared'))).ms);
      bare.push(await bareNode());
    }
    process.stdout.write(
      `stdio cold start on the embedded demo (${mode} run${mode === 'first' ? ', a new data directory each' : ''}), ` +
        `spawn → tools/list answer, ${SPAWNS} spawns: median ${ms(median(starts))} ms ` +
        `(min ${ms(Math.min(...starts))}, max ${ms(Math.max(...starts))}); bare \`node -e ''\` median ${ms(median(bare))} ms\n`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (opts.embedded !== undefined) return embeddedColdStarts(opts.embedded);
  // --- stdio cold start
  await coldStart(); // the file-system cache, once
  const starts: number[] = [];
  const rss: number[] = [];
  const bare: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < SPAWNS; i++) {
    const r = await coldStart();
    starts.push(r.ms);
    rss.push(r.rssMb);
    cpu.push(r.cpuMs);
    bare.push(await bareNode());
  }

  // --- per-call fixed cost
  const logger = pino({ level: 'silent' });
  const db = createPgDb({ url: DATABASE_URL, readOnly: true, statementTimeoutMs: 5_000, poolSize: 2, logger });
  const postgres = createPostgresEngine(db);
  const engines: MessageEngines = { primary: postgres, postgres, gate: 'flag' };
  const owner = await db.query<{ owner_id: number }>(
    { text: 'SELECT owner_id FROM access_tokens WHERE token = $1', values: [TOKEN] },
    'bench',
  );
  const access: AccessContext = await resolveAccess(db, { userId: Number(owner[0]?.owner_id) }, ACCOUNT);
  const ctx = { db, access, logger, now: Date.now };
  const direct = async (c: Cheap): Promise<number> => {
    const started = performance.now();
    await runSearch(ctx, engines, c.op, parseParams(c.op, c.args));
    return performance.now() - started;
  };

  const server = await startServer(serverCliEnv({ DATABASE_URL, LOG_LEVEL: opts['log-level'] }));
  const raw = new RawHttp(new URL(server.url));
  const clients = { raw: rawClient(raw), fetch: fetchClient(server.url) };
  type Side = 'direct' | 'mcpRaw' | 'restRaw' | 'mcpFetch' | 'restFetch';
  const rows: string[] = [];
  const jsonRows: Overhead['rows'] = [];
  const all = { mcpRaw: [] as number[], restRaw: [] as number[], mcpFetch: [] as number[], restFetch: [] as number[] };
  const healthz = { raw: [] as number[], fetch: [] as number[] };
  try {
    for (const c of CHEAP) {
      const calls: Record<Side, () => Promise<number>> = {
        direct: () => direct(c),
        mcpRaw: () => clients.raw.mcp(c),
        restRaw: () => clients.raw.rest(c),
        mcpFetch: () => clients.fetch.mcp(c),
        restFetch: () => clients.fetch.rest(c),
      };
      const sides = Object.keys(calls) as Side[];
      for (let i = 0; i < 20; i++) for (const side of sides) await calls[side]();
      const t = Object.fromEntries(sides.map((side) => [side, [] as number[]])) as Record<Side, number[]>;
      const over = { mcpRaw: [] as number[], restRaw: [] as number[], mcpFetch: [] as number[], restFetch: [] as number[] };
      for (let i = 0; i < CALLS; i++) {
        // Alternate the order so no side always runs on a freshly warmed connection.
        const got = {} as Record<Side, number>;
        for (const side of i % 2 === 0 ? sides : [...sides].reverse()) got[side] = await calls[side]();
        for (const side of sides) t[side].push(got[side]);
        for (const side of Object.keys(over) as Array<keyof typeof over>) over[side].push(got[side] - got.direct);
        healthz.raw.push(await clients.raw.healthz());
        healthz.fetch.push(await clients.fetch.healthz());
      }
      for (const side of Object.keys(over) as Array<keyof typeof over>) all[side].push(...over[side]);
      jsonRows.push({
        label: c.label,
        coreP50: median(t.direct),
        mcpP50: median(t.mcpRaw),
        mcpOverheadP50: median(over.mcpRaw),
        restP50: median(t.restRaw),
        restOverheadP50: median(over.restRaw),
        mcpFetchOverheadP50: median(over.mcpFetch),
        restFetchOverheadP50: median(over.restFetch),
      });
      rows.push(
        `| ${c.label} | ${ms(median(t.direct))} | ${ms(median(t.mcpRaw))} | ${ms(median(over.mcpRaw))} | ${ms(quantile(over.mcpRaw, 0.9))} | ${ms(median(over.mcpFetch))} | ${ms(median(t.restRaw))} | ${ms(median(over.restRaw))} | ${ms(quantile(over.restRaw, 0.9))} | ${ms(median(over.restFetch))} |`,
      );
    }
  } finally {
    raw.close();
    await server.stop();
    await db.close();
  }

  if (opts.json) {
    const summary: Overhead = {
      coldStartMs: starts,
      coldStartMedianMs: median(starts),
      coldStartPeakRssMb: median(rss),
      bareNodeMs: median(bare),
      mcpOverheadMedianMs: median(all.mcpRaw),
      restOverheadMedianMs: median(all.restRaw),
      mcpFetchOverheadMedianMs: median(all.mcpFetch),
      restFetchOverheadMedianMs: median(all.restFetch),
      healthzRawMs: median(healthz.raw),
      healthzFetchMs: median(healthz.fetch),
      rows: jsonRows,
    };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  const out = [
    `searchdesk fixed costs (${new Date().toISOString()}, node ${process.version}, LOG_LEVEL=${opts['log-level']})`,
    '',
    `stdio cold start, spawn → tools/list answer, ${SPAWNS} spawns: median ${ms(median(starts))} ms ` +
      `(min ${ms(Math.min(...starts))}, max ${ms(Math.max(...starts))}), CPU mean ${ms(cpu.reduce((a, b) => a + b, 0) / cpu.length)} ms; peak RSS median ${median(rss).toFixed(1)} MB ` +
      `(max ${Math.max(...rss).toFixed(1)} MB); bare \`node -e ''\` median ${ms(median(bare))} ms`,
    '',
    `per-call fixed cost, ${CALLS} paired calls per query (ms; overhead = surface − core in-process; minimal client unless "fetch"):`,
    '',
    '| query | core p50 | MCP POST p50 | MCP overhead p50 | MCP overhead p90 | MCP overhead, fetch, p50 | REST p50 | REST overhead p50 | REST overhead p90 | REST overhead, fetch, p50 |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `GET /healthz (no core, no token): minimal client ${ms(median(healthz.raw))} ms, fetch ${ms(median(healthz.fetch))} ms median.`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
