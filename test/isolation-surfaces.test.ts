/**
 * Tenant isolation through both surfaces of spawned servers (issue 6): random callers of a
 * multi-tenant help desk run random queries on every tool and REST route, search_all included,
 * on each message engine (Postgres always; Elasticsearch and OpenSearch when configured). Every
 * row belongs to the caller's account (conversations and messages: to an inbox the caller may
 * access), and the page is exactly what an oracle computed from the fixture data says, so nothing
 * visible and matching is missing either. REST and MCP give the same payload.
 */
import type { Client } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { createTestIndex, esUrl, hasEs, type TestIndex } from './helpers/es.js';
import { Fixture } from './helpers/fixtures.js';
import { createOpenSearchTestIndex, hasOs, osUrl } from './helpers/opensearch.js';
import { cliEnv, connectHttpMcp, listPath, restGet, restRead, restSearch } from './helpers/spawn.js';
import { startHttp, type HttpProcess } from './helpers/http.js';
import { asRestBody } from './helpers/mcp-normalise.js';
import {
  accessibleInboxes,
  buildTenantWorld,
  expectedIds,
  expectedRead,
  NOT_FOUND,
  readTargets,
  TENANT_QUERIES,
  type Membership,
  type Op,
  type TenantWorld,
} from './helpers/tenant-world.js';

export const ISOLATION_SURFACES_SEED = 20261123;
/** Per engine; each run asks both surfaces. */
export const ISOLATION_SURFACES_RUNS = 150;
/** Reads (issue 14), on Postgres; each run asks both surfaces. */
export const ISOLATION_SURFACES_READ_RUNS = 200;

const TOOLS = ['search_all', 'search_contacts', 'search_conversations', 'search_messages', 'search_articles'] as const;
type Tool = (typeof TOOLS)[number];
const KEYS_OF: Record<Tool, readonly Op[]> = {
  search_all: ['contacts', 'conversations', 'messages', 'articles'],
  search_contacts: ['contacts'],
  search_conversations: ['conversations'],
  search_messages: ['messages'],
  search_articles: ['articles'],
};
const FLAG_OFF = 'Message search is not enabled for this account';
const NOT_MEMBER = 'You are not authorized to access this account';

type Row = { id: number; account_id?: number; inbox_id?: number };
type Payload = Partial<Record<Op, Row[]>>;

let t: TestDatabase;
let w: TenantWorld;
let esIndex: TestIndex | undefined;
let osIndex: TestIndex | undefined;

beforeAll(async () => {
  t = await createTestDatabase();
  w = await buildTenantWorld(new Fixture(t.admin), ISOLATION_SURFACES_SEED);
  if (hasEs) esIndex = await createTestIndex(t.db);
  if (hasOs) osIndex = await createOpenSearchTestIndex(t.db);
}, 60_000);

afterAll(async () => {
  await esIndex?.drop();
  await osIndex?.drop();
  await t?.drop();
});

/** Asserts that every row of `payload` is one `caller` may see at all, whatever it matched. */
function expectOwnRows(caller: Membership, payload: Payload): void {
  const inboxes = accessibleInboxes(w, caller);
  for (const c of payload.contacts ?? []) expect(w.contacts.find((x) => x.id === c.id)?.account).toBe(caller.account);
  for (const v of payload.conversations ?? []) {
    expect(v.account_id).toBe(caller.account);
    expect(inboxes.has(v.inbox_id!)).toBe(true);
  }
  for (const m of payload.messages ?? []) {
    const known = w.messages.find((x) => x.id === m.id);
    expect(known?.account).toBe(caller.account);
    expect(inboxes.has(m.inbox_id!) && known?.inbox === m.inbox_id).toBe(true);
  }
  for (const a of payload.articles ?? []) expect(a.account_id).toBe(caller.account);
}

const engines = [
  { name: 'postgres', skip: false, env: (): Record<string, string> => ({}) },
  {
    name: 'elasticsearch',
    skip: !hasEs,
    env: (): Record<string, string> => ({ ELASTICSEARCH_URL: esUrl, ELASTICSEARCH_INDEX: esIndex!.index }),
  },
  {
    name: 'opensearch',
    skip: !hasOs,
    env: (): Record<string, string> => ({ OPENSEARCH_URL: osUrl, OPENSEARCH_INDEX: osIndex!.index }),
  },
];

describe.each(engines)('tenant isolation through REST and MCP on $name', ({ name, skip, env }) => {
  let server: HttpProcess;
  const clients = new Map<string, Promise<Client>>();

  beforeAll(async () => {
    if (skip) return;
    server = await startHttp(cliEnv({ DATABASE_URL: t.url, ...env() }));
  });

  afterAll(async () => {
    await Promise.all([...clients.values()].map(async (c) => (await c).close()));
    await server?.stop();
  });

  /** One MCP client per token, connected on first use (the client then validates structuredContent). */
  function mcpClient(token: string): Promise<Client> {
    let client = clients.get(token);
    if (!client) {
      client = connectHttpMcp(server.url, { api_access_token: token }).then(async (c) => {
        await c.listTools();
        return c;
      });
      clients.set(token, client);
    }
    return client;
  }

  async function both(caller: Membership, tool: Tool, args: Record<string, string | number>) {
    const [viaRest, viaMcp] = await Promise.all([
      restSearch(server.url, caller.token, caller.account, tool, args),
      mcpClient(caller.token).then(
        async (c) => await c.callTool({ name: tool, arguments: { ...args, account_id: caller.account } }),
      ),
    ]);
    return { viaRest, viaMcp };
  }

  it.skipIf(skip)(
    `every tool and route returns exactly the caller's visible rows (${ISOLATION_SURFACES_RUNS} runs, seed ${ISOLATION_SURFACES_SEED})`,
    async () => {
      let nonEmpty = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...w.memberships),
          fc.constantFrom(...TENANT_QUERIES),
          fc.constantFrom(...TOOLS),
          fc.constantFrom(1, 1, 2),
          async (caller, q, tool, page) => {
            const { viaRest, viaMcp } = await both(caller, tool, { q, page });
            const flagOff = w.noMessageSearch.has(caller.account);
            if (tool === 'search_messages' && flagOff) {
              expect(viaRest).toEqual({ status: 403, body: { error: FLAG_OFF } });
              expect(viaMcp).toEqual({ isError: true, content: [{ type: 'text', text: FLAG_OFF }] });
              return;
            }
            expect(viaRest.status).toBe(200);
            expect(viaMcp.isError).toBeFalsy();
            expect(asRestBody(viaMcp.structuredContent)).toEqual(viaRest.body);
            const payload = (viaRest.body as { payload: Payload }).payload;
            expectOwnRows(caller, payload);
            const hasMore: Record<string, boolean> = {};
            for (const key of KEYS_OF[tool]) {
              const all = key === 'messages' && flagOff ? [] : expectedIds(w, key, caller, q);
              const got = payload[key]!.map((r) => r.id);
              expect(got, `${key} for ${q} as ${caller.user}@${caller.account}`).toEqual(all.slice((page - 1) * 15, page * 15));
              hasMore[key] = all.length > page * 15;
              if (got.length > 0) nonEmpty += 1;
            }
            // The engine answered itself: a silent fallback would test Postgres twice.
            const messageEngine = KEYS_OF[tool].includes('messages') ? name : 'postgres';
            expect(viaMcp._meta).toEqual({ page, per_page: 15, has_more: hasMore, engine: messageEngine });
          },
        ),
        { seed: ISOLATION_SURFACES_SEED, numRuns: ISOLATION_SURFACES_RUNS },
      );
      expect(nonEmpty).toBeGreaterThan(ISOLATION_SURFACES_RUNS / 2);
    },
    90_000,
  );

  it.skipIf(skip || name !== 'postgres')(
    `every read tool and route shows only the caller's records, anything else "not found" (${ISOLATION_SURFACES_READ_RUNS} runs, seed ${ISOLATION_SURFACES_SEED})`,
    async () => {
      const seen = { found: 0, notFound: 0 };
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...w.memberships), fc.constantFrom(...readTargets(w)), async (caller, target) => {
          const expected = expectedRead(w, caller, target);
          const viaMcp = await (
            await mcpClient(caller.token)
          ).callTool({ name: target.tool, arguments: { ...target.args, account_id: caller.account } });
          // REST names a conversation by its display id only.
          const viaRest =
            target.tool === 'get_conversation' && target.args.display_id === undefined
              ? undefined
              : await restRead(server.url, caller.token, caller.account, target.tool, target.args);
          if (!expected) {
            seen.notFound += 1;
            const error = NOT_FOUND[target.tool];
            expect(viaMcp).toEqual({ isError: true, content: [{ type: 'text', text: error }] });
            if (viaRest) expect(viaRest).toEqual({ status: 404, body: { error } });
            return;
          }
          seen.found += 1;
          expect(viaMcp.isError).toBeFalsy();
          if (viaRest) expect(asRestBody(viaMcp.structuredContent)).toEqual(viaRest.body);
          const body = viaMcp.structuredContent as {
            meta?: { conversation: { id: number; account_id: number } };
            payload:
              | Array<{ id: number; conversation_id: number }>
              | { id: number; account_id: number }
              | { contact: { id: number }; conversations: Array<{ id: number }> };
          };
          if (target.tool === 'get_conversation') {
            expect(body.meta?.conversation).toMatchObject({ id: expected.id, account_id: caller.account });
            const messages = body.payload as Array<{ id: number; conversation_id: number }>;
            expect(messages.map((m) => m.id)).toEqual(expected.rows);
            for (const m of messages) expect(m.conversation_id).toBe(expected.id);
          } else if (target.tool === 'get_contact') {
            const detail = body.payload as { contact: { id: number }; conversations: Array<{ id: number }> };
            expect(detail.contact.id).toBe(expected.id);
            expect(detail.conversations.map((v) => v.id)).toEqual(expected.rows);
          } else {
            expect(body.payload).toMatchObject({ id: expected.id, account_id: caller.account });
          }
        }),
        { seed: ISOLATION_SURFACES_SEED, numRuns: ISOLATION_SURFACES_READ_RUNS },
      );
      expect(seen.found).toBeGreaterThan(ISOLATION_SURFACES_READ_RUNS / 10);
      expect(seen.notFound).toBeGreaterThan(ISOLATION_SURFACES_READ_RUNS / 10);
    },
    90_000,
  );

  it.skipIf(skip || name !== 'postgres')(
    "list_conversations and get_account show every caller exactly its account's visible conversations and inboxes, on both surfaces",
    async () => {
      for (const caller of w.memberships) {
        const inboxes = accessibleInboxes(w, caller);
        const visible = w.conversations.filter((c) => c.account === caller.account && inboxes.has(c.inbox));
        const args = { status: 'all', sort_by: 'created_at_asc' };
        const viaRest = await restGet(server.url, caller.token, listPath(caller.account, args));
        const client = await mcpClient(caller.token);
        const viaMcp = await client.callTool({
          name: 'list_conversations',
          arguments: { ...args, account_id: caller.account },
        });
        const listed = (asRestBody(viaMcp.structuredContent) as { payload: { conversations: unknown; counts: unknown } }).payload;
        expect({ data: { meta: listed.counts, payload: listed.conversations } }).toEqual(viaRest.body);
        const { data } = viaRest.body as { data: { meta: { all_count: number }; payload: Row[] } };
        expect(data.meta.all_count).toBe(visible.length);
        expectOwnRows(caller, { conversations: data.payload });
        const want = visible
          .sort((a, b) => a.created - b.created || b.id - a.id)
          .slice(0, 25)
          .map((c) => c.id);
        expect(data.payload.map((c) => c.id)).toEqual(want);
        // Another account's inbox, or one the caller may not see: nothing, and zero counts.
        for (const inbox of w.inboxes.filter((i) => !inboxes.has(i.id)).slice(0, 3)) {
          const hidden = await restGet(server.url, caller.token, listPath(caller.account, { status: 'all', inbox_id: inbox.id }));
          expect(hidden.body).toEqual({
            data: { meta: { mine_count: 0, assigned_count: 0, unassigned_count: 0, all_count: 0 }, payload: [] },
          });
        }
        const account = await client.callTool({
          name: 'get_account',
          arguments: { account_id: caller.account },
        });
        const directory = account.structuredContent as { inboxes: Row[]; account: { id: number } };
        expect(directory.account.id).toBe(caller.account);
        expect(directory.inboxes.map((i) => i.id).sort((a, b) => a - b)).toEqual([...inboxes].sort((a, b) => a - b));
        const restInboxes = await restGet(server.url, caller.token, `/api/v1/accounts/${caller.account}/inboxes`);
        expect(restInboxes.body).toEqual({ payload: directory.inboxes });
      }
    },
    90_000,
  );

  it.skipIf(skip || name !== 'postgres')(
    'refuses every caller on every account it is not a member of, on both surfaces',
    async () => {
      for (const account of w.accounts) {
        const outsiders = w.memberships.filter((m) => !w.memberships.some((x) => x.user === m.user && x.account === account));
        expect(outsiders.length).toBeGreaterThan(0);
        for (const outsider of outsiders) {
          for (const tool of TOOLS) {
            const { viaRest, viaMcp } = await both({ ...outsider, account }, tool, { q: 'a' });
            expect(viaRest).toEqual({ status: 401, body: { error: NOT_MEMBER } });
            expect(viaMcp).toEqual({ isError: true, content: [{ type: 'text', text: NOT_MEMBER }] });
          }
          for (const route of ['conversations', 'inboxes', 'teams', 'agents', 'labels'])
            expect(await restGet(server.url, outsider.token, `/api/v1/accounts/${account}/${route}`)).toEqual({
              status: 401,
              body: { error: NOT_MEMBER },
            });
          // A read names a record of that account, yet the account is refused first.
          const record = w.contacts.find((c) => c.account === account)!.id;
          expect(await restRead(server.url, outsider.token, account, 'get_contact', { id: record })).toEqual({
            status: 401,
            body: { error: NOT_MEMBER },
          });
        }
      }
    },
  );

  it.skipIf(skip || name !== 'postgres')(
    'asks a caller of several accounts to choose, listing only its own accounts',
    async () => {
      const users = new Map<number, number[]>();
      for (const m of w.memberships) users.set(m.user, [...(users.get(m.user) ?? []), m.account]);
      for (const [user, accounts] of users) {
        if (accounts.length < 2) continue;
        const token = w.memberships.find((m) => m.user === user)!.token;
        const r = await (await mcpClient(token)).callTool({ name: 'search_all', arguments: { q: 'a' } });
        const listed = accounts
          .sort((a, b) => a - b)
          .map((a) => `${a} (Tenant ${w.accounts.indexOf(a)})`)
          .join(', ');
        expect(r).toEqual({
          isError: true,
          content: [{ type: 'text', text: `account_id is required: you belong to accounts ${listed}` }],
        });
      }
    },
  );
});
