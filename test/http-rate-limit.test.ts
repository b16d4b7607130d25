/**
 * The HTTP rate limit (README, Configuration): per token on REST and /mcp, per IP without a
 * token, 429 with Retry-After in each surface's error shape, counted in /metrics; probes and
 * /metrics are never limited; 0 turns a limit off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { cliEnv, logLines, startHttp, type HttpProcess } from './helpers/spawn.js';

let t: TestDatabase;
let server: HttpProcess;
const f = {} as { account: number; tokens: string[] };
const PER_TOKEN = 3;
const ANONYMOUS = 2;
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  f.account = await fx.account();
  f.tokens = [];
  for (let i = 0; i < 4; i++) {
    const user = await fx.user();
    await fx.member(f.account, user, 'administrator');
    f.tokens.push(await fx.token(user));
  }
  server = await startHttp(
    cliEnv({
      DATABASE_URL: t.url,
      SEARCHDESK_RATE_LIMIT_PER_MINUTE: String(PER_TOKEN),
      SEARCHDESK_RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(ANONYMOUS),
    }),
  );
});

afterAll(async () => {
  await server?.stop();
  await t.drop();
});

const rest = (headers: Record<string, string> = {}, base = server.url) =>
  fetch(`${base}/api/v1/accounts/${f.account}/search/contacts?q=x`, { headers });
const mcp = (headers: Record<string, string>, base = server.url) =>
  fetch(`${base}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: TOOLS_LIST });

function retryAfter(res: Response): number {
  const value = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(value) && value >= 1 && value <= 60).toBe(true);
  return value;
}

describe('rate limit per token', () => {
  it('answers REST with 429, Retry-After and the REST error shape once a token used up its minute', async () => {
    const token = f.tokens[0]!;
    for (let i = 0; i < PER_TOKEN; i++) expect((await rest({ api_access_token: token })).status).toBe(200);
    const refused = await rest({ api_access_token: token });
    expect(refused.status).toBe(429);
    const seconds = retryAfter(refused);
    expect(await refused.json()).toEqual({
      error: `Too many requests: retry after ${seconds} second${seconds === 1 ? '' : 's'}`,
    });
    // The Bearer form is the same token, so the same budget; /mcp shares it too.
    expect((await rest({ authorization: `Bearer ${token}` })).status).toBe(429);
    // Another token has its own budget.
    expect((await rest({ api_access_token: f.tokens[1]! })).status).toBe(200);
  });

  it('answers /mcp with 429, Retry-After and a JSON-RPC error', async () => {
    const token = f.tokens[2]!;
    for (let i = 0; i < PER_TOKEN; i++) expect((await mcp({ authorization: `Bearer ${token}` })).status).toBe(200);
    const refused = await mcp({ authorization: `Bearer ${token}` });
    expect(refused.status).toBe(429);
    retryAfter(refused);
    expect(await refused.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32029, message: expect.stringMatching(/^Too many requests: retry after \d+ seconds?$/) as unknown },
    });
  });

  it('never limits /healthz, /readyz and /metrics', async () => {
    const token = f.tokens[0]!; // used up above
    for (let i = 0; i < 5; i++) {
      for (const path of ['/healthz', '/readyz', '/metrics']) {
        expect((await fetch(server.url + path)).status).toBe(200);
        expect((await fetch(server.url + path, { headers: { api_access_token: token } })).status).toBe(200);
      }
    }
  });
});

describe('rate limit without a token', () => {
  it('counts requests without a token per client IP', async () => {
    for (let i = 0; i < ANONYMOUS; i++) expect((await rest()).status).toBe(401);
    const refused = await rest();
    expect(refused.status).toBe(429);
    retryAfter(refused);
    expect((await mcp({})).status).toBe(429);
    // Callers with a token are not affected by the anonymous budget.
    expect((await rest({ api_access_token: f.tokens[3]! })).status).toBe(200);
  });
});

describe('rate-limited requests in metrics and logs', () => {
  it('counts them by route and key, and never logs a token', async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(
      /^searchdesk_http_rate_limited_total\{route="\/api\/v1\/accounts\/:account_id\/search\/contacts",key="token"\} 2$/m,
    );
    expect(text).toMatch(/^searchdesk_http_rate_limited_total\{route="\/mcp",key="token"\} 1$/m);
    expect(text).toMatch(/^searchdesk_http_rate_limited_total\{route="\/mcp",key="ip"\} 1$/m);
    expect(text).toMatch(/^searchdesk_http_requests_total\{route="\/mcp",status="429"\} 2$/m);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const limited = logLines(server.stderr()).filter((l) => l.event === 'http_request' && l.status === 429);
    expect(limited.length).toBe(5);
    expect(limited.every((l) => l.rate_limited === 'token' || l.rate_limited === 'ip')).toBe(true);
    for (const token of f.tokens) {
      expect(server.stderr()).not.toContain(token);
      expect(text).not.toContain(token);
    }
  });
});

describe('limits turned off', () => {
  it('never answers 429 when both limits are 0', async () => {
    const off = await startHttp(
      cliEnv({ DATABASE_URL: t.url, SEARCHDESK_RATE_LIMIT_PER_MINUTE: '0', SEARCHDESK_RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0' }),
    );
    try {
      for (let i = 0; i < 10; i++) {
        expect((await rest({ api_access_token: f.tokens[0]! }, off.url)).status).toBe(200);
        expect((await rest({}, off.url)).status).toBe(401);
      }
    } finally {
      await off.stop();
    }
  });
});
