/**
 * One table of argument combinations asserted through both surfaces of one spawned server:
 * MCP over Streamable HTTP (structuredContent) and REST (body) must be deep-equal once
 * normalised: MCP's ISO 8601 timestamps read back as Unix seconds and MCP's `meta` set aside
 * (contract §1, §10; helpers/mcp-normalise.ts).
 * (Errors on both surfaces: surface-errors.test.ts.)
 */
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { cliEnv, connectHttpMcp, listPath, restGet, restRead, restSearch } from './helpers/spawn.js';
import { startHttp, type HttpProcess } from './helpers/http.js';
import { asRestBody } from './helpers/mcp-normalise.js';

const NOW = Math.floor(Date.now() / 1000);
const APP = 'https://desk.example.com';
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
  article: number;
  long: { display: number; messages: number[] };
  short: number;
  team: number;
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
  const portal = await fx.portal(f.account, 'parity', { custom_domain: 'help.parity.example' });
  for (let i = 0; i < 17; i++) {
    const contact = await fx.contact(f.account, { name: `Parity Person ${i}`, last_activity_at: NOW - i * DAY });
    f.contact ??= contact;
    const inbox = i % 2 ? f.inbox2 : f.inbox1;
    const conv = await fx.conversation(f.account, inbox, {
      contact_id: contact,
      created_at: NOW - i * DAY - 60,
      ...(i % 3 === 0 && { priority: i % 4, waiting_since: NOW - i * DAY, custom_attributes: { order: i } }),
    });
    if (i % 2 === 0) await fx.tagging(conv, i % 4 ? 'billing' : 'vip');
    const fromContact = { sender_type: 'Contact', sender_id: contact };
    const fromAgent = { sender_type: 'User', sender_id: f.agentUser, message_type: 1 };
    await fx.message(conv, { content: `parity question ${i}`, created_at: NOW - i * DAY - 30, ...fromContact });
    await fx.message(conv, { content: `parity answer ${i}`, created_at: NOW - i * DAY - 20, ...fromAgent });
    const article = await fx.article(f.account, portal, {
      title: `Parity guide ${i}`,
      content: `<p>How <b>parity</b> works, part ${i}.</p>`,
    });
    f.article ??= article;
  }
  // A conversation longer than a page, with a private note and activity messages (issue 14).
  const long = await fx.conversation(f.account, f.inbox1, {
    contact_id: f.contact,
    display_id: 900,
    created_at: NOW - 200 * DAY,
  });
  f.long = { display: 900, messages: [] };
  for (let i = 0; i < 60; i++) {
    const kind = i % 10 === 3 ? { message_type: 2 } : i % 10 === 7 ? { message_type: 1, private: true } : { message_type: i % 2 };
    f.long.messages.push(await fx.message(long, { content: `transcript ${i}`, created_at: NOW - 200 * DAY + i * 60, ...kind }));
  }
  f.short = 1; // the display id of the first conversation above (inbox 1)
  const old = await fx.conversation(f.account, f.inbox1, { contact_id: f.contact, created_at: NOW - 120 * DAY });
  await fx.message(old, { content: 'parity from long ago', created_at: NOW - 100 * DAY });
  const noFlagInbox = await fx.inbox(f.noFlag);
  const noFlagContact = await fx.contact(f.noFlag, { name: 'Parity Elsewhere' });
  await fx.message(await fx.conversation(f.noFlag, noFlagInbox, { contact_id: noFlagContact }), { content: 'parity hidden' });

  // Triage (issue 48): labels on some conversations, priorities, a team.
  f.team = await fx.team(f.account, 'Parity Team');
  await t.admin.query(
    "INSERT INTO labels (account_id, title, color) VALUES ($1, 'parity', '#ff0000'), ($1, 'other', '#00ff00')",
    [f.account],
  );
  await t.admin.query("INSERT INTO tags (name) VALUES ('parity'), ('other') ON CONFLICT DO NOTHING");
  await t.admin.query(
    `UPDATE conversations SET priority = display_id % 5 - 1 + CASE WHEN display_id % 5 = 0 THEN NULL ELSE 0 END,
       team_id = CASE WHEN display_id % 3 = 0 THEN $2::bigint END,
       waiting_since = CASE WHEN display_id % 2 = 0 THEN created_at END
     WHERE account_id = $1`,
    [f.account, f.team],
  );
  await t.admin.query(
    `INSERT INTO taggings (tag_id, taggable_type, taggable_id, context)
     SELECT t.id, 'Conversation', c.id, 'labels' FROM conversations c, tags t
     WHERE c.account_id = $1 AND t.name = 'parity' AND c.display_id % 2 = 1`,
    [f.account],
  );

  server = await startHttp(cliEnv({ DATABASE_URL: t.url, SEARCHDESK_APP_URL: `${APP}/` }));
  for (const token of [f.admin, f.agent]) clients.set(token, await connectHttpMcp(server.url, { api_access_token: token }));
  for (const client of clients.values()) await client.listTools(); // the client then validates structuredContent
});

afterAll(async () => {
  await Promise.all([...clients.values()].map((c) => c.close()));
  await server?.stop();
  await t.drop();
});

type Args = Record<string, string | number | boolean | string[]>;

const rest = (token: string | undefined, account: number | string, tool: string, args: Args) =>
  tool === 'list_conversations'
    ? restGet(server.url, token, listPath(account, args))
    : tool.startsWith('get_')
      ? restRead(server.url, token, account, tool, args as Record<string, string | number | boolean>)
      : restSearch(server.url, token, account, tool, args as Record<string, string | number>);

async function mcp(token: string, account: number, tool: string, args: Args): Promise<CallToolResult> {
  const client = clients.get(token);
  if (!client) throw new Error('no client for token');
  return await client.callTool({ name: tool, arguments: { ...args, account_id: account } });
}

/** The help desk's list body `{data: {meta: counts, payload}}` as MCP writes it, `{payload: {conversations, counts}}`; any other body as it is. */
function restAsMcp(tool: string, body: Record<string, unknown>): Record<string, unknown> {
  if (tool !== 'list_conversations') return body;
  const { meta, payload } = body.data as { meta: unknown; payload: unknown };
  return { payload: { conversations: payload, counts: meta } };
}

describe('parity: the same payload through MCP and REST once timestamps are normalised (contract §1, §10)', () => {
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
    ['search_messages', () => ({ q: 'parity', inbox_id: f.inbox2 })],
    ['search_messages', () => ({ q: 'parity', since: NOW - 10 * DAY, until: NOW - 2 * DAY, inbox_id: f.inbox1 })],
    ['search_articles', { q: 'parity guide' }],
    ['search_articles', { q: 'parity', page: 2 }],
    // Reads (issue 14): the REST path names the record, the other arguments are query parameters.
    ['get_conversation', () => ({ display_id: f.long.display })],
    ['get_conversation', () => ({ display_id: f.long.display, include_activity: true })],
    ['get_conversation', () => ({ display_id: f.long.display, before: f.long.messages[30]! })],
    ['get_conversation', () => ({ display_id: f.long.display, after: f.long.messages[2]!, include_activity: true })],
    ['get_conversation', () => ({ display_id: f.short })],
    ['get_contact', () => ({ id: f.contact })],
    ['get_contact', () => ({ id: f.contact, page: 2 })],
    ['get_article', () => ({ id: f.article })],
    // The triage list (issue 48): the help desk's body on both surfaces.
    ['list_conversations', {}],
    ['list_conversations', { status: 'all', sort_by: 'created_at_asc' }],
    ['list_conversations', { assignee_type: 'unassigned', sort_by: 'waiting_since_asc' }],
    ['list_conversations', { labels: ['parity', 'nope'], sort_by: 'priority_desc' }],
    ['list_conversations', () => ({ team_id: f.team, conversation_type: 'unattended', since: NOW - 10 * DAY })],
    ['list_conversations', () => ({ inbox_id: f.inbox1, priority: 'none' })],
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
        expect(asRestBody(viaMcp.structuredContent)).toEqual(restAsMcp(tool, viaRest.body));
        const keys: Record<string, string[]> = { get_conversation: ['meta', 'payload'], list_conversations: ['data'] };
        expect(Object.keys(viaRest.body)).toEqual(keys[tool] ?? ['payload']);
        // Every case finds something for the administrator, so equality is never the trivial `[] = []`.
        const body = (tool === 'list_conversations' ? viaRest.body.data : viaRest.body) as Record<string, unknown>;
        const payload = body.payload as unknown[] | Record<string, unknown>;
        const lists = Array.isArray(payload) ? [payload] : Object.values(payload).filter((v): v is unknown[] => Array.isArray(v));
        if (role === 'administrator')
          expect(lists.some((rows) => rows.length > 0) || tool === 'get_article' || tool === 'get_contact').toBe(true);
      });
    }
  }

  it('shows the triage state and links on every record of both surfaces (contract §9.3)', async () => {
    const calls: Array<[string, Args]> = [
      ['search_all', { q: 'parity' }],
      ['get_conversation', { display_id: f.short }],
      ['get_contact', { id: f.contact }],
      ['get_article', { id: f.article }],
    ];
    for (const [tool, args] of calls) {
      const [viaMcp, viaRest] = await Promise.all([mcp(f.admin, f.account, tool, args), rest(f.admin, f.account, tool, args)]);
      expect(asRestBody(viaMcp.structuredContent)).toEqual(viaRest.body);
    }
    const all = (await rest(f.admin, f.account, 'search_all', { q: 'parity' })).body.payload as Record<string, unknown[]>;
    const conversations = all.conversations as Array<Record<string, unknown>>;
    expect(conversations.length).toBeGreaterThan(0);
    for (const c of conversations) {
      expect(c.url).toBe(`${APP}/app/accounts/${f.account}/conversations/${String(c.display_id)}`);
      expect(c).toHaveProperty('labels');
      expect(c).toHaveProperty('priority');
      expect(c).toHaveProperty('first_reply_created_at');
    }
    expect(conversations.some((c) => (c.labels as string[]).length > 0)).toBe(true);
    expect((all.messages as Array<Record<string, unknown>>).every((m) => m.conversation_status === 'open')).toBe(true);
    for (const a of all.articles as Array<Record<string, unknown>>)
      expect(a.url).toBe(`https://help.parity.example/hc/parity/articles/${String(a.slug)}`);
    const transcript = (await rest(f.admin, f.account, 'get_conversation', { display_id: f.short })).body as {
      meta: { conversation: Record<string, unknown> };
      payload: Array<Record<string, unknown>>;
    };
    expect(transcript.meta.conversation).toMatchObject({
      labels: ['parity', 'vip'],
      priority: 'low',
      custom_attributes: { order: 0 },
    });
    expect(transcript.payload.every((m) => m.conversation_status === 'open')).toBe(true);
  });

  it('get_account lists what the directory routes list, and REST reads labels[] and labels=a,b alike', async () => {
    for (const token of [f.admin, f.agent]) {
      const viaMcp = (await mcp(token, f.account, 'get_account', {})).structuredContent as Record<string, unknown>;
      for (const kind of ['inboxes', 'teams', 'agents'] as const) {
        const viaRest = await restGet(server.url, token, `/api/v1/accounts/${f.account}/${kind}`);
        expect(viaRest).toEqual({ status: 200, body: { payload: viaMcp[kind] } });
      }
      const labels = await restGet(server.url, token, `/api/v1/accounts/${f.account}/labels`);
      const titles = (labels.body.payload as Array<{ id: number }>).map(({ id: _id, ...rest }) => rest);
      expect(titles).toEqual(viaMcp.labels);
    }
    const agentView = (await mcp(f.agent, f.account, 'get_account', {})).structuredContent as { inboxes: Array<{ id: number }> };
    expect(agentView.inboxes.map((i) => i.id)).toEqual([f.inbox1]);
    const brackets = await restGet(server.url, f.admin, listPath(f.account, { labels: ['parity', 'other'] }));
    const commas = await restGet(server.url, f.admin, `/api/v1/accounts/${f.account}/conversations?labels=parity,other`);
    expect(commas).toEqual(brackets);
    expect((brackets.body.data as { payload: unknown[] }).payload.length).toBeGreaterThan(0);
    // A notice reaches the model in the text it reads, and programs in _meta.
    const unknown = await mcp(f.admin, f.account, 'list_conversations', { labels: ['nope'] });
    const notice =
      'No label of this account is called "nope", so no conversation was listed. The account\'s labels are: "other", "parity".';
    expect((unknown.structuredContent as { meta: { notices: string[] } }).meta.notices).toEqual([notice]);
    expect(JSON.parse((unknown.content as Array<{ text: string }>)[0]!.text)).toEqual(unknown.structuredContent);
  });

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

  it('a conversation of an inbox the agent may not see is the same "not found" as an unknown one, on both surfaces', async () => {
    // Conversation 2 is in inbox 2, which only the administrator sees.
    for (const display_id of [2, 99_999]) {
      const viaRest = await rest(f.agent, f.account, 'get_conversation', { display_id });
      const viaMcp = await mcp(f.agent, f.account, 'get_conversation', { display_id });
      expect(viaRest).toEqual({ status: 404, body: { error: 'Conversation not found' } });
      expect(viaMcp).toEqual({ isError: true, content: [{ type: 'text', text: 'Conversation not found' }] });
    }
    expect((await rest(f.admin, f.account, 'get_conversation', { display_id: 2 })).status).toBe(200);
    for (const [tool, error] of [
      ['get_contact', 'Contact not found'],
      ['get_article', 'Article not found'],
    ] as const) {
      expect(await rest(f.agent, f.account, tool, { id: 99_999_999 })).toEqual({ status: 404, body: { error } });
      expect(await mcp(f.agent, f.account, tool, { id: 99_999_999 })).toEqual({
        isError: true,
        content: [{ type: 'text', text: error }],
      });
      // A path segment that is no id names no record.
      expect(await rest(f.agent, f.account, tool, { id: 'abc' })).toEqual({ status: 404, body: { error } });
    }
  });

  it('read arguments fail with the same message on both surfaces, every problem at once', async () => {
    const args = { display_id: f.long.display, before: 'x', include_activity: 'maybe' };
    const message = 'before must be a positive integer; include_activity must be true or false';
    expect(await rest(f.admin, f.account, 'get_conversation', args)).toEqual({ status: 422, body: { error: message } });
    expect(await mcp(f.admin, f.account, 'get_conversation', args)).toEqual({
      isError: true,
      content: [{ type: 'text', text: message }],
    });
    const foreignCursor = { display_id: f.short, after: f.long.messages[0]! };
    const cursorMessage = 'after must be the id of a message of this conversation';
    expect(await rest(f.admin, f.account, 'get_conversation', foreignCursor)).toEqual({
      status: 422,
      body: { error: cursorMessage },
    });
    expect(await mcp(f.admin, f.account, 'get_conversation', foreignCursor)).toEqual({
      isError: true,
      content: [{ type: 'text', text: cursorMessage }],
    });
  });

  it('search_all without advanced_search returns messages: [] on both surfaces', async () => {
    const viaRest = await rest(f.admin, f.noFlag, 'search_all', { q: 'parity' });
    const viaMcp = await mcp(f.admin, f.noFlag, 'search_all', { q: 'parity' });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toMatchObject({ payload: { messages: [], contacts: [{ name: 'Parity Elsewhere' }] } });
    expect(asRestBody(viaMcp.structuredContent)).toEqual(viaRest.body);
  });
});
