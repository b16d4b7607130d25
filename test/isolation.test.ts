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
import { DAY, Fixture } from './helpers/fixtures.js';
import { makeDeps, search } from './helpers/core.js';

export const ISOLATION_SEED = 20261122;
export const ISOLATION_RUNS = 150;
const NOW = Math.floor(Date.now() / 1000);

const NAMES = ['Ana Lee', 'Bo Chen', 'Cy Diaz', 'Ana Chen', 'Lee Bo', 'Dee Ana'];
const WORDS = ['refund', 'order', 'ship', 'shipping', 'invoice', 'late', 'broken', 'reorder'];

interface World {
  accounts: number[];
  /** [userId, accountId, role, token] */
  memberships: Array<{ user: number; account: number; admin: boolean; token: string }>;
  inboxes: Array<{ id: number; account: number }>;
  inboxMembers: Set<string>;
  contacts: Array<{ id: number; account: number; name: string; email: string; last: number }>;
  conversations: Array<{ id: number; account: number; inbox: number; contact: number; display: number; created: number }>;
  messages: Array<{ id: number; account: number; inbox: number; content: string; type: number; created: number }>;
}

let t: TestDatabase;
let esIndex: TestIndex | undefined;
const w: World = {
  accounts: [],
  memberships: [],
  inboxes: [],
  inboxMembers: new Set(),
  contacts: [],
  conversations: [],
  messages: [],
};

async function buildWorld(fx: Fixture) {
  const rnd = fc.sample(fc.integer({ min: 0, max: 1_000_000 }), { seed: ISOLATION_SEED, numRuns: 2000 });
  let k = 0;
  const pick = <T>(xs: readonly T[]): T => xs[rnd[k++ % rnd.length]! % xs.length]!;
  const users = [];
  for (let u = 0; u < 8; u++) users.push(await fx.user());
  for (let a = 0; a < 5; a++) {
    const account = await fx.account({ advancedSearch: true });
    w.accounts.push(account);
    const inboxes = [];
    for (let i = 0; i < 3; i++) {
      const id = await fx.inbox(account);
      inboxes.push(id);
      w.inboxes.push({ id, account });
    }
    // Users 0..7: some are members of several accounts, with different roles.
    for (const [n, user] of users.entries()) {
      if ((n + a) % 3 === 0) continue;
      const admin = (n + a) % 4 === 0;
      await fx.member(account, user, admin ? 'administrator' : 'agent');
      w.memberships.push({ user, account, admin, token: await fx.token(user) });
      if (!admin)
        for (const inbox of inboxes)
          if ((inbox + n) % 2 === 0) {
            await fx.inboxMember(inbox, user);
            w.inboxMembers.add(`${inbox}:${user}`);
          }
    }
    for (let c = 0; c < 8; c++) {
      const name = pick(NAMES);
      const last = NOW - (1 + (rnd[k++ % rnd.length]! % 60)) * DAY;
      const email = `${name.split(' ')[0]!.toLowerCase()}${c}@acct${a}.test`;
      const id = await fx.contact(account, { name, email, last_activity_at: last });
      w.contacts.push({ id, account, name, email, last });
    }
    const accountContacts = w.contacts.filter((c) => c.account === account);
    for (let v = 0; v < 10; v++) {
      const inbox = pick(inboxes);
      const contact = pick(accountContacts).id;
      const created = NOW - (1 + v) * DAY;
      const id = await fx.conversation(account, inbox, { contact_id: contact, created_at: created, last_activity_at: created });
      w.conversations.push({ id, account, inbox, contact, display: v + 1, created });
      for (let m = 0; m < 3; m++) {
        const content = `${pick(WORDS)} ${pick(WORDS)} ${pick(NAMES)}`;
        const type = pick([0, 0, 1, 1, 2]);
        const mc = created + m * 60;
        const mid = await fx.message(id, { content, message_type: type, created_at: mc });
        w.messages.push({ id: mid, account, inbox, content, type, created: mc });
      }
    }
  }
}

/** The oracle: what a caller may see, computed from the fixture data in memory. */
function accessible(caller: World['memberships'][number]): Set<number> {
  return new Set(
    w.inboxes
      .filter((i) => i.account === caller.account && (caller.admin || w.inboxMembers.has(`${i.id}:${caller.user}`)))
      .map((i) => i.id),
  );
}
const byDesc = (a: [number, number], b: [number, number]) => b[0] - a[0] || b[1] - a[1];
const wordsOf = (s: string) =>
  s
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

function oracle(op: 'contacts' | 'conversations' | 'messages', caller: World['memberships'][number], q: string): number[] {
  const ql = q.toLowerCase();
  const inboxes = accessible(caller);
  if (op === 'contacts') {
    return w.contacts
      .filter((c) => c.account === caller.account && (c.name.toLowerCase().includes(ql) || c.email.includes(ql)))
      .map((c): [number, number] => [c.last, c.id])
      .sort(byDesc)
      .map(([, id]) => id);
  }
  if (op === 'conversations') {
    return w.conversations
      .filter((v) => {
        if (v.account !== caller.account || !inboxes.has(v.inbox)) return false;
        const c = w.contacts.find((x) => x.id === v.contact)!;
        return String(v.display).includes(ql) || c.name.toLowerCase().includes(ql) || c.email.includes(ql);
      })
      .map((v): [number, number] => [v.created, v.id])
      .sort(byDesc)
      .map(([, id]) => id);
  }
  const qWords = wordsOf(q);
  return w.messages
    .filter(
      (m) =>
        m.account === caller.account &&
        inboxes.has(m.inbox) &&
        m.type < 2 &&
        qWords.length > 0 &&
        qWords.every((qw) => wordsOf(m.content).some((cw) => cw.startsWith(qw))),
    )
    .map((m): [number, number] => [m.created, m.id])
    .sort(byDesc)
    .map(([, id]) => id);
}

beforeAll(async () => {
  t = await createTestDatabase();
  await buildWorld(new Fixture(t.admin));
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
    const queries = [...NAMES.flatMap((n) => n.split(' ')), ...WORDS, 'a', 'e', '1', 'acct', 'ana lee', 'ship ref', 'zzz'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...w.memberships),
        fc.constantFrom(...queries),
        fc.constantFrom('contacts' as const, 'conversations' as const, 'messages' as const),
        async (caller, q, op) => {
          const r = await search(deps, caller.token, caller.account, op, { q });
          const got = (r.payload[op] ?? []).map((x) => x.id);
          const expected = oracle(op, caller, q);
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
