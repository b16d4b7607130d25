/**
 * The HTTP rate limit (README, Rate limit): per token on REST and /mcp, per IP for requests that
 * name no user (no token, or one that does not resolve: issue 49), 429 with Retry-After in each
 * surface's error shape, counted in /metrics; probes and /metrics are never limited; 0 turns a
 * limit off. Issue 49 also: a guess over its IP's budget costs no database lookup, an empty
 * `api_access_token` does not hide `Authorization: Bearer`, and a JSON-RPC batch counts each of
 * its messages (or is refused, for protocol versions without batches).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { countingDb, startHttp, type HttpProcess } from './helpers/http.js';
import { cliEnv, logLines, rawRequest } from './helpers/spawn.js';

let t: TestDatabase;
let server: HttpProcess;
const f = {} as { account: number; tokens: string[]; fresh: string[]; bot: string };
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
  // Tokens no test has used yet, one per test that needs a budget of its own.
  f.fresh = [];
  for (let i = 0; i < 15; i++) {
    const user = await fx.user();
    await fx.member(f.account, user, 'administrator');
    f.fresh.push(await fx.token(user));
  }
  f.bot = await fx.token(await fx.user(), 'AgentBot');
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
    // A caller whose token named a user here lately is not affected by the anonymous budget.
    expect((await rest({ api_access_token: f.tokens[1]! })).status).toBe(200);
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

/** A server of its own (a fresh limiter) whose database counts the statements it runs. */
let own: { server: HttpProcess; statements: () => number } | undefined;

async function ownServer(perToken: number, anonymous: number): Promise<{ url: string; statements: () => number }> {
  let statements = () => 0;
  const server = await startHttp(
    cliEnv({
      DATABASE_URL: t.url,
      SEARCHDESK_RATE_LIMIT_PER_MINUTE: String(perToken),
      SEARCHDESK_RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(anonymous),
    }),
    {
      db: (db) => {
        const counted = countingDb(db);
        statements = counted.statements;
        return counted.db;
      },
    },
  );
  own = { server, statements: () => statements() };
  return { url: server.url, statements: own.statements };
}

afterEach(async () => {
  await own?.server.stop();
  own = undefined;
});

/** A raw request (any header value, an empty one too) to a REST search or /mcp. */
async function send(url: string, headers: Record<string, string>, body?: unknown) {
  const r = await rawRequest(body === undefined ? `${url}/api/v1/accounts/${f.account}/search/contacts?q=x` : `${url}/mcp`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? headers : { ...MCP_HEADERS, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, json: r.body === '' ? undefined : (JSON.parse(r.body) as unknown) };
}

/** A valid token no request has carried yet. */
function freshToken(): string {
  const token = f.fresh.shift();
  if (token === undefined) throw new Error('add fresh tokens to the fixture');
  return token;
}

const guess = (i: number) => `tok_guess_${i}_${Math.random().toString(36).slice(2)}`;
const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };

describe('token guessing (issue 49)', () => {
  for (const surface of ['REST', '/mcp'] as const) {
    const body = surface === 'REST' ? undefined : PING;

    it(`${surface}: counts unknown, bot and empty tokens against the caller's IP, and answers 429 over it without a lookup`, async () => {
      const s = await ownServer(3, 3);
      expect((await send(s.url, { api_access_token: guess(1) }, body)).status).toBe(401);
      expect((await send(s.url, { authorization: `Bearer ${f.bot}` }, body)).status).toBe(401);
      expect((await send(s.url, { api_access_token: '' }, body)).status).toBe(401);
      const before = s.statements();
      for (const headers of <Array<Record<string, string>>>[
        { api_access_token: guess(2) },
        { authorization: `Bearer ${guess(3)}` },
        { api_access_token: f.bot },
      ]) {
        const refused = await send(s.url, headers, body);
        expect(refused.status).toBe(429);
        expect(JSON.stringify(refused.json)).toMatch(/Too many requests: retry after \d+ seconds?/);
      }
      // Over its budget, a guess is refused before its token is looked up.
      expect(s.statements()).toBe(before);
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      expect(metrics).toMatch(/^searchdesk_http_rate_limited_total\{route="[^"]+",key="ip"\} 3$/m);
    });
  }

  it('looks up at most the IP budget of guesses that arrive at once', async () => {
    const s = await ownServer(3, 2);
    const statuses = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => (await send(s.url, { api_access_token: guess(i) })).status),
    );
    expect(statuses.filter((st) => st === 401)).toHaveLength(2);
    expect(statuses.filter((st) => st === 429)).toHaveLength(8);
    expect(s.statements()).toBe(2);
  });

  it("keeps a user's own limit while guesses from its address are refused", async () => {
    const s = await ownServer(3, 2);
    const token = freshToken();
    expect((await send(s.url, { api_access_token: token })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await send(s.url, { api_access_token: guess(i) })).status).toBe(401);
    expect((await send(s.url, { api_access_token: guess(9) })).status).toBe(429);
    // The user's first request was given back to the IP; its token keeps its own 3 a minute.
    expect((await send(s.url, { api_access_token: token }, PING)).status).toBe(200);
    expect((await send(s.url, { authorization: `Bearer ${token}` })).status).toBe(200);
    expect((await send(s.url, { api_access_token: token })).status).toBe(429);
  });

  it('refuses a token it has not seen name a user, from an address over its budget, like a guess', async () => {
    // Telling them apart would take the lookup the budget is there to spare (README, Rate limit).
    const s = await ownServer(3, 2);
    for (let i = 0; i < 2; i++) expect((await send(s.url, { api_access_token: guess(i) })).status).toBe(401);
    const before = s.statements();
    expect((await send(s.url, { api_access_token: freshToken() })).status).toBe(429);
    expect(s.statements()).toBe(before);
  });

  it("charges a guess sent beside someone's Bearer token to the guess, never to that token", async () => {
    const s = await ownServer(3, 100);
    const victim = freshToken();
    for (let i = 0; i < 5; i++) {
      const r = await send(s.url, { api_access_token: guess(i), authorization: `Bearer ${victim}` }, i % 2 ? PING : undefined);
      expect(r.status).toBe(401);
      expect(r.json).toMatchObject({ error: 'Invalid Access Token' });
    }
    for (let i = 0; i < 3; i++) expect((await send(s.url, { api_access_token: victim })).status).toBe(200);
  });
});

describe('an empty api_access_token (issue 49)', () => {
  for (const surface of ['REST', '/mcp'] as const) {
    const body = surface === 'REST' ? undefined : PING;

    it(`${surface}: is no token, so Authorization: Bearer authenticates, and the limit counts that token`, async () => {
      const s = await ownServer(3, 100);
      const token = freshToken();
      for (const empty of ['', '   ']) {
        const r = await send(s.url, { api_access_token: empty, authorization: `Bearer ${token}` }, body);
        expect(r.status, JSON.stringify(r.json)).toBe(200);
      }
      // The same token, however it is sent: its third request is its last of the minute.
      expect((await send(s.url, { api_access_token: token }, body)).status).toBe(200);
      expect((await send(s.url, { api_access_token: '', authorization: `Bearer ${token}` }, body)).status).toBe(429);
      // Without Bearer, an empty header is a missing token.
      expect((await send(s.url, { api_access_token: '' }, body)).json).toMatchObject({
        error: 'Missing api_access_token header',
      });
    });
  }
});

describe('JSON-RPC batches on /mcp (issue 49)', () => {
  const searchCall = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'search_contacts', arguments: { q: 'x', account_id: f.account } },
  });
  const batch = (n: number) => Array.from({ length: n }, (_, i) => searchCall(i + 1));
  const toolCalls = () => logLines(own!.server.stderr()).filter((l) => l.event === 'tool_call').length;

  it('refuses a batch under protocol versions without batching (2025-06-18 on) before anything in it runs', async () => {
    const s = await ownServer(1000, 100);
    const token = freshToken();
    for (const version of ['2025-06-18', '2025-11-25']) {
      for (const body of [batch(12), batch(1), [PING]]) {
        const r = await send(s.url, { api_access_token: token, 'mcp-protocol-version': version }, body);
        expect(r.status).toBe(400);
        expect(r.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
        expect((r.json as { error: { message: string } }).error.message).toContain(version);
      }
      // One message is answered as ever.
      expect((await send(s.url, { api_access_token: token, 'mcp-protocol-version': version }, searchCall(1))).status).toBe(200);
    }
    // An initialize in an array negotiates the version it asks for.
    const init = (v: string) => [{ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: v } }];
    expect((await send(s.url, { api_access_token: token }, init('2025-06-18'))).status).toBe(400);
    expect((await send(s.url, { api_access_token: token }, init('2025-03-26'))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(toolCalls()).toBe(2);
  });

  for (const version of [undefined, '2025-03-26', '2024-11-05']) {
    it(`counts each message of a batch against the limit under ${version ?? 'no version header (2025-03-26)'}`, async () => {
      const s = await ownServer(5, 100);
      const headers: Record<string, string> = version === undefined ? {} : { 'mcp-protocol-version': version };
      // 12 messages against 5 a minute: refused whole, nothing runs.
      const over = await send(s.url, { ...headers, api_access_token: freshToken() }, batch(12));
      expect(over.status).toBe(429);
      expect(over.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32029 } });
      // 4 messages, then 1: the budget of 5 is spent, the next request is refused.
      const token = freshToken();
      const answered = await send(s.url, { ...headers, api_access_token: token }, batch(4));
      expect(answered.status).toBe(200);
      expect(answered.json).toHaveLength(4);
      expect((await send(s.url, { ...headers, api_access_token: token }, searchCall(5))).status).toBe(200);
      expect((await send(s.url, { ...headers, api_access_token: token }, searchCall(6))).status).toBe(429);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(toolCalls()).toBe(5);
    });
  }
});
