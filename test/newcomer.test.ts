/**
 * The newcomer path of the README, as a new user takes it: no configuration at all. The built CLI
 * creates the embedded demo help desk, serves HTTP (printing tokens and a curl example) and stdio
 * (acting as the demo administrator), and an MCP client gets the expected demo rows per tool.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
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
    'get_conversation',
    'get_contact',
    'get_article',
    'list_conversations',
    'get_account',
  ]);
  // The triage bot's call of the README: open and unassigned, longest waiting first.
  const queue = await client.callTool({
    name: 'list_conversations',
    arguments: { assignee_type: 'unassigned', sort_by: 'waiting_since_asc' },
  });
  const { payload } = queue.structuredContent as {
    payload: { counts: { unassigned_count: number }; conversations: Array<{ status: string }> };
  };
  expect(payload.conversations.length).toBeGreaterThan(0);
  expect(payload.conversations.every((c) => c.status === 'open')).toBe(true);
  expect(payload.counts.unassigned_count).toBeGreaterThanOrEqual(payload.conversations.length);
  const directory = await client.callTool({ name: 'get_account', arguments: {} });
  expect((directory.structuredContent as { inboxes: unknown[] }).inboxes.length).toBeGreaterThan(0);
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
  // Read what was found (issue 14): the hopper conversation, with its private note, and so on.
  const found = messages.messages![0]!;
  const transcript = await client.callTool({
    name: 'get_conversation',
    arguments: { display_id: found.conversation_display_id },
  });
  const { payload: lines } = transcript.structuredContent as { payload: Array<{ id: number; private: boolean }> };
  expect(lines.map((m) => m.id)).toContain(found.id);
  expect(lines.some((m) => m.private)).toBe(true);
  const contact = await client.callTool({ name: 'get_contact', arguments: { id: contacts.contacts![0]!.id } });
  expect(contact.isError ?? false).toBe(false);
  const article = await client.callTool({ name: 'get_article', arguments: { id: articles.articles![0]!.id } });
  expect((article.structuredContent as { payload: { content: string } }).payload.content).toMatch(/password/i);
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
    // The README's example: conversation 275 is "not found" for this agent, as a number that does not exist.
    for (const display_id of [275, 99_999]) {
      const r = await client.callTool({ name: 'get_conversation', arguments: { display_id } });
      expect(r).toEqual({ isError: true, content: [{ type: 'text', text: 'Conversation not found' }] });
    }
    await client.close();
    const agent2 = await fetch(`${http!.url}/api/v1/accounts/1/conversations/275/messages`, {
      headers: { api_access_token: 'demo-agent2-token' },
    });
    const read = (await agent2.json()) as {
      meta: { conversation: Record<string, unknown> };
      payload: Array<{ content: string }>;
    };
    expect(read.payload[0]?.content).toMatch(/hopper/);
    // The README's queue state of that conversation.
    expect(read.meta.conversation).toMatchObject({ status: 'open', priority: 'low', labels: ['vip'] });
    expect(read.meta.conversation.waiting_since).toEqual(expect.any(Number));
    expect(read.meta.conversation).not.toHaveProperty('url');
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
