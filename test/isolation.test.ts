/**
 * Tenant isolation, as a property: many accounts, users, inboxes and memberships with
 * overlapping names and words; random callers run random queries. Every returned row belongs to
 * the caller's account (and, for conversations and messages, to an inbox the caller may access),
 * and the first page is exactly what an independent oracle computed from the fixture data says.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchDeps } from '../src/search/core.js';
import type { MessageEngine } from '../src/search/engines/engine.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { createTestIndex, hasEs, type TestIndex } from './helpers/es.js';
import { Fixture } from './helpers/fixtures.js';
import { buildTenantWorld, expectedIds, TENANT_QUERIES, type TenantWorld } from './helpers/tenant-world.js';
import { makeDeps, search } from './helpers/core.js';

export const ISOLATION_SEED = 20261122;
export const ISOLATION_RUNS = 150;
let t: TestDatabase;
let esIndex: TestIndex | undefined;
let w: TenantWorld;

beforeAll(async () => {
  t = await createTestDatabase();
  w = await buildTenantWorld(new Fixture(t.admin), ISOLATION_SEED);
  if (hasEs) esIndex = await createTestIndex(t.db);
});

afterAll(async () => {
  await esIndex?.drop();
  await t.drop();
});

const engines: Array<{ name: string; skip: boolean; make: () => MessageEngine | undefined }> = [
  { name: 'postgres', skip: false, make: () => undefined },
  { name: 'elasticsearch', skip: !hasEs, make: () => esIndex?.engine },
];

describe.each(engines)('tenant isolation on $name', ({ skip, make }) => {
  let deps: SearchDeps;
  beforeAll(() => {
    deps = makeDeps(t.db, { primary: make() });
  });

  it.skipIf(skip)(`returns exactly the caller's visible rows (${ISOLATION_RUNS} runs, seed ${ISOLATION_SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...w.memberships),
        fc.constantFrom(...TENANT_QUERIES),
        fc.constantFrom('contacts' as const, 'conversations' as const, 'messages' as const),
        async (caller, q, op) => {
          // Accounts without advanced_search refuse message search; the surface tests cover that.
          fc.pre(!(op === 'messages' && w.noMessageSearch.has(caller.account)));
          const r = await search(deps, caller.token, caller.account, op, { q });
          const got = (r.payload[op] ?? []).map((x) => x.id);
          const expected = expectedIds(w, op, caller, q);
          expect(got).toEqual(expected.slice(0, 15));
          expect(r.meta.has_more[op]).toBe(expected.length > 15);
        },
      ),
      { seed: ISOLATION_SEED, numRuns: ISOLATION_RUNS },
    );
  });

  it.skipIf(skip)('never lets a caller into an account it is not a member of', async () => {
    for (const account of w.accounts) {
      for (const m of w.memberships.filter((x) => !w.memberships.some((y) => y.user === x.user && y.account === account))) {
        await expect(search(deps, m.token, account, 'all', { q: 'a' })).rejects.toMatchObject({ code: 'not_account_member' });
      }
    }
  });
});
