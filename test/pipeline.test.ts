/**
 * The core's request pipeline (src/search/pipeline.ts), the one path REST and MCP both take: the
 * order of the checks by where the account is named, the log facts learnt before a refusal, the
 * statements the caller checks cost, and the session rule for a token while Postgres is down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/db.js';
import { createPgDb } from '../src/db/pg.js';
import { openSession, withAccessCache, type SearchDeps } from '../src/search/core.js';
import { parseParams } from '../src/search/params.js';
import { handle, type AccountSource, type PipelineRequest } from '../src/search/pipeline.js';
import { createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { makeDeps } from './helpers/core.js';

let t: TestDatabase;
let deps: SearchDeps;
const f = {} as {
  account: number;
  second: number;
  foreign: number;
  admin: number;
  adminToken: string;
  multiToken: string;
  lonerToken: string;
};

beforeAll(async () => {
  t = await createTestDatabase();
  deps = makeDeps(t.db);
  const fx = new Fixture(t.admin);
  f.account = await fx.account({ name: 'Acme' });
  f.second = await fx.account({ name: 'Beta' });
  f.foreign = await fx.account();
  f.admin = await fx.user();
  const multi = await fx.user();
  const loner = await fx.user();
  await fx.member(f.account, f.admin, 'administrator');
  await fx.member(f.account, multi, 'agent');
  await fx.member(f.second, multi, 'agent');
  f.adminToken = await fx.token(f.admin);
  f.multiToken = await fx.token(multi);
  f.lonerToken = await fx.token(loner);
  await fx.contact(f.account, { name: 'Pipeline Person' });
});

afterAll(() => t.drop());

/**
 * A contacts search whose parameters are `raw` (an `account_id` among them is passed on, as the
 * MCP tools' schemas do), recording whether the pipeline asked for them.
 */
function contacts(token: string | undefined, account: AccountSource, raw: Record<string, unknown>) {
  const asked = { params: false };
  const { account_id, ...rest } = raw;
  const request: PipelineRequest<'contacts'> = {
    token,
    account,
    operation: 'contacts',
    params: () => {
      asked.params = true;
      return { ...parseParams('contacts', rest), ...(typeof account_id === 'number' && { account_id }) };
    },
  };
  return { request, asked };
}

const argument = (fallback?: number): AccountSource => ({ argument: true, fallback });

describe('account named by the path (REST): token → account → access → parameters', () => {
  it('refuses a bad token before the account and the parameters, naming only the account', async () => {
    const { request, asked } = contacts('nope', f.foreign, { q: '' });
    const out = await handle(deps, request);
    expect(out.error?.code).toBe('invalid_token');
    expect(out.facts).toEqual({ account: f.foreign });
    expect(asked.params).toBe(false);
  });

  it('refuses the account before the parameters, and the facts name the caller', async () => {
    const { request, asked } = contacts(f.adminToken, f.foreign, { q: '' });
    const out = await handle(deps, request);
    expect(out.error?.code).toBe('not_account_member');
    expect(out.facts).toEqual({ account: f.foreign, user: f.admin });
    expect(asked.params).toBe(false);
  });

  it('answers an account id that is no positive integer as unknown, after the token', async () => {
    for (const account of [Number.NaN, 0, -1, 2 ** 60]) {
      const refused = await handle(deps, contacts('nope', account, { q: 'a' }).request);
      expect(refused.error?.code).toBe('invalid_token');
      const unknown = await handle(deps, contacts(f.adminToken, account, { q: 'a' }).request);
      expect(unknown.error?.code).toBe('account_not_found');
      expect(unknown.facts).toEqual({ user: f.admin });
    }
  });

  it('checks the parameters once access is granted, then runs and records counts and engine', async () => {
    const bad = await handle(deps, contacts(f.adminToken, f.account, { q: '' }).request);
    expect(bad.error).toMatchObject({ code: 'invalid_params', message: 'q must not be blank' });
    const ok = await handle(deps, contacts(f.adminToken, f.account, { q: 'Pipeline' }).request);
    expect(ok.error).toBeUndefined();
    expect(ok.result?.payload.contacts?.map((c) => c.name)).toEqual(['Pipeline Person']);
    expect(ok.facts).toEqual({ account: f.account, user: f.admin, counts: { contacts: 1 }, engine: 'postgres' });
  });
});

describe('account named by an argument (MCP): parameters → token → account → access', () => {
  it('reports bad arguments before a bad token', async () => {
    const { request } = contacts('nope', argument(), { q: '', account_id: f.account });
    const out = await handle(deps, request);
    expect(out.error?.code).toBe('invalid_params');
    expect(out.facts).toEqual({});
  });

  it('uses the account_id argument, else the fallback, else the only account', async () => {
    const given = await handle(deps, contacts(f.adminToken, argument(f.foreign), { q: 'P', account_id: f.account }).request);
    expect(given.facts).toMatchObject({ account: f.account, user: f.admin, counts: { contacts: 1 } });
    const fallback = await handle(deps, contacts(f.adminToken, argument(f.foreign), { q: 'P' }).request);
    expect(fallback.error?.code).toBe('not_account_member');
    expect(fallback.facts).toEqual({ account: f.foreign, user: f.admin });
    const only = await handle(deps, contacts(f.adminToken, argument(), { q: 'P' }).request);
    expect(only.facts).toMatchObject({ account: f.account, user: f.admin, counts: { contacts: 1 } });
  });

  it('asks a caller of several accounts to choose, and refuses a caller of none', async () => {
    const several = await handle(deps, contacts(f.multiToken, argument(), { q: 'P' }).request);
    expect(several.error).toMatchObject({
      code: 'account_required',
      message: `account_id is required: you belong to accounts ${f.account} (Acme), ${f.second} (Beta)`,
    });
    const none = await handle(deps, contacts(f.lonerToken, argument(), { q: 'P' }).request);
    expect(none.error?.code).toBe('not_account_member');
    expect(await handle(deps, contacts('nope', argument(), { q: 'P' }).request)).toMatchObject({
      error: { code: 'invalid_token' },
      facts: {},
    });
  });
});

/** `db` with the labels of the statements it ran. */
function counting(db: Db): { db: Db; labels: string[] } {
  const labels: string[] = [];
  return {
    labels,
    db: {
      kind: db.kind,
      query: (q, label) => {
        labels.push(label ?? '?');
        return db.query(q, label);
      },
      ping: () => db.ping(),
      close: () => Promise.resolve(),
    },
  };
}

describe('the caller checks cost one statement, none when cached', () => {
  for (const surface of ['path', 'argument'] as const) {
    it(`an account named by the ${surface}: token and access in one statement, then none`, async () => {
      const { db, labels } = counting(t.db);
      const cached = withAccessCache({ ...deps, db });
      const request = () =>
        surface === 'argument'
          ? contacts(f.adminToken, argument(), { q: 'P', account_id: f.account }).request
          : contacts(f.adminToken, f.account, { q: 'P' }).request;
      expect((await handle(cached, request())).error).toBeUndefined();
      expect(labels.filter((l) => l.startsWith('auth_'))).toEqual(['auth_token_account']);
      labels.length = 0;
      expect((await handle(cached, request())).error).toBeUndefined();
      expect(labels.filter((l) => l.startsWith('auth_'))).toEqual([]);
    });
  }
});

describe('failures', () => {
  it('returns an unexpected error as "internal" with its cause, never throwing', async () => {
    const out = await handle(deps, {
      token: f.adminToken,
      account: f.account,
      operation: 'contacts',
      params: () => {
        throw new Error('secret detail');
      },
    });
    expect(out.error).toMatchObject({ code: 'internal', message: 'Internal error' });
    expect((out.error?.cause as Error).message).toBe('secret detail');
  });

  describe('a session opened while Postgres is down (contract §8)', () => {
    let down: SearchDeps;
    beforeAll(() => {
      const db = createPgDb({
        url: 'postgres://postgres@127.0.0.1:1/none',
        readOnly: true,
        statementTimeoutMs: 1_000,
        poolSize: 1,
        logger: silentLogger,
      });
      down = { ...deps, db };
    });
    afterAll(() => down.db.close());

    it('opens without a caller, and each call answers "Search backend unavailable"', async () => {
      expect(await openSession(down, f.adminToken)).toEqual({ caller: undefined });
      const out = await handle(down, contacts(f.adminToken, argument(), { q: 'P', account_id: f.account }).request);
      expect(out.error).toMatchObject({ code: 'backend_unavailable', message: 'Search backend unavailable' });
    });

    it('still refuses a missing token at once', async () => {
      await expect(openSession(down, undefined)).rejects.toMatchObject({ code: 'missing_token' });
    });
  });

  it('opens a session for an accepted token and refuses an unknown one', async () => {
    expect(await openSession(deps, f.adminToken)).toEqual({ caller: { userId: f.admin } });
    await expect(openSession(deps, 'nope')).rejects.toMatchObject({ code: 'invalid_token' });
  });
});
