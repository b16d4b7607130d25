/**
 * One table of argument combinations asserted through both surfaces of one spawned server:
 * MCP over Streamable HTTP (structuredContent) and REST (body) must be deep-equal.
 * (Errors on both surfaces: surface-errors.test.ts.)
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { cliEnv, connectHttpMcp, restSearch, startHttp, type HttpProcess } from './helpers/spawn.js';

const NOW = Math.floor(Date.now() / 1000);
let t: TestDatabase;
let server: HttpProcess;
const f = {} as {
  account: number;
  noFlag: number;
  admin: string;
  agent: string;
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
  const admin = await fx.user();
  f.agentUser = await fx.user({ name: 'Parity Agent' });
  for (const account of [f.account, f.noFlag]) await fx.member(account, admin, 'administrator');
  await fx.member(f.account, f.agentUser, 'agent');
  f.admin = await fx.token(admin);
  f.agent = await fx.token(f.agentUser);
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

type Args = Record<string, string | number>;

const rest = (token: string | undefined, account: number | string, tool: string, args: Args) =>
  restSearch(server.url, token, account, tool, args);

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
