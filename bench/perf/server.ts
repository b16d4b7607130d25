/**
 * The measured surface: `node dist/cli.js serve --http --port 0` as a child process, SDK clients
 * over Streamable HTTP (header api_access_token), the child's resident memory, and the stdio
 * cold start (spawn → first tools/list answer).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { RawHttp } from './rawhttp.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { BenchQuery } from './workload.js';

/** dist-bench/bench/perf → the repository root. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CLI = join(ROOT, 'dist', 'cli.js');

/**
 * Nothing inherited but PATH, HOME and SEARCHDESK_PG_PREPARED_STATEMENTS (an A/B of prepared
 * statements runs the whole bench with it set to `off`; the direct path follows it too).
 */
export function cliEnv(extra: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'info' };
  if (process.env.SEARCHDESK_PG_PREPARED_STATEMENTS)
    env.SEARCHDESK_PG_PREPARED_STATEMENTS = process.env.SEARCHDESK_PG_PREPARED_STATEMENTS;
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/**
 * The Node options of the measured HTTP server: those `npm start` and the README's serve command
 * start it with. A young generation of two 8 MB halves instead of the 16 MB V8 grows it to under
 * load: at concurrency 32 the peak RSS was 17 MB lower at M and 5 MB lower at L (`npm run
 * bench:rss`, 3 runs each), with the same throughput.
 */
export const SERVER_NODE_OPTIONS = '--max-semi-space-size=8';

/** cliEnv for the HTTP server, started as a deployment starts it (SERVER_NODE_OPTIONS). */
export function serverCliEnv(extra: Record<string, string | undefined>): Record<string, string> {
  return cliEnv({ NODE_OPTIONS: SERVER_NODE_OPTIONS, ...extra });
}

export interface HttpServer {
  url: string;
  pid: number;
  child: ChildProcess;
  /** Log lines at warn or above seen so far (engine fallbacks, errors). */
  warnings: string[];
  stop(): Promise<void>;
}

/** Starts the HTTP server and resolves at its `listening` log line; stderr is drained, warnings kept. */
export function startServer(env: Record<string, string>, timeoutMs = 30_000): Promise<HttpServer> {
  const child = spawn(process.execPath, [CLI, 'serve', '--http', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const warnings: string[] = [];
  let buffer = '';
  let early = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${early}`)), timeoutMs);
    let started = false;
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (!started) early += `${line}\n`;
        let entry: { level?: number; event?: string; url?: string } = {};
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          /* not a log line */
        }
        if ((entry.level ?? 0) >= 40 && warnings.length < 50) warnings.push(line.slice(0, 400));
        if (!started && entry.event === 'listening' && typeof entry.url === 'string') {
          started = true;
          clearTimeout(timer);
          resolve({
            url: entry.url,
            pid: child.pid as number,
            child,
            warnings,
            async stop() {
              closeRawClients(entry.url as string);
              if (child.exitCode === null) child.kill('SIGTERM');
              await exited;
            },
          });
        }
      }
    });
    void exited.then(() => {
      if (!started) {
        clearTimeout(timer);
        reject(new Error(`server exited before listening:\n${early}`));
      }
    });
  });
}

/** The 2026-07-28 revision: the v2 client pinned to it (`connectHttp`'s `era`). */
export const MODERN_ERA = '2026-07-28';

/**
 * An MCP client over HTTP: the v2 client in its default negotiation (2025 era, as hosts speak
 * today), or with `era` 2026-07-28 the same client pinned to that revision.
 */
export async function connectHttp(baseUrl: string, token: string, era?: string): Promise<Client> {
  const url = new URL('/mcp', baseUrl);
  const requestInit = { headers: { api_access_token: token } };
  const options = era === MODERN_ERA ? { versionNegotiation: { mode: { pin: era } } } : undefined;
  const client = new Client({ name: 'searchdesk-bench', version: '0.0.0' }, options);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  return client;
}

export interface CallOutcome {
  ms: number;
  ok: boolean;
  error?: string;
  engine?: string;
}

/** One tool call; a tool error (isError) counts as a failed call with its text. */
export async function callTool(client: Client, accountId: number, q: BenchQuery, timeoutMs = 120_000): Promise<CallOutcome> {
  const started = performance.now();
  try {
    const res = await client.callTool({ name: q.tool, arguments: { ...q.args, account_id: accountId } }, { timeout: timeoutMs });
    const ms = performance.now() - started;
    const meta =
      (res.structuredContent as { _meta?: { engine?: string } } | undefined)?._meta ??
      (res._meta as { engine?: string } | undefined);
    if (res.isError) {
      const content = res.content as Array<{ text?: string }> | undefined;
      return { ms, ok: false, error: content?.[0]?.text?.slice(0, 200) ?? 'tool error' };
    }
    return { ms, ok: true, engine: meta?.engine };
  } catch (err) {
    return { ms: performance.now() - started, ok: false, error: (err as Error).message.slice(0, 200) };
  }
}

let rawId = 1;
const rawClients = new Map<string, RawHttp>();

/**
 * The same tools/call as one plain JSON-RPC POST to /mcp, without the SDK client's request
 * machinery and result parsing, through the minimal keep-alive client (rawhttp.ts): what the
 * server's surface costs on its own.
 */
export async function rawCall(baseUrl: string, token: string, accountId: number, q: BenchQuery): Promise<CallOutcome> {
  let client = rawClients.get(baseUrl);
  if (!client) rawClients.set(baseUrl, (client = new RawHttp(new URL(baseUrl))));
  const started = performance.now();
  try {
    const res = await client.request(
      'POST',
      '/mcp',
      {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        api_access_token: token,
      },
      JSON.stringify({
        jsonrpc: '2.0',
        id: rawId++,
        method: 'tools/call',
        params: { name: q.tool, arguments: { ...q.args, account_id: accountId } },
      }),
    );
    const ms = performance.now() - started;
    const body = JSON.parse(res.body) as { result?: { isError?: boolean }; error?: { message?: string } };
    if (res.status !== 200 || body.error || body.result?.isError)
      return { ms, ok: false, error: `raw ${res.status} ${res.body.slice(0, 160)}` };
    return { ms, ok: true };
  } catch (err) {
    return { ms: performance.now() - started, ok: false, error: (err as Error).message.slice(0, 200) };
  }
}

/** Closes the minimal clients of a server that is stopping. */
export function closeRawClients(baseUrl: string): void {
  rawClients.get(baseUrl)?.close();
  rawClients.delete(baseUrl);
}

/** VmRSS of a process in MB, or NaN when it is gone. */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Samples VmRSS every `everyMs` until stopped; returns the peak. */
export function sampleRss(pid: number, everyMs = 100): { stop(): number } {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    const v = rssMb(pid);
    if (v > peak || !Number.isFinite(peak)) peak = v;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssMb(pid));
    },
  };
}

/** ms from spawning `node dist/cli.js` (stdio is the default) to the answer of the first tools/list. */
export async function stdioColdStart(env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI], env, stderr: 'ignore' });
  const client = new Client({ name: 'searchdesk-bench', version: '0.0.0' });
  await client.connect(transport);
  const tools = await client.listTools();
  const ms = performance.now() - started;
  if (tools.tools.length === 0) throw new Error('tools/list answered no tools');
  await client.close();
  return ms;
}
