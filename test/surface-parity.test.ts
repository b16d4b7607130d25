/**
 * One table of argument combinations asserted through both surfaces of one spawned server:
 * MCP over Streamable HTTP (structuredContent) and REST (body) must be deep-equal. Then every
 * auth outcome and rule violation of contract §2/§3/§4.2 on both surfaces, with exact texts.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { cliEnv, connectHttpMcp, startHttp, type HttpProcess } from './helpers/spawn.js';

const NOW = Math.floor(Date.now() / 1000);
let t: TestDatabase;
let server: HttpProcess;
const f = {} as {
  account: number;
  noFlag: number;
  suspended: number;
  foreign: number;
  admin: string;
  agent: string;
  bot: string;
  contact: number;
  agentUser: number;
  inbox1: number;
  inbox2: number;
};
const clients = new Map<string, Client>();

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  f.account = await fx.account({ advancedSearch: true });
  f.noFlag = await fx.account({ advancedSearch: false });
  f.suspended = await fx.account({ suspended: true });
  f.foreign = await fx.account();
  const admin = await fx.user();
  f.agentUser = await fx.user({ name: 'Parity Agent' });
  for (const account of [f.account, f.noFlag, f.suspended]) await fx.member(account, admin, 'administrator');
  await fx.member(f.account, f.agentUser, 'agent');
  await fx.member(f.foreign, await fx.user(), 'administrator');
  f.admin = await fx.token(admin);
  f.agent = await fx.token(f.agentUser);
  f.bot = await fx.token(admin, 'AgentBot');
  f.inbox1 = await fx.inbox(f.account);
  f.inbox2 = await fx.inbox(f.account);
  await fx.inboxMember(f.inbox1, f.agentUser);
  const portal = await fx.portal(f.account);
  for (let i = 0; i < 17; i++) {
    const contact = await fx.contact(f.account, { name: `Parity Person ${i}`, last_activity_at: NOW - i * DAY });
    f.contact ??= contact;
    const inbox = i % 2 ? f.inbox2 : f.inbox1;
    const conv = await fx.conversation(f.account, inbox, { contact_id: contact, created_at: NOW - i * DAY - 60 });
    const fromContact = { sender_type: 'Contact', sender_id: contact };
    const fromAgent = { sender_type: 'User', sender_id: f.agentUser, message_type: 1 };
    await fx.message(conv, { content: `parity question ${i}`, created_at: NOW - i * DAY - 30, ...fromContact });
    await fx.message(conv, { content: `parity answer ${i}`, created_at: NOW - i * DAY - 20, ...fromAgent });
    await fx.article(f.account, portal, { title: `Parity guide ${i}`, content: `How parity works, part ${i}.` });
  }
  const old = await fx.conversation(f.account, f.inbox1, { contact_id: f.contact, created_at: NOW - 120 * DAY });
  await fx.message(old, { content: 'parity from long ago', created_at: NOW - 100 * DAY });
  const noFlagInbox = await fx.inbox(f.noFlag);
  const noFlagContact = await fx.contact(f.noFlag, { name: 'Parity Elsewhere' });
  await fx.message(await fx.conversation(f.noFlag, noFlagInbox, { contact_id: noFlagContact }), { content: 'parity hidden' });

  server = await startHttp(cliEnv({ DATABASE_URL: t.url }));
  for (const token of [f.admin, f.agent]) clients.set(token, await connectHttpMcp(server.url, { api_access_token: token }));
  for (const client of clients.values()) await client.listTools(); // the client then validates structuredContent
});

afterAll(async () => {
  await Promise.all([...clients.values()].map((c) => c.close()));
  await server?.stop();
  await t.drop();
});

const TOOL_PATH: Record<string, string> = {
  search_all: '',
  search_contacts: '/contacts',
  search_conversations: '/conversations',
  search_messages: '/messages',
  search_articles: '/articles',
};

type Args = Record<string, string | number>;

async function rest(token: string | undefined, account: number | string, tool: string, args: Args) {
  const query = new URLSearchParams(Object.entries(args).map(([k, v]): [string, string] => [k, String(v)]));
  const headers: Record<string, string> = token === undefined ? {} : { api_access_token: token };
  const res = await fetch(`${server.url}/api/v1/accounts/${account}/search${TOOL_PATH[tool]}?${query.toString()}`, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function mcp(token: string, account: number, tool: string, args: Args): Promise<CallToolResult> {
  const client = clients.get(token);
  if (!client) throw new Error('no client for token');
  return (await client.callTool({ name: tool, arguments: { ...args, account_id: account } })) as CallToolResult;
}

describe('parity: the same payload through MCP and REST (contract §1)', () => {
  const cases: Array<[string, Args | (() => Args)]> = [
    ['search_all', { q: 'parity' }],
    ['search_all', { q: 'parity', page: 2 }],
    ['search_all', () => ({ q: 'parity', since: NOW - 5 * DAY, until: NOW - DAY })],
    ['search_contacts', { q: 'parity person' }],
    ['search_contacts', { q: 'PARITY', page: 2 }],
    ['search_contacts', () => ({ q: 'parity', since: NOW - 3 * DAY })],
    ['search_contacts', () => ({ q: 'parity', until: NOW - 10 * DAY })],
    ['search_conversations', { q: 'parity' }],
    ['search_conversations', { q: 'parity', page: 2 }],
    ['search_conversations', () => ({ q: 'parity', since: NOW - 6 * DAY, until: NOW - 2 * DAY })],
    ['search_messages', { q: 'parity' }],
    ['search_messages', { q: 'parity', page: 2 }],
    ['search_messages', { q: 'parity', page: 3 }],
    ['search_messages', { q: 'par ques' }],
    ['search_messages', () => ({ q: 'parity', from: `contact:${f.contact}` })],
    ['search_messages', () => ({ q: 'parity', from: `agent:${f.agentUser}` })],
    ['search_messages', { q: 'parity', from: 'somebody' }],
    ['search_messages', () => ({ q: 'parity', inbox_id: f.inbox2 })],
    ['search_messages', () => ({ q: 'parity', since: NOW - 10 * DAY, until: NOW - 2 * DAY, inbox_id: f.inbox1 })],
    ['search_articles', { q: 'parity guide' }],
    ['search_articles', { q: 'parity', page: 2 }],
  ];

  for (const [role, tokenOf] of [
    ['administrator', () => f.admin],
    ['agent', () => f.agent],
  ] as const) {
    for (const [tool, argsOf] of cases) {
      const label = typeof argsOf === 'function' ? argsOf.toString().replace(/\s+/g, ' ').slice(6, 90) : JSON.stringify(argsOf);
      it(`${role}: ${tool} ${label}`, async () => {
        const args = typeof argsOf === 'function' ? argsOf() : argsOf;
        const [viaMcp, viaRest] = await Promise.all([
          mcp(tokenOf(), f.account, tool, args),
          rest(tokenOf(), f.account, tool, args),
        ]);
        expect(viaMcp.isError).toBeFalsy();
        expect(viaRest.status).toBe(200);
        expect(viaMcp.structuredContent).toEqual(viaRest.body);
        expect(Object.keys(viaRest.body)).toEqual(['payload']);
        // Every case finds something for the administrator, so equality is never the trivial `[] = []`.
        const lists = Object.values(viaRest.body.payload as Record<string, unknown[]>);
        if (role === 'administrator') expect(lists.some((rows) => rows.length > 0)).toBe(true);
      });
    }
  }

  it('is not trivially empty: pages and has_more line up', async () => {
    const first = await mcp(f.admin, f.account, 'search_messages', { q: 'parity' });
    const { payload } = first.structuredContent as { payload: { messages: unknown[] } };
    expect(payload.messages).toHaveLength(15);
    expect(first._meta).toMatchObject({ page: 1, per_page: 15, has_more: { messages: true } });
    const third = await mcp(f.admin, f.account, 'search_messages', { q: 'parity', page: 3 });
    expect((third.structuredContent as { payload: { messages: unknown[] } }).payload.messages).toHaveLength(4);
    expect(third._meta).toMatchObject({ has_more: { messages: false } });
  });

  it('ignores an unknown REST parameter, while MCP rejects an unknown argument', async () => {
    const plain = await rest(f.admin, f.account, 'search_articles', { q: 'parity' });
    const extra = await rest(f.admin, f.account, 'search_articles', { q: 'parity', bogus: '1' });
    expect(extra).toEqual(plain);
    const r = await mcp(f.admin, f.account, 'search_articles', { q: 'parity', bogus: 1 });
    expect(r.isError).toBe(true);
    expect(r.content).toEqual([{ type: 'text', text: 'unknown argument: bogus' }]);
  });

  it('search_all without advanced_search returns messages: [] on both surfaces', async () => {
    const viaRest = await rest(f.admin, f.noFlag, 'search_all', { q: 'parity' });
    const viaMcp = await mcp(f.admin, f.noFlag, 'search_all', { q: 'parity' });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toMatchObject({ payload: { messages: [], contacts: [{ name: 'Parity Elsewhere' }] } });
    expect(viaMcp.structuredContent).toEqual(viaRest.body);
  });
});

describe('errors: same message on both surfaces (contract §2, §3, §4.2)', () => {
  const cases: Array<{
    name: string;
    account: () => number;
    tool: string;
    args: Args | (() => Args);
    status: number;
    error: string;
  }> = [
    {
      name: 'unknown account',
      account: () => 999_999,
      tool: 'search_contacts',
      args: { q: 'x' },
      status: 404,
      error: 'Resource could not be found',
    },
    {
      name: 'suspended account',
      account: () => f.suspended,
      tool: 'search_contacts',
      args: { q: 'x' },
      status: 401,
      error: 'Account is suspended',
    },
    {
      name: 'not a member',
      account: () => f.foreign,
      tool: 'search_all',
      args: { q: 'x' },
      status: 401,
      error: 'You are not authorized to access this account',
    },
    { name: 'q missing', account: () => f.account, tool: 'search_all', args: {}, status: 422, error: 'q is required' },
    {
      name: 'q blank',
      account: () => f.account,
      tool: 'search_contacts',
      args: { q: '   ' },
      status: 422,
      error: 'q must not be blank',
    },
    {
      name: 'q too long',
      account: () => f.account,
      tool: 'search_articles',
      args: { q: 'x'.repeat(501) },
      status: 422,
      error: 'q must be at most 500 characters',
    },
    {
      name: 'page 0',
      account: () => f.account,
      tool: 'search_contacts',
      args: { q: 'x', page: 0 },
      status: 422,
      error: 'page must be an integer between 1 and 500',
    },
    {
      name: 'page 501',
      account: () => f.account,
      tool: 'search_articles',
      args: { q: 'x', page: 501 },
      status: 422,
      error: 'page must be an integer between 1 and 500',
    },
    {
      name: 'page not a number',
      account: () => f.account,
      tool: 'search_articles',
      args: { q: 'x', page: 'two' },
      status: 422,
      error: 'page must be an integer between 1 and 500',
    },
    {
      name: 'since negative',
      account: () => f.account,
      tool: 'search_contacts',
      args: { q: 'x', since: -1 },
      status: 422,
      error: 'since must be an integer Unix timestamp (seconds)',
    },
    {
      name: 'until not a number',
      account: () => f.account,
      tool: 'search_conversations',
      args: { q: 'x', until: 'later' },
      status: 422,
      error: 'until must be an integer Unix timestamp (seconds)',
    },
    {
      name: 'inbox_id 0',
      account: () => f.account,
      tool: 'search_messages',
      args: { q: 'x', inbox_id: 0 },
      status: 422,
      error: 'inbox_id must be a positive integer',
    },
    {
      name: 'since older than 90 days',
      account: () => f.account,
      tool: 'search_messages',
      args: () => ({ q: 'x', since: NOW - 91 * DAY }),
      status: 422,
      error: 'Search is limited to the last 90 days',
    },
    {
      name: 'message search without the flag',
      account: () => f.noFlag,
      tool: 'search_messages',
      args: { q: 'parity' },
      status: 403,
      error: 'Message search is not enabled for this account',
    },
  ];

  for (const c of cases) {
    it(`${c.name}: REST ${c.status} and an MCP tool error, same text`, async () => {
      const args = typeof c.args === 'function' ? c.args() : c.args;
      const viaRest = await rest(f.admin, c.account(), c.tool, args);
      expect(viaRest).toEqual({ status: c.status, body: { error: c.error } });
      const viaMcp = await mcp(f.admin, c.account(), c.tool, args);
      expect(viaMcp).toEqual({ isError: true, content: [{ type: 'text', text: c.error }] });
    });
  }

  it('REST: an account id that is not a positive integer is an unknown account (404)', async () => {
    for (const segment of ['abc', '0', '-1', '1.5', '01', '99999999999999999999']) {
      expect(await rest(f.admin, segment, 'search_all', { q: 'x' })).toEqual({
        status: 404,
        body: { error: 'Resource could not be found' },
      });
    }
  });

  const authCases: Array<[string, () => string | undefined, string]> = [
    ['no token', () => undefined, 'Missing api_access_token header'],
    ['an unknown token', () => 'nope', 'Invalid Access Token'],
    ['a bot token', () => f.bot, 'Access to this endpoint is not authorized for bots'],
  ];
  for (const [name, tokenOf, error] of authCases) {
    it(`${name}: REST 401 and /mcp 401 with the same body, before any MCP`, async () => {
      expect(await rest(tokenOf(), f.account, 'search_contacts', { q: 'x' })).toEqual({ status: 401, body: { error } });
      const token = tokenOf();
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error });
    });
  }

  it('the SDK client fails to connect over HTTP with an invalid token', async () => {
    await expect(connectHttpMcp(server.url, { api_access_token: 'nope' })).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining('Invalid Access Token') as unknown,
    });
  });

  it('REST accepts only api_access_token (no Bearer), /mcp accepts both', async () => {
    const res = await fetch(`${server.url}/api/v1/accounts/${f.account}/search/contacts?q=x`, {
      headers: { authorization: `Bearer ${f.admin}` },
    });
    expect(res.status).toBe(401);
    const client = await connectHttpMcp(server.url, { authorization: `Bearer ${f.admin}` });
    const r = await client.callTool({ name: 'search_contacts', arguments: { q: 'Parity Person 1', account_id: f.account } });
    expect(r.isError).toBeFalsy();
    await client.close();
  });

  it('never logs a token', () => {
    for (const token of [f.admin, f.agent, f.bot]) expect(server.stderr()).not.toContain(token);
  });
});
