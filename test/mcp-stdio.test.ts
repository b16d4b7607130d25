/**
 * MCP over stdio: what a desktop MCP client sees. The built CLI (spawned, the stdio smoke tests):
 * start-up refusals and a clean stdout. In-process (helpers/stdio.ts): structured results
 * validated by the SDK client, the context budget set by env, and a Postgres outage (a TCP proxy
 * cut in front of the real server) that the server survives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { cliEnv, initializeRequest, logLines, runCli } from './helpers/spawn.js';
import { connectStdio, type StdioSession } from './helpers/stdio.js';
import { FaultProxy } from './helpers/fault-proxy.js';
import { SERVER_ICONS } from '../src/mcp/icons.js';

let t: TestDatabase;
const f = {} as { account: number; admin: string; bot: string; long: number };
const sessions: StdioSession[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  f.account = await fx.account({ advancedSearch: true });
  const admin = await fx.user();
  await fx.member(f.account, admin, 'administrator');
  f.admin = await fx.token(admin);
  f.bot = await fx.token(admin, 'AgentBot');
  const conv = await fx.conversation(f.account, await fx.inbox(f.account), {
    contact_id: await fx.contact(f.account, { name: 'Stdio Sam' }),
  });
  await fx.message(conv, { content: 'stdio hello there' });
  f.long = await fx.message(conv, { content: `stdio ${'very long text '.repeat(1_000)}` });
});

afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
  await t.drop();
});

async function session(extra: Record<string, string> = {}): Promise<StdioSession> {
  const s = await connectStdio(cliEnv({ DATABASE_URL: t.url, SEARCHDESK_ACCESS_TOKEN: f.admin, ...extra }));
  sessions.push(s);
  await s.client.listTools();
  return s;
}

const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

describe('stdio: start-up (contract §2 table)', () => {
  const cases: Array<[string, string | undefined, RegExp]> = [
    ['no token', undefined, /^searchdesk: SEARCHDESK_ACCESS_TOKEN is not set/],
    ['an unknown token', 'nope', /^searchdesk: SEARCHDESK_ACCESS_TOKEN is not accepted: Invalid Access Token$/],
    [
      'a bot token',
      'BOT',
      /^searchdesk: SEARCHDESK_ACCESS_TOKEN is not accepted: Access to this endpoint is not authorized for bots$/,
    ],
  ];
  for (const [name, token, message] of cases) {
    it(`refuses to start with ${name}: one line on stderr, exit code 2, nothing on stdout`, async () => {
      const r = await runCli([], cliEnv({ DATABASE_URL: t.url, SEARCHDESK_ACCESS_TOKEN: token === 'BOT' ? f.bot : token }));
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(message);
      if (token === 'BOT') expect(r.stderr).not.toContain(f.bot);
    });
  }
});

describe('stdio: protocol', () => {
  it('writes nothing but JSON-RPC on stdout and exits 0 when stdin closes', async () => {
    const messages = [
      initializeRequest(),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search_contacts', arguments: { q: 'Sam' } } },
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'search_contacts', arguments: { q: '' } } },
    ];
    // Keep stdin open until the last answer could have been written: the client closing stdin ends the server.
    const input = messages.map((m) => JSON.stringify(m)).join('\n') + '\n';
    const r = await runCli(['serve', '--stdio'], cliEnv({ DATABASE_URL: t.url, SEARCHDESK_ACCESS_TOKEN: f.admin }), input);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter(Boolean);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    // Requests run concurrently: answers may come in any order, each exactly once.
    const byId = new Map(lines.map((l) => JSON.parse(l) as { id: number; result: CallToolResult }).map((m) => [m.id, m]));
    expect([...byId.keys()].sort()).toEqual([1, 2, 3, 4]);
    expect(lines).toHaveLength(4);
    expect(byId.get(3)?.result.structuredContent).toMatchObject({ payload: { contacts: [{ name: 'Stdio Sam' }] } });
    expect(byId.get(4)?.result).toMatchObject({ isError: true, content: [{ text: 'q must not be blank' }] });
    expect(r.stderr).not.toContain(f.admin);
    expect(logLines(r.stderr).filter((l) => l.event === 'tool_call')).toHaveLength(2);
  });

  it('answers tools/list and tools/call through the SDK client, which validates structuredContent', async () => {
    const { client } = await session();
    expect(client.getServerVersion()?.icons).toEqual(SERVER_ICONS);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(10);
    for (const tool of tools) expect(tool.icons).toBeUndefined();
    const r = await client.callTool({ name: 'search_messages', arguments: { q: 'stdio hello' } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ payload: { messages: [{ content: 'stdio hello there' }] } });
    expect(r._meta).toEqual({ page: 1, per_page: 15, has_more: { messages: false }, engine: 'postgres' });
    expect(r.content).toHaveLength(1);
    expect(JSON.parse(text(r))).toEqual(r.structuredContent);
    // The built bundle answers with meta and ISO 8601 times as the source does (contract §10).
    expect(r.structuredContent).toMatchObject({
      payload: { messages: [{ created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/) }] },
      meta: {
        page: 1,
        next: null,
        truncated: false,
        engine: 'postgres',
        // A short page without since: the bundle says only 90 days were searched, as the source does.
        notices: [expect.stringMatching(/^Only messages of the last 90 days were searched/)],
        now: expect.stringMatching(/Z$/),
      },
    });
  });

  it('applies SEARCHDESK_MAX_RESULT_CHARS: long content ends with "…", rows are kept', async () => {
    const { client } = await session({ SEARCHDESK_MAX_RESULT_CHARS: '2000' });
    const r = await client.callTool({ name: 'search_messages', arguments: { q: 'stdio' } });
    expect(r._meta).toMatchObject({ truncated: true });
    expect(text(r).length).toBeLessThanOrEqual(2_000);
    expect(r.structuredContent).toMatchObject({
      meta: { truncated: true, notices: [expect.stringMatching(/last 90 days/), expect.stringMatching(/message content/)] },
    });
    const messages = (r.structuredContent as { payload: { messages: Array<{ id: number; content: string }> } }).payload.messages;
    expect(messages).toHaveLength(2);
    expect(messages.find((m) => m.id === f.long)?.content.endsWith('…')).toBe(true);
  });
});

describe('stdio: Postgres outage (contract §8)', () => {
  it('answers "Search backend unavailable" as a tool error, keeps running, and recovers', async () => {
    const proxy = FaultProxy.for(t.url);
    await proxy.start();
    const { client, stderr } = await session({ DATABASE_URL: proxy.proxied(t.url) });
    const ok = await client.callTool({ name: 'search_contacts', arguments: { q: 'Sam' } });
    expect(ok.isError).toBeFalsy();

    await proxy.cut();
    const down = await client.callTool({ name: 'search_contacts', arguments: { q: 'Sam' } });
    expect(down.isError).toBe(true);
    expect(text(down)).toBe('Search backend unavailable');

    await proxy.restore();
    const back = await client.callTool({ name: 'search_contacts', arguments: { q: 'Sam' } });
    expect(back.isError).toBeFalsy();
    expect(back.structuredContent).toMatchObject({ payload: { contacts: [{ name: 'Stdio Sam' }] } });
    expect(stderr()).not.toMatch(/SELECT|password/i);
    await proxy.cut();
  });

  it('starts while Postgres is down and answers once it is back', async () => {
    const proxy = FaultProxy.for(t.url);
    await proxy.start();
    const url = proxy.proxied(t.url);
    await proxy.cut();
    const { client } = await session({ DATABASE_URL: url });
    const down = await client.callTool({ name: 'search_contacts', arguments: { q: 'Sam' } });
    expect(text(down)).toBe('Search backend unavailable');
    await proxy.restore();
    const back = await client.callTool({ name: 'search_contacts', arguments: { q: 'Sam' } });
    expect(back.isError).toBeFalsy();
    await proxy.cut();
  });
});
