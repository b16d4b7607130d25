/**
 * What the model sees (contract §10, issue 52), with the SDK client: every result is one JSON
 * object — structuredContent and the one text block alike — with `meta` (paging, `next`, `now`,
 * notices), valid against the tool's declared output schema; MCP times are ISO 8601 UTC while
 * REST keeps Unix seconds; since/until take both forms on both surfaces; MCP is strict about
 * `from`; get_conversation's input schema says "exactly one of display_id and id"; tools/list
 * stays small.
 */
import { type CallToolResult, Client, type JsonSchemaType, type Tool } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../src/mcp/server.js';
import { FROM_MESSAGE } from '../src/mcp/tools.js';
import { timeMessage } from '../src/search/times.js';
import { makeDeps } from './helpers/core.js';
import { createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { startHttp, type HttpProcess } from './helpers/http.js';
import { linkedClientTransport } from './helpers/mcp-link.js';
import { cliEnv, restRead, restSearch } from './helpers/spawn.js';

/** The server's clock in these tests: a whole second, so `meta.now` is known exactly. */
const NOW_MS = Math.floor(Date.now() / 1000) * 1000;
const NOW = NOW_MS / 1000;
/** 25,000 characters for the whole tools/list (issue 52), the triage tools included. */
const TOOLS_LIST_MAX = 25_000;

let t: TestDatabase;
let server: HttpProcess;
let client: Client;
let tools: Tool[];
const f = {} as { account: number; admin: string; contact: number; display: number; article: number; inbox: number };

const isoDay = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  f.account = await fx.account({ advancedSearch: true });
  const admin = await fx.user({ name: 'Meta Agent' });
  await fx.member(f.account, admin, 'administrator');
  f.admin = await fx.token(admin);
  f.inbox = await fx.inbox(f.account);
  // 17 contacts, one a day back from yesterday: page 2 of a search holds the last two.
  for (let i = 0; i < 17; i++) {
    const contact = await fx.contact(f.account, {
      name: `Meta Person ${i}`,
      created_at: NOW - 200 * DAY,
      last_activity_at: NOW - (i + 1) * DAY,
    });
    f.contact ??= contact;
  }
  const conversation = await fx.conversation(f.account, f.inbox, {
    contact_id: f.contact,
    display_id: 77,
    created_at: NOW - 3 * DAY,
  });
  f.display = 77;
  await fx.message(conversation, {
    content: 'meta question',
    created_at: NOW - 3 * DAY,
    sender_type: 'Contact',
    sender_id: f.contact,
  });
  await fx.message(conversation, {
    content: 'meta answer',
    created_at: NOW - 2 * DAY,
    message_type: 1,
    sender_type: 'User',
    sender_id: admin,
  });
  f.article = await fx.article(f.account, await fx.portal(f.account), { title: 'Meta guide', content: '<p>meta words</p>' });

  const mcp = createMcpServer({
    deps: makeDeps(t.db, { now: () => NOW_MS }),
    config: { defaultAccountId: undefined, maxResultChars: 60_000 },
    logger: silentLogger,
    token: f.admin,
  });
  client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(await linkedClientTransport(mcp));
  tools = (await client.listTools()).tools;
  server = await startHttp(cliEnv({ DATABASE_URL: t.url }));
});

afterAll(async () => {
  await client?.close();
  await server?.stop();
  await t.drop();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return await client.callTool({ name, arguments: args });
}

interface Meta {
  page?: number;
  next: Record<string, unknown> | null;
  truncated: boolean;
  now: string;
  notices: string[];
  has_more?: Record<string, boolean>;
  engine?: string;
}
const metaOf = (r: CallToolResult) => (r.structuredContent as { meta: Meta }).meta;
const errorText = (r: CallToolResult) => {
  expect(r.isError).toBe(true);
  return (r.content[0] as { text: string }).text;
};

describe('the result the model reads (contract §10)', () => {
  const calls = (): Array<[string, Record<string, unknown>]> => [
    ['search_all', { q: 'meta' }],
    ['search_contacts', { q: 'meta person' }],
    ['search_conversations', { q: '77' }],
    ['search_messages', { q: 'meta' }],
    ['search_articles', { q: 'meta' }],
    ['get_conversation', { display_id: f.display }],
    ['get_contact', { id: f.contact }],
    ['get_article', { id: f.article }],
    ['list_conversations', { status: 'all' }],
    ['get_account', {}],
  ];

  it('is one JSON object with meta on every tool, valid against the declared output schema', async () => {
    const validator = new AjvJsonSchemaValidator();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      calls()
        .map(([name]) => name)
        .sort(),
    );
    for (const [name, args] of calls()) {
      const r = await call(name, args);
      expect(r.isError, name).toBeFalsy();
      expect(r.content, name).toHaveLength(1);
      expect(JSON.parse((r.content[0] as { text: string }).text), name).toEqual(r.structuredContent);
      const schema = tools.find((tool) => tool.name === name)!.outputSchema!;
      const verdict = validator.getValidator(schema)(r.structuredContent);
      expect(verdict.errorMessage, name).toBeUndefined();
      expect(schema.properties, name).toHaveProperty('meta');
      const meta = metaOf(r);
      expect(meta, name).toMatchObject({ truncated: false, now: iso(NOW), notices: expect.any(Array) });
      expect(meta, name).toHaveProperty('next');
      if (name.startsWith('search_')) expect(meta, name).toMatchObject({ page: 1, per_page: 15, has_more: expect.any(Object) });
      if (name === 'list_conversations')
        expect(meta, name).toMatchObject({ page: 1, per_page: 25, has_more: expect.any(Object) });
    }
  });

  it('rejects a result that breaks the schema, so the check above can fail', () => {
    const schema = tools.find((tool) => tool.name === 'search_contacts')!.outputSchema!;
    const validate = new AjvJsonSchemaValidator().getValidator(schema);
    const contact = { id: 1, name: 'x', email: null, phone_number: null, identifier: null, additional_attributes: {} };
    const meta = { page: 1, per_page: 15, has_more: {}, next: null, truncated: false, now: iso(NOW), notices: [] };
    expect(validate({ payload: { contacts: [{ ...contact, created_at: iso(NOW), last_activity_at: null }] }, meta }).valid).toBe(
      true,
    );
    expect(validate({ payload: { contacts: [{ ...contact, created_at: NOW, last_activity_at: null }] }, meta }).valid).toBe(
      false,
    );
    expect(validate({ payload: { contacts: [] } }).valid).toBe(false);
  });

  it('gives in meta.next the same arguments with the next page, and null on the last page', async () => {
    const since = isoDay(NOW - 30 * DAY);
    const first = await call('search_contacts', { q: 'meta person', since });
    expect(metaOf(first)).toMatchObject({ page: 1, has_more: { contacts: true } });
    expect(metaOf(first).next).toEqual({ q: 'meta person', since, page: 2 });
    expect(metaOf(first).notices).toEqual(['More contacts: call again with page=2 (meta.next).']);
    const second = await call('search_contacts', metaOf(first).next!);
    expect((second.structuredContent as { payload: { contacts: unknown[] } }).payload.contacts).toHaveLength(2);
    expect(metaOf(second)).toMatchObject({ page: 2, has_more: { contacts: false }, next: null, notices: [] });
  });

  it('writes times as ISO 8601 UTC on MCP, while REST keeps Unix seconds', async () => {
    const viaMcp = await call('search_conversations', { q: '77', account_id: f.account });
    const viaRest = await restSearch(server.url, f.admin, f.account, 'search_conversations', { q: '77' });
    type Conversation = { created_at: unknown; last_activity_at: unknown; messages: Array<{ created_at: unknown }> };
    const mcpRow = (viaMcp.structuredContent as { payload: { conversations: Conversation[] } }).payload.conversations[0]!;
    const restRow = (viaRest.body as { payload: { conversations: Conversation[] } }).payload.conversations[0]!;
    expect(restRow.created_at).toBe(NOW - 3 * DAY);
    expect(mcpRow.created_at).toBe(iso(NOW - 3 * DAY));
    expect(mcpRow.messages[0]?.created_at).toBe(iso(NOW - 2 * DAY));
    expect(restRow.messages[0]?.created_at).toBe(NOW - 2 * DAY);
    const transcript = await call('get_conversation', { display_id: f.display });
    const conversation = (transcript.structuredContent as { meta: { conversation: Conversation } }).meta.conversation;
    expect(conversation.last_activity_at).toBe(iso(NOW - 3 * DAY));
    const rest = await restRead(server.url, f.admin, f.account, 'get_conversation', { display_id: f.display });
    expect((rest.body as { meta: { conversation: Conversation } }).meta.conversation.last_activity_at).toBe(NOW - 3 * DAY);
    expect(Object.keys(rest.body)).toEqual(['meta', 'payload']);
    expect(Object.keys((rest.body as { meta: object }).meta)).toEqual(['conversation', 'has_more']);
  });
});

describe('since and until in ISO 8601 or Unix seconds, on both surfaces (contract §10)', () => {
  const names = (body: unknown) =>
    ((body as { payload: { contacts: Array<{ name: string }> } }).payload.contacts ?? []).map((c) => c.name);

  it('reads a date as its whole UTC day and a date-time with Z or an offset, as seconds do', async () => {
    // Meta Person 2 was last active three days ago, at NOW's time of day.
    const day = isoDay(NOW - 3 * DAY);
    const start = Date.parse(`${day}T00:00:00Z`) / 1000;
    const bySeconds = { q: 'meta person', since: start, until: start + DAY - 1 };
    const expected = names((await restSearch(server.url, f.admin, f.account, 'search_contacts', bySeconds)).body);
    expect(expected).toEqual(['Meta Person 2']);
    for (const args of [
      { q: 'meta person', since: day, until: day },
      { q: 'meta person', since: `${day}T00:00:00Z`, until: `${day}T23:59:59Z` },
      { q: 'meta person', since: `${day}T02:00:00+02:00`, until: `${day}T23:59:59.999Z` },
    ]) {
      expect(
        names((await restSearch(server.url, f.admin, f.account, 'search_contacts', args)).body),
        JSON.stringify(args),
      ).toEqual(expected);
      expect(names((await call('search_contacts', args)).structuredContent), JSON.stringify(args)).toEqual(expected);
    }
  });

  it('answers anything else with the one error naming both forms, on both surfaces', async () => {
    for (const [key, value] of [
      ['since', 'yesterday'],
      ['until', '2026-11-28T09:00'],
      ['since', '28/11/2026'],
    ] as const) {
      const message = timeMessage(key);
      expect(await restSearch(server.url, f.admin, f.account, 'search_messages', { q: 'meta', [key]: value })).toEqual({
        status: 422,
        body: { error: message },
      });
      expect(errorText(await call('search_messages', { q: 'meta', [key]: value }))).toBe(message);
    }
  });

  it('keeps the 90-day rule for an ISO since', async () => {
    const since = isoDay(NOW - 120 * DAY);
    const error = 'Search is limited to the last 90 days';
    expect(await restSearch(server.url, f.admin, f.account, 'search_messages', { q: 'meta', since })).toEqual({
      status: 422,
      body: { error },
    });
    expect(errorText(await call('search_messages', { q: 'meta', since }))).toBe(error);
    const recent = await call('search_messages', { q: 'meta', since: isoDay(NOW - 10 * DAY) });
    expect((recent.structuredContent as { payload: { messages: unknown[] } }).payload.messages).toHaveLength(2);
  });
});

describe('strict where the model can fix it (contract §10)', () => {
  it('MCP refuses a from that is not contact:<id> or agent:<id>, with the form; REST ignores it', async () => {
    for (const from of ['agent', 'somebody', 'contact:', 'contact:x', 'user:1']) {
      expect(errorText(await call('search_messages', { q: 'meta', from })), from).toBe(FROM_MESSAGE);
    }
    const plain = await restSearch(server.url, f.admin, f.account, 'search_messages', { q: 'meta' });
    const ignored = await restSearch(server.url, f.admin, f.account, 'search_messages', { q: 'meta', from: 'agent' });
    expect(ignored).toEqual(plain);
    const fromContact = await call('search_messages', { q: 'meta', from: `contact:${f.contact}` });
    expect((fromContact.structuredContent as { payload: { messages: Array<{ content: string }> } }).payload.messages).toEqual([
      expect.objectContaining({ content: 'meta question' }),
    ]);
  });

  it('get_conversation declares exactly one of display_id and id in its input schema, and says so when broken', async () => {
    const schema = tools.find((tool) => tool.name === 'get_conversation')!.inputSchema;
    expect(schema.oneOf).toEqual([{ required: ['display_id'] }, { required: ['id'] }]);
    // The 2.x Tool types inputSchema's properties as JSON values, narrower than the validator's schema type.
    const validate = new AjvJsonSchemaValidator().getValidator(schema as JsonSchemaType);
    expect(validate({ display_id: 1 }).valid).toBe(true);
    expect(validate({ id: 1 }).valid).toBe(true);
    expect(validate({}).valid).toBe(false);
    expect(validate({ display_id: 1, id: 2 }).valid).toBe(false);
    expect(errorText(await call('get_conversation', {}))).toBe('display_id or id is required');
    expect(errorText(await call('get_conversation', { display_id: 1, id: 2 }))).toBe('give display_id or id, not both');
  });
});

describe('a lean tools/list (contract §10)', () => {
  it(`stays within ${TOOLS_LIST_MAX} characters, the triage tools included`, () => {
    const size = JSON.stringify({ tools }).length;
    console.log(`tools/list: ${size} characters for ${tools.length} tools`);
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['list_conversations', 'get_account']));
    expect(size).toBeLessThanOrEqual(TOOLS_LIST_MAX);
  });

  it('defines each record once per output schema and refers to it', () => {
    const conversations = tools.find((tool) => tool.name === 'search_all')!.outputSchema!;
    expect(Object.keys(conversations.$defs as object).sort()).toEqual(['article', 'contact', 'conversation', 'message']);
    expect(JSON.stringify(conversations).match(/"#\/\$defs\/message"/g)).toHaveLength(1);
    // A record lists no record of its own (a conversation's latest message is an array): search_conversations defines no message.
    const own = tools.find((tool) => tool.name === 'search_conversations')!.outputSchema!;
    expect(Object.keys(own.$defs as object)).toEqual(['conversation']);
    for (const tool of tools) expect(JSON.stringify(tool.outputSchema)).not.toContain('9007199254740991');
  });
});
