/**
 * What `@modelcontextprotocol/server` 2.x would cost searchdesk (issue 51, part 1), measured before
 * the protocol layer moves to it: two probe servers bundled the way scripts/build.mjs bundles the
 * CLI (esbuild, ESM, whitespace and syntax minified), each serving our prebuilt tool list
 * (dist/tools.json) and, for calls, one recorded search result.
 *
 * - stdio cold start: spawn → `tools/list` answer (initialize, initialized, tools/list written at
 *   once), median of `--spawns` runs, interleaved with a bare `node` that answers the same lines by
 *   hand and with today's `node dist/cli.js` (embedded demo in `--data-dir`; its tools/list does
 *   not wait for the database). The v2 probe is `serveStdio` with a low-level `Server`.
 * - HTTP fixed cost per call: one `tools/call` POST answered by v2's `createMcpHandler` (a
 *   per-request `McpServer` with the ten tools registered from their JSON Schemas, output schema
 *   validated by the SDK), 2025-06-18 (the stateless legacy leg) and 2026-07-28 (the per-request
 *   `_meta` envelope), minus the same POST answered by hand in the same process; paired,
 *   interleaved, keep-alive, median over `--calls`.
 *
 * Run: `npm run build && npm run bench:build && node dist-bench/bench/sdk-v2.js --data-dir DIR`
 * (DIR: an embedded demo directory that already has its data, e.g. one `searchdesk` has used).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { median } from './perf/stats.js';

const { values: opts } = parseArgs({
  options: {
    spawns: { type: 'string', default: '11' },
    calls: { type: 'string', default: '300' },
    'data-dir': { type: 'string' },
  },
});
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = join(ROOT, 'dist-bench', 'sdk-v2');

const STDIO_PROBE = `
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
const tools = JSON.parse(readFileSync(${JSON.stringify(join(ROOT, 'dist', 'tools.json'))}, 'utf8'));
serveStdio(() => {
  const s = new Server({ name: 'searchdesk', version: '0.0.0' }, { capabilities: { tools: {} } });
  s.setRequestHandler('tools/list', () => ({ tools }));
  s.setRequestHandler('tools/call', () => ({ content: [] }));
  return s;
});
`;

const HTTP_PROBE = `
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
const tools = JSON.parse(readFileSync(${JSON.stringify(join(ROOT, 'dist', 'tools.json'))}, 'utf8'));
const result = JSON.parse(process.env.PROBE_RESULT);
const answer = { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
const handler = createMcpHandler(() => {
  const s = new McpServer({ name: 'searchdesk', version: '0.0.0' }, { capabilities: { tools: {} } });
  for (const t of tools)
    s.registerTool(t.name, { title: t.title, description: t.description, inputSchema: fromJsonSchema(t.inputSchema),
      outputSchema: fromJsonSchema(t.outputSchema), annotations: t.annotations }, async () => answer);
  return s;
}, { responseMode: 'json' });
http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks);
  if (req.url === '/by-hand') {
    const m = JSON.parse(body.toString());
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: answer }));
    return;
  }
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  const r = await handler.fetch(new Request('http://' + req.headers.host + req.url, { method: req.method, headers, body }));
  const out = Buffer.from(await r.arrayBuffer());
  res.writeHead(r.status, Object.fromEntries(r.headers)).end(out);
}).listen(0, '127.0.0.1', function () { process.stdout.write(this.address().port + '\\n'); });
`;

async function bundle(name: string, source: string): Promise<string> {
  const outfile = join(OUT, `${name}.mjs`);
  await build({
    stdin: { contents: source, resolveDir: ROOT, loader: 'js', sourcefile: `${name}.mjs` },
    bundle: true,
    platform: 'node',
    target: 'node20.19',
    format: 'esm',
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
    outfile,
    banner: { js: "import { createRequire as __c } from 'node:module';\nconst require = __c(import.meta.url);" },
  });
  return outfile;
}

const HANDSHAKE =
  [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ]
    .map((m) => JSON.stringify(m))
    .join('\n') + '\n';

const BARE = `process.stdin.on('data', (d) => { if (String(d).includes('"id":2')) process.stdout.write('{"jsonrpc":"2.0","id":2,"result":{}}\\n'); });`;

/** ms from spawn to the line answering id 2. */
function coldStart(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'], env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"id":2')) {
        resolve(performance.now() - t0);
        child.kill();
      }
    });
    child.once('exit', () => setTimeout(() => reject(new Error(`${args.join(' ')} exited before answering`)), 100));
    child.stdin.write(HANDSHAKE);
  });
}

function post(agent: http.Agent, port: number, path: string, body: string, headers: Record<string, string>) {
  return new Promise<{ ms: number; status: number; body: string }>((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A search result to answer with: today's server's own, from the embedded demo over stdio. */
function recordedResult(env: NodeJS.ProcessEnv): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'cli.js')], { stdio: ['pipe', 'pipe', 'ignore'], env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out
        .split('\n')
        .slice(0, -1)
        .find((l) => l.includes('"id":3'));
      if (line) {
        child.kill();
        const structured = (JSON.parse(line) as { result?: { structuredContent?: unknown } }).result?.structuredContent;
        if (structured === undefined) reject(new Error(`the search gave no result: ${line.slice(0, 300)}`));
        else resolve(structured);
      }
    });
    child.once('exit', () => setTimeout(() => reject(new Error('no search result')), 100));
    child.stdin.write(HANDSHAKE);
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search_contacts', arguments: { q: 'a' } } })}\n`,
    );
  });
}

async function httpCost(probe: string, result: unknown): Promise<void> {
  const child = spawn(process.execPath, [probe], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, PROBE_RESULT: JSON.stringify(result) },
  });
  const port = await new Promise<number>((resolve) =>
    child.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))),
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search_contacts', arguments: { q: 'a' } } };
  const legacy = JSON.stringify(call);
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const modern = JSON.stringify({ ...call, params: { ...call.params, _meta: envelope } });
  const legacyHeaders = { 'mcp-protocol-version': '2025-06-18' };
  const modernHeaders = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'search_contacts' };
  for (const [b, h] of [
    [legacy, legacyHeaders],
    [modern, modernHeaders],
  ] as const) {
    const r = await post(agent, port, '/mcp', b, h);
    if (r.status !== 200 || !r.body.includes('"structuredContent"'))
      throw new Error(`probe answered ${r.status}: ${r.body.slice(0, 300)}`);
  }
  const d = { hand: [] as number[], legacy: [] as number[], modern: [] as number[] };
  for (let i = 0; i < Number(opts.calls); i++) {
    d.hand.push((await post(agent, port, '/by-hand', legacy, {})).ms);
    d.legacy.push((await post(agent, port, '/mcp', legacy, legacyHeaders)).ms);
    d.modern.push((await post(agent, port, '/mcp', modern, modernHeaders)).ms);
  }
  agent.destroy();
  child.kill();
  const hand = median(d.hand);
  console.log(
    `HTTP tools/call, median of ${opts.calls}: by hand ${hand.toFixed(2)} ms; v2 createMcpHandler 2025-06-18 ${median(d.legacy).toFixed(2)} ms (+${(median(d.legacy) - hand).toFixed(2)}), 2026-07-28 ${median(d.modern).toFixed(2)} ms (+${(median(d.modern) - hand).toFixed(2)})`,
  );
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'README'), 'Probe servers built by bench/sdk-v2.ts.\n');
  const stdioProbe = await bundle('stdio-probe', STDIO_PROBE);
  const httpProbe = await bundle('http-probe', HTTP_PROBE);
  const env = { ...process.env, ...(opts['data-dir'] ? { SEARCHDESK_DATA_DIR: opts['data-dir'] } : {}) };
  const variants: Record<string, string[]> = {
    'bare node': ['-e', BARE],
    'v2 serveStdio + Server': [stdioProbe],
    'today: dist/cli.js': [join(ROOT, 'dist', 'cli.js')],
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let i = 0; i < Number(opts.spawns); i++)
    for (const [k, args] of Object.entries(variants)) times[k]!.push(await coldStart(args, env));
  for (const [k, ts] of Object.entries(times))
    console.log(`stdio cold start, ${k}: median ${median(ts).toFixed(0)} ms [${ts.map((t) => t.toFixed(0)).join(', ')}]`);
  await httpCost(httpProbe, await recordedResult(env));
}

await main();
