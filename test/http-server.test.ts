/**
 * The built CLI's HTTP server: Host/Origin checks, body limits, methods, probes, metrics, request
 * logs, and failure behaviour (Postgres unreachable, Elasticsearch unreachable, a server-side bug).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { cliEnv, closedPort, connectHttpMcp, logLines, rawRequest } from './helpers/spawn.js';
import { startHttp as spawnHttp } from './helpers/spawn.js';
import { startHttp, type HttpProcess } from './helpers/http.js';
import { asRestBody } from './helpers/mcp-normalise.js';

let t: TestDatabase;
let server: HttpProcess;
const f = {} as { account: number; admin: string };
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  f.account = await fx.account({ advancedSearch: true });
  const admin = await fx.user();
  await fx.member(f.account, admin, 'administrator');
  f.admin = await fx.token(admin);
  const conv = await fx.conversation(f.account, await fx.inbox(f.account), {
    contact_id: await fx.contact(f.account, { name: 'Hattie Http' }),
  });
  await fx.message(conv, { content: 'http fallback message' });
  server = await startHttp(cliEnv({ DATABASE_URL: t.url, SEARCHDESK_ALLOWED_ORIGINS: 'https://app.example.com' }));
});

afterAll(async () => {
  await server?.stop();
  await t.drop();
});

const restPath = (op = 'contacts', q = 'Hattie') => `/api/v1/accounts/${f.account}/search/${op}?q=${q}`;

describe('Host and Origin (contract §6)', () => {
  it('answers 403 to a Host that is not loopback or the bound host', async () => {
    for (const host of ['evil.example', 'localhost.evil.example', '10.0.0.1:3000']) {
      for (const path of ['/mcp', restPath()]) {
        const r = await rawRequest(server.url + path, { headers: { host, api_access_token: f.admin } });
        expect(r.status).toBe(403);
        expect(JSON.parse(r.body)).toEqual({ error: 'Host not allowed' });
      }
    }
  });

  it('accepts loopback Host names with any port', async () => {
    for (const host of ['localhost:1234', '127.0.0.1', '[::1]:8080', 'LOCALHOST']) {
      const r = await rawRequest(server.url + restPath(), { headers: { host, api_access_token: f.admin } });
      expect(r.status).toBe(200);
    }
  });

  it('lets probes through whatever Host they use', async () => {
    const r = await rawRequest(`${server.url}/healthz`, { headers: { host: '10.1.2.3:3000' } });
    expect(r.status).toBe(200);
  });

  it('answers 403 to an Origin that is not allowed, on every route', async () => {
    for (const origin of ['https://evil.example', 'null', 'http://localhost.evil.example']) {
      for (const path of ['/mcp', restPath(), '/healthz']) {
        const r = await rawRequest(server.url + path, { headers: { origin, api_access_token: f.admin } });
        expect(r.status).toBe(403);
        expect(JSON.parse(r.body)).toEqual({ error: 'Origin not allowed' });
      }
    }
  });

  it('accepts loopback and configured Origins and lets the browser read the answer', async () => {
    for (const origin of ['http://localhost:6274', 'http://127.0.0.1', 'https://app.example.com']) {
      const r = await rawRequest(server.url + restPath(), { headers: { origin, api_access_token: f.admin } });
      expect(r.status).toBe(200);
      expect(r.headers['access-control-allow-origin']).toBe(origin);
    }
  });

  it('answers a CORS preflight from an allowed Origin', async () => {
    const r = await rawRequest(`${server.url}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(r.status).toBe(204);
    expect(r.headers['access-control-allow-methods']).toContain('POST');
    expect(r.headers['access-control-allow-headers']).toContain('mcp-protocol-version');
  });
});

describe('/mcp transport rules', () => {
  it('answers 401 to a tokenless POST before reading it as MCP', async () => {
    const r = await rawRequest(`${server.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: 'not even json' });
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body)).toEqual({ error: 'Missing api_access_token header' });
  });

  it('answers 413 to a body over 1 MiB (declared or streamed)', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(1_100_000) } });
    const declared = await rawRequest(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, api_access_token: f.admin },
      body: big,
    });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({
      jsonrpc: '2.0',
      error: { message: expect.stringMatching(/too large/) as unknown },
    });
    const streamed = await rawRequest(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, api_access_token: f.admin, 'transfer-encoding': 'chunked' },
      body: big,
    });
    expect(streamed.status).toBe(413);
  });

  it('answers 400 with a JSON-RPC parse error to a body that is not JSON', async () => {
    const r = await rawRequest(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, api_access_token: f.admin },
      body: '{"jsonrpc":',
    });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
  });

  it('answers 405 to GET and DELETE: the server is stateless', async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await rawRequest(`${server.url}/mcp`, { method, headers: { api_access_token: f.admin } });
      expect(r.status).toBe(405);
      expect(r.headers.allow).toBe('POST');
    }
  });
});

describe('routing', () => {
  it('answers 404 JSON to an unknown path and 405 to a non-GET REST call', async () => {
    const missing = await rawRequest(`${server.url}/nope`);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({ error: 'Not found' });
    const unknownResource = await rawRequest(`${server.url}/api/v1/accounts/${f.account}/search/users?q=x`);
    expect(unknownResource.status).toBe(404);
    const post = await rawRequest(server.url + restPath(), { method: 'POST', headers: { api_access_token: f.admin } });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toContain('GET');
  });

  it('tags every answer with a request id', async () => {
    const r = await rawRequest(`${server.url}/healthz`);
    expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('probes and metrics', () => {
  it('/healthz and /readyz answer 200 when Postgres answers', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { postgres: 'ok' } });
  });

  it('/metrics counts requests and tool calls by route/tool and status', async () => {
    await fetch(server.url + restPath(), { headers: { api_access_token: f.admin } });
    const client = await connectHttpMcp(server.url, { api_access_token: f.admin });
    await client.callTool({ name: 'search_contacts', arguments: { q: 'Hattie' } });
    await client.callTool({ name: 'search_contacts', arguments: {} });
    await client.close();
    const res = await fetch(`${server.url}/metrics`);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    expect(text).toMatch(
      /^searchdesk_http_requests_total\{route="\/api\/v1\/accounts\/:account_id\/search\/contacts",status="200"\} [1-9]/m,
    );
    expect(text).toMatch(/^searchdesk_http_requests_total\{route="\/mcp",status="200"\} [1-9]/m);
    expect(text).toMatch(/^searchdesk_tool_calls_total\{tool="search_contacts",status="ok"\} 1$/m);
    expect(text).toMatch(/^searchdesk_tool_calls_total\{tool="search_contacts",status="invalid_params"\} 1$/m);
    // Label order carries no meaning in Prometheus (prom-client puts `le` first).
    expect(text).toMatch(
      /^searchdesk_http_request_duration_seconds_bucket\{(?=[^}]*route="\/mcp")(?=[^}]*status="200")(?=[^}]*le="\+Inf")[^}]*\} [1-9]/m,
    );
    expect(text).toMatch(/^# TYPE searchdesk_tool_call_duration_seconds histogram$/m);
  });

  it('/metrics has the Postgres pool and the process, GC and event-loop metrics', async () => {
    await fetch(server.url + restPath(), { headers: { api_access_token: f.admin } });
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(/^searchdesk_pg_pool_max_connections 20$/m);
    expect(text).toMatch(/^searchdesk_pg_pool_connections\{state="idle"\} [1-9]/m);
    expect(text).toMatch(/^searchdesk_pg_pool_connections\{state="busy"\} \d+$/m);
    expect(text).toMatch(/^searchdesk_pg_pool_waiting \d+$/m);
    expect(text).toMatch(/^process_resident_memory_bytes [1-9]/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds /m);
    expect(text).toMatch(/^# TYPE nodejs_gc_duration_seconds histogram$/m);
  });

  it('logs one line per request with route, status, account, counts and engine — never the token', async () => {
    await fetch(server.url + restPath('messages', 'fallback'), { headers: { api_access_token: f.admin } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const lines = logLines(server.stderr()).filter((l) => l.event === 'http_request' && String(l.route).endsWith('/messages'));
    expect(lines.at(-1)).toMatchObject({
      status: 200,
      account: f.account,
      counts: { messages: 1 },
      engine: 'postgres',
      ms: expect.any(Number) as unknown,
    });
    expect(server.stderr()).not.toContain(f.admin);
  });
});

describe('failures (contract §8)', () => {
  it('keeps running when Postgres is unreachable: readyz 503, REST 503, MCP tool error', async () => {
    const down = await spawnHttp(cliEnv({ DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/none` }));
    try {
      const ready = await fetch(`${down.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'unavailable', checks: { postgres: 'unavailable' } });
      const rest = await fetch(`${down.url}/api/v1/accounts/1/search?q=x`, { headers: { api_access_token: 'any' } });
      expect(rest.status).toBe(503);
      expect(await rest.json()).toEqual({ error: 'Search backend unavailable' });
      const client = await connectHttpMcp(down.url, { api_access_token: 'any' });
      const r = await client.callTool({ name: 'search_all', arguments: { q: 'x' } });
      expect(r).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Search backend unavailable' }] });
      await client.close();
      const missing = await fetch(`${down.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: '{}' });
      expect(missing.status).toBe(401);
      expect((await fetch(`${down.url}/healthz`)).status).toBe(200);
    } finally {
      expect(await down.stop()).toBe(0);
    }
  });

  /**
   * The fallback counter is the process's (one server per process in production); tests that run
   * several servers in one process compare before and after.
   */
  async function fallbacks(url: string): Promise<{ error: number; timeout: number }> {
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const count = (reason: string) =>
      Number(
        new RegExp(`^searchdesk_engine_fallbacks_total\\{engine="elasticsearch",reason="${reason}"\\} (\\d+)$`, 'm').exec(
          metrics,
        )?.[1] ?? 0,
      );
    return { error: count('error'), timeout: count('timeout') };
  }

  it('answers messages from Postgres when Elasticsearch is unreachable, and says so', async () => {
    const es = await startHttp(
      cliEnv({
        DATABASE_URL: t.url,
        ELASTICSEARCH_URL: `http://127.0.0.1:${await closedPort()}`,
        SEARCHDESK_ENGINE_TIMEOUT_MS: '500',
      }),
    );
    try {
      const before = await fallbacks(es.url);
      const ready = await fetch(`${es.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'unavailable', checks: { postgres: 'ok', elasticsearch: 'unavailable' } });
      const rest = await fetch(`${es.url}${restPath('messages', 'fallback')}`, { headers: { api_access_token: f.admin } });
      expect(rest.status).toBe(200);
      const client = await connectHttpMcp(es.url, { api_access_token: f.admin });
      const r = await client.callTool({ name: 'search_messages', arguments: { q: 'fallback' } });
      expect(r._meta).toMatchObject({ engine: 'postgres-fallback' });
      expect(r.structuredContent).toMatchObject({ meta: { engine: 'postgres-fallback' } });
      expect(asRestBody(r.structuredContent)).toEqual(await rest.json());
      await client.close();
      expect(await fallbacks(es.url)).toEqual({ error: before.error + 2, timeout: before.timeout });
    } finally {
      await es.stop();
    }
  });

  it('counts a search engine that does not answer in time as a fallback by timeout', async () => {
    const silent = createServer(() => undefined); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const es = await startHttp(
      cliEnv({
        DATABASE_URL: t.url,
        ELASTICSEARCH_URL: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        SEARCHDESK_ENGINE_TIMEOUT_MS: '100',
      }),
    );
    try {
      const before = await fallbacks(es.url);
      const rest = await fetch(`${es.url}${restPath('messages', 'fallback')}`, { headers: { api_access_token: f.admin } });
      expect(rest.status).toBe(200);
      expect(await fallbacks(es.url)).toEqual({ error: before.error, timeout: before.timeout + 1 });
    } finally {
      await es.stop();
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('answers 500 "Internal error" to a server-side failure, with details only in the log', async () => {
    const broken = await createTestDatabase();
    const fx = new Fixture(broken.admin);
    const account = await fx.account();
    const user = await fx.user();
    await fx.member(account, user, 'administrator');
    const token = await fx.token(user);
    await fx.sql('ALTER TABLE contacts RENAME TO contacts_gone'); // a schema the code does not expect
    const s = await startHttp(cliEnv({ DATABASE_URL: broken.url }));
    try {
      const rest = await fetch(`${s.url}/api/v1/accounts/${account}/search/contacts?q=x`, {
        headers: { api_access_token: token },
      });
      expect(rest.status).toBe(500);
      expect(await rest.text()).toBe('{"error":"Internal error"}');
      const client = await connectHttpMcp(s.url, { api_access_token: token });
      const r = await client.callTool({ name: 'search_contacts', arguments: { q: 'x' } });
      expect(r).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Internal error' }] });
      await client.close();
      expect(logLines(s.stderr()).some((l) => l.event === 'db_error' && l.code === '42P01')).toBe(true);
      expect(logLines(s.stderr()).some((l) => l.event === 'http_internal_error')).toBe(true);
      expect(s.stderr()).not.toContain(token);
    } finally {
      await s.stop();
      await broken.drop();
    }
  });
});
