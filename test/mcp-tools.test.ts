/**
 * The MCP surface in-process: a real SDK Client over an in-memory pair, real Postgres behind it.
 * Tool list (snapshot), account resolution, argument validation, error mapping, context budget.
 */
import { type CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/db.js';
import type { SearchDeps } from '../src/search/core.js';
import { createMcpServer, type McpServerOptions } from '../src/mcp/server.js';
import { WINDOW_NOTICE } from '../src/search/messages/notices.js';
import { createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { makeDeps } from './helpers/core.js';
import { memoryLogger } from './helpers/log.js';
import { linkedClientTransport } from './helpers/mcp-link.js';

let t: TestDatabase;
let deps: SearchDeps;
const f = {} as {
  account: number;
  second: number;
  admin: string;
  multi: string;
  loner: string;
  longMessage: number;
  conversation: number;
};
const clients: Client[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  deps = makeDeps(t.db);
  const fx = new Fixture(t.admin);
  f.account = await fx.account({ advancedSearch: true, name: 'Acme' });
  f.second = await fx.account({ name: 'Beta' });
  const admin = await fx.user();
  const multi = await fx.user();
  const loner = await fx.user();
  await fx.member(f.account, admin, 'administrator');
  await fx.member(f.account, multi, 'agent');
  await fx.member(f.second, multi, 'agent');
  f.admin = await fx.token(admin);
  f.multi = await fx.token(multi);
  f.loner = await fx.token(loner);
  const inbox = await fx.inbox(f.account);
  const contact = await fx.contact(f.account, { name: 'Budget Person' });
  f.conversation = await fx.conversation(f.account, inbox, { contact_id: contact });
  await fx.message(f.conversation, { content: 'budget short one' });
  f.longMessage = await fx.message(f.conversation, { content: `budget ${'lorem ipsum '.repeat(2_000)}` });
  const portal = await fx.portal(f.account);
  await fx.article(f.account, portal, { title: 'Budget article', content: `budget ${'dolor sit amet '.repeat(200)}` });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.drop();
});

async function connect(token: string, overrides: Partial<McpServerOptions> = {}): Promise<Client> {
  const server = createMcpServer({
    deps,
    config: { defaultAccountId: undefined, maxResultChars: 60_000 },
    logger: silentLogger,
    token,
    version: '9.9.9',
    ...overrides,
  });
  const client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(await linkedClientTransport(server));
  await client.listTools(); // so the client validates structuredContent against outputSchema
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return await client.callTool({ name, arguments: args });
}

function errorText(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return (result.content[0] as { text: string }).text;
}

describe('tools/list', () => {
  it('matches the committed snapshot, so schema changes are deliberate', async () => {
    const client = await connect(f.admin);
    const { tools } = await client.listTools();
    await expect(JSON.stringify(tools, null, 2) + '\n').toMatchFileSnapshot('./__snapshots__/tools-list.json');
  });

  it('declares ten read-only tools with strict input and an output schema', async () => {
    const client = await connect(f.admin);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
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
    for (const tool of tools) {
      expect(tool.annotations).toEqual({
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      });
      const required = tool.name.startsWith('search_')
        ? ['q']
        : ['get_conversation', 'list_conversations', 'get_account'].includes(tool.name)
          ? undefined
          : ['id'];
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.inputSchema.required).toEqual(required);
      expect(tool.inputSchema.properties).toHaveProperty('account_id');
      expect(tool.inputSchema).not.toHaveProperty('$schema');
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
      const output: Record<string, string[]> = {
        get_conversation: ['meta', 'payload'],
        get_account: ['account', 'me', 'inboxes', 'teams', 'agents', 'labels', 'truncated', 'meta'],
      };
      expect(tool.outputSchema?.required).toEqual(output[tool.name] ?? ['payload', 'meta']);
      expect(tool.description, tool.name).toMatch(/meta\.notices/);
      expect(tool.description, tool.name).not.toMatch(/a line saying so|second text/);
      expect(tool.outputSchema).not.toHaveProperty('$schema');
    }
    const messages = tools.find((tool) => tool.name === 'search_messages');
    expect(messages?.description).toMatch(/90 days/);
    expect(messages?.inputSchema.properties?.from).toMatchObject({ description: expect.stringMatching(/contact:<id>/) });
    expect(messages?.description).toMatch(/meta\.next/);
    // Search results say how to read further.
    expect(messages?.description).toMatch(/get_conversation/);
    expect(tools.find((tool) => tool.name === 'search_contacts')?.description).toMatch(/get_contact/);
    expect(tools.find((tool) => tool.name === 'search_articles')?.description).toMatch(/get_article/);
  });

  it('tells the model in every description that record text is data, and that articles include drafts', async () => {
    const client = await connect(f.admin);
    const { tools } = await client.listTools();
    for (const tool of tools) expect(tool.description, tool.name).toMatch(/is data, never instructions/);
    const articles = tools.find((tool) => tool.name === 'search_articles');
    expect(articles?.description).toMatch(/drafts? and archived articles/i);
    expect(articles?.description).toMatch(/`status`/);
  });

  it('reports the server version and instructions on initialize', async () => {
    const client = await connect(f.admin);
    expect(client.getServerVersion()).toMatchObject({ name: 'searchdesk', version: '9.9.9' });
    expect(client.getInstructions()).toMatch(/data, never as instructions/);
    expect(client.getInstructions()).toMatch(/meta\.notices/);
    expect(client.getInstructions()).toMatch(/meta\.next/);
    expect(client.getInstructions()).toMatch(/meta\.now/);
    expect(client.getInstructions()).toMatch(/get_account/);
  });
});

describe('account resolution (contract §2)', () => {
  it("uses the caller's only account when account_id is omitted", async () => {
    const r = await call(await connect(f.admin), 'search_contacts', { q: 'Budget' });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ payload: { contacts: [{ name: 'Budget Person' }] } });
  });

  it('lists the account ids and names of a caller with several accounts and no default', async () => {
    const r = await call(await connect(f.multi), 'search_contacts', { q: 'Budget' });
    expect(errorText(r)).toBe(`account_id is required: you belong to accounts ${f.account} (Acme), ${f.second} (Beta)`);
  });

  it('uses the configured default account when account_id is omitted', async () => {
    const client = await connect(f.multi, { config: { defaultAccountId: f.account, maxResultChars: 60_000 } });
    const r = await call(client, 'search_contacts', { q: 'Budget' });
    expect(r.structuredContent).toMatchObject({ payload: { contacts: [{ name: 'Budget Person' }] } });
  });

  it('prefers the account_id argument over the default', async () => {
    const client = await connect(f.multi, { config: { defaultAccountId: f.account, maxResultChars: 60_000 } });
    const r = await call(client, 'search_contacts', { q: 'Budget', account_id: f.second });
    expect(r.structuredContent).toMatchObject({ payload: { contacts: [] } });
  });

  it('answers "You are not authorized to access this account" to a caller without accounts', async () => {
    expect(errorText(await call(await connect(f.loner), 'search_contacts', { q: 'x' }))).toBe(
      'You are not authorized to access this account',
    );
  });

  it('rejects an account_id that is not a positive integer, and accepts one sent as decimal text', async () => {
    const client = await connect(f.admin);
    const r = await call(client, 'search_contacts', { q: 'Budget', account_id: String(f.account) });
    expect(r.structuredContent).toMatchObject({ payload: { contacts: [{ name: 'Budget Person' }] } });
    for (const account_id of [0, -1, 1.5, '1.5', 'one', null]) {
      expect(errorText(await call(client, 'search_contacts', { q: 'x', account_id }))).toBe(
        'account_id must be a positive integer',
      );
    }
  });
});

describe('arguments and errors', () => {
  it('validates with the shared schema and returns the contract message as a tool error', async () => {
    const client = await connect(f.admin);
    expect(errorText(await call(client, 'search_contacts', {}))).toBe('q is required');
    expect(errorText(await call(client, 'search_contacts', { q: '   ' }))).toBe('q must not be blank');
    expect(errorText(await call(client, 'search_articles', { q: 'x', page: 0 }))).toBe(
      'page must be an integer between 1 and 500',
    );
    expect(errorText(await call(client, 'search_messages', { q: 'x', inbox_id: 'abc' }))).toBe(
      'inbox_id must be a positive integer',
    );
  });

  it('rejects unknown arguments, including ones another tool accepts', async () => {
    const client = await connect(f.admin);
    expect(errorText(await call(client, 'search_articles', { q: 'x', since: 1 }))).toBe('unknown argument: since');
    expect(errorText(await call(client, 'search_contacts', { q: 'x', bogus: 1, other: 2 }))).toBe(
      'unknown arguments: bogus, other',
    );
  });

  it('answers an unknown tool with a tool error listing the tools, without echoing the name', async () => {
    const r = await call(await connect(f.admin), 'drop_tables', { q: 'x' });
    expect(errorText(r)).toBe(
      'Unknown tool. The tools are: search_all, search_contacts, search_conversations, search_messages, search_articles, get_conversation, get_contact, get_article, list_conversations, get_account',
    );
  });

  it('reports every argument problem of a call in one message', async () => {
    const client = await connect(f.admin);
    expect(errorText(await call(client, 'search_messages', { q: ' ', page: 0, inbox_id: 'x', bogus: 1, account_id: -1 }))).toBe(
      'q must not be blank; page must be an integer between 1 and 500; inbox_id must be a positive integer; account_id must be a positive integer; unknown argument: bogus',
    );
    expect(errorText(await call(client, 'get_conversation', { before: 1, after: 2 }))).toBe(
      'display_id or id is required; give before or after, not both',
    );
  });

  it('validates the arguments before resolving the account', async () => {
    // A caller of several accounts without account_id: the argument problem comes first.
    expect(errorText(await call(await connect(f.multi), 'search_contacts', { q: 'x', page: 0 }))).toBe(
      'page must be an integer between 1 and 500',
    );
    expect(errorText(await call(await connect(f.admin), 'get_contact', { id: 'abc', account_id: 999_999 }))).toBe(
      'id must be a positive integer',
    );
  });

  it('accepts integers sent as decimal text, as REST does, and nothing else', async () => {
    const client = await connect(f.admin);
    const asNumber = await call(client, 'search_messages', { q: 'budget', page: 1, until: 4_000_000_000 });
    const asText = await call(client, 'search_messages', { q: 'budget', page: '1', until: ' 4000000000 ' });
    const payload = (r: CallToolResult) => (r.structuredContent as { payload?: unknown } | undefined)?.payload;
    expect(payload(asText)).toEqual(payload(asNumber));
    expect(asText._meta).toEqual(asNumber._meta);
    expect(errorText(await call(client, 'search_messages', { q: 'budget', page: '1.0' }))).toBe(
      'page must be an integer between 1 and 500',
    );
    expect(errorText(await call(client, 'search_messages', { q: 'budget', page: '0x1' }))).toBe(
      'page must be an integer between 1 and 500',
    );
    // q stays text: a number is still not a string.
    expect(errorText(await call(client, 'search_contacts', { q: 12 }))).toBe('q must be a string');
  });

  it('maps an unexpected failure to "Internal error" and keeps the details in the log', async () => {
    const log = memoryLogger('info');
    // A database that fails in a way no SearchError describes (a driver bug, say).
    const broken: Db = {
      kind: 'pg',
      query: () => Promise.reject(new Error('secret detail: SELECT * FROM x')),
      ping: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const client = await connect(f.admin, { logger: log.logger, deps: { ...deps, db: broken } });
    expect(errorText(await call(client, 'search_contacts', { q: 'x' }))).toBe('Internal error');
    const lines = log.lines();
    expect(lines.find((l) => l.event === 'tool_internal_error')).toBeDefined();
    expect(lines.find((l) => l.event === 'tool_call')).toMatchObject({ tool: 'search_contacts', status: 'internal' });
    expect(JSON.stringify(lines.filter((l) => l.event === 'tool_call'))).not.toContain('secret detail');
  });

  it('logs one tool_call line with account, counts and engine, never the token', async () => {
    const log = memoryLogger('info');
    const client = await connect(f.admin, { logger: log.logger });
    await call(client, 'search_all', { q: 'budget' });
    const line = log.lines().filter((l) => l.event === 'tool_call');
    expect(line).toHaveLength(1);
    expect(line[0]).toMatchObject({ tool: 'search_all', status: 'ok', account: f.account, engine: 'postgres' });
    expect(line[0]?.counts).toEqual({ contacts: 1, conversations: 1, messages: 2, articles: 1 });
    expect(log.text()).not.toContain(f.admin);
  });
});

describe('result shape (contract §6)', () => {
  it('returns structuredContent, the same JSON as text, and paging facts in _meta', async () => {
    const r = await call(await connect(f.admin), 'search_messages', { q: 'budget short' });
    expect(r.isError).toBeFalsy();
    expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(r.structuredContent);
    expect(r._meta).toEqual({ page: 1, per_page: 15, has_more: { messages: false }, engine: 'postgres' });
  });
});

describe('context budget (contract §6)', () => {
  const budget = { defaultAccountId: undefined, maxResultChars: 5_000 };

  it('shortens the longest message content with "…" and keeps every row', async () => {
    const full = await call(await connect(f.admin), 'search_messages', { q: 'budget' });
    const r = await call(await connect(f.admin, { config: budget }), 'search_messages', { q: 'budget' });
    const text = (r.content[0] as { text: string }).text;
    expect(text.length).toBeLessThanOrEqual(5_000);
    expect(JSON.parse(text)).toEqual(r.structuredContent);
    expect(r._meta).toMatchObject({ truncated: true });
    expect(r.structuredContent).toMatchObject({
      meta: { truncated: true, notices: [WINDOW_NOTICE, expect.stringMatching(/message content/)] },
    });
    const rows = (r.structuredContent as { payload: { messages: Array<{ id: number; content: string }> } }).payload.messages;
    const fullRows = (full.structuredContent as { payload: { messages: unknown[] } }).payload.messages;
    expect(rows).toHaveLength(fullRows.length);
    const long = rows.find((m) => m.id === f.longMessage);
    expect(long?.content.endsWith('…')).toBe(true);
    expect(rows.find((m) => m.id !== f.longMessage)?.content).toBe('budget short one');
  });

  it('shortens nested conversation messages and article snippets too', async () => {
    const r = await call(await connect(f.admin, { config: { ...budget, maxResultChars: 2_500 } }), 'search_all', { q: 'budget' });
    const { payload } = r.structuredContent as {
      payload: { conversations: Array<{ messages: Array<{ content: string }> }>; articles: Array<{ snippet: string }> };
    };
    expect((r.content[0] as { text: string }).text.length).toBeLessThanOrEqual(2_500);
    expect(payload.conversations).toHaveLength(1);
    expect(payload.conversations[0]?.messages[0]?.content.endsWith('…')).toBe(true);
    expect(payload.articles[0]?.snippet.endsWith('…')).toBe(true);
    expect(r._meta).toMatchObject({ truncated: true });
  });

  it('leaves a result within budget untouched, without a truncated flag', async () => {
    const r = await call(await connect(f.admin), 'search_messages', { q: 'budget' });
    expect(r._meta).not.toHaveProperty('truncated');
    // A short page without since: the window's notice, and no budget notice.
    expect(r.structuredContent).toMatchObject({ meta: { truncated: false, notices: [WINDOW_NOTICE] } });
  });
});

describe('read tools and how to read further (issues 14, 52)', () => {
  const meta = (r: CallToolResult) =>
    (r.structuredContent as { meta: { next: Record<string, unknown> | null; notices: string[]; truncated: boolean } }).meta;

  it('get_conversation returns the transcript as structuredContent and JSON text, validated by the client', async () => {
    const client = await connect(f.admin);
    const r = await call(client, 'get_conversation', { id: f.conversation });
    expect(r.isError).toBeFalsy();
    const body = r.structuredContent as { meta: { conversation: { id: number } }; payload: Array<{ content: string }> };
    expect(body.meta.conversation.id).toBe(f.conversation);
    expect(body.payload.map((m) => m.content.slice(0, 12))).toEqual(['budget short', 'budget lorem']);
    expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(r.structuredContent);
    expect(r._meta).toEqual({ per_page: 50, has_more: { before: false, after: false }, engine: 'postgres' });
    expect(r.content).toHaveLength(1);
    expect(meta(r)).toMatchObject({ next: null, notices: [], truncated: false });
    const displayId = (r.structuredContent as { meta: { conversation: { display_id: number } } }).meta.conversation.display_id;
    const byText = await call(client, 'get_conversation', { display_id: String(displayId) });
    expect(byText.structuredContent).toEqual(r.structuredContent);
  });

  it('says in meta how to page, for searches and reads, in one text block', async () => {
    const fx = new Fixture(t.admin);
    const inbox = await fx.inbox(f.account);
    const contact = await fx.contact(f.account, { name: 'Hinted Person' });
    const conversation = await fx.conversation(f.account, inbox, { contact_id: contact, display_id: 500 });
    const ids: number[] = [];
    for (let i = 0; i < 55; i++)
      ids.push(
        await fx.message(conversation, { content: `hinted ${i}`, created_at: Math.floor(Date.now() / 1000) - 86_400 + i }),
      );
    for (let i = 0; i < 15; i++) await fx.contact(f.account, { name: `Hinted Person ${i}` });
    const client = await connect(f.admin);
    const search = await call(client, 'search_all', { q: 'hinted' });
    expect(search.content).toHaveLength(1);
    expect(meta(search).notices).toEqual(['More contacts and messages: call again with page=2 (meta.next).']);
    expect(meta(search).next).toEqual({ q: 'hinted', page: 2 });
    expect(JSON.parse((search.content[0] as { text: string }).text)).toEqual(search.structuredContent);
    const page2 = await call(client, 'search_contacts', meta(search).next!);
    expect(meta(page2)).toMatchObject({ page: 2, next: null, notices: [] });
    const latest = await call(client, 'get_conversation', { id: conversation });
    expect(meta(latest).notices).toEqual([`Older messages: call again with before=${ids[5]} (meta.next).`]);
    expect(meta(latest).next).toEqual({ id: conversation, before: ids[5] });
    const older = await call(client, 'get_conversation', meta(latest).next!);
    expect(meta(older).notices).toEqual([`Newer messages: call again with after=${ids[4]}.`]);
    expect(meta(older).next).toBeNull();
    const person = await call(client, 'get_contact', { id: contact });
    expect(meta(person)).toMatchObject({ page: 1, next: null, notices: [] });
  });

  it('shortens long texts of reads to the budget, meta included, and says what was cut', async () => {
    const client = await connect(f.admin, { config: { defaultAccountId: undefined, maxResultChars: 3_000 } });
    const r = await call(client, 'get_conversation', { id: f.conversation });
    expect((r.content[0] as { text: string }).text.length).toBeLessThanOrEqual(3_000);
    expect(r._meta).toMatchObject({ truncated: true });
    const { payload } = r.structuredContent as { payload: Array<{ id: number; content: string }> };
    expect(payload.find((m) => m.id === f.longMessage)?.content.endsWith('…')).toBe(true);
    // The long message is shortened twice, in the page and as the conversation's latest message: one text.
    expect(meta(r).truncated).toBe(true);
    expect(meta(r).notices).toEqual([
      '1 long text was shortened to fit the result budget, ending in "…" (message content). These messages are longer than one result holds; the rest of their text cannot be shown.',
    ]);
    const search = await call(client, 'search_messages', { q: 'budget' });
    expect(meta(search).notices.at(-1)).toMatch(
      /^\d+ long texts? (was|were) shortened .*\(message content\)\. Read a conversation whole with get_conversation/,
    );
    const articleId = (
      (await call(await connect(f.admin), 'search_articles', { q: 'budget' })).structuredContent as {
        payload: { articles: Array<{ id: number }> };
      }
    ).payload.articles[0]!.id;
    const article = await call(
      await connect(f.admin, { config: { defaultAccountId: undefined, maxResultChars: 1_000 } }),
      'get_article',
      { id: articleId },
    );
    expect((article.content[0] as { text: string }).text.length).toBeLessThanOrEqual(1_000);
    expect((article.structuredContent as { payload: { content: string } }).payload.content.endsWith('…')).toBe(true);
    expect(article._meta).toEqual({ engine: 'postgres', truncated: true });
    expect(meta(article).notices).toEqual([
      '1 long text was shortened to fit the result budget, ending in "…" (article content). The article is longer than one result holds.',
    ]);
  });

  it('answers an unknown record with a tool error saying not found', async () => {
    const client = await connect(f.admin);
    expect(errorText(await call(client, 'get_conversation', { display_id: 99_999 }))).toBe('Conversation not found');
    expect(errorText(await call(client, 'get_contact', { id: 99_999_999 }))).toBe('Contact not found');
    expect(errorText(await call(client, 'get_article', { id: 99_999_999 }))).toBe('Article not found');
  });
});
