/**
 * Every auth outcome and rule violation of contract §2/§3/§4.2 on both surfaces of one spawned
 * server, with exact REST statuses and bodies and the same text as an MCP tool error.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { cliEnv, connectHttpMcp, restSearch } from './helpers/spawn.js';
import { startHttp, type HttpProcess } from './helpers/http.js';
import { timeMessage } from '../src/search/times.js';

const NOW = Math.floor(Date.now() / 1000);
let t: TestDatabase;
let server: HttpProcess;
let client: Client;
const f = {} as {
  account: number;
  noFlag: number;
  suspended: number;
  foreign: number;
  admin: string;
  agent: string;
  bot: string;
};

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  f.account = await fx.account({ advancedSearch: true });
  f.noFlag = await fx.account({ advancedSearch: false });
  f.suspended = await fx.account({ suspended: true });
  f.foreign = await fx.account();
  const admin = await fx.user();
  for (const account of [f.account, f.noFlag, f.suspended]) await fx.member(account, admin, 'administrator');
  await fx.member(f.foreign, await fx.user(), 'administrator');
  const agent = await fx.user();
  await fx.member(f.account, agent, 'agent');
  f.admin = await fx.token(admin);
  f.agent = await fx.token(agent);
  f.bot = await fx.token(admin, 'AgentBot');
  server = await startHttp(cliEnv({ DATABASE_URL: t.url }));
  client = await connectHttpMcp(server.url, { api_access_token: f.admin });
  await client.listTools();
});

afterAll(async () => {
  await client?.close();
  await server?.stop();
  await t.drop();
});

type Args = Record<string, string | number>;

const rest = (token: string | undefined, account: number | string, tool: string, args: Args) =>
  restSearch(server.url, token, account, tool, args);

const mcp = async (account: number, tool: string, args: Args) =>
  await client.callTool({ name: tool, arguments: { ...args, account_id: account } });

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
      error: timeMessage('since'),
    },
    {
      name: 'until not a number',
      account: () => f.account,
      tool: 'search_conversations',
      args: { q: 'x', until: 'later' },
      status: 422,
      error: timeMessage('until'),
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
      const viaMcp = await mcp(c.account(), c.tool, args);
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
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="searchdesk"');
      expect(await res.json()).toEqual({ error });
      const viaRest = await fetch(`${server.url}/api/v1/accounts/${f.account}/contacts/1`, {
        headers: token === undefined ? {} : { api_access_token: token },
      });
      expect(viaRest.status).toBe(401);
      expect(viaRest.headers.get('www-authenticate')).toBe('Bearer realm="searchdesk"');
      expect(await viaRest.json()).toEqual({ error });
    });
  }

  it('an account-level 401 carries the challenge too; other statuses do not', async () => {
    const notMember = await fetch(`${server.url}/api/v1/accounts/${f.foreign}/search?q=x`, {
      headers: { api_access_token: f.admin },
    });
    expect(notMember.status).toBe(401);
    expect(notMember.headers.get('www-authenticate')).toBe('Bearer realm="searchdesk"');
    const unknown = await fetch(`${server.url}/api/v1/accounts/999999/search?q=x`, { headers: { api_access_token: f.admin } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('www-authenticate')).toBeNull();
  });

  it('the SDK client fails to connect over HTTP with an invalid token', async () => {
    // The 2.x client's SdkHttpError carries the HTTP status as `status` (the 1.x client's error had it as `code`).
    await expect(connectHttpMcp(server.url, { api_access_token: 'nope' })).rejects.toMatchObject({
      status: 401,
      message: expect.stringContaining('Invalid Access Token') as unknown,
    });
  });

  it('REST and /mcp accept Authorization: Bearer as well as api_access_token', async () => {
    const res = await fetch(`${server.url}/api/v1/accounts/${f.account}/search/contacts?q=x`, {
      headers: { authorization: `Bearer ${f.admin}` },
    });
    expect(res.status).toBe(200);
    const client = await connectHttpMcp(server.url, { authorization: `Bearer ${f.admin}` });
    const r = await client.callTool({ name: 'search_contacts', arguments: { q: 'Parity Person 1', account_id: f.account } });
    expect(r.isError).toBeFalsy();
    await client.close();
  });

  it('never logs a token', () => {
    for (const token of [f.admin, f.agent, f.bot]) expect(server.stderr()).not.toContain(token);
  });
});
