import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchError } from '../src/errors.js';
import { ERROR_STATUS } from '../src/http/status.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { ids, makeDeps, search } from './helpers/core.js';
import type { SearchDeps } from '../src/search/core.js';

let t: TestDatabase;
let deps: SearchDeps;
const f = {} as {
  account: number;
  other: number;
  suspended: number;
  admin: string;
  agent: string;
  outsider: string;
  bot: string;
  app: string;
  inboxA: number;
  inboxB: number;
  convA: number;
  convB: number;
  adminOfSuspended: string;
  orphanToken: string;
};

async function expectError(p: Promise<unknown>, code: string, status: number, message: string) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SearchError);
  expect((err as SearchError).code).toBe(code);
  expect(ERROR_STATUS[(err as SearchError).code]).toBe(status);
  expect((err as SearchError).message).toBe(message);
}

beforeAll(async () => {
  t = await createTestDatabase();
  deps = makeDeps(t.db);
  const fx = new Fixture(t.admin);
  f.account = await fx.account();
  f.other = await fx.account();
  f.suspended = await fx.account({ suspended: true });
  const admin = await fx.user();
  const agent = await fx.user();
  const outsider = await fx.user();
  await fx.member(f.account, admin, 'administrator');
  await fx.member(f.account, agent, 'agent');
  await fx.member(f.other, outsider, 'administrator');
  await fx.member(f.suspended, admin, 'administrator');
  f.admin = await fx.token(admin);
  f.agent = await fx.token(agent);
  f.outsider = await fx.token(outsider);
  f.adminOfSuspended = f.admin;
  f.bot = await fx.token(admin, 'AgentBot');
  f.app = await fx.token(admin, 'PlatformApp');
  f.inboxA = await fx.inbox(f.account);
  f.inboxB = await fx.inbox(f.account);
  await fx.inboxMember(f.inboxA, agent);
  const contact = await fx.contact(f.account, { name: 'Shared Name' });
  f.convA = await fx.conversation(f.account, f.inboxA, { contact_id: contact });
  f.convB = await fx.conversation(f.account, f.inboxB, { contact_id: contact });
  await fx.message(f.convA, { content: 'visible widget' });
  await fx.message(f.convB, { content: 'hidden widget' });
  const inboxOther = await fx.inbox(f.other);
  const otherContact = await fx.contact(f.other, { name: 'Shared Name' });
  await fx.conversation(f.other, inboxOther, { contact_id: otherContact });
});

afterAll(() => t.drop());

describe('caller and account (contract §2)', () => {
  it('rejects a missing token with 401 "Missing api_access_token header"', async () => {
    await expectError(
      search(deps, undefined, f.account, 'contacts', { q: 'a' }),
      'missing_token',
      401,
      'Missing api_access_token header',
    );
    await expectError(
      search(deps, '  ', f.account, 'contacts', { q: 'a' }),
      'missing_token',
      401,
      'Missing api_access_token header',
    );
  });

  it('rejects an unknown token with 401 "Invalid Access Token"', async () => {
    await expectError(search(deps, 'nope', f.account, 'contacts', { q: 'a' }), 'invalid_token', 401, 'Invalid Access Token');
  });

  it('rejects tokens owned by bots and apps with 401', async () => {
    for (const token of [f.bot, f.app]) {
      await expectError(
        search(deps, token, f.account, 'contacts', { q: 'a' }),
        'bot_token',
        401,
        'Access to this endpoint is not authorized for bots',
      );
    }
  });

  it('answers 404 "Resource could not be found" for an unknown account', async () => {
    await expectError(
      search(deps, f.admin, 999_999, 'contacts', { q: 'a' }),
      'account_not_found',
      404,
      'Resource could not be found',
    );
    await expectError(
      search(deps, f.admin, 2 ** 40, 'contacts', { q: 'a' }),
      'account_not_found',
      404,
      'Resource could not be found',
    );
  });

  it('answers 401 "Account is suspended" to a member of a suspended account', async () => {
    await expectError(
      search(deps, f.adminOfSuspended, f.suspended, 'contacts', { q: 'a' }),
      'account_suspended',
      401,
      'Account is suspended',
    );
  });

  it('answers 401 to a user who is not a member, without revealing suspension', async () => {
    await expectError(
      search(deps, f.outsider, f.account, 'contacts', { q: 'a' }),
      'not_account_member',
      401,
      'You are not authorized to access this account',
    );
    await expectError(
      search(deps, f.outsider, f.suspended, 'contacts', { q: 'a' }),
      'not_account_member',
      401,
      'You are not authorized to access this account',
    );
  });
});

describe('inbox access (contract §2.4–2.5)', () => {
  it('gives an administrator every inbox of the account', async () => {
    const r = await search(deps, f.admin, f.account, 'conversations', { q: 'Shared' });
    expect(ids(r, 'conversations').sort()).toEqual([f.convA, f.convB].sort());
  });

  it('gives an agent only the inboxes it is a member of', async () => {
    const r = await search(deps, f.agent, f.account, 'conversations', { q: 'Shared' });
    expect(ids(r, 'conversations')).toEqual([f.convA]);
    const m = await search(deps, f.agent, f.account, 'messages', { q: 'widget' });
    expect(m.payload.messages?.map((x) => x.content)).toEqual(['visible widget']);
  });

  it('lets an agent see every contact of the account (contacts are account-wide)', async () => {
    const r = await search(deps, f.agent, f.account, 'contacts', { q: 'Shared' });
    expect(r.payload.contacts).toHaveLength(1);
  });

  it('never returns a row of another account', async () => {
    const r = await search(deps, f.admin, f.account, 'all', { q: 'Shared' });
    expect(r.payload.contacts?.length).toBe(1);
    expect(r.payload.conversations?.every((c) => c.account_id === f.account)).toBe(true);
    const o = await search(deps, f.outsider, f.other, 'conversations', { q: 'Shared' });
    expect(o.payload.conversations?.map((c) => c.account_id)).toEqual([f.other]);
  });
});
