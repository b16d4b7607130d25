/**
 * get_account and the directory routes (contract §9.4): an agent sees only its inboxes, a list
 * past 500 entries is cut and says so, and `/api/v1/profile` shows the caller and its accounts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchDeps } from '../src/search/core.js';
import { handle } from '../src/search/pipeline.js';
import type { AccountDirectory } from '../src/search/triage-records.js';
import { makeDeps } from './helpers/core.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { startHttp, type HttpProcess } from './helpers/http.js';
import { cliEnv, restGet } from './helpers/spawn.js';

let t: TestDatabase;
let deps: SearchDeps;
let server: HttpProcess;
const f = {} as {
  account: number;
  small: number;
  inboxes: number[];
  admin: { id: number; token: string };
  agent: { id: number; token: string };
};

beforeAll(async () => {
  t = await createTestDatabase();
  deps = makeDeps(t.db);
  const fx = new Fixture(t.admin);
  f.account = await fx.account({ name: 'Crowded', advancedSearch: false });
  f.small = await fx.account({ name: 'Small' });
  const admin = await fx.user({ name: 'Ada Admin', email: 'ada@example.test' });
  const agent = await fx.user({ name: 'Al Agent', display_name: 'Al' });
  await fx.member(f.account, admin, 'administrator');
  await fx.member(f.account, agent, 'agent');
  await fx.member(f.small, agent, 'administrator');
  f.inboxes = [await fx.inbox(f.account, { name: 'Email', channel_type: 'Channel::Email' }), await fx.inbox(f.account)];
  await fx.inboxMember(f.inboxes[0]!, agent);
  await fx.team(f.account, 'Billing');
  // 505 more agents and labels: past the cap of 500.
  await t.admin.query(
    `WITH u AS (INSERT INTO users (name, email) SELECT 'Bulk ' || g, 'bulk' || g || '@example.test' FROM generate_series(1, 505) g RETURNING id)
     INSERT INTO account_users (account_id, user_id, role) SELECT $1, id, 0 FROM u`,
    [f.account],
  );
  await t.admin.query(
    "INSERT INTO labels (account_id, title, color) SELECT $1, 'label-' || lpad(g::text, 3, '0'), '#000000' FROM generate_series(1, 505) g",
    [f.account],
  );
  f.admin = { id: admin, token: await fx.token(admin) };
  f.agent = { id: agent, token: await fx.token(agent) };
  server = await startHttp(cliEnv({ DATABASE_URL: t.url }));
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await t?.drop();
});

async function directory(token: string, account = f.account) {
  const outcome = await handle(deps, { token, account, operation: 'get_account', params: () => ({}) });
  if (outcome.error) throw outcome.error;
  return { body: outcome.result.body as AccountDirectory, notices: outcome.result.meta.notices };
}

describe('get_account', () => {
  it('tells an agent who it is and lists only the inboxes it may see', async () => {
    const { body } = await directory(f.agent.token);
    expect(body.account).toEqual({ id: f.account, name: 'Crowded', message_search: false });
    expect(body.me).toEqual({ id: f.agent.id, name: 'Al', role: 'agent' });
    expect(body.inboxes).toEqual([{ id: f.inboxes[0], name: 'Email', channel_type: 'Channel::Email' }]);
    expect(body.teams).toEqual([{ id: expect.any(Number), name: 'Billing' }]);
  });

  it('gives an administrator every inbox', async () => {
    const { body } = await directory(f.admin.token);
    expect(body.inboxes.map((i) => i.id)).toEqual(f.inboxes);
    expect(body.me.role).toBe('administrator');
  });

  it('cuts a list at 500 entries, flags it and says so', async () => {
    const { body, notices } = await directory(f.admin.token);
    expect(body.agents).toHaveLength(500);
    expect(body.labels).toHaveLength(500);
    expect(body.labels[0]).toEqual({ title: 'label-001', description: null, color: '#000000' });
    expect(body.truncated).toEqual({ inboxes: false, teams: false, agents: true, labels: true });
    expect(notices).toEqual([
      'Only the first 500 agents of this account are listed.',
      'Only the first 500 labels of this account are listed.',
    ]);
  });
});

describe('the directory routes', () => {
  it('lists every agent and label on REST, and only the visible inboxes', async () => {
    const agents = await restGet(server.url, f.admin.token, `/api/v1/accounts/${f.account}/agents`);
    expect((agents.body.payload as unknown[]).length).toBe(507);
    expect((agents.body.payload as unknown[])[0]).toEqual({
      id: f.admin.id,
      name: 'Ada Admin',
      email: 'ada@example.test',
      role: 'administrator',
    });
    const labels = await restGet(server.url, f.admin.token, `/api/v1/accounts/${f.account}/labels`);
    expect((labels.body.payload as Array<{ title: string }>).length).toBe(505);
    const inboxes = await restGet(server.url, f.agent.token, `/api/v1/accounts/${f.account}/inboxes`);
    expect(inboxes.body).toEqual({ payload: [{ id: f.inboxes[0], name: 'Email', channel_type: 'Channel::Email' }] });
  });

  it('shows the caller and its accounts with its role in each on /api/v1/profile', async () => {
    const profile = await restGet(server.url, f.agent.token, '/api/v1/profile');
    expect(profile).toEqual({
      status: 200,
      body: {
        payload: {
          id: f.agent.id,
          name: 'Al',
          email: expect.any(String),
          accounts: [
            { id: f.account, name: 'Crowded', role: 'agent' },
            { id: f.small, name: 'Small', role: 'administrator' },
          ],
        },
      },
    });
    expect(await restGet(server.url, undefined, '/api/v1/profile')).toEqual({
      status: 401,
      body: { error: 'Missing api_access_token header' },
    });
    expect(await restGet(server.url, 'nope', '/api/v1/profile')).toEqual({
      status: 401,
      body: { error: 'Invalid Access Token' },
    });
  });

  it('answers an unknown list value with a 422 naming the allowed values', async () => {
    const res = await restGet(server.url, f.admin.token, `/api/v1/accounts/${f.account}/conversations?status=closed&sort_by=x`);
    expect(res).toEqual({
      status: 422,
      body: {
        error:
          'status must be one of open, resolved, pending, snoozed, all; sort_by must be one of last_activity_at_desc, created_at_desc, created_at_asc, priority_desc, waiting_since_asc',
      },
    });
  });
});
