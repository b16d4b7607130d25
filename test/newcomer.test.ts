/**
 * The newcomer path of the README, as a new user takes it: no configuration at all. The built CLI
 * creates the embedded demo help desk, serves HTTP (printing tokens and a curl example) and stdio
 * (acting as the demo administrator), and an MCP client gets the expected demo rows per tool.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { cliEnv, connectHttpMcp, connectStdio, startHttp, type HttpProcess } from './helpers/spawn.js';

const dataDir = mkdtempSync(join(tmpdir(), 'searchdesk-newcomer-'));
const env = cliEnv({ SEARCHDESK_DATA_DIR: dataDir });

type Payload = Record<string, Array<Record<string, unknown>>>;
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Payload> {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError ?? false).toBe(false);
  return (r.structuredContent as { payload: Payload }).payload;
}

async function demoQueries(client: Client) {
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
    'search_all',
    'search_contacts',
    'search_conversations',
    'search_messages',
    'search_articles',
  ]);
  const contacts = await call(client, 'search_contacts', { q: 'Bennett' });
  expect(contacts.contacts?.length).toBe(1);
  const conversations = await call(client, 'search_conversations', { q: 'Bennett' });
  expect(conversations.conversations?.every((c) => c.account_id === 1)).toBe(true);
  const messages = await call(client, 'search_messages', { q: 'hopper' });
  expect(messages.messages?.length).toBeGreaterThan(0);
  expect(messages.messages?.every((m) => String(m.content).toLowerCase().includes('hopper'))).toBe(true);
  const articles = await call(client, 'search_articles', { q: 'password' });
  expect(articles.articles?.length).toBeGreaterThan(0);
  const all = await call(client, 'search_all', { q: 'refund' });
  expect(Object.keys(all)).toEqual(['contacts', 'conversations', 'messages', 'articles']);
  expect(all.messages?.length).toBeGreaterThan(0);
}

let http: HttpProcess | undefined;

beforeAll(async () => {
  // First start creates the demo database: allow it the time a loaded 2-core machine needs.
  http = await startHttp(env, [], 60_000);
}, 90_000);

afterAll(async () => {
  await http?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a newcomer with no configuration', () => {
  it('gets the demo tokens, the MCP URL and a curl example on stderr', async () => {
    // The banner follows the `listening` log line.
    await vi.waitFor(() => expect(http!.stderr()).toContain('demo-admin-token'));
    const stderr = http!.stderr();
    expect(stderr).toContain(`${http!.url}/mcp`);
    expect(stderr).toMatch(
      /curl -s -H 'api_access_token: demo-admin-token' 'http:\/\/127\.0\.0\.1:\d+\/api\/v1\/accounts\/1\/search\?q=refund'/,
    );
  });

  it('gets results for every tool over HTTP', async () => {
    const client = await connectHttpMcp(http!.url, { api_access_token: 'demo-admin-token' });
    await demoQueries(client);
    await client.close();
  });

  it('gets the same through REST with the printed curl', async () => {
    const res = await fetch(`${http!.url}/api/v1/accounts/1/search?q=refund`, {
      headers: { api_access_token: 'demo-admin-token' },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { payload: Payload };
    expect(body.payload.messages?.length).toBeGreaterThan(0);
  });

  it('sees an agent limited to its inboxes', async () => {
    const client = await connectHttpMcp(http!.url, { api_access_token: 'demo-agent-token' });
    const hopper = await call(client, 'search_messages', { q: 'hopper' });
    expect(hopper.messages).toEqual([]);
    await client.close();
  });

  it('reuses the data and needs no token over stdio (the demo administrator)', async () => {
    await http!.stop();
    http = undefined;
    const stdio = await connectStdio(env);
    try {
      await demoQueries(stdio.client);
    } finally {
      await stdio.close();
    }
  });
});
