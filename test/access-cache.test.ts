/**
 * The access cache's staleness bound (README, Security): accepted caller checks are reused for at
 * most ACCESS_CACHE_TTL_MS; a revoked token, a removed membership, a suspended account or a lost
 * inbox membership stops within it; refusals are never kept. An injected clock stands in for time.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { ACCESS_CACHE_TTL_MS, createAccessCache } from '../src/auth/cache.js';
import { loadConfig } from '../src/config.js';
import { createHttpServer } from '../src/http/server.js';
import { authenticateToken, openContext, openContextForToken, type SearchDeps } from '../src/search/core.js';
import { SearchError } from '../src/errors.js';
import { createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { makeDeps } from './helpers/core.js';

let t: TestDatabase;
let fx: Fixture;
let clock = 0;
const now = () => clock;

/** Deps whose cache runs on the test clock; a fresh cache per test. */
function cachedDeps(): SearchDeps {
  return { ...makeDeps(t.db), accessCache: createAccessCache({ now }) };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => 'ok',
    (e: unknown) => (e instanceof SearchError ? e.code : `not a SearchError: ${String(e)}`),
  );
}

/** A member (administrator unless told) of a fresh account, with a token. */
async function member(role: 'administrator' | 'agent' = 'administrator') {
  const account = await fx.account();
  const user = await fx.user();
  const membership = await fx.member(account, user, role);
  const token = await fx.token(user);
  return { account, user, membership, token };
}

beforeAll(async () => {
  t = await createTestDatabase();
  fx = new Fixture(t.admin);
});

afterAll(() => t.drop());

describe('access cache: staleness bound', () => {
  it('the bound is a few seconds', () => {
    expect(ACCESS_CACHE_TTL_MS).toBeGreaterThan(0);
    expect(ACCESS_CACHE_TTL_MS).toBeLessThanOrEqual(5_000);
  });

  it('a revoked token keeps working for less than the bound, then gets 401 "Invalid Access Token"', async () => {
    const deps = cachedDeps();
    const m = await member();
    clock = 1_000;
    expect(await codeOf(authenticateToken(deps, m.token))).toBe('ok');
    await t.admin.query('DELETE FROM access_tokens WHERE token = $1', [m.token]);
    clock += ACCESS_CACHE_TTL_MS - 1;
    expect(await codeOf(authenticateToken(deps, m.token))).toBe('ok');
    clock += 1;
    expect(await codeOf(authenticateToken(deps, m.token))).toBe('invalid_token');
    expect(await codeOf(openContextForToken(deps, m.token, m.account))).toBe('invalid_token');
  });

  it('a revoked token stops on the REST path (one statement for token and account) within the bound', async () => {
    const deps = cachedDeps();
    const m = await member();
    clock = 5_000;
    expect(await codeOf(openContextForToken(deps, m.token, m.account))).toBe('ok');
    await t.admin.query('UPDATE access_tokens SET owner_type = $2 WHERE token = $1', [m.token, 'AgentBot']);
    expect(await codeOf(openContextForToken(deps, m.token, m.account))).toBe('ok');
    clock += ACCESS_CACHE_TTL_MS;
    expect(await codeOf(openContextForToken(deps, m.token, m.account))).toBe('bot_token');
  });

  it('a removed membership stops within the bound', async () => {
    const deps = cachedDeps();
    const m = await member();
    clock = 10_000;
    const caller = await authenticateToken(deps, m.token);
    expect(await codeOf(openContext(deps, caller, m.account))).toBe('ok');
    await t.admin.query('DELETE FROM account_users WHERE id = $1', [m.membership]);
    expect(await codeOf(openContext(deps, caller, m.account))).toBe('ok');
    clock += ACCESS_CACHE_TTL_MS;
    expect(await codeOf(openContext(deps, caller, m.account))).toBe('not_account_member');
    expect(await codeOf(openContextForToken(deps, m.token, m.account))).toBe('not_account_member');
  });

  it('a suspended account stops within the bound', async () => {
    const deps = cachedDeps();
    const m = await member();
    clock = 20_000;
    expect(await codeOf(openContextForToken(deps, m.token, m.account))).toBe('ok');
    await t.admin.query('UPDATE accounts SET status = 1 WHERE id = $1', [m.account]);
    clock += ACCESS_CACHE_TTL_MS;
    expect(await codeOf(openContextForToken(deps, m.token, m.account))).toBe('account_suspended');
  });

  it("an agent's lost inbox membership narrows its inboxes within the bound", async () => {
    const deps = cachedDeps();
    const m = await member('agent');
    const inbox = await fx.inbox(m.account);
    await fx.inboxMember(inbox, m.user);
    clock = 30_000;
    const first = await openContextForToken(deps, m.token, m.account);
    expect(first.ctx.access.inboxIds).toEqual([inbox]);
    await t.admin.query('DELETE FROM inbox_members WHERE inbox_id = $1 AND user_id = $2', [inbox, m.user]);
    clock += ACCESS_CACHE_TTL_MS;
    expect((await openContextForToken(deps, m.token, m.account)).ctx.access.inboxIds).toEqual([]);
  });

  it('never keeps a refusal: a token or membership granted after a refusal works at once', async () => {
    const deps = cachedDeps();
    const account = await fx.account();
    const user = await fx.user();
    const token = `tok_later_${Date.now()}`;
    clock = 40_000;
    expect(await codeOf(authenticateToken(deps, token))).toBe('invalid_token');
    await t.admin.query(`INSERT INTO access_tokens (owner_type, owner_id, token) VALUES ('User', $1, $2)`, [user, token]);
    expect(await codeOf(authenticateToken(deps, token))).toBe('ok');
    expect(await codeOf(openContextForToken(deps, token, account))).toBe('not_account_member');
    await fx.member(account, user, 'administrator');
    expect(await codeOf(openContextForToken(deps, token, account))).toBe('ok');
  });

  it('keeps the order of checks with a cache: a bad token is a 401 before an unknown account', async () => {
    const deps = cachedDeps();
    expect(await codeOf(openContextForToken(deps, 'no-such-token', 999_999))).toBe('invalid_token');
    expect(await codeOf(openContextForToken(deps, undefined, 999_999))).toBe('missing_token');
    const m = await member();
    expect(await codeOf(openContextForToken(deps, m.token, 999_999))).toBe('account_not_found');
    expect(await codeOf(openContextForToken(deps, m.token, 2 ** 60))).toBe('account_not_found');
  });
});

describe('token and account in one statement (REST)', () => {
  it('names the caller even when the account then refuses, and not when the token does', async () => {
    for (const deps of [makeDeps(t.db), cachedDeps()]) {
      const m = await member();
      const other = await fx.account();
      const heard: number[] = [];
      const onCaller = (c: { userId: number }) => heard.push(c.userId);
      expect(await codeOf(openContextForToken(deps, m.token, other, undefined, onCaller))).toBe('not_account_member');
      expect(await codeOf(openContextForToken(deps, m.token, m.account, undefined, onCaller))).toBe('ok');
      expect(await codeOf(openContextForToken(deps, 'no-such-token', m.account, undefined, onCaller))).toBe('invalid_token');
      expect(heard).toEqual([m.user, m.user]);
    }
  });
});

describe('access cache: the HTTP surface uses it', () => {
  let app: App;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    app = await createApp(loadConfig({ DATABASE_URL: t.url, LOG_LEVEL: 'silent' }), silentLogger);
    app.deps.accessCache = createAccessCache({ now });
    server = createHttpServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://localhost:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await app.close();
  });

  const rest = (token: string, account: number) =>
    fetch(`${base}/api/v1/accounts/${account}/search/contacts?q=zz`, { headers: { api_access_token: token } });
  const mcp = (token: string, account: number) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', api_access_token: token },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_contacts', arguments: { q: 'zz', account_id: account } },
      }),
    });

  it('a token revoked while cached answers 401 on REST and /mcp once the bound has passed', async () => {
    const m = await member();
    clock = 100_000;
    expect((await rest(m.token, m.account)).status).toBe(200);
    expect((await mcp(m.token, m.account)).status).toBe(200);
    await t.admin.query('DELETE FROM access_tokens WHERE token = $1', [m.token]);
    expect((await rest(m.token, m.account)).status).toBe(200);
    clock += ACCESS_CACHE_TTL_MS;
    const refused = await rest(m.token, m.account);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: 'Invalid Access Token' });
    expect((await mcp(m.token, m.account)).status).toBe(401);
  });

  it("a suspension reaches a cached MCP caller as the contract's tool error within the bound", async () => {
    const m = await member();
    clock = 200_000;
    expect((await mcp(m.token, m.account)).status).toBe(200);
    await t.admin.query('UPDATE accounts SET status = 1 WHERE id = $1', [m.account]);
    clock += ACCESS_CACHE_TTL_MS;
    const body = (await (await mcp(m.token, m.account)).json()) as { result: { isError?: boolean; content: { text: string }[] } };
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0]?.text).toBe('Account is suspended');
  });
});
