/**
 * Security checks of issue 6 that no other file makes (already covered: the pool's read-only
 * session and a refused INSERT — failures.test.ts; PGlite refusing every write —
 * embedded-db.test.ts; Host/Origin 403 on GET, 413 declared and streamed — http-server.test.ts;
 * the unknown-tool message — mcp-tools.test.ts):
 * - the search path only sends single SELECT statements, with every caller value a placeholder;
 * - every connection of the app's pool is read-only and refuses every kind of write;
 * - the README's read-only role is enough to search, and cannot write even past the session default;
 * - no token ever reaches a log: every route and tool, with valid, invalid, bot and app tokens,
 *   as header, Bearer and query parameter, with Postgres and the search engine failing, at debug
 *   level, over HTTP and stdio;
 * - over the wire: a cross-site tools/call is refused before any tool runs, a request without Host,
 *   oversized headers, deeply nested or malformed JSON-RPC, an unknown tool named after a secret.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { Db, SqlQuery } from '../src/db/db.js';
import { OPERATIONS } from '../src/search/params.js';
import { makeDeps, read, search } from './helpers/core.js';
import { createTestDatabase, createTestRole, dropTestRole, type TestDatabase } from './helpers/db.js';
import { createTestIndex, esUrl, hasEs, type TestIndex } from './helpers/es.js';
import { FaultProxy } from './helpers/fault-proxy.js';
import { Fixture } from './helpers/fixtures.js';
import { memoryLogger } from './helpers/log.js';
import {
  cliEnv,
  closedPort,
  connectHttpMcp,
  connectStdio,
  logLines,
  rawRequest,
  restRead,
  restSearch,
  runCli,
} from './helpers/spawn.js';
import { startHttp, type HttpProcess } from './helpers/http.js';

export const SQL_SHAPE_SEED = 6061;
export const SQL_SHAPE_RUNS = 200;

const TOOLS = ['search_all', 'search_contacts', 'search_conversations', 'search_messages', 'search_articles'] as const;
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let t: TestDatabase;
const f = {} as { account: number; inbox: number; user: number; admin: string; agent: string; bot: string; app: string };
/** Every token string the tests use, valid or not: none may ever be logged. */
const tokens: string[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  f.account = await fx.account({ advancedSearch: true });
  f.user = await fx.user();
  const agent = await fx.user();
  await fx.member(f.account, f.user, 'administrator');
  await fx.member(f.account, agent, 'agent');
  f.inbox = await fx.inbox(f.account);
  await fx.inboxMember(f.inbox, agent);
  f.admin = await fx.token(f.user);
  f.agent = await fx.token(agent);
  f.bot = await fx.token(f.user, 'AgentBot');
  f.app = await fx.token(f.user, 'PlatformApp');
  tokens.push(f.admin, f.agent, f.bot, f.app, `tok_invalid_${randomBytes(8).toString('hex')}`);
  const contact = await fx.contact(f.account, { name: 'Sergei Secure', email: 'sergei@secure.test' });
  const conv = await fx.conversation(f.account, f.inbox, { contact_id: contact });
  await fx.message(conv, { content: 'secure message one', sender_type: 'Contact', sender_id: contact });
  await fx.message(conv, { content: 'secure reply', message_type: 1, sender_type: 'User', sender_id: agent });
  await fx.article(f.account, await fx.portal(f.account), { title: 'Secure guide', content: 'Be secure.' });
});

afterAll(() => t?.drop());

describe('the search path only reads', () => {
  it(`sends single SELECT statements with every caller value a placeholder (${SQL_SHAPE_RUNS} runs, seed ${SQL_SHAPE_SEED})`, async () => {
    const sent: SqlQuery[] = [];
    const recording: Db = {
      kind: t.db.kind,
      query: <R extends object>(q: SqlQuery, label?: string) => {
        sent.push(q);
        return t.db.query<R>(q, label);
      },
      ping: () => t.db.ping(),
      close: () => Promise.resolve(),
    };
    const deps = makeDeps(recording);
    const marker = fc.stringMatching(/^[a-z]{6}$/).map((s) => `qq${s}zz`);
    const around = fc.constantFrom('', "'; DELETE FROM messages; --", ' secure ', '%_\\', '$1', ') OR (1=1', 'é😀');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...OPERATIONS),
        marker,
        around,
        around,
        fc.constantFrom('contact:1', 'agent:99', 'bogus'),
        async (op, mark, before, after, from) => {
          sent.length = 0;
          const raw: Record<string, unknown> = { q: `${before}${mark} secure${after}` };
          if (op === 'messages') Object.assign(raw, { from, inbox_id: f.inbox });
          await search(deps, f.admin, f.account, op, raw).catch(() => undefined);
          expect(sent.length).toBeGreaterThan(0);
          for (const q of sent) {
            expect(q.text).toMatch(/^\s*(SELECT|WITH)\b/i);
            expect(q.text).not.toContain(';');
            expect(q.text).not.toMatch(/\b(INSERT|UPDATE|DELETE|TRUNCATE|CREATE|ALTER|DROP|GRANT|COPY|SET|BEGIN)\b/i);
            expect(q.text).not.toContain(mark);
            expect(q.text).not.toContain(f.admin);
          }
        },
      ),
      { seed: SQL_SHAPE_SEED, numRuns: SQL_SHAPE_RUNS },
    );
  });

  it(`reads (issue 14) send single SELECT statements with every caller value a placeholder (${SQL_SHAPE_RUNS} runs, seed ${SQL_SHAPE_SEED})`, async () => {
    const sent: SqlQuery[] = [];
    const recording: Db = {
      kind: t.db.kind,
      query: <R extends object>(q: SqlQuery, label?: string) => {
        sent.push(q);
        return t.db.query<R>(q, label);
      },
      ping: () => t.db.ping(),
      close: () => Promise.resolve(),
    };
    const deps = makeDeps(recording);
    // Ids whose digits cannot occur in the SQL text by chance.
    const id = fc.integer({ min: 800_000_001, max: 899_999_999 });
    const ownConversation = (
      await t.admin.query<{ id: string }>('SELECT id FROM conversations WHERE account_id = $1', [f.account])
    ).rows[0]!.id;
    const ownMessage = (
      await t.admin.query<{ id: string }>('SELECT id FROM messages WHERE conversation_id = $1', [ownConversation])
    ).rows[0]!.id;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('get_conversation' as const, 'get_contact' as const, 'get_article' as const),
        id,
        id,
        fc.constantFrom('display_id', 'id', 'own'),
        fc.constantFrom(undefined, 'before', 'after'),
        async (op, mark, cursor, by, side) => {
          sent.length = 0;
          const raw: Record<string, unknown> =
            op === 'get_conversation'
              ? {
                  ...(by === 'own' ? { id: Number(ownConversation) } : { [by]: mark }),
                  ...(side ? { [side]: by === 'own' ? Number(ownMessage) : cursor } : {}),
                }
              : { id: mark, ...(op === 'get_contact' ? { page: 2 } : {}) };
          await read(deps, f.admin, f.account, op, raw).catch(() => undefined);
          expect(sent.length).toBeGreaterThan(0);
          for (const q of sent) {
            expect(q.text).toMatch(/^\s*(SELECT|WITH)\b/i);
            expect(q.text).not.toContain(';');
            expect(q.text).not.toMatch(/\b(INSERT|UPDATE|DELETE|TRUNCATE|CREATE|ALTER|DROP|GRANT|COPY|SET|BEGIN)\b/i);
            for (const value of [mark, cursor]) expect(q.text).not.toContain(String(value));
          }
        },
      ),
      { seed: SQL_SHAPE_SEED, numRuns: SQL_SHAPE_RUNS },
    );
  });

  it("refuses every kind of write on every connection of the app's pool, logging no SQL", async () => {
    const log = memoryLogger('debug');
    const app = await createApp(loadConfig({ DATABASE_URL: t.url, SEARCHDESK_PG_POOL_SIZE: '3' }), log.logger);
    try {
      const { db } = app.deps;
      // Three at once: the pool opens all three connections.
      const sessions = await Promise.all(
        [1, 2, 3].map(() =>
          db.query<{ pid: number; ro: string }>(
            { text: "SELECT pg_backend_pid() AS pid, current_setting('transaction_read_only') AS ro, pg_sleep(0.1)", values: [] },
            'probe',
          ),
        ),
      );
      expect(new Set(sessions.map(([s]) => s!.pid)).size).toBe(3);
      expect(sessions.every(([s]) => s!.ro === 'on')).toBe(true);
      const writes = [
        "INSERT INTO accounts (name) VALUES ('Intruder')",
        "UPDATE contacts SET name = 'Intruder'",
        'DELETE FROM messages',
        'TRUNCATE access_tokens',
        'CREATE TABLE intruder (id int)',
        'CREATE INDEX intruder_idx ON contacts (name)',
        "SELECT nextval('accounts_id_seq')",
        'SELECT id FROM accounts FOR UPDATE',
      ];
      for (const text of writes) {
        const results = await Promise.all([1, 2, 3].map(() => db.query({ text, values: [] }, 'write').catch((e: unknown) => e)));
        for (const err of results)
          expect(err).toMatchObject({ code: 'internal', message: 'Internal error', cause: { code: '25006' } });
      }
      const names = await t.admin.query<{ name: string }>("SELECT name FROM contacts WHERE name = 'Intruder'");
      expect(names.rows).toEqual([]);
      // Postgres names the kind of statement refused; neither its text nor its values are logged.
      expect(log.text()).not.toMatch(/Intruder|intruder|INSERT INTO|VALUES|FROM (accounts|messages)/);
      expect(log.lines().filter((l) => l.event === 'db_error' && l.code === '25006')).toHaveLength(writes.length * 3);
    } finally {
      await app.close();
    }
  });

  describe("the README's read-only role", () => {
    let role = '';
    let roleUrl = '';
    let canCreateRoles = true;

    beforeAll(async () => {
      // Exactly the statements of README "Production" step 1: CONNECT and USAGE (createTestRole), SELECT.
      const created = await createTestRole(t, 'sd_ro');
      if (!created) {
        canCreateRoles = false; // a test server without CREATEROLE: nothing to check here
        return;
      }
      ({ role, url: roleUrl } = created);
      await t.admin.query(
        `GRANT SELECT ON accounts, users, account_users, access_tokens, inboxes, inbox_members, teams,
           contacts, conversations, messages, portals, categories, articles, labels, tags, taggings TO ${role}`,
      );
    });

    afterAll(async () => {
      if (canCreateRoles) await dropTestRole(t, role);
    });

    it('is enough for every route, and cannot write even past the read-only session default', async (ctx) => {
      if (!canCreateRoles) ctx.skip();
      const server = await startHttp(cliEnv({ DATABASE_URL: roleUrl }));
      try {
        for (const tool of TOOLS) {
          const r = await restSearch(server.url, f.admin, f.account, tool, { q: 'secure' });
          expect(r.status).toBe(200);
          expect(Object.values(r.body.payload as Record<string, unknown[]>).some((rows) => rows.length > 0)).toBe(true);
        }
        // The read routes (issue 14) need nothing more.
        const found = (await restSearch(server.url, f.admin, f.account, 'search_messages', { q: 'secure' })).body.payload as {
          messages: Array<{ conversation_display_id: number; sender: { id: number; type: string } | null }>;
        };
        const article = (await restSearch(server.url, f.admin, f.account, 'search_articles', { q: 'secure' })).body.payload as {
          articles: Array<{ id: number }>;
        };
        const reads: Array<[string, Record<string, number>]> = [
          ['get_conversation', { display_id: found.messages[0]!.conversation_display_id }],
          ['get_contact', { id: found.messages.find((m) => m.sender?.type === 'contact')!.sender!.id }],
          ['get_article', { id: article.articles[0]!.id }],
        ];
        for (const [tool, args] of reads) expect((await restRead(server.url, f.admin, f.account, tool, args)).status).toBe(200);
      } finally {
        await server.stop();
      }
      const client = new pg.Client({ connectionString: roleUrl });
      await client.connect();
      try {
        // default_transaction_read_only is only a default; the role is the wall.
        for (const text of [
          "BEGIN READ WRITE; INSERT INTO accounts (name) VALUES ('Intruder'); COMMIT",
          "SET default_transaction_read_only = off; UPDATE contacts SET name = 'Intruder'",
          'CREATE TABLE intruder (id int)',
        ]) {
          await expect(client.query(text)).rejects.toMatchObject({ code: '42501' });
          await client.query('ROLLBACK').catch(() => undefined);
        }
      } finally {
        await client.end();
      }
    });
  });
});

describe('no token in any log (LOG_LEVEL=debug)', () => {
  let server: HttpProcess;
  let pgProxy: FaultProxy;
  let esProxy: FaultProxy | undefined;
  let esIndex: TestIndex | undefined;
  const clients: Client[] = [];

  beforeAll(async () => {
    pgProxy = FaultProxy.for(t.url);
    await pgProxy.start();
    const engineEnv: Record<string, string> = {};
    if (hasEs) {
      esIndex = await createTestIndex(t.db);
      esProxy = FaultProxy.for(esUrl);
      await esProxy.start();
      Object.assign(engineEnv, { ELASTICSEARCH_URL: esProxy.proxied(esUrl), ELASTICSEARCH_INDEX: esIndex.index });
    } else {
      engineEnv.ELASTICSEARCH_URL = `http://127.0.0.1:${await closedPort()}`;
    }
    server = await startHttp(
      cliEnv({ DATABASE_URL: pgProxy.proxied(t.url), LOG_LEVEL: 'debug', SEARCHDESK_ENGINE_TIMEOUT_MS: '500', ...engineEnv }),
    );
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server?.stop();
    await pgProxy?.cut();
    await esProxy?.cut();
    await esIndex?.drop();
  });

  async function mcpAs(headers: Record<string, string>): Promise<Client> {
    const client = await connectHttpMcp(server.url, headers);
    clients.push(client);
    await client.listTools();
    return client;
  }

  const rawMcp = (headers: Record<string, string>, body: unknown) =>
    rawRequest(`${server.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(body) });
  const call = (name: string, args: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: args },
  });

  /** Every route and tool with every token, as header, Bearer and query parameter; valid and invalid arguments. */
  async function exercise(): Promise<void> {
    for (const token of tokens) {
      for (const tool of TOOLS) {
        for (const args of [{ q: 'secure' }, { q: 'secure', page: 0 }] as Array<Record<string, string | number>>)
          await restSearch(server.url, token, f.account, tool, args);
        await fetch(`${server.url}/api/v1/accounts/${f.account}/search?q=x&api_access_token=${token}`);
        await fetch(`${server.url}/api/v1/accounts/${f.account}/search/contacts?q=x`, {
          headers: { authorization: `Bearer ${token}` },
        });
        for (const headers of [{ api_access_token: token }, { authorization: `Bearer ${token}` }] as Array<
          Record<string, string>
        >)
          await rawMcp(headers, call(tool, { q: 'secure', account_id: f.account }));
      }
    }
    for (const headers of [{ api_access_token: f.agent }, { authorization: `Bearer ${f.admin}` }] as Array<
      Record<string, string>
    >) {
      const client = await mcpAs(headers);
      for (const tool of TOOLS) {
        await client.callTool({ name: tool, arguments: { q: 'secure' } });
        await client.callTool({ name: tool, arguments: { q: 'secure', since: -1, bogus: 1 } });
      }
      await client.callTool({ name: `search_all_${f.admin}`, arguments: { q: f.app } });
    }
    for (const path of ['/healthz', '/readyz', '/metrics']) await fetch(server.url + path);
  }

  it('exercises every route and tool with every token while everything works', async () => {
    await exercise();
    const ok = await restSearch(server.url, f.admin, f.account, 'search_messages', { q: 'secure' });
    expect(ok.status).toBe(200);
  });

  it('and while the search engine is gone, then while Postgres is gone', async () => {
    await esProxy?.cut();
    await exercise();
    expect(logLines(server.stderr()).some((l) => l.event === 'engine_fallback')).toBe(true);
    await esProxy?.restore();
    await pgProxy.cut();
    await exercise();
    expect(logLines(server.stderr()).some((l) => l.event === 'db_unavailable')).toBe(true);
    await pgProxy.restore();
    expect((await restSearch(server.url, f.admin, f.account, 'search_contacts', { q: 'secure' })).status).toBe(200);
  });

  it('logged plenty at debug level, and not one token, anywhere (logs and metrics)', async () => {
    const lines = logLines(server.stderr());
    expect(lines.filter((l) => l.event === 'db_query').length).toBeGreaterThan(100);
    expect(lines.filter((l) => l.event === 'tool_call').length).toBeGreaterThan(20);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    for (const token of tokens) {
      expect(server.stderr()).not.toContain(token);
      expect(metrics).not.toContain(token);
    }
  });

  it('stdio, at debug level, through an outage: the token stays out of stderr', async () => {
    const s = await connectStdio(
      cliEnv({ DATABASE_URL: pgProxy.proxied(t.url), SEARCHDESK_ACCESS_TOKEN: f.agent, LOG_LEVEL: 'debug' }),
    );
    try {
      for (const tool of TOOLS) await s.client.callTool({ name: tool, arguments: { q: 'secure' } });
      await pgProxy.cut();
      const down = await s.client.callTool({ name: 'search_contacts', arguments: { q: 'secure' } });
      expect(down.isError).toBe(true);
      await pgProxy.restore();
      for (const tool of TOOLS) await s.client.callTool({ name: tool, arguments: { q: 'secure', page: 0 } });
      expect(logLines(s.stderr()).filter((l) => l.event === 'db_query').length).toBeGreaterThan(5);
      expect(s.stderr()).not.toContain(f.agent);
    } finally {
      await s.close();
    }
    for (const token of [f.bot, tokens.at(-1)!]) {
      const refused = await runCli([], cliEnv({ DATABASE_URL: t.url, SEARCHDESK_ACCESS_TOKEN: token, LOG_LEVEL: 'debug' }));
      expect(refused.code).toBe(2);
      expect(refused.stderr + refused.stdout).not.toContain(token);
    }
  });
});

describe('over the wire', () => {
  let server: HttpProcess;
  beforeAll(async () => {
    server = await startHttp(cliEnv({ DATABASE_URL: t.url }));
  });
  afterAll(() => server?.stop());

  const toolCalls = () => logLines(server.stderr()).filter((l) => l.event === 'tool_call').length;
  const post = (headers: Record<string, string | number>, body: string) =>
    rawRequest(`${server.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, api_access_token: f.admin, ...headers }, body });

  it('refuses a cross-site tools/call with a valid token before any tool runs', async () => {
    const before = toolCalls();
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search_all', arguments: { q: 'secure' } },
    });
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1.evil.example']) {
      const r = await post({ origin }, body);
      expect(r.status).toBe(403);
      expect(JSON.parse(r.body)).toEqual({ error: 'Origin not allowed' });
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
    }
    expect(toolCalls()).toBe(before);
    expect((await post({}, body)).status).toBe(200);
    // The log is written asynchronously: its line may arrive just after the response.
    await vi.waitFor(() => expect(toolCalls()).toBe(before + 1));
  });

  it('answers 403 to a request without Host (HTTP/1.0), on REST and /mcp', async () => {
    for (const [method, path] of [
      ['GET', `/api/v1/accounts/${f.account}/search?q=secure`],
      ['POST', '/mcp'],
    ] as const) {
      const r = await new Promise<string>((resolve, reject) => {
        let data = '';
        const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
        socket.on('data', (d: Buffer) => (data += d.toString()));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
        socket.end(`${method} ${path} HTTP/1.0\r\napi_access_token: ${f.admin}\r\ncontent-length: 0\r\n\r\n`);
      });
      expect(r.split('\r\n')[0]).toBe('HTTP/1.1 403 Forbidden');
      expect(r.endsWith('{"error":"Host not allowed"}')).toBe(true);
    }
  });

  it('answers 431 to oversized headers and keeps serving', async () => {
    const r = await rawRequest(`${server.url}/api/v1/accounts/${f.account}/search?q=x`, {
      headers: { api_access_token: `${f.admin}${'x'.repeat(20_000)}` },
    }).catch((err: NodeJS.ErrnoException) => ({ status: err.code }));
    // Node answers 431 and closes; a client still writing may see the reset first.
    expect([431, 'ECONNRESET', 'EPIPE']).toContain(r.status);
    expect((await restSearch(server.url, f.admin, f.account, 'search_contacts', { q: 'secure' })).status).toBe(200);
  });

  it('answers deeply nested and malformed JSON-RPC within the body limit without a 500 or a leak', async () => {
    const deep = (open: string, close: string, n: number) =>
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_all","arguments":{"q":${open.repeat(n)}1${close.repeat(n)}}}}`;
    const bodies = [
      deep('[', ']', 300_000),
      deep('{"a":', '}', 100_000),
      ...[{ name: 'search_all', arguments: [1] }, { name: 'search_all', arguments: 'q=x' }, { name: 7 }, {}, null].map((params) =>
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
      ),
      JSON.stringify(
        Array.from({ length: 50 }, (_, id) => ({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'search_all', arguments: { q: 'secure' } },
        })),
      ),
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'no/such/method' }),
    ];
    for (const body of bodies) {
      expect(Buffer.byteLength(body)).toBeLessThan(1024 * 1024);
      const r = await post({}, body);
      expect(r.status, r.body.slice(0, 200)).toBeLessThan(500);
      expect(r.body).not.toMatch(/SELECT|\n\s+at |node_modules|stack/);
      expect(r.body).not.toContain(f.admin);
    }
    expect(server.child.exitCode).toBeNull();
    expect((await restSearch(server.url, f.admin, f.account, 'search_contacts', { q: 'secure' })).status).toBe(200);
  });

  it('answers an unknown tool named after a secret with "Unknown tool" and the tool names, echoing and logging nothing of it', async () => {
    const name = `search_all'; DROP TABLE accounts; -- ${f.bot}`;
    const r = await post(
      {},
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { q: f.app } } }),
    );
    expect(JSON.parse(r.body)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        isError: true,
        content: [
          {
            type: 'text',
            text: expect.stringMatching(
              /^Unknown tool\. The tools are: search_all, .*get_article, list_conversations, get_account$/,
            ) as unknown,
          },
        ],
      },
    });
    expect(r.body).not.toContain('DROP TABLE');
    // The log is written asynchronously: its line may arrive just after the response.
    await vi.waitFor(() =>
      expect(
        logLines(server.stderr())
          .filter((l) => l.event === 'tool_call')
          .at(-1),
      ).toMatchObject({
        tool: 'unknown',
        status: 'unknown_tool',
      }),
    );
    expect(server.stderr()).not.toContain('DROP TABLE');
    for (const token of [f.admin, f.bot, f.app]) expect(server.stderr()).not.toContain(token);
  });
});
