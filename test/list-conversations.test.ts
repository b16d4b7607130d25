/**
 * list_conversations (contract §9.2) against a plain oracle: JS over every conversation row, for
 * random filter and sort combinations on seeded random data (labels shared by name across
 * accounts, priorities with nulls, waiting_since null or set, timestamps with many ties), pages
 * and counts included, for an administrator, an agent of two inboxes and an agent of none, on
 * both index layouts (without and with `searchdesk db indexes`). Then the access rules, the
 * notices and bad input.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchDeps } from '../src/search/core.js';
import { listConversationsParamsSchema, LIST_PAGE_SIZE, type ListConversationsParams } from '../src/search/list-params.js';
import { parseWith } from '../src/search/params.js';
import { handle } from '../src/search/pipeline.js';
import type { TriageResult } from '../src/search/triage.js';
import { conversationListSchema, type ConversationList } from '../src/search/triage-records.js';
import { resolveAccess } from '../src/auth/access.js';
import { capCounts, LABEL_PROBE_FROM, LIST_COUNT_CAP, listConversations } from '../src/search/list.js';
import { makeDeps } from './helpers/core.js';
import { createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';

const BASE = 1_780_000_000;
const TIMES = [0, 1, 1, 2, 3, 3, 3, 5, 8, 13].map((d) => BASE - d * 3600);
const LABELS = ['billing', 'bug', 'vip', 'refund'];

interface Conv {
  id: number;
  account: number;
  inbox: number;
  status: number;
  assignee: number | null;
  team: number | null;
  priority: number | null;
  waiting: number | null;
  firstReply: number | null;
  created: number;
  last: number;
  labels: string[];
}

interface World {
  account: number;
  other: number;
  inboxes: number[];
  teams: number[];
  otherTeam: number;
  admin: { user: number; token: string };
  agent: { user: number; token: string; inboxes: number[] };
  lonely: { user: number; token: string };
  convs: Conv[];
}

/** mulberry32: the data is random but the same on every run. */
function prng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let t: TestDatabase;
let deps: SearchDeps;
let w: World;

async function buildWorld(fx: Fixture): Promise<World> {
  const rand = prng(48);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
  const account = await fx.account({ name: 'Triage Co' });
  const other = await fx.account({ name: 'Other Co' });
  const inboxes = [await fx.inbox(account), await fx.inbox(account), await fx.inbox(account), await fx.inbox(account)];
  const otherInbox = await fx.inbox(other);
  const teams = [await fx.team(account), await fx.team(account)];
  const otherTeam = await fx.team(other);
  const [adminUser, agentUser, lonelyUser, peer] = [await fx.user(), await fx.user(), await fx.user(), await fx.user()];
  await fx.member(account, adminUser, 'administrator');
  await fx.member(account, agentUser, 'agent');
  await fx.member(account, lonelyUser, 'agent');
  await fx.member(account, peer, 'agent');
  await fx.member(other, agentUser, 'agent');
  const agentInboxes = [inboxes[0] as number, inboxes[2] as number];
  for (const inbox of agentInboxes) await fx.inboxMember(inbox, agentUser);
  await fx.inboxMember(otherInbox, agentUser);
  for (const title of LABELS) await t.admin.query('INSERT INTO labels (account_id, title) VALUES ($1, $2)', [account, title]);
  await t.admin.query("INSERT INTO labels (account_id, title) VALUES ($1, 'billing'), ($1, 'secret')", [other]);
  await t.admin.query('INSERT INTO tags (name) SELECT unnest($1::text[])', [[...LABELS, 'secret']]);
  const convs: Conv[] = [];
  for (let i = 0; i < 160; i++) {
    const mine = i % 4 !== 3;
    const acc = mine ? account : other;
    const created = pick(TIMES);
    const c: Omit<Conv, 'id'> = {
      account: acc,
      inbox: mine ? pick(inboxes) : otherInbox,
      status: pick([0, 0, 0, 1, 2, 3]),
      assignee: pick([null, null, adminUser, agentUser, peer]),
      team: mine ? pick([null, ...teams]) : pick([null, otherTeam]),
      priority: pick([null, null, 0, 1, 2, 3]),
      waiting: pick([null, null, ...TIMES]),
      firstReply: pick([null, created]),
      created,
      last: Math.max(created, pick(TIMES)),
      labels: LABELS.filter(() => rand() < 0.3).concat(mine ? [] : rand() < 0.5 ? ['secret'] : []),
    };
    const id = await fx.conversation(acc, c.inbox, {
      status: c.status,
      assignee_id: c.assignee ?? undefined,
      team_id: c.team ?? undefined,
      created_at: c.created,
      last_activity_at: c.last,
    });
    await t.admin.query(
      `UPDATE conversations SET priority = $2,
         waiting_since = to_timestamp($3) AT TIME ZONE 'UTC', first_reply_created_at = to_timestamp($4) AT TIME ZONE 'UTC'
       WHERE id = $1`,
      [id, c.priority, c.waiting, c.firstReply],
    );
    await t.admin.query(
      `INSERT INTO taggings (tag_id, taggable_type, taggable_id, context, created_at)
       SELECT t.id, 'Conversation', $1, 'labels', now() FROM tags t WHERE t.name = ANY($2::text[])`,
      [id, c.labels],
    );
    convs.push({ id, ...c });
  }
  return {
    account,
    other,
    inboxes,
    teams,
    otherTeam,
    admin: { user: adminUser, token: await fx.token(adminUser) },
    agent: { user: agentUser, token: await fx.token(agentUser), inboxes: agentInboxes },
    lonely: { user: lonelyUser, token: await fx.token(lonelyUser) },
    convs,
  };
}

beforeAll(async () => {
  t = await createTestDatabase();
  deps = makeDeps(t.db);
  w = await buildWorld(new Fixture(t.admin));
  await t.admin.query('ANALYZE');
}, 60_000);

afterAll(async () => {
  await t?.drop();
});

/** The list through the pipeline (the default count cap). */
async function list(token: string, raw: Record<string, unknown>, account = w.account): Promise<TriageResult> {
  const outcome = await handle(deps, {
    token,
    account,
    operation: 'list_conversations',
    params: () => parseWith(listConversationsParamsSchema, raw),
  });
  if (outcome.error) throw outcome.error;
  return outcome.result;
}

/** The list with counts capped at `cap` (the core's function, the caller's access as the pipeline resolves it). */
async function listCapped(token: string, params: ListConversationsParams, cap: number) {
  const owner = (await t.admin.query<{ owner_id: string }>('SELECT owner_id FROM access_tokens WHERE token = $1', [token]))
    .rows[0];
  const access = await resolveAccess(t.db, { userId: Number(owner?.owner_id) }, w.account);
  return listConversations({ db: t.db, access, logger: silentLogger, now: Date.now }, params, cap);
}

const STATUS = { open: 0, resolved: 1, pending: 2, snoozed: 3 } as const;
const PRIORITY = { low: 0, medium: 1, high: 2, urgent: 3 } as const;

/** Descending by key, nulls after every value. */
const desc = (a: number | null, b: number | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : b - a);
const asc = (a: number | null, b: number | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a - b);

const ORDER: Record<NonNullable<ListConversationsParams['sort_by']>, (x: Conv, y: Conv) => number> = {
  last_activity_at_desc: (x, y) => desc(x.last, y.last) || y.id - x.id,
  created_at_desc: (x, y) => desc(x.created, y.created) || y.id - x.id,
  created_at_asc: (x, y) => asc(x.created, y.created) || y.id - x.id,
  priority_desc: (x, y) => desc(x.priority, y.priority) || desc(x.last, y.last) || y.id - x.id,
  waiting_since_asc: (x, y) => asc(x.waiting, y.waiting) || asc(x.created, y.created) || y.id - x.id,
};

/** The oracle: every filter as the contract states it, over every row. */
function expected(user: number, visible: number[], p: ListConversationsParams) {
  const accountLabels = new Set(LABELS);
  const labels = p.labels?.map((l) => l.toLowerCase()).filter((l) => accountLabels.has(l));
  const blocked =
    (p.inbox_id !== undefined && !visible.includes(p.inbox_id)) ||
    (p.team_id !== undefined && !w.teams.includes(p.team_id)) ||
    labels?.length === 0;
  const base = w.convs.filter(
    (c) =>
      !blocked &&
      c.account === w.account &&
      visible.includes(c.inbox) &&
      (p.inbox_id === undefined || c.inbox === p.inbox_id) &&
      ((p.status ?? 'open') === 'all' || c.status === STATUS[(p.status ?? 'open') as keyof typeof STATUS]) &&
      (p.team_id === undefined || c.team === p.team_id) &&
      (p.priority === undefined || c.priority === (p.priority === 'none' ? null : PRIORITY[p.priority])) &&
      (p.conversation_type === undefined || c.firstReply === null || c.waiting !== null) &&
      (p.since === undefined || c.last >= p.since) &&
      (p.until === undefined || c.last <= p.until) &&
      (labels === undefined || c.labels.some((l) => labels.includes(l))),
  );
  const assigneeOk = (c: Conv) =>
    ({ all: true, me: c.assignee === user, unassigned: c.assignee === null, assigned: c.assignee !== null })[
      p.assignee_type ?? 'all'
    ];
  const rows = base.filter(assigneeOk).sort(ORDER[p.sort_by ?? 'last_activity_at_desc']);
  const page = p.page ?? 1;
  const unassigned = base.filter((c) => c.assignee === null).length;
  return {
    ids: rows.slice((page - 1) * LIST_PAGE_SIZE, page * LIST_PAGE_SIZE).map((c) => c.id),
    hasMore: rows.length > page * LIST_PAGE_SIZE,
    counts: {
      mine_count: base.filter((c) => c.assignee === user).length,
      assigned_count: base.length - unassigned,
      unassigned_count: unassigned,
      all_count: base.length,
    },
  };
}

/** Mostly absent, so that most combinations leave rows to order and count. */
const sometimes = <T>(arb: fc.Arbitrary<T>, weight = 3) =>
  fc.oneof({ weight, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

const paramsArb = (): fc.Arbitrary<ListConversationsParams> =>
  fc.record({
    status: sometimes(fc.constantFrom('open', 'resolved', 'pending', 'snoozed', 'all' as const), 1),
    assignee_type: sometimes(fc.constantFrom('all', 'me', 'unassigned', 'assigned' as const), 1),
    inbox_id: sometimes(fc.constantFrom(...w.inboxes)),
    team_id: sometimes(fc.constantFrom(...w.teams, w.otherTeam)),
    labels: sometimes(fc.subarray([...LABELS, 'VIP', 'secret', 'nope'], { minLength: 1 })),
    priority: sometimes(fc.constantFrom('urgent', 'high', 'medium', 'low', 'none' as const)),
    conversation_type: sometimes(fc.constant('unattended' as const)),
    sort_by: fc.constantFrom(
      'last_activity_at_desc',
      'created_at_desc',
      'created_at_asc',
      'priority_desc',
      'waiting_since_asc' as const,
    ),
    since: sometimes(fc.constantFrom(...TIMES)),
    until: sometimes(fc.constantFrom(...TIMES)),
    page: sometimes(fc.integer({ min: 1, max: 4 }), 1),
  });

async function checkAgainstOracle(): Promise<void> {
  const callers = [
    { ...w.admin, visible: w.inboxes },
    { ...w.agent, visible: w.agent.inboxes },
    { ...w.lonely, visible: [] as number[] },
  ];
  let filled = 0;
  let cappedRuns = 0;
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...callers), paramsArb(), async (caller, params) => {
      const result = await list(caller.token, params);
      const body = result.body as ConversationList;
      const want = expected(caller.user, caller.visible, params);
      expect(body.data.payload.map((c) => c.id)).toEqual(want.ids);
      expect(body.data.meta).toEqual(want.counts);
      expect(result.meta.has_more).toEqual({ conversations: want.hasMore });
      // With counts capped low enough to bite: the same page, each count at most the cap.
      const cap = 7;
      const capped = await listCapped(caller.token, params, cap);
      expect(capped.items.map((c) => c.id)).toEqual(want.ids);
      const counts = Object.values(want.counts);
      expect(capped.counts).toEqual({
        ...Object.fromEntries(Object.entries(want.counts).map(([k, v]) => [k, Math.min(v, cap)])),
        ...(counts.some((v) => v > cap) && { counts_capped: true }),
      });
      if (counts.some((v) => v > cap)) cappedRuns++;
      for (const c of body.data.payload) expect(c.account_id).toBe(w.account);
      if (want.ids.length > 1) filled++;
    }),
    { seed: 48, numRuns: 200 },
  );
  // A property whose pages are all empty or single would not test an order.
  expect(filled).toBeGreaterThan(40);
  expect(cappedRuns).toBeGreaterThan(40);
}

describe('list_conversations against the oracle', () => {
  it('matches it without searchdesk indexes', checkAgainstOracle, 120_000);
  it('matches it with searchdesk indexes', async () => {
    await t.createSearchIndexes();
    await t.admin.query('ANALYZE conversations');
    await checkAgainstOracle();
  }, 120_000);
  it('matches it whatever the tags count (a label filter probes each row walked, or hashes)', async () => {
    // taggings_count only chooses the plan (LABEL_PROBE_FROM): busy, a probe; 0 (a counter not
    // kept), the hash. The lists must not change.
    const before = await t.admin.query<{ id: number; taggings_count: number }>('SELECT id, taggings_count FROM tags');
    try {
      await t.admin.query('UPDATE tags SET taggings_count = $1', [LABEL_PROBE_FROM]);
      await checkAgainstOracle();
      await t.admin.query('UPDATE tags SET taggings_count = 0');
      await checkAgainstOracle();
    } finally {
      for (const tag of before.rows)
        await t.admin.query('UPDATE tags SET taggings_count = $2 WHERE id = $1', [tag.id, tag.taggings_count]);
    }
  }, 120_000);
});

describe('list_conversations counts', () => {
  it('reports a count past the cap as the cap, with counts_capped', () => {
    expect(capCounts({ mine_count: 3, assigned_count: 1500, unassigned_count: 20, all_count: 1520 }, 1000)).toEqual({
      mine_count: 3,
      assigned_count: 1000,
      unassigned_count: 20,
      all_count: 1000,
      counts_capped: true,
    });
    expect(capCounts({ mine_count: 3, assigned_count: 5, unassigned_count: 2, all_count: 7 }, 7)).toEqual({
      mine_count: 3,
      assigned_count: 5,
      unassigned_count: 2,
      all_count: 7,
    });
  });

  it('documents the cap it applies in the output schema', () => {
    // The cap is what a caller reads when counts_capped is set: the schema must name the same number.
    const meta = conversationListSchema.shape.data.shape.meta;
    expect(meta.description).toContain(`each at most ${LIST_COUNT_CAP}`);
    expect(meta.shape.counts_capped.description).toContain(`stopped at ${LIST_COUNT_CAP}:`);
    expect(
      capCounts({ mine_count: 0, assigned_count: LIST_COUNT_CAP + 1, unassigned_count: 0, all_count: LIST_COUNT_CAP + 1 }),
    ).toEqual({
      mine_count: 0,
      assigned_count: LIST_COUNT_CAP,
      unassigned_count: 0,
      all_count: LIST_COUNT_CAP,
      counts_capped: true,
    });
  });
});

describe('list_conversations access and notices', () => {
  it("gives an agent only its inboxes' conversations, and counts only those", async () => {
    const result = await list(w.agent.token, { status: 'all' });
    const body = result.body as ConversationList;
    const visible = w.convs.filter((c) => c.account === w.account && w.agent.inboxes.includes(c.inbox));
    expect(body.data.meta.all_count).toBe(visible.length);
    for (const c of body.data.payload) expect(w.agent.inboxes).toContain(c.inbox_id);
  });

  it('answers an inbox the caller may not see with an empty list, zero counts and a notice', async () => {
    const hidden = w.inboxes[1] as number;
    const result = await list(w.agent.token, { inbox_id: hidden, status: 'all' });
    expect(result.body).toEqual({
      data: { meta: { mine_count: 0, assigned_count: 0, unassigned_count: 0, all_count: 0 }, payload: [] },
    });
    expect(result.meta.notices).toEqual([expect.stringContaining(`Inbox ${hidden} is not one of the inboxes you may see`)]);
  });

  it("answers another account's team with an empty list and a notice", async () => {
    const result = await list(w.admin.token, { team_id: w.otherTeam });
    expect((result.body as ConversationList).data.payload).toEqual([]);
    expect(result.meta.notices).toEqual([expect.stringContaining(`Team ${w.otherTeam} is not a team of this account`)]);
  });

  it("answers an unknown label (another account's included) with an empty list and a notice naming the account's labels", async () => {
    const result = await list(w.admin.token, { labels: ['secret'], status: 'all' });
    expect((result.body as ConversationList).data.payload).toEqual([]);
    expect(result.meta.notices).toEqual([
      'No label of this account is called "secret", so no conversation was listed. The account\'s labels are: "billing", "bug", "refund", "vip".',
    ]);
  });

  it('lists the known labels of a mix and says which were unknown', async () => {
    const result = await list(w.admin.token, { labels: ['nope', 'Bug'], status: 'all' });
    expect((result.body as ConversationList).data.payload.length).toBeGreaterThan(0);
    expect(result.meta.notices[0]).toMatch(
      /^No label of this account is called "nope": only conversations labelled "bug" were listed\./,
    );
  });

  it('names at most 20 of the account labels in a notice', async () => {
    const titles = Array.from({ length: 25 }, (_, i) => `extra-${String(i).padStart(2, '0')}`);
    await t.admin.query('INSERT INTO labels (account_id, title) SELECT $1, unnest($2::text[])', [w.other, titles]);
    const result = await list(w.agent.token, { labels: ['nope'] }, w.other);
    const notice = result.meta.notices[0] ?? '';
    expect(notice.match(/"[^"]+"/g)?.length).toBe(1 + 20);
    expect(notice).toMatch(/and more \(get_account lists them\)\.$/);
  });

  it('tells an agent of no inbox why nothing is visible', async () => {
    const result = await list(w.lonely.token, {});
    expect(result.meta.notices).toEqual([
      'You are not a member of any inbox of this account, so no conversation is visible to you.',
    ]);
  });
});

describe('list_conversations bad input', () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ status: 'closed' }, 'status must be one of open, resolved, pending, snoozed, all'],
    [{ assignee_type: 'mine' }, 'assignee_type must be one of all, me, unassigned, assigned'],
    [{ priority: 'critical' }, 'priority must be one of urgent, high, medium, low, none'],
    [
      { sort_by: 'latest' },
      'sort_by must be one of last_activity_at_desc, created_at_desc, created_at_asc, priority_desc, waiting_since_asc',
    ],
    [{ conversation_type: 'mention' }, 'conversation_type must be one of unattended'],
    [{ page: 0 }, 'page must be an integer between 1 and 500'],
    [{ team_id: -1 }, 'team_id must be a positive integer'],
  ];
  it.each(cases)('refuses %j naming the allowed values', async (raw, message) => {
    await expect(list(w.admin.token, raw)).rejects.toMatchObject({ code: 'invalid_params', message });
  });
});
