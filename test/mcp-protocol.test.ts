/**
 * searchdesk's own MCP protocol layer (src/mcp/protocol.ts, server.ts and the two transports),
 * at the level of raw JSON-RPC: what the SDK client never sends but other clients may. The SDK
 * client's view (tool calls, results, errors) is in mcp-tools, mcp-stdio and http-server.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startStdioServer } from '../src/mcp/stdio.js';
import { createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { startHttp, type HttpProcess } from './helpers/http.js';
import { cliEnv, initializeRequest, rawRequest } from './helpers/spawn.js';

let t: TestDatabase;
let server: HttpProcess;
const f = {} as { admin: string };
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  const account = await fx.account({ advancedSearch: true });
  const admin = await fx.user();
  await fx.member(account, admin, 'administrator');
  f.admin = await fx.token(admin);
  const conv = await fx.conversation(account, await fx.inbox(account), {
    contact_id: await fx.contact(account, { name: 'Paula Protocol' }),
  });
  await fx.message(conv, { content: 'protocol message' });
  await fx.contact(account, { name: 'Renée Split' });
  await fx.contact(account, { name: 'Zoë "Bytes" 🙂 Ünïcode', email: 'zoe\\bytes@example.com' });
  server = await startHttp(cliEnv({ DATABASE_URL: t.url }));
});

afterAll(async () => {
  await server?.stop();
  await t.drop();
});

async function post(body: unknown, headers: Record<string, string> = {}) {
  const r = await rawRequest(`${server.url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, api_access_token: f.admin, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: r.status, headers: r.headers, json: r.body === '' ? undefined : (JSON.parse(r.body) as unknown) };
}

describe('MCP over HTTP: the transport rules', () => {
  it('answers initialize with the version asked when it speaks it, else its newest', async () => {
    const known = await post(initializeRequest('2025-03-26'));
    expect(known.status).toBe(200);
    expect(known.headers['content-type']).toMatch(/^application\/json/);
    expect(known.json).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: '2025-03-26',
        capabilities: { tools: {} },
        serverInfo: { name: 'searchdesk' },
        instructions: expect.stringContaining('Read-only') as unknown,
      },
    });
    expect((await post(initializeRequest('1999-01-01'))).json).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
    expect((await post(initializeRequest(7))).json).toMatchObject({ id: 1, error: { code: -32602 } });
  });

  it('refuses a client that does not accept both JSON and event streams (406)', async () => {
    const r = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { accept: 'application/json' });
    expect(r.status).toBe(406);
    expect(r.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
  });

  it('refuses a body that is not declared JSON (415)', async () => {
    const r = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'content-type': 'text/plain' });
    expect(r.status).toBe(415);
    expect(
      (await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'content-type': 'Application/JSON; charset=utf-8' })).status,
    ).toBe(200);
  });

  it('refuses JSON that is not a JSON-RPC message, and an empty batch (400)', async () => {
    for (const body of [
      { hello: 1 },
      [],
      [{ jsonrpc: '2.0', id: 1, method: 'ping' }, 5],
      { jsonrpc: '2.0', id: 1, method: 'x', params: [] },
    ]) {
      const r = await post(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
    }
  });

  it('accepts notifications alone with 202 and no body', async () => {
    const r = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(r.status).toBe(202);
    expect(r.json).toBeUndefined();
  });

  it('answers a batch in order, one response per request', async () => {
    const r = await post([
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'search_contacts', arguments: { q: 'Paula' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'b', method: 'ping' },
    ]);
    expect(r.status).toBe(200);
    const answers = r.json as Array<{ id: string; result: { structuredContent?: { payload: { contacts: unknown[] } } } }>;
    expect(answers.map((a) => a.id)).toEqual(['a', 'b']);
    expect(answers[0]!.result.structuredContent?.payload.contacts).toHaveLength(1);
    expect(answers[1]!.result).toEqual({});
  });

  it('writes a tool result, alone or in a batch, as exact JSON of its byte length', async () => {
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'search_contacts', arguments: { q: 'Bytes' } },
    });
    for (const body of [call(1), [call(2), { jsonrpc: '2.0', id: 3, method: 'ping' }, call(4)]]) {
      const r = await rawRequest(`${server.url}/mcp`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, api_access_token: f.admin },
        body: JSON.stringify(body),
      });
      expect(r.status).toBe(200);
      expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.body));
      // The text written is what JSON.stringify writes for the answer it parses to.
      expect(JSON.stringify(JSON.parse(r.body))).toBe(r.body);
      const answers = (Array.isArray(body) ? JSON.parse(r.body) : [JSON.parse(r.body)]) as Array<{
        result: {
          content?: Array<{ text: string }>;
          structuredContent?: { payload: { contacts: Array<{ name: string; email: string }> } };
        };
      }>;
      for (const answer of answers.filter((a) => a.result.structuredContent)) {
        expect(answer.result.structuredContent?.payload.contacts).toEqual([
          expect.objectContaining({ name: 'Zoë "Bytes" 🙂 Ünïcode', email: 'zoe\\bytes@example.com' }),
        ]);
        expect(JSON.parse(answer.result.content?.[0]?.text ?? '')).toEqual(answer.result.structuredContent);
      }
    }
  });

  it('allows initialize only on its own, and limits a batch to 100 messages (400)', async () => {
    const both = await post([initializeRequest('2025-06-18'), { jsonrpc: '2.0', id: 2, method: 'ping' }]);
    expect(both.status).toBe(400);
    expect(both.json).toMatchObject({ error: { code: -32600 } });
    const pings = Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
    expect((await post(pings)).status).toBe(400);
    expect(((await post(pings.slice(0, 100))).json as unknown[]).length).toBe(100);
  });

  it('refuses a protocol version header it does not speak after initialization (400)', async () => {
    const r = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': '1999-01-01' });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: { code: -32000, message: expect.stringContaining('1999-01-01') as unknown } });
    const ok = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': '2025-06-18' });
    expect((ok.json as { result: { tools: unknown[] } }).result.tools).toHaveLength(10);
  });

  it('answers an unknown method with -32601 and malformed tools/call params with -32602', async () => {
    expect((await post({ jsonrpc: '2.0', id: 3, method: 'resources/list' })).json).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32601, message: 'Method not found' },
    });
    for (const params of [{}, { name: 5 }, { name: 'search_contacts', arguments: 'q=x' }]) {
      const r = await post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params });
      expect(r.status).toBe(200);
      expect(r.json, JSON.stringify(params)).toMatchObject({ id: 4, error: { code: -32602 } });
    }
  });
});

describe('MCP over stdio: framing and cancellation', () => {
  async function stdioExchange(lines: string[]): Promise<Array<Record<string, unknown>>> {
    const config = loadConfig(cliEnv({ DATABASE_URL: t.url, SEARCHDESK_ACCESS_TOKEN: f.admin }));
    const app = await createApp(config, silentLogger);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let out = '';
    stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    try {
      const stdio = await startStdioServer({ app, logger: silentLogger, stdin, stdout });
      // One chunk, split inside a multi-byte character, then the end of input.
      const bytes = Buffer.from(lines.map((l) => `${l}\r\n`).join(''), 'utf8');
      const cut = bytes.indexOf(Buffer.from('é', 'utf8')) + 1 || bytes.length;
      stdin.write(bytes.subarray(0, cut));
      stdin.end(bytes.subarray(cut));
      await stdio.closed;
      await stdio.close();
    } finally {
      await app.close();
    }
    return out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  it('answers a line that is not JSON with a parse error and goes on; keeps characters split across chunks', async () => {
    const answers = await stdioExchange([
      '{"jsonrpc":"2.0","id":1,"method":',
      '{"jsonrpc":"1.0","id":2,"method":"ping"}',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'search_contacts', arguments: { q: 'Renée' } },
      }),
      JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'search_contacts', arguments: { q: 'Paula' } },
      }),
    ]);
    expect(answers.find((a) => a.id === null && (a.error as { code: number }).code === -32700)).toBeDefined();
    expect(answers.find((a) => a.id === null && (a.error as { code: number }).code === -32600)).toBeDefined();
    const byId = (id: number) =>
      answers.find((a) => a.id === id) as { result: { structuredContent: { payload: { contacts: unknown[] } } } };
    // "Renée" arrived whole (its split bytes decoded together), so it finds her.
    expect(byId(3).result.structuredContent.payload.contacts).toHaveLength(1);
    expect(byId(4).result.structuredContent.payload.contacts).toHaveLength(1);
  });

  it('drops the answer of a call the client cancelled, and answers the rest', async () => {
    const answers = await stdioExchange([
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'search_contacts', arguments: { q: 'Paula' } },
      }),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'user' } }),
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' }),
      // Cancelling a request that is not running changes nothing (id 9 is answered after it).
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } }),
      JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
    ]);
    expect(answers.map((a) => a.id).sort()).toEqual([8, 9]);
  });
});
