/**
 * Over HTTP a tool call's log line is written once the response is (handing a line to the
 * asynchronous log is not part of the caller's wait), and never lost: one line per call.
 */
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createHttpServer } from '../src/http/server.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';

let t: TestDatabase;
let app: App;
let server: Server;
let base: string;
let token: string;
let account: number;
/** Each tool_call line, with whether its request's response had been ended when it was written. */
const toolCalls: Array<{ tool: unknown; afterResponse: boolean }> = [];
let ended = false;

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  account = await fx.account();
  const user = await fx.user();
  await fx.member(account, user, 'administrator');
  token = await fx.token(user);
  const logger = createLogger('info', {
    write: (s: string) => {
      for (const line of s.split('\n').filter(Boolean)) {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (parsed.event === 'tool_call') toolCalls.push({ tool: parsed.tool, afterResponse: ended });
      }
    },
  });
  app = await createApp(loadConfig({ DATABASE_URL: t.url, LOG_LEVEL: 'info' }), logger);
  server = createHttpServer(app);
  // Runs after the server's own listener, before any of its asynchronous work: notes res.end.
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    ended = false;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.end = ((...args: unknown[]) => {
      ended = true;
      return end(...args);
    }) as ServerResponse['end'];
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await app?.close();
  await t?.drop();
});

const call = (id: number, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: { q: 'nothing-here', account_id: account } },
});

describe('MCP over HTTP: the tool_call log line', () => {
  it('is written after the response, one per call of a batch', async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', api_access_token: token },
      body: JSON.stringify([call(1, 'search_contacts'), call(2, 'search_articles')]),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as unknown[]).length).toBe(2);
    expect(toolCalls.map((c) => c.tool).sort()).toEqual(['search_articles', 'search_contacts']);
    expect(toolCalls.every((c) => c.afterResponse)).toBe(true);
  });
});
