/**
 * Tenant isolation, as a property: many accounts, users, inboxes and memberships with
 * overlapping names and words; random callers run random queries. Every returned row belongs to
 * the caller's account (and, for conversations and messages, to an inbox the caller may access),
 * and the first page is exactly what an independent oracle computed from the fixture data says.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchDeps } from '../src/search/core.js';
import type { MessageEngine } from '../src/search/messages/engine.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { createTestIndex, hasEs, type TestIndex } from './helpers/es.js';
import { Fixture } from './helpers/fixtures.js';
import {
  buildTenantWorld,
  expectedIds,
  expectedRead,
  NOT_FOUND,
  readTargets,
  TENANT_QUERIES,
  type TenantWorld,
} from './helpers/tenant-world.js';
import { makeDeps, read, search } from './helpers/core.js';
import type { ArticleDetail, ContactDetail, ConversationTranscript } from '../src/search/records.js';

export const ISOLATION_SEED = 20261122;
export const ISOLATION_RUNS = 150;
/** Reads (issue 14): random callers read random records of every account. */
export const ISOLATION_READ_RUNS = 300;
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

describe.each(engines)('tenant isolation on $name', ({ name, skip, make }) => {
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

  it.skipIf(skip || name !== 'postgres')(
    `reads only records of the caller's account and inboxes; any other is "not found" (${ISOLATION_READ_RUNS} runs, seed ${ISOLATION_SEED})`,
    async () => {
      const targets = readTargets(w);
      const seen = { found: 0, notFound: 0 };
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...w.memberships), fc.constantFrom(...targets), async (caller, target) => {
          const expected = expectedRead(w, caller, target);
          const attempt = read(deps, caller.token, caller.account, target.tool, target.args);
          if (!expected) {
            seen.notFound += 1;
            await expect(attempt).rejects.toMatchObject({ code: 'not_found', message: NOT_FOUND[target.tool] });
            return;
          }
          seen.found += 1;
          const { body } = await attempt;
          if (target.tool === 'get_conversation') {
            const t = body as ConversationTranscript;
            expect(t.meta.conversation).toMatchObject({ id: expected.id, account_id: caller.account });
            expect(t.payload.map((m) => m.id)).toEqual(expected.rows);
            for (const m of t.payload)
              expect(m).toMatchObject({ conversation_id: expected.id, inbox_id: t.meta.conversation.inbox_id });
          } else if (target.tool === 'get_contact') {
            const c = body as ContactDetail;
            expect(c.payload.contact.id).toBe(expected.id);
            expect(c.payload.conversations.map((v) => v.id)).toEqual(expected.rows);
          } else {
            expect((body as ArticleDetail).payload).toMatchObject({ id: expected.id, account_id: caller.account });
          }
        }),
        { seed: ISOLATION_SEED, numRuns: ISOLATION_READ_RUNS },
      );
      // Both outcomes are common, so neither half of the property is vacuous.
      expect(seen.found).toBeGreaterThan(ISOLATION_READ_RUNS / 10);
      expect(seen.notFound).toBeGreaterThan(ISOLATION_READ_RUNS / 10);
    },
  );

  it.skipIf(skip)('never lets a caller into an account it is not a member of', async () => {
    for (const account of w.accounts) {
      for (const m of w.memberships.filter((x) => !w.memberships.some((y) => y.user === x.user && y.account === account))) {
        await expect(search(deps, m.token, account, 'all', { q: 'a' })).rejects.toMatchObject({ code: 'not_account_member' });
        await expect(read(deps, m.token, account, 'get_contact', { id: 1 })).rejects.toMatchObject({
          code: 'not_account_member',
        });
      }
    }
  });
});
