/**
 * The 2026-07-28 revision with raw requests: over HTTP, what the SDK's serving (src/mcp/modern.ts)
 * decides, seen from the wire, and that searchdesk's own rules still hold in that era; over stdio,
 * that the discovery answers given while the SDK loads (src/mcp/discovery.ts) are the SDK's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { startHttp, type HttpProcess } from './helpers/http.js';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { assertBuilt, CLI, cliEnv } from './helpers/spawn.js';
import { MODERN_CALLS } from '../src/mcp/modern-call.js';

let t: TestDatabase;
let http: HttpProcess;
const f = {} as { account: number; admin: string };

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  f.account = await fx.account();
  const admin = await fx.user();
  await fx.member(f.account, admin, 'administrator');
  f.admin = await fx.token(admin);
  await fx.contact(f.account, { name: 'Modern Mona', email: 'mona@modern.example' });
  http = await startHttp(cliEnv({ DATABASE_URL: t.url }));
});

afterAll(async () => {
  await http?.stop();
  await t?.drop();
});

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let nextId = 1;
/** A 2026-07-28 request as the v2 client sends it: the envelope, and the standard headers. */
function modern(method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: ENVELOPE } };
}

/** The headers of a 2026-07-28 POST, with `extra` added or replacing. */
const headersWith = (extra: Record<string, string>) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  api_access_token: f.admin,
  'mcp-protocol-version': '2026-07-28',
  ...extra,
});

async function post(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(new URL('/mcp', http.url), {
    method: 'POST',
    headers: headersWith(headers),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    text,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read by path in the assertions
    json: text ? (JSON.parse(text) as Record<string, any>) : undefined,
  };
}

const call = (name: string, args: Record<string, unknown>) =>
  post(modern('tools/call', { name, arguments: args }), { 'mcp-method': 'tools/call', 'mcp-name': name });

describe('MCP 2026-07-28 over HTTP', () => {
  it('answers server/discover with the 2026-07-28 revision, the tools capability, the identity and the instructions', async () => {
    const r = await post(modern('server/discover'), { 'mcp-method': 'server/discover' });
    expect(r.status).toBe(200);
    expect(r.json?.result).toMatchObject({
      supportedVersions: expect.arrayContaining(['2026-07-28']),
      capabilities: { tools: {} },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'searchdesk', icons: expect.any(Array) } },
      instructions: expect.stringContaining('Read-only search'),
    });
  });

  it('finds a contact, and the tool result names the server in its _meta', async () => {
    const r = await call('search_contacts', { q: 'Modern Mona', account_id: f.account });
    expect(r.status).toBe(200);
    expect(r.json?.result.structuredContent.payload.contacts).toEqual([expect.objectContaining({ name: 'Modern Mona' })]);
    expect(r.json?.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'searchdesk' });
  });

  it('takes an own __proto__ argument as an unknown argument, as the 2025 era does, never as a prototype', async () => {
    const body = `{"jsonrpc":"2.0","id":${nextId++},"method":"tools/call","params":{"name":"search_contacts","arguments":{"q":"Mona","__proto__":{"q":"x"}},"_meta":${JSON.stringify(ENVELOPE)}}}`;
    const r = await post(body, { 'mcp-method': 'tools/call', 'mcp-name': 'search_contacts' });
    expect(r.status).toBe(200);
    expect(r.json?.result.isError).toBe(true);
    expect(r.json?.result.content[0].text).toMatch(/unknown argument: __proto__/);
  });

  it('refuses a request whose Mcp-Method header is missing or disagrees with its body, before any tool runs', async () => {
    const missing = await post(modern('tools/call', { name: 'search_contacts', arguments: { q: 'Mona' } }));
    expect(missing.status).toBe(400);
    expect(missing.json?.error.message).toMatch(/Mcp-Method/i);
    const wrong = await post(modern('tools/call', { name: 'search_contacts', arguments: { q: 'Mona' } }), {
      'mcp-method': 'tools/list',
      'mcp-name': 'search_contacts',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json?.error).toBeDefined();
  });

  it('refuses a JSON-RPC batch in the 2026-07-28 era, whole', async () => {
    const r = await post([modern('tools/list'), modern('tools/list')], { 'mcp-method': 'tools/list' });
    expect(r.status).toBe(400);
    expect(r.json?.error ?? r.json?.[0]?.error).toBeDefined();
  });

  it("answers plain discovery, tool lists and tool calls itself with the SDK's own answer, byte for byte", async () => {
    const cases: Array<[string, () => ReturnType<typeof post>]> = [
      ['server/discover', () => post(modern('server/discover'), { 'mcp-method': 'server/discover' })],
      ['tools/list', () => post(modern('tools/list'), { 'mcp-method': 'tools/list' })],
      ['a search', () => call('search_contacts', { q: 'Modern Mona', account_id: f.account })],
      ['a read that finds nothing', () => call('get_contact', { id: 999_999_999, account_id: f.account })],
      ['a blank q', () => call('search_contacts', { q: '', account_id: f.account })],
      ['an unknown argument', () => call('search_contacts', { q: 'Mona', bogus: 1 })],
      ['an unknown tool', () => call('no_such_tool', {})],
    ];
    /** The answer without the time of the call. */
    const answer = async (send: () => ReturnType<typeof post>) => {
      nextId = 100;
      const r = await send();
      const text = r.text.replace(/"now":"[^"]*"/g, 'now').replace(/\\"now\\":\\"[^\\]*\\"/g, 'now');
      return { status: r.status, type: r.type, text };
    };
    for (const [name, send] of cases) {
      const before = MODERN_CALLS.answered;
      const own = await answer(send);
      expect(MODERN_CALLS.answered - before, `${name}: answered without the SDK`).toBe(1);
      MODERN_CALLS.ownAnswers = false;
      try {
        expect(own, name).toEqual(await answer(send));
      } finally {
        MODERN_CALLS.ownAnswers = true;
      }
      expect(own.status, name).toBe(200);
    }
  });

  it('refuses a foreign Origin or Host before the era is known, as in the 2025 era', async () => {
    // node:http, not fetch: fetch sets Host itself.
    const raw = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const body = JSON.stringify(modern('server/discover'));
        const req = request(new URL('/mcp', http.url), {
          method: 'POST',
          headers: headersWith({ 'mcp-method': 'server/discover', ...headers }),
        });
        req.on('error', reject);
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.end(body);
      });
    expect(await raw({ origin: 'https://evil.example' })).toEqual({ status: 403, body: '{"error":"Origin not allowed"}' });
    expect(await raw({ host: 'evil.example' })).toEqual({ status: 403, body: '{"error":"Host not allowed"}' });
    expect((await raw({})).status).toBe(200);
  });

  it('refuses a refused token with the same 401 as the 2025 era', async () => {
    const r = await post(modern('tools/list'), { 'mcp-method': 'tools/list', api_access_token: 'nope' });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ error: 'Invalid Access Token' });
  });
});

describe('MCP 2026-07-28 over stdio', () => {
  it('answers server/discover and tools/list before the SDK has loaded exactly as the SDK answers them once it has', async () => {
    assertBuilt();
    const child = spawn(process.execPath, [CLI], {
      env: cliEnv({ DATABASE_URL: t.url, SEARCHDESK_ACCESS_TOKEN: f.admin }),
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const answers = new Map<number, string>();
    const waiting = new Map<number, () => void>();
    let buffer = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const { id } = JSON.parse(line) as { id: number };
        answers.set(id, line.replace(`"id":${id}`, '"id":0'));
        waiting.get(id)?.();
      }
    });
    const ask = (message: { id: number }) =>
      new Promise<string>((resolve) => {
        waiting.set(message.id, () => resolve(answers.get(message.id)!));
        child.stdin.write(`${JSON.stringify(message)}\n`);
      });
    try {
      const early = [await ask(modern('server/discover')), await ask(modern('tools/list'))];
      // A tool call goes through the SDK; from then on, so does everything else.
      const found = await ask(modern('tools/call', { name: 'search_contacts', arguments: { q: 'Modern Mona' } }));
      expect(found).toContain('mona@modern.example');
      const late = [await ask(modern('server/discover')), await ask(modern('tools/list'))];
      expect(JSON.parse(early[0]!)).toMatchObject({ result: { supportedVersions: ['2026-07-28'] } });
      expect(early).toEqual(late);
    } finally {
      child.stdin.end();
    }
  });
});
