/**
 * Drives the built CLI (`node dist/cli.js`) as a child process: one-shot runs, an HTTP server on an
 * ephemeral port, MCP clients over stdio and Streamable HTTP, raw HTTP requests (any Host/Origin).
 * (Faults between searchdesk and its servers: fault-proxy.ts.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = join(ROOT, 'dist', 'cli.js');

/**
 * Fails early with a clear message when the built CLI is missing. (Freshness is not checked by
 * mtime: tsc leaves unchanged outputs untouched. `npm test` builds before running.)
 */
export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` (or `npm test`, which builds first)');
}

/** A clean environment for the child: nothing inherited but PATH and HOME, logs at info. */
export function cliEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'info' };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion, feeding `input` (if any) on stdin and closing it. */
/** A raw JSON-RPC `initialize` request, as an MCP client opens a session with it. */
export function initializeRequest(protocolVersion: unknown = '2025-06-18', id: number | string = 1) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'searchdesk-test', version: '0' } },
  };
}

export function runCli(args: string[], env: Record<string, string>, input?: string, timeoutMs = 20_000): Promise<RunResult> {
  assertBuilt();
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  return collect(child, input, timeoutMs);
}

function collect(child: ChildProcess, input: string | undefined, timeoutMs: number): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  if (input !== undefined) child.stdin?.end(input);
  else child.stdin?.end();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI did not exit within ${timeoutMs} ms; stderr:\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      // Let the pipes drain before resolving.
      setImmediate(() => resolve({ code, signal, stdout, stderr }));
    });
  });
}

/** Parses pino JSON lines (non-JSON lines are kept as `{ raw }`). */
export function logLines(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return { raw: line };
      }
    });
}

/** An HTTP server under test: spawned (startHttp here) or in-process (helpers/http.ts). */
export interface HttpProcess {
  url: string;
  /** Whether it still runs (exitCode null) and as which process. */
  child: Pick<ChildProcess, 'pid' | 'exitCode'>;
  stderr: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `searchdesk serve --http --port 0` and waits for its `listening` log line. */
export function startHttp(env: Record<string, string>, extraArgs: string[] = [], timeoutMs = 15_000): Promise<HttpProcess> {
  assertBuilt();
  const child = spawn(process.execPath, [CLI, 'serve', '--http', '--port', '0', ...extraArgs], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start; stderr:\n${stderr}`)), timeoutMs);
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
      const listening = logLines(stderr).find((l) => l.event === 'listening');
      if (typeof listening?.url === 'string') {
        clearTimeout(timer);
        resolve({
          url: listening.url,
          child,
          stderr: () => stderr,
          stop: () => {
            if (child.exitCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`server exited with ${code}; stderr:\n${stderr}`)));
  });
}

export interface StdioSession {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

/** An SDK client talking to `searchdesk` (stdio is the default command) as a child process. */
export async function connectStdio(env: Record<string, string>): Promise<StdioSession> {
  assertBuilt();
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'searchdesk-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** An SDK client over Streamable HTTP, authenticated with `api_access_token`. */
export async function connectHttpMcp(baseUrl: string, headers: Record<string, string>): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers } });
  const client = new Client({ name: 'searchdesk-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

/** REST path suffix per tool name. */
export const REST_SUFFIX: Record<string, string> = {
  search_all: '',
  search_contacts: '/contacts',
  search_conversations: '/conversations',
  search_messages: '/messages',
  search_articles: '/articles',
};

/** The REST call matching a tool call: same arguments as query parameters, `api_access_token` header. */
export async function restSearch(
  baseUrl: string,
  token: string | undefined,
  account: number | string,
  tool: string,
  args: Record<string, string | number>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const query = new URLSearchParams(Object.entries(args).map(([k, v]): [string, string] => [k, String(v)]));
  const headers: Record<string, string> = token === undefined ? {} : { api_access_token: token };
  const res = await fetch(`${baseUrl}/api/v1/accounts/${account}/search${REST_SUFFIX[tool] ?? '/unknown'}?${query.toString()}`, {
    headers,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The REST path of a read tool's call: the record named in the path, the other arguments as query parameters. */
export function readPath(account: number | string, tool: string, args: Record<string, string | number | boolean>): string {
  const { display_id, id, ...rest } = args;
  const query = new URLSearchParams(Object.entries(rest).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const base = `/api/v1/accounts/${account}`;
  const path =
    tool === 'get_conversation'
      ? `${base}/conversations/${String(display_id)}/messages`
      : tool === 'get_contact'
        ? `${base}/contacts/${String(id)}`
        : `${base}/articles/${String(id)}`;
  return query ? `${path}?${query}` : path;
}

/** The REST call matching a read tool's call (get_conversation by display_id, get_contact, get_article). */
export async function restRead(
  baseUrl: string,
  token: string | undefined,
  account: number | string,
  tool: string,
  args: Record<string, string | number | boolean>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = token === undefined ? {} : { api_access_token: token };
  const res = await fetch(`${baseUrl}${readPath(account, tool, args)}`, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The REST path of list_conversations: `labels` as the help desk sends them (`labels[]=a&labels[]=b`). */
export function listPath(account: number | string, args: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(args)) {
    if (Array.isArray(v)) for (const item of v) query.append(`${k}[]`, String(item));
    else query.append(k, String(v));
  }
  const text = query.toString();
  return `/api/v1/accounts/${account}/conversations${text ? `?${text}` : ''}`;
}

/** A GET of `path` with the token header: status and JSON body. */
export async function restGet(
  baseUrl: string,
  token: string | undefined,
  path: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = token === undefined ? {} : { api_access_token: token };
  const res = await fetch(`${baseUrl}${path}`, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An HTTP request with full control of headers (fetch forbids setting Host). */
export function rawRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string | number>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A TCP port nothing listens on (bound, read, released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
