/**
 * search_with_gin must return exactly the default variant's rows in the same order, for every
 * input (contract §4.3), and so must every strategy the searches choose between: each one is
 * compared with the plain statement (contacts 'walk', conversations 'scan') — the window when it
 * claims to hold the page, the candidate strategy when it did not overflow — on three index
 * layouts: the help desk's four-column contacts trigram index, one trigram index per column, and
 * neither of searchdesk's own indexes (so the default variant cannot walk created_at).
 * A property over many generated queries on generated data: substrings of real names, emails,
 * phone numbers, identifiers and display ids, numbers, one- and two-character terms, misses, with
 * and without time bounds, several pages, an administrator and an agent. The data is large
 * enough (and the candidate cap lowered) that each strategy answers and each gives way. On data
 * this small the planner reads no trigram index of articles by itself, so the article strategies
 * meant to read one are also checked to read it when steered there (their expressions are those
 * of the indexes).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateData, type GeneratedData } from '../bench/generator/generate-data.js';
import { isShape, type Shape } from '../bench/generator/shape.js';
import { divideLarge, SCALES, type ScaleSpec } from '../bench/generator/scale.js';
import { resolveAccess, type AccessContext } from '../src/auth/access.js';
import { SEARCHDESK_INDEXES } from '../src/db/admin.js';
import { INDEX } from '../src/db/catalog.js';
import type { Db, SqlQuery } from '../src/db/db.js';
import { createPgDb } from '../src/db/pg.js';
import { ARTICLE_SIZES, ARTICLE_STRATEGIES, searchArticles } from '../src/search/articles.js';
import { buildArticlesQuery, type ArticleSizes, type ArticleStatement, type WalkStep } from '../src/search/article-statements.js';
import {
  buildContactsQuery,
  CONTACT_PLAN,
  CONTACT_WINDOW,
  searchContacts,
  type ContactLimits,
  type ContactStrategy,
  type ContactWindowRest,
} from '../src/search/contacts.js';
import type { SearchContext } from '../src/search/context.js';
import {
  CONVERSATION_LIMITS,
  CONVERSATION_STRATEGIES,
  searchConversations,
  type ConversationInput,
  type ConversationLimits,
} from '../src/search/conversations.js';
import type { ConversationRow } from '../src/search/conversation-record.js';
import { conversationStatement, type ConversationStatement } from '../src/search/conversation-statements.js';
import { planStatement } from '../src/search/plan/executor.js';
import { PAGE_SIZE } from '../src/search/params.js';
import { shareWithinAccount, tableStats } from '../src/search/statistics.js';
import { splitWords } from '../src/search/text.js';
import { buildMessageQuery } from '../src/search/messages/query.js';
import { createPostgresEngine } from '../src/search/messages/postgres.js';
import type { ScopeIndex } from '../src/search/messages/postgres/clauses.js';
import { MESSAGE_LIMITS, type MessageLimits } from '../src/search/messages/postgres/estimates.js';
import {
  asRecords,
  senderStatement,
  trigramStatement,
  walkStatement,
  windowStatement,
  type MessageWindowRest,
  type WindowShape,
} from '../src/search/messages/postgres/statements.js';
import * as messageStrategies from '../src/search/messages/postgres/strategies.js';
import { MESSAGE_COLUMNS, type MessageRow } from '../src/search/messages/records.js';
import { wordIndexServes } from '../src/db/message-words.js';
import { blindStatistics, createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';

export const VARIANT_SEED = 1122;
/**
 * The data's shape (bench/generator/shape.ts): the integration project runs this file on the
 * default shape, the `variants-skewed` project (vitest.config.ts) on the skewed one, so every
 * strategy is held to the plain statement's rows on both.
 */
const SHAPE: Shape = isShape(process.env.SEARCHDESK_TEST_SHAPE ?? '') ? (process.env.SEARCHDESK_TEST_SHAPE as Shape) : 'default';
export const VARIANT_RUNS = 150;
const NOW = new Date('2026-06-01T12:00:00Z');
const DAY = 86_400;

const SCALE: ScaleSpec = {
  ...SCALES.S,
  large: { ...divideLarge(SCALES.S.large, 5), conversations: 4_000 },
  small: { ...SCALES.S.small, contacts: 50, conversations: 100, messages: 100, articles: 4 },
  smallAccounts: 2,
};

let t: TestDatabase;
let data: GeneratedData;
let samples: string[];
let spans: string[];
const access: Record<'admin' | 'agent', AccessContext> = {} as never;

beforeAll(async () => {
  t = await createTestDatabase();
  data = await generateData({ db: t.admin, scale: SCALE, shape: SHAPE, seed: 3, now: NOW });
  await t.createSearchIndexes();
  const { large } = data;
  // Contacts and messages sharing one time (a fifth of the contacts by month, a third of the
  // messages by week): a window cut after a time must still give them in id order, and one cut
  // inside a time must not lose any. The messages in two passes, odd ids first, so that the rows
  // of one time are not stored (nor read from an index of the time) in id order.
  await t.admin.query(`UPDATE contacts SET last_activity_at = date_trunc('month', last_activity_at) WHERE id % 5 = 0`);
  for (const remainder of [5, 0])
    await t.admin.query(`UPDATE messages SET created_at = date_trunc('week', created_at) WHERE id % 10 = $1`, [remainder]);
  // As after the load: no dead rows, the trigram indexes' pending entries merged, fresh statistics.
  await t.admin.query('VACUUM ANALYZE contacts, messages');
  access.admin = await resolveAccess(t.db, { userId: large.adminUserId }, large.accountId);
  access.agent = await resolveAccess(t.db, { userId: large.agentUserId }, large.accountId);
  const values = await t.admin.query<{ v: string | null }>(
    `(SELECT name AS v FROM contacts WHERE account_id = $1 ORDER BY id LIMIT 60)
     UNION ALL (SELECT email FROM contacts WHERE account_id = $1 AND email IS NOT NULL ORDER BY id DESC LIMIT 60)
     UNION ALL (SELECT phone_number FROM contacts WHERE account_id = $1 AND phone_number IS NOT NULL LIMIT 40)
     UNION ALL (SELECT identifier FROM contacts WHERE account_id = $1 AND identifier IS NOT NULL LIMIT 40)
     UNION ALL (SELECT display_id::text FROM conversations WHERE account_id = $1 ORDER BY random() LIMIT 40)
     UNION ALL (SELECT title FROM articles WHERE account_id = $1 LIMIT 40)`,
    [large.accountId],
  );
  samples = values.rows.map((r) => r.v ?? '').filter(Boolean);
  // Terms across two searched texts of one row (the end of one, the start of the next): no row
  // holds them, though the texts joined without a separator would.
  const across = await t.admin.query<{ v: string }>(
    `(SELECT right(name, 3) || left(email, 3) AS v FROM contacts
      WHERE account_id = $1 AND name IS NOT NULL AND email IS NOT NULL LIMIT 10)
     UNION ALL (SELECT right(cv.display_id::text, 3) || left(ct.name, 3) FROM conversations cv
      JOIN contacts ct ON ct.id = cv.contact_id WHERE cv.account_id = $1 AND ct.name IS NOT NULL LIMIT 10)`,
    [large.accountId],
  );
  spans = across.rows.map((r) => r.v);
}, 120_000);

afterAll(() => t.drop());

/** Small enough that common terms of this data overflow the candidate strategy. */
const CAP = 60;
/**
 * The same for articles (the large account has 40): a window of 32 of them (a common title word
 * fills a page from it, a rarer one does not), a cap of 10 candidates, and the contents of the
 * newest 20 for the tiers (a word in many contents fills page 1 from them, a rarer one does not).
 */
const ARTICLE_LIMITS = { window: 32, candidateCap: 10, contentWindow: 20 };
/**
 * The walk's steps under those limits and under others: a short window with candidate caps above
 * the page (the title and description matches can fill it then), the second one holding every
 * article of the account.
 */
const WALK_TEST_LIMITS = [
  ARTICLE_LIMITS,
  { window: 8, candidateCap: 20, contentWindow: 30 },
  { window: 8, candidateCap: 40, contentWindow: 30 },
  // No title window, as for a word the statistics find in no title (articleWindow).
  { window: 0, candidateCap: 20, contentWindow: 30 },
];
/**
 * Short windows (the large account has 2,000 contacts and 4,000 conversations): 40 and 20 rows,
 * the second set too short (room 0.6) so that they often give way. Contacts no longer lower
 * them: each contacts strategy is forced (CONTACT_PLAN); the conversation limits below start here.
 */
const CONTACT_TEST_LIMITS: ContactLimits[] = [
  { window: 40, walkCap: 1_000, room: 1.5, fetchCost: 4 },
  { window: 20, walkCap: 1_000, room: 0.6, fetchCost: 4 },
];
/**
 * The display ids a digit term's candidates enumerate: few enough for a term of three digits or
 * more in the large account's 4,000 (its ids are generated), too few for most shorter ones
 * (matched as text instead).
 */
const DISPLAY_ID_TEST_CAP = 40;
/**
 * The same for conversations (the large account has 4,000), with the lowered candidate cap; the
 * first set enumerates the display ids of every digit term (the default cap), the second only
 * those of a few.
 */
const CONVERSATION_TEST_LIMITS: ConversationLimits[] = CONTACT_TEST_LIMITS.map((l, i) => ({
  ...l,
  candidateCap: CAP,
  displayIdCap: i === 0 ? CONVERSATION_LIMITS.displayIdCap : DISPLAY_ID_TEST_CAP,
}));

/** A conversations statement as its strategy runs it (the window planned once as it declares). */
function conversationQuery(
  who: ConversationInput['access'],
  params: ConversationInput['params'],
  statement: ConversationStatement,
  limits: ConversationLimits = CONVERSATION_LIMITS,
  inboxShare?: number,
): SqlQuery {
  if (statement !== 'window') return conversationStatement(who, params, statement, limits);
  const input = { access: who, params, ordered: true, limits, inboxShare };
  return planStatement(CONVERSATION_STRATEGIES[0]!, input, { found: [], tried: [], last: [] });
}

/** The context of a search whose plan runs `force` whenever it applies (PlanOptions). */
const forced = (context: SearchContext, force: string): SearchContext => ({ ...context, plan: { force } });

const ctx = (db: Db, who: 'admin' | 'agent', gin: boolean): SearchContext => ({
  db,
  logger: silentLogger,
  now: () => NOW.getTime(),
  access: { ...access[who], flags: { ...access[who].flags, searchWithGin: gin } },
});

const queryArb = () =>
  fc.oneof(
    fc
      .constantFrom(...samples)
      .chain((v) =>
        fc.tuple(fc.nat(Math.max(0, v.length - 1)), fc.integer({ min: 1, max: 12 })).map(([i, n]) => v.slice(i, i + n)),
      ),
    fc.integer({ min: 0, max: 9999 }).map(String),
    fc.constantFrom('a', 'e', 'x', '1', 'an', 'er', '@', '.', '+4', 'zzqx', 'no such thing', 'example', '%', '_'),
    // Words of most article titles and of many.
    fc.constantFrom('the', 'THE', 'your', 'how to', 'to'),
  );
const boundsArb = fc.oneof(
  fc.constant({}),
  fc.record({ since: fc.integer({ min: 0, max: 200 }).map((d) => Math.floor(NOW.getTime() / 1000) - d * DAY) }),
  fc.record({ until: fc.integer({ min: 0, max: 200 }).map((d) => Math.floor(NOW.getTime() / 1000) - d * DAY) }),
);

const LAYOUTS = {
  "the help desk's four-column contacts index and searchdesk's indexes": [],
  "one trigram index per contact column and searchdesk's indexes": [
    'DROP INDEX index_contacts_on_name_email_phone_number_identifier',
    ...(['name', 'email', 'phone_number', 'identifier'] as const).map(
      (c) => `CREATE INDEX sd_test_contacts_${c}_trgm ON contacts USING gin (${c} gin_trgm_ops)`,
    ),
  ],
  'no searchdesk index (the default variant cannot walk created_at)': SEARCHDESK_INDEXES.map((i) => `DROP INDEX ${i.name}`),
} as const;

/**
 * The plan of a statement on this small data with the planner steered to the trigram indexes:
 * sequential scans priced out and, in this transaction only, the account's btree indexes dropped
 * (the planner would rather read those).
 */
async function steeredPlan(query: SqlQuery): Promise<string> {
  const client = await t.admin.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL enable_seqscan = off');
    await client.query(`DROP INDEX index_articles_on_account_id, ${INDEX.articlesUpdated}`);
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${query.text}`, query.values);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

describe('the article strategies that read a trigram index', () => {
  it('read searchdesk_articles_text_trgm or searchdesk_articles_title_description_trgm', async () => {
    const plan = (strategy: ArticleStatement) =>
      steeredPlan(buildArticlesQuery(access.admin, { q: 'your setup' }, ['your', 'setup'], strategy, ARTICLE_SIZES));
    // The statements' expressions must stay those of the indexes' definitions (admin.ts), or the
    // indexes go unused.
    expect(await plan('candidates')).toContain(INDEX.articlesTextTrgm);
    expect(await plan('matches')).toContain(INDEX.articlesTextTrgm);
    expect(await plan('trigramTiers')).toContain(INDEX.articlesTitleDescriptionTrgm);
    const walk = await plan('walk');
    for (const index of [INDEX.articlesTitleTrgm, INDEX.articlesTitleDescriptionTrgm, INDEX.articlesTextTrgm])
      expect(walk).toContain(index);
    expect(await plan('tiers')).not.toContain(INDEX.articlesTitleDescriptionTrgm);
  });
});

/**
 * The plan Postgres makes once for a statement planned once (SqlQuery.planOnce), as the server's
 * second pool does: a generic plan, under the server's session settings, shown for its values.
 */
async function genericPlan(query: SqlQuery): Promise<string> {
  const client = await t.admin.connect();
  const literal = (v: unknown): string =>
    Array.isArray(v)
      ? client.escapeLiteral(`{${v.join(',')}}`)
      : typeof v === 'number'
        ? String(v)
        : client.escapeLiteral(String(v));
  try {
    await client.query(`SET plan_cache_mode = force_generic_plan; SET join_collapse_limit = 1; SET enable_memoize = off`);
    await client.query(`PREPARE generic_plan_test AS ${query.text}`);
    const args = query.values.length > 0 ? `(${query.values.map(literal).join(', ')})` : '';
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE generic_plan_test${args}`);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await client.query('DEALLOCATE ALL; RESET ALL');
    client.release();
  }
}

describe('the contacts trigram statement', () => {
  it('reads the trigram index with the patterns hidden from the planner', async () => {
    const plan = await steeredPlan(buildContactsQuery(access.admin, { q: 'garcia' }, 'trigram'));
    expect(plan).toContain('index_contacts_on_name_email_phone_number_identifier');
    expect(plan).not.toContain('garcia');
    // A term with a separator: the index reads the wildcard pattern, the row test decides after it.
    const separated = await steeredPlan(buildContactsQuery(access.admin, { q: 'maria.garcia' }, 'trigram'));
    expect(separated).toContain('index_contacts_on_name_email_phone_number_identifier');
    expect(separated).toMatch(/Filter: .*concat_ws/);
  });
});

describe("an administrator's conversations window", () => {
  it("is planned once on the first page, as the walk of the account's newest conversations", async () => {
    const small = data.small[0]!;
    const smallAccess = await resolveAccess(t.db, { userId: small.adminUserId }, small.accountId);
    const cases = [
      [access.admin, { q: 'example' }],
      [access.admin, { q: 'oliver', since: NOW.getTime() / 1000 - 30 * DAY, until: NOW.getTime() / 1000 - DAY }],
      [smallAccess, { q: 'example' }],
      // An account whose conversations the statistics never saw.
      [{ ...access.admin, accountId: 99_999 }, { q: 'example' }],
    ] as const;
    for (const [who, params] of cases) {
      for (const window of [30, 446, 1_000, 1_100]) {
        const label = `${who.accountId} ${JSON.stringify(params)} window ${window}`;
        const limits = { ...CONVERSATION_LIMITS, window };
        const statement = conversationQuery(who, params, 'window', limits);
        expect(statement.planOnce, label).toBe(true);
        // The window's length in the text, on the ladder: a generic plan weighs a `$n` as a tenth
        // of the account's conversations (at M it then scanned the table and sorted it).
        expect(statement.text, label).toMatch(/ORDER BY cv\.created_at DESC, cv\.id DESC LIMIT (100|501|1000|1259)\) cv/);
        const plan = await genericPlan(statement);
        // Weighed for the account's rows: the large account walks, stopping at the page; a small
        // one (50 conversations) may read its own by the account's index and sort them. None
        // reads the table.
        expect(plan, label).not.toContain('Seq Scan on conversations');
        if (who.accountId === data.large.accountId) {
          expect(plan, label).toContain(`Index Scan using ${INDEX.conversationsCreated}`);
          expect(plan, label).not.toContain('Sort Key: cv.');
        }
        // The same statement for any account, planned for its values, gives the same rows.
        expect(await t.db.query(statement.anyAccount!()), label).toEqual(await t.db.query(statement));
      }
    }
    // An agent's window without the share of its inboxes, and a later page's, are planned for
    // their values.
    expect(conversationQuery(access.agent, { q: 'example' }, 'window').planOnce).toBeUndefined();
    expect(conversationQuery(access.admin, { q: 'example', page: 2 }, 'window').planOnce).toBeUndefined();
  });
});

describe("an agent's conversations window", () => {
  /** The share of the large account's conversations in `inboxIds`, as the search weighs it. */
  const shareOf = async (inboxIds: number[]) => {
    const stats = await tableStats(t.db, 'conversations', ['account_id', 'inbox_id']);
    return shareWithinAccount(stats!, data.large.accountId, 'inbox_id', inboxIds);
  };

  it('is planned once, as the walk, when its inboxes keep many of the account’s conversations', async () => {
    const inboxShare = await shareOf(access.agent.inboxIds);
    expect(inboxShare).toBeGreaterThan(0.1);
    for (const params of [{ q: 'example' }, { q: 'oliver', since: NOW.getTime() / 1000 - 30 * DAY }]) {
      const statement = conversationQuery(access.agent, params, 'window', CONVERSATION_LIMITS, inboxShare);
      expect(statement.planOnce).toBe(true);
      const plan = await genericPlan(statement);
      expect(plan).toContain(`Index Scan using ${INDEX.conversationsCreated}`);
      expect(plan).not.toContain('Sort Key: cv.');
      expect(await t.db.query(statement.anyAccount!()), JSON.stringify(params)).toEqual(await t.db.query(statement));
    }
    // The search weighs the same share: the statement it runs is the one planned once.
    const ran: Array<[string | undefined, SqlQuery]> = [];
    const spied: Db = {
      kind: t.db.kind,
      ping: () => t.db.ping(),
      close: () => t.db.close(),
      query: (q, label) => (ran.push([label, q]), t.db.query(q, label)),
    };
    await searchConversations(ctx(spied, 'agent', true), { q: 'example' });
    const windows = ran.filter(([label]) => label === 'search_conversations_window');
    expect(windows.length).toBeGreaterThan(0);
    expect(windows[0]![1].planOnce).toBe(true);
  });

  it('is planned for its values when its inboxes keep few of them, whose walk would read the account', async () => {
    const [fewest] = await t.admin
      .query<{ inbox_id: number }>(
        `SELECT inbox_id FROM conversations WHERE account_id = $1 GROUP BY 1 ORDER BY count(*), inbox_id LIMIT 1`,
        [data.large.accountId],
      )
      .then((r) => r.rows);
    const inboxShare = await shareOf([fewest!.inbox_id]);
    expect(inboxShare).toBeLessThan(0.01);
    const statement = conversationQuery(
      { ...access.agent, inboxIds: [fewest!.inbox_id] },
      { q: 'example' },
      'window',
      CONVERSATION_LIMITS,
      inboxShare,
    );
    expect(statement.planOnce).toBeUndefined();
  });
});

describe('a contacts window', () => {
  it('stops reading when the page is full, and sorts by id only the matches', async () => {
    // The domain most contacts share: the page fills from the first rows of a long window.
    const [domain] = await t.admin
      .query<{ q: string }>(
        `SELECT split_part(email, '@', 2) AS q FROM contacts WHERE account_id = $1 AND email LIKE '%@%'
         GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
        [access.admin.accountId],
      )
      .then((r) => r.rows);
    const query = buildContactsQuery(access.admin, { q: domain!.q }, 'window', 1_000);
    const { rows } = await t.admin.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${query.text}`,
      query.values,
    );
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    const read = /Index Scan using index_contacts_on_account_id_and_last_activity_at .*\(actual rows=(\d+)/.exec(plan);
    expect(read, plan).not.toBeNull();
    expect(Number(read![1]), plan).toBeLessThan(200);
    // One sort, above the match: the walk's rows are not sorted.
    expect(plan.match(/Sort Key/g), plan).toHaveLength(1);
    expect(plan).toMatch(/Incremental Sort[\s\S]*Filter: COALESCE\(.*concat_ws/);
  });
});

describe('a contacts window of the first page', () => {
  it("is planned once, as the walk of the account's contacts by activity time", async () => {
    const small = data.small[0]!;
    const cases = [
      [access.admin, { q: 'example' }],
      [access.agent, { q: 'oliver', since: NOW.getTime() / 1000 - 30 * DAY, until: NOW.getTime() / 1000 - DAY }],
      [{ accountId: small.accountId }, { q: 'example' }],
      // An account whose contacts the statistics never saw.
      [{ accountId: 99_999 }, { q: 'example' }],
    ] as const;
    for (const [who, params] of cases) {
      for (const window of [250, 446, 1_000]) {
        const label = `${who.accountId} ${JSON.stringify(params)} window ${window}`;
        const statement = buildContactsQuery(who, params, 'window', window);
        expect(statement.planOnce, label).toBe(true);
        // The window's length in the text, on the ladder (a generic plan weighs a `$n` there as a
        // tenth of the rows).
        expect(statement.text, label).toMatch(
          /ORDER BY c\.last_activity_at DESC NULLS LAST(, c\.id DESC LIMIT| FETCH FIRST) (251|501|1000) /,
        );
        // The account too: its one plan is weighed for that account's contacts.
        expect(statement.text, label).toContain(`c.account_id = ${who.accountId}::bigint`);
        const plan = await genericPlan(statement);
        expect(plan, label).not.toContain('Seq Scan on contacts');
        if (who.accountId === data.large.accountId) {
          expect(plan, label).toContain('Index Scan using index_contacts_on_account_id_and_last_activity_at');
          // One sort, of the matches, above the walk.
          expect(plan.match(/Sort Key/g), label).toHaveLength(1);
        }
        // The same statement for any account, planned for its values, gives the same rows.
        expect(await t.db.query(statement.anyAccount!()), label).toEqual(await t.db.query(statement));
      }
    }
    // A later page's window, the rest of a window and one past the longest walk: for their values.
    expect(buildContactsQuery(access.admin, { q: 'example', page: 2 }, 'window', 446).planOnce).toBeUndefined();
    expect(buildContactsQuery(access.admin, { q: 'example' }, 'window', 20_001).planOnce).toBeUndefined();
    const rest = { after: { id: 1, lastActivityNull: false }, rows: 500, found: 3 };
    expect(buildContactsQuery(access.admin, { q: 'example' }, 'window', rest).planOnce).toBeUndefined();
  });
});

describe('a contacts window longer than the contacts with an activity time', () => {
  it('reads none without one, and gives way short of the page', async () => {
    // A term most contacts hold, with and without a time, and a window past all of them.
    const { rows: all } = await t.admin.query<{ id: string; dated: boolean }>(
      `SELECT id, last_activity_at IS NOT NULL AS dated FROM contacts
       WHERE account_id = $1 AND concat_ws(' ', name, email, phone_number, identifier) ILIKE '%e%'
       ORDER BY last_activity_at DESC NULLS LAST, id DESC`,
      [access.admin.accountId],
    );
    const dated = all.filter((r) => r.dated).length;
    expect(all.length - dated, 'contacts without a time hold it').toBeGreaterThan(PAGE_SIZE);
    const window = (page: number) =>
      t.db
        .query<{ id: number }>(buildContactsQuery(access.admin, { q: 'e', page }, 'window', 1_000_000))
        .then((r) => r.map((x) => Number(x.id)));
    // The last page the dated contacts fill answers exactly; the next one gives way with what they
    // hold of it, all of it the start of the page.
    const lastFull = Math.floor((dated - 1) / PAGE_SIZE);
    const page = (n: number) => all.slice((n - 1) * PAGE_SIZE, n * PAGE_SIZE + 1).map((r) => Number(r.id));
    expect(await window(lastFull)).toEqual(page(lastFull));
    const short = await window(lastFull + 1);
    expect(short.length).toBeLessThanOrEqual(PAGE_SIZE);
    expect(short).toEqual(page(lastFull + 1).slice(0, short.length));
  });
});

describe("the rest of a contacts window, after its last match's place", () => {
  it('is the matches that follow that contact in result order, with and without its activity time', async () => {
    // A domain held by contacts with and without last_activity_at.
    const [domain] = await t.admin
      .query<{ q: string }>(
        `SELECT split_part(email, '@', 2) AS q FROM contacts
       WHERE account_id = $1 AND email LIKE '%@%' GROUP BY 1
       HAVING count(*) FILTER (WHERE last_activity_at IS NULL) > 20 AND count(*) FILTER (WHERE last_activity_at IS NOT NULL) > 20
       ORDER BY count(*) DESC LIMIT 1`,
        [access.admin.accountId],
      )
      .then((r) => r.rows);
    expect(domain, 'a domain of contacts with and without activity').toBeDefined();
    const q = domain!.q;
    // Every match in result order, as the walk orders them.
    const { rows: all } = await t.admin.query<{ id: string; dated: boolean }>(
      `SELECT id, last_activity_at IS NOT NULL AS dated FROM contacts
       WHERE account_id = $1 AND concat_ws(' ', name, email, phone_number, identifier) ILIKE $2
       ORDER BY last_activity_at DESC NULLS LAST, id DESC`,
      [access.admin.accountId, `%${q}%`],
    );
    const rest = (after: { id: number; lastActivityNull: boolean }) =>
      t.db
        .query<{ id: number }>(buildContactsQuery(access.admin, { q }, 'window', { after, rows: 1_000_000, found: 0 }))
        .then((r) => r.map((x) => Number(x.id)));
    const firstUndated = all.findIndex((r) => !r.dated);
    for (const i of [0, 5, firstUndated - 3, firstUndated - 1, firstUndated, firstUndated + 4]) {
      const at = all[i]!;
      // After a contact with a time: those after it that have one (the rest gives way at the
      // first without); after one without: those after it.
      const expected = all
        .slice(i + 1)
        .filter((r) => r.dated || !at.dated)
        .slice(0, PAGE_SIZE + 1)
        .map((r) => Number(r.id));
      expect(await rest({ id: Number(at.id), lastActivityNull: !at.dated }), `after #${i}`).toEqual(expected);
    }
  });
});

describe("the Postgres message engine's trigram reads", () => {
  it('read the trigram index on content whatever the words, with their patterns hidden from the planner', async () => {
    for (const q of ['order', 'order refund', 'zzqx']) {
      const query = buildMessageQuery(access.admin, { q }, NOW.getTime());
      for (const strategy of ['trigram', 'capped'] as const) {
        const plan = await steeredPlan(trigramStatement(query!, { cap: strategy === 'capped' ? 1_000 : undefined }));
        expect(plan, `${strategy} ${q}`).toContain('Bitmap Index Scan on index_messages_on_content');
        expect(plan, `${strategy} ${q}`).not.toContain('%order%');
      }
    }
  });

  it("read an agent's few candidates from the trigram index alone when the scope is hidden", async () => {
    const query = buildMessageQuery(access.agent, { q: 'zzqx' }, NOW.getTime());
    for (const strategy of ['trigram', 'capped'] as const) {
      const cap = strategy === 'capped' ? 1_000 : undefined;
      const hidden = await steeredPlan(trigramStatement(query!, { cap, scope: 'hidden' }));
      expect(hidden, strategy).toContain('Bitmap Index Scan on index_messages_on_content');
      expect(hidden, strategy).not.toContain('index_messages_on_account_id_and_inbox_id');
      // Written for it, the planner (sequential scans off) does intersect the two; the skewed
      // shape has the help desk's index_messages_on_inbox_id too, which serves the same.
      const indexed = await steeredPlan(trigramStatement(query!, { cap, scope: 'indexed' }));
      expect(indexed, strategy).toMatch(
        SHAPE === 'default' ? /index_messages_on_account_id_and_inbox_id/ : /index_messages_on_(account_id_and_)?inbox_id/,
      );
    }
  });
});

describe("the Postgres message engine's sender walk", () => {
  it("reads searchdesk's index by sender", async () => {
    const query = buildMessageQuery(access.admin, { q: 'order', from: 'contact:1' }, NOW.getTime());
    const client = await t.admin.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const q = senderStatement(query!);
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${q.text}`, q.values);
      expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toContain(INDEX.messagesSender);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('is planned once on the first page, and its one plan reads that index whatever the sender', async () => {
    const [agent] = (
      await t.admin.query<{ sender_id: string }>(
        `SELECT sender_id FROM messages WHERE account_id = $1 AND sender_type = 'User' GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
        [data.large.accountId],
      )
    ).rows;
    for (const params of [
      { q: 'order', from: 'contact:1' },
      { q: 'order refund', from: `agent:${agent!.sender_id}` },
      {
        q: 'order',
        from: `agent:${agent!.sender_id}`,
        since: NOW.getTime() / 1000 - 30 * DAY,
        until: NOW.getTime() / 1000 - DAY,
      },
    ]) {
      const statement = plannedMessages('sender', buildMessageQuery(access.admin, params, NOW.getTime())!);
      expect(statement.planOnce, JSON.stringify(params)).toBe(true);
      expect(await genericPlan(statement), JSON.stringify(params)).toContain(`Index Scan using ${INDEX.messagesSender}`);
    }
    const later = buildMessageQuery(access.admin, { q: 'order', from: 'contact:1', page: 2 }, NOW.getTime())!;
    expect(plannedMessages('sender', later).planOnce).toBeUndefined();
  });
});

type MessageQuery = NonNullable<ReturnType<typeof buildMessageQuery>>;
const MESSAGE_WINDOW = MESSAGE_LIMITS.window;

/** A window's statement reading records, as it is written (not as it is planned). */
const windowRecords = (query: MessageQuery, shape: WindowShape) => asRecords(windowStatement(query, shape, 'record'));

/**
 * A message strategy's first statement reading records as the executor plans it (planOnce and
 * anyAccount as the strategy declares), for `query` with a first window of `window` rows.
 */
function plannedMessages(
  strategy: 'window' | 'sender',
  query: MessageQuery,
  window = MESSAGE_WINDOW,
  walk: 'account' | 'inbox' = 'account',
) {
  const input: messageStrategies.MessagePlanInput = {
    query,
    select: 'record',
    limits: MESSAGE_LIMITS,
    stats: undefined,
    walk,
    first: { strategy: 'window', window },
    senderRows: 0,
    wordIndex: [],
  };
  return planStatement(messageStrategies[strategy], input, { found: [], tried: [], last: [] });
}

describe("the Postgres message engine's walk of one inbox", () => {
  it("is planned once on the first page, and its one plan reads searchdesk's index by inbox whatever the inbox", async () => {
    const inboxes = data.large.agentInboxIds;
    const cases = [
      [access.admin, { q: 'order', inbox_id: inboxes[0]! }],
      [access.agent, { q: 'order refund', inbox_id: inboxes[1]! }],
      [access.admin, { q: 'order', inbox_id: inboxes[0]!, from: 'contact:1' }],
      [
        access.admin,
        { q: 'order', inbox_id: inboxes[0]!, since: NOW.getTime() / 1000 - 30 * DAY, until: NOW.getTime() / 1000 - DAY },
      ],
    ] as const;
    for (const [who, params] of cases) {
      const query = buildMessageQuery(who, params, NOW.getTime())!;
      for (const window of [MESSAGE_WINDOW, 200]) {
        const label = `${JSON.stringify(params)} window ${window}`;
        const statement = plannedMessages('window', query, window, 'inbox');
        expect(statement.planOnce, label).toBe(true);
        // The account is a parameter: one plan for every account.
        expect(statement.anyAccount, label).toBeUndefined();
        const plan = await genericPlan(statement);
        expect(plan, label).toContain(`Index Scan using ${INDEX.messagesInbox}`);
        // In result order from the index: no sort, and the page's LIMIT stops the walk.
        expect(plan, label).not.toMatch(/Sort/);
      }
      // The rest of a window walks the same index from its last match.
      const rest = windowRecords(query, { rows: { after: 1, rows: 100, found: 3 }, walk: 'inbox' });
      expect('caching' in messageStrategies.windowRest, JSON.stringify(params)).toBe(false);
      expect(await genericPlan(rest), JSON.stringify(params)).toContain(`Index Scan using ${INDEX.messagesInbox}`);
    }
  });
});

/** The words of more than three letters in `rows`' contents, the most frequent first. */
function wordsByCount(rows: ReadonlyArray<{ content: string }>): string[] {
  const often = new Map<string, number>();
  for (const w of rows.flatMap((r) => splitWords(r.content))) if (w.length > 3) often.set(w, (often.get(w) ?? 0) + 1);
  return [...often].sort((a, b) => b[1] - a[1]).map(([w]) => w);
}

type Counts = Record<string, number>;
const bump = (counts: Counts, key: string) => (counts[key] = (counts[key] ?? 0) + 1);

describe.each(Object.entries(LAYOUTS))('every strategy returns exactly the plain statement, with %s', (_layout, ddl) => {
  let db: Db;
  beforeAll(async () => {
    for (const statement of ddl) await t.admin.query(statement);
    await t.admin.query('ANALYZE contacts');
    // A fresh pool: the catalog of searchdesk's indexes is cached per database handle.
    db = createPgDb({ url: t.url, readOnly: true, statementTimeoutMs: 10_000, poolSize: 2, logger: silentLogger });
  });
  afterAll(async () => {
    await db.close();
    // Back to the schema's layout for the next block.
    await t.admin.query(`DO $$ DECLARE r record; BEGIN
      FOR r IN SELECT indexname FROM pg_indexes WHERE indexname LIKE 'sd\\_test\\_%' LOOP EXECUTE 'DROP INDEX ' || r.indexname; END LOOP; END $$`);
    await t.admin.query(`CREATE INDEX IF NOT EXISTS index_contacts_on_name_email_phone_number_identifier
      ON contacts USING gin (name gin_trgm_ops, email gin_trgm_ops, phone_number gin_trgm_ops, identifier gin_trgm_ops)`);
    await t.createSearchIndexes();
  });

  it(`for contacts, conversations and articles, and search_with_gin agrees (${VARIANT_RUNS} runs, seed ${VARIANT_SEED})`, async () => {
    const counts: Counts = {};
    const ids = (rows: Array<{ id: number | null }>) => rows.filter((r) => r.id !== null).map((r) => r.id);
    const contactRows = (
      who: 'admin' | 'agent',
      params: object,
      strategy: ContactStrategy,
      window?: number | ContactWindowRest,
    ) =>
      db.query<{ id: number; last_activity_at: number | null }>(
        buildContactsQuery(access[who], params as never, strategy, window),
      );
    // The statements searchContacts ran, by label, for the coverage counts.
    const ran: string[] = [];
    const spied: Db = {
      kind: db.kind,
      ping: () => db.ping(),
      close: () => db.close(),
      query: (q, label) => (ran.push(label ?? ''), db.query(q, label)),
    };
    // The same without statistics: their statement fails, so the searches plan without them.
    const noStats: Db = {
      ...spied,
      query: (q, label) => (label?.startsWith('statistics') ? Promise.reject(new Error('no statistics')) : spied.query(q, label)),
    };
    const conversationRows = (
      who: 'admin' | 'agent',
      params: object,
      statement: ConversationStatement,
      window = CONVERSATION_LIMITS.window,
      displayIdCap = CONVERSATION_LIMITS.displayIdCap,
      inboxShare?: number,
    ) =>
      db.query<ConversationRow & { id: number | null; overflow: boolean }>(
        conversationQuery(
          access[who],
          params as never,
          statement,
          { ...CONVERSATION_LIMITS, window, candidateCap: CAP, displayIdCap },
          inboxShare,
        ),
      );
    /**
     * The records of conversations `rows`, in their order, read by a plain statement of joins
     * (the decoration as the help desk's schema defines it), to compare every column with.
     */
    const conversationRecords = async (rows: Array<{ id: number | null }>) => {
      const page = ids(rows);
      const records = await db.query<ConversationRow>({
        text: `
          SELECT c.id, c.display_id, c.account_id, c.inbox_id, c.status,
                 floor(extract(epoch FROM c.created_at))::bigint AS created_at,
                 floor(extract(epoch FROM c.last_activity_at))::bigint AS last_activity_at,
                 ct.id AS contact_id, ct.name AS contact_name, ct.email AS contact_email,
                 ct.phone_number AS contact_phone_number, ct.identifier AS contact_identifier,
                 c.priority, c.custom_attributes,
                 floor(extract(epoch FROM c.waiting_since))::bigint AS waiting_since,
                 floor(extract(epoch FROM c.snoozed_until))::bigint AS snoozed_until,
                 floor(extract(epoch FROM c.first_reply_created_at))::bigint AS first_reply_created_at,
                 (SELECT coalesce(json_agg(tg.name ORDER BY tg.name), '[]'::json) FROM taggings g JOIN tags tg ON tg.id = g.tag_id
                  WHERE g.taggable_id = c.id AND g.taggable_type = 'Conversation' AND g.context = 'labels') AS labels,
                 CASE WHEN u.id IS NULL THEN NULL
                      ELSE json_build_object('id', u.id, 'name', coalesce(nullif(u.display_name, ''), u.name), 'email', u.email) END AS assignee,
                 CASE WHEN t.id IS NULL THEN NULL ELSE json_build_object('id', t.id, 'name', t.name) END AS team,
                 CASE WHEN i.id IS NULL THEN NULL ELSE json_build_object('name', i.name, 'channel_type', i.channel_type) END AS inbox,
                 (SELECT row_to_json(lm) FROM (
                    SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.conversation_id = c.id AND m.message_type IN (0, 1)
                    ORDER BY m.created_at DESC, m.id DESC LIMIT 1) lm) AS latest_message
          FROM conversations c
          LEFT JOIN contacts ct ON ct.id = c.contact_id AND ct.account_id = c.account_id
          LEFT JOIN users u ON u.id = c.assignee_id
          LEFT JOIN teams t ON t.id = c.team_id AND t.account_id = c.account_id
          LEFT JOIN inboxes i ON i.id = c.inbox_id
          WHERE c.id = ANY($1::bigint[])`,
        values: [page],
      });
      return page.map((id) => records.find((r) => r.id === id));
    };
    /** A strategy's rows as records (its bookkeeping columns dropped). */
    const asRecords = (rows: Array<ConversationRow & { id: number | null; overflow?: boolean }>) =>
      rows.filter((r) => r.id !== null).map(({ overflow: _o, table_rows: _t, ...row }) => row);
    /** A search's page is the reference's first page, and has_more says whether there is more. */
    const expectPageOf = (page: { items: Array<{ id: number }>; hasMore: boolean }, reference: Array<{ id: number | null }>) => {
      expect(page.items.map((r) => r.id)).toEqual(ids(reference).slice(0, PAGE_SIZE));
      expect(page.hasMore).toBe(reference.length > PAGE_SIZE);
    };
    /**
     * A window answers with exactly the reference's rows, or gives way holding the start of the
     * result order (what it holds comes first). Returns whether it answered.
     */
    const checkWindow = (resource: string, window: Array<{ id: number | null }>, reference: Array<{ id: number | null }>) => {
      if (window.length > PAGE_SIZE) {
        bump(counts, `${resource} window answered`);
        expect(ids(window)).toEqual(ids(reference));
        return true;
      }
      bump(counts, `${resource} window gave way`);
      expect(ids(window)).toEqual(ids(reference).slice(0, ids(window).length));
      return false;
    };
    /** A forced strategy that applied ran first (a longer window, second): whether it answered. */
    const bumpForced = (name: string, label: string) => {
      const statements = ran.filter((l) => !l.startsWith('statistics'));
      const at = name.endsWith('.longerWindow') ? 1 : 0;
      if (statements[at] !== label || (at === 1 && statements[0] !== label)) return;
      bump(counts, `${name} forced ${statements.length === at + 1 ? 'answered' : 'gave way'}`);
    };
    const check = async (params: { q: string; page: number; since?: number; until?: number }, who: 'admin' | 'agent') => {
      const contacts = await contactRows(who, params, 'walk');
      // The first window of the default length, and the rest after its last match.
      const contactWindow = await contactRows(who, params, 'window');
      if (!checkWindow('contacts', contactWindow, contacts) && contactWindow.length > 0) {
        const last = contactWindow[contactWindow.length - 1]!;
        const after = { id: last.id, lastActivityNull: last.last_activity_at === null };
        const rest = { after, rows: CONTACT_WINDOW * 2, found: contactWindow.length };
        const joined = [...contactWindow, ...(await contactRows(who, params, 'window', rest))];
        if (joined.length > PAGE_SIZE) {
          bump(counts, 'contacts window rest answered');
          expect(ids(joined)).toEqual(ids(contacts));
        } else bump(counts, 'contacts window rest gave way');
      }
      // The search as planned, and with each strategy forced: the plain statement's page. The statistics size only windows.
      for (const force of [undefined, ...CONTACT_PLAN.map((s) => s.name)])
        for (const searchDb of force === undefined || force === 'contacts.window' ? [spied, noStats] : [spied]) {
          ran.length = 0;
          expectPageOf(await searchContacts({ ...ctx(searchDb, who, true), plan: { force } }, params), contacts);
          const statements = ran.filter((label) => !label.startsWith('statistics')).join(' > ');
          bump(counts, `contacts ${force ?? 'planned'}: ${statements}`);
          if (!force) bump(counts, `contacts planned: ${statements} ${searchDb === noStats ? 'without' : 'with'} statistics`);
        }

      const conversations = await conversationRows(who, params, 'scan');
      // Every strategy's rows carry the same records: the page's columns and their decoration.
      const records = await conversationRecords(conversations);
      expect(asRecords(conversations)).toEqual(records);
      for (const size of [undefined, ...CONVERSATION_TEST_LIMITS.map((l) => l.window)])
        // Planned for its values (an agent's inboxes of a share unknown) and planned once (as the
        // statistics give an administrator's, or an agent's inboxes keeping many rows).
        for (const inboxShare of [undefined, 1]) {
          const window = await conversationRows(who, params, 'window', size, undefined, inboxShare);
          expect(asRecords(window)).toEqual(records.slice(0, ids(window).length));
          const answered = checkWindow('conversations', window, conversations);
          // since/until are tested outside the window, with the match.
          if (answered && (params.since !== undefined || params.until !== undefined))
            bump(counts, 'conversations window answered with since/until');
          if (answered && who === 'agent' && inboxShare === 1) bump(counts, "conversations agent's window planned once answered");
        }
      for (const displayIdCap of [CONVERSATION_LIMITS.displayIdCap, DISPLAY_ID_TEST_CAP]) {
        const candidates = await conversationRows(who, params, 'candidates', undefined, displayIdCap);
        if (candidates[0]?.overflow) bump(counts, 'conversations candidates overflowed');
        else {
          bump(counts, 'conversations candidates answered');
          expect(ids(candidates)).toEqual(ids(conversations));
          expect(asRecords(candidates)).toEqual(records);
        }
      }

      for (const gin of [false, true]) {
        expectPageOf(await searchContacts(ctx(db, who, gin), params), contacts);
        expectPageOf(
          await searchConversations(ctx(db, who, gin), params, { ...CONVERSATION_LIMITS, candidateCap: CAP }),
          conversations,
        );
      }
      for (const limits of CONVERSATION_TEST_LIMITS) {
        ran.length = 0;
        expectPageOf(await searchConversations(ctx(spied, who, true), params, limits), conversations);
        bump(counts, `conversations ${ran.join(' > ')}`);
      }
      // Each strategy forced wherever it applies (PlanOptions.force), at the default sizes; first pages only, for time.
      for (const { name, label } of params.page === 1 ? CONVERSATION_STRATEGIES : []) {
        ran.length = 0;
        expectPageOf(await searchConversations(forced(ctx(spied, who, true), name), params), conversations);
        bumpForced(name, label);
      }
      const articleParams = { q: params.q, page: params.page };
      const words = splitWords(params.q);
      if (words.length > 0) {
        const articleRows = (strategy: ArticleStatement, limits: Partial<ArticleSizes> = ARTICLE_LIMITS) =>
          db.query<{ id: number | null; overflow: boolean; step: WalkStep | null }>(
            buildArticlesQuery(access[who], articleParams, words, strategy, { ...ARTICLE_SIZES, ...limits }),
          );
        const ranked = await articleRows('rank');
        const articleWindow = await articleRows('window');
        if (articleWindow.length > PAGE_SIZE) {
          bump(counts, 'articles window answered');
          expect(ids(articleWindow)).toEqual(ids(ranked));
        } else bump(counts, 'articles window gave way');
        const matches = await articleRows('matches');
        expect(ids(matches)).toEqual(ids(ranked));
        bump(counts, `articles matches ${matches.length > PAGE_SIZE ? 'filled the page' : 'held fewer'}`);
        for (const strategy of ['candidates', 'tiers', 'trigramTiers'] as const) {
          const rows = await articleRows(strategy);
          if (rows.some((r) => r.overflow)) bump(counts, `articles ${strategy} overflowed`);
          else {
            bump(counts, `articles ${strategy} answered`);
            expect(ids(rows)).toEqual(ids(ranked));
          }
        }
        for (const limits of WALK_TEST_LIMITS) {
          const rows = await articleRows('walk', limits);
          const gaveWay = rows.find((r) => r.overflow);
          if (gaveWay) bump(counts, `articles walk gave way at ${gaveWay.step}`);
          else {
            bump(counts, `articles walk answered at ${rows[0]?.step ?? '(no match)'}`);
            expect(ids(rows)).toEqual(ids(ranked));
          }
        }
        for (const { name, label } of params.page === 1 ? ARTICLE_STRATEGIES : []) {
          ran.length = 0;
          expectPageOf(await searchArticles(forced(ctx(spied, who, true), name), articleParams), ranked);
          bumpForced(name, label);
        }
        for (const gin of [false, true]) {
          expectPageOf(await searchArticles(ctx(db, who, gin), articleParams, ARTICLE_LIMITS), ranked);
          // The title window sized from the statistics of articles.title (articleWindow).
          const fromStats = { candidateCap: ARTICLE_LIMITS.candidateCap, contentWindow: ARTICLE_LIMITS.contentWindow };
          expectPageOf(await searchArticles(ctx(db, who, gin), articleParams, fromStats), ranked);
        }
      }
    };
    await fc.assert(
      fc.asyncProperty(
        queryArb().filter((q) => q.trim() !== ''),
        boundsArb,
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom('admin' as const, 'agent' as const),
        (q, bounds, page, who) => check({ q: q.trim(), page, ...bounds }, who),
      ),
      { seed: VARIANT_SEED, numRuns: VARIANT_RUNS },
    );
    // Terms across two searched texts of one row, terms holding the separator of rowMatch, and
    // digits the generated display ids must get right: a leading zero (never written), a digit
    // held twice, more digits than an int4 has.
    for (const q of [...spans, 'exa\u0001mple', 'Mar\u0001', '0', '05', '007', '011', '100', '11', '12345678901'])
      for (const page of [1, 2]) for (const who of ['admin', 'agent'] as const) await check({ q, page }, who);
    // Each strategy both answered and gave way at least once, so none is compared vacuously.
    for (const key of [
      'contacts window answered',
      'contacts window gave way',
      'contacts window rest answered',
      'contacts window rest gave way',
      'contacts planned: search_contacts_window',
      'contacts planned: search_contacts_window > search_contacts_trigram',
      'contacts planned: search_contacts_trigram',
      'contacts planned: search_contacts_walk',
      'contacts planned: search_contacts_window with statistics',
      'contacts planned: search_contacts_trigram with statistics',
      'contacts planned: search_contacts_window without statistics',
      'contacts planned: search_contacts_window > search_contacts_trigram without statistics',
      'contacts contacts.window: search_contacts_window',
      'contacts contacts.window: search_contacts_window > search_contacts_window',
      'contacts contacts.window: search_contacts_window > search_contacts_window > search_contacts_trigram',
      'contacts contacts.window: search_contacts_window > search_contacts_trigram',
      'contacts contacts.trigram: search_contacts_trigram',
      'contacts contacts.walk: search_contacts_walk',
      'conversations search_conversations_window',
      'conversations search_conversations_window > search_conversations_window',
      'conversations search_conversations_window > search_conversations_candidates',
      'conversations search_conversations_candidates',
      'conversations search_conversations_candidates > search_conversations_scan',
      'conversations window answered',
      'conversations window answered with since/until',
      "conversations agent's window planned once answered",
      'conversations window gave way',
      'conversations candidates answered',
      'conversations candidates overflowed',
      'articles window answered',
      'articles window gave way',
      'articles candidates answered',
      'articles candidates overflowed',
      'articles tiers answered',
      'articles tiers overflowed',
      'articles trigramTiers answered',
      'articles trigramTiers overflowed',
      'articles matches filled the page',
      'articles matches held fewer',
      'articles walk answered at window',
      'articles walk answered at titles',
      'articles walk answered at capped',
      'articles walk answered at walk',
      'articles walk answered at texts',
      'articles walk gave way at walk',
      'articles walk gave way at texts',
      // Forced (PlanOptions.force) at the default sizes: each ran first and matched the reference.
      'conversations.window forced answered',
      'conversations.window forced gave way',
      'conversations.candidates forced answered',
      'articles.walk forced answered',
      'articles.window forced gave way',
      'articles.trigramTiers forced answered',
      'articles.tiers forced answered',
      'articles.matches forced answered',
    ])
      expect(counts[key] ?? 0, key).toBeGreaterThan(0);
  }, 180_000);
});

/** Window statements shorter than the engine's first (the large account has 10,000 messages): more give way. */
const MESSAGE_TEST_WINDOWS = [60, 30];
/** The strategies a search can be forced to start with (the others continue a window). */
const MESSAGE_FORCED = messageStrategies.MESSAGE_STRATEGIES.map((s) => s.name).filter((n) => !/window_/.test(n));
/**
 * Forcing reaches every strategy; a window that gives way and whose continuation then fills the
 * page needs a first window far shorter than the account's 10,000 messages: these limits (the
 * second's longer windows too short, room 0.6, so that they give way too).
 */
const MESSAGE_SHORT_WINDOWS: MessageLimits[] = [
  { ...MESSAGE_LIMITS, window: 60, walkCap: 2_000, room: 1.5, capped: 40 },
  { ...MESSAGE_LIMITS, window: 30, walkCap: 2_000, room: 0.6, capped: 16 },
];

describe('the Postgres message engine', () => {
  it('continues a window from its last match, and reads nothing after a message deleted since', async () => {
    const query = buildMessageQuery(access.admin, { q: 'order' }, NOW.getTime())!;
    const ids = (rows: number | MessageWindowRest) =>
      t.db.query<{ id: number }>(windowStatement(query, { rows })).then((r) => r.map((x) => Number(x.id)));
    const page = await ids(2_000);
    expect(page.length).toBe(query.limit);
    // The page's first 5 rows, then the rest of it from the fifth on.
    expect([...page.slice(0, 5), ...(await ids({ after: page[4]!, rows: 2_000, found: 5 }))]).toEqual(page);
    expect(await ids({ after: 2 ** 40, rows: 2_000, found: 5 })).toEqual([]);
  });

  it("walks one inbox's messages, tests a window's rows for a few inboxes before the words, and for every inbox after them", async () => {
    const windows: string[] = [];
    const spied: Db = {
      ...t.db,
      query: (q, label) => {
        if (label === 'search_messages_pg_window') windows.push(q.text);
        return t.db.query(q, label);
      },
    };
    const engine = createPostgresEngine(spied);
    const [busiest] = (
      await t.admin.query<{ inbox_id: number }>(
        `SELECT inbox_id FROM messages WHERE account_id = $1 AND content ILIKE '%order%' AND created_at > $2
         GROUP BY inbox_id ORDER BY count(*) DESC LIMIT 1`,
        [data.large.accountId, new Date(NOW.getTime() - 30 * DAY * 1000)],
      )
    ).rows;
    const check = (text: string) => /\) m\s+WHERE coalesce\((.*), false\)/.exec(text)?.[1] ?? '';
    const walksInbox = (text: string) => /FROM messages m WHERE m\.inbox_id = \$\d+::bigint/.test(text);
    for (const [who, params, first, inbox] of [
      // One inbox: searchdesk's index by inbox walks its messages, no inbox left to check.
      [access.admin, { q: 'order', inbox_id: busiest!.inbox_id }, /^m\.content COLLATE "C" ILIKE/, true],
      // An agent's inboxes, a few of the account's: checked before the words.
      [access.agent, { q: 'order' }, /^m\.inbox_id = ANY/, false],
      [access.admin, { q: 'order' }, /^m\.content COLLATE "C" ILIKE/, false],
    ] as const) {
      windows.length = 0;
      const query = buildMessageQuery(who, params, NOW.getTime())!;
      expect((await engine.findRows!(query)).length, JSON.stringify(params)).toBeGreaterThan(0);
      expect(windows.length, JSON.stringify(params)).toBeGreaterThan(0);
      for (const text of windows) {
        expect(check(text), JSON.stringify(params)).toMatch(first);
        expect(walksInbox(text), JSON.stringify(params)).toBe(inbox);
      }
    }
  });

  it("plans a first window once, as the walk of the account's newest messages that stops at the page", async () => {
    const small = data.small[0]!;
    const smallAccess = await resolveAccess(t.db, { userId: small.adminUserId }, small.accountId);
    const cases = [
      [access.admin, { q: 'order' }],
      [access.agent, { q: 'order refund' }],
      [access.admin, { q: 'order', since: NOW.getTime() / 1000 - 30 * DAY, until: NOW.getTime() / 1000 - DAY }],
      [access.agent, { q: 'order', inbox_id: data.large.agentInboxIds[0]! }],
      [smallAccess, { q: 'order' }],
      // An account whose messages the statistics never saw.
      [{ ...access.admin, accountId: 99_999 }, { q: 'order' }],
    ] as const;
    for (const [who, params] of cases) {
      const query = buildMessageQuery(who, params, NOW.getTime())!;
      for (const window of [MESSAGE_WINDOW, 200]) {
        const statement = plannedMessages('window', query, window);
        const label = `${who.accountId} ${JSON.stringify(params)} window ${window}`;
        expect(statement.planOnce, label).toBe(true);
        // The same statement for any account, planned for its values, gives the same rows.
        const general = statement.anyAccount!();
        expect(general.planOnce, label).toBeUndefined();
        expect(general.text, label).not.toContain(`m.account_id = ${who.accountId}::bigint`);
        expect(await t.db.query(general), label).toEqual(await t.db.query(statement));
        const plan = await genericPlan(statement);
        // The skewed shape has the help desk's own indexes too, and the plan is weighed for this
        // account (its id is in the text): its index_messages_on_created_at serves the walk where
        // the account holds most of the messages, its index_messages_on_account_id an account
        // without any.
        expect(plan, label).toMatch(
          SHAPE === 'default'
            ? /Index Scan Backward using index_messages_on_account_created_type/
            : /Index Scan Backward using index_messages_on_(account_created_type|created_at)|Index Scan using index_messages_on_account_id on/,
        );
        // The account's own messages weigh the plan: the large account's walk stops at the page.
        if (who.accountId === data.large.accountId) expect(plan, label).not.toMatch(/-> {2}Sort/);
      }
    }
    // The rest of a window, and later pages, are planned for their values.
    const query = buildMessageQuery(access.admin, { q: 'order', page: 2 }, NOW.getTime())!;
    expect(plannedMessages('window', query).planOnce).toBeUndefined();
    expect('caching' in messageStrategies.windowRest).toBe(false);
  });

  it("answers from a window cut inside one creation time with the walk's page", async () => {
    // The newest time many messages share (the data's weeks): with `until` there, it starts the
    // walk, and windows shorter than it end inside it.
    const [tie] = await t.admin
      .query<{ at: string; shared: number }>(
        `SELECT extract(epoch FROM created_at)::bigint::text AS at, count(*)::int AS shared FROM messages
         WHERE account_id = $1 AND created_at >= $2 GROUP BY created_at HAVING count(*) >= 40 ORDER BY created_at DESC LIMIT 1`,
        [data.large.accountId, new Date(NOW.getTime() - 80 * DAY * 1000)],
      )
      .then((r) => r.rows);
    expect(tie, 'a time many messages share').toBeDefined();
    // A word start most messages hold: windows of 20 rows or more fill the page.
    const query = buildMessageQuery(access.admin, { q: 'a', until: Number(tie!.at) }, NOW.getTime())!;
    const ids = (statement: SqlQuery) => t.db.query<{ id: number }>(statement).then((r) => r.map((x) => Number(x.id)));
    const walk = await ids(walkStatement(query));
    let answered = 0;
    for (let size = 20; size < tie!.shared; size += 5) {
      const window = await ids(windowStatement(query, { rows: size }));
      if (window.length < query.limit) continue;
      answered++;
      expect(window, `a window of ${size}`).toEqual(walk);
    }
    expect(answered).toBeGreaterThan(0);
  });

  it(`returns exactly the plain walk's ids, and their records, from each of its strategies (${VARIANT_RUNS} runs, seed ${VARIANT_SEED})`, async () => {
    const rows = await t.admin.query<{ content: string }>(
      'SELECT content FROM messages WHERE account_id = $1 AND content IS NOT NULL ORDER BY id DESC LIMIT 300',
      [data.large.accountId],
    );
    // Every occurrence: a word is drawn as often as it occurs, so common words fill windows.
    const words = rows.rows.flatMap((r) => r.content.split(/[^\p{L}\p{N}]+/u)).filter((w) => w.length > 0);
    // Senders and inboxes of recent messages, as often as they occur; the busiest senders (agents
    // with many of them, so that a window can answer) as often again.
    const recent = await t.admin.query<{ sender_type: string; sender_id: string; inbox_id: number }>(
      `SELECT sender_type, sender_id, inbox_id FROM messages
       WHERE account_id = $1 AND sender_type IN ('Contact', 'User') ORDER BY id DESC LIMIT 300`,
      [data.large.accountId],
    );
    const senders = recent.rows.map((r) => `${r.sender_type === 'User' ? 'agent' : 'contact'}:${r.sender_id}`);
    const sent = new Map<string, number>();
    for (const s of senders) sent.set(s, (sent.get(s) ?? 0) + 1);
    const busiest = [...sent].sort((a, b) => b[1] - a[1]).slice(0, 3);
    const inboxes = recent.rows.map((r) => r.inbox_id);
    const filtersArb = fc.record(
      {
        from: fc.oneof(fc.constantFrom(...senders), fc.constantFrom(...busiest.map(([s]) => s))),
        inbox_id: fc.constantFrom(...inboxes),
      },
      { requiredKeys: [] },
    );
    // The busiest sender's commonest word: a window answers it with the sender as a filter.
    const [busy] = busiest[0] as [string, number];
    const said = await t.admin.query<{ content: string }>(
      `SELECT content FROM messages WHERE account_id = $1 AND sender_type = $2 AND sender_id = $3 AND content IS NOT NULL`,
      [data.large.accountId, busy.startsWith('agent:') ? 'User' : 'Contact', busy.split(':')[1]],
    );
    const commonest = wordsByCount(said.rows)[0] ?? 'order';
    // The busiest inbox and its commonest word: a window walking that inbox answers it.
    const [inbox] = (
      await t.admin.query<{ inbox_id: number }>(
        `SELECT inbox_id FROM messages WHERE account_id = $1 AND message_type IN (0, 1) GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
        [data.large.accountId],
      )
    ).rows;
    const inboxSaid = await t.admin.query<{ content: string }>(
      `SELECT content FROM messages WHERE inbox_id = $1 AND message_type IN (0, 1) AND content IS NOT NULL`,
      [inbox!.inbox_id],
    );
    const inboxWords = wordsByCount(inboxSaid.rows);
    const counts: Counts = {};
    // The statements the engine ran, by label, for the coverage counts; how the capped reads wrote the scope.
    const ran: string[] = [];
    const cappedScopes: ScopeIndex[] = [];
    const caps: number[] = [];
    // Windows that walked one inbox's messages (searchdesk's index by inbox).
    let inboxWalks = 0;
    // Reads whose candidates came from searchdesk's word index.
    const wordIndexReads: string[] = [];
    const spied: Db = {
      kind: t.db.kind,
      ping: () => t.db.ping(),
      close: () => t.db.close(),
      query: (q, label) => {
        if (!label?.startsWith('statistics') && label !== 'index_catalog')
          ran.push((label ?? '').replace('search_messages_pg_', ''));
        if (label === 'search_messages_pg_window' && /FROM messages m WHERE m\.inbox_id = \$/.test(q.text)) inboxWalks++;
        if (
          (label === 'search_messages_pg_capped' || label === 'search_messages_pg_trigram') &&
          q.text.includes('array_to_tsvector')
        )
          wordIndexReads.push(label.replace('search_messages_pg_', ''));
        if (label === 'search_messages_pg_capped') {
          cappedScopes.push(q.text.includes('coalesce(m.account_id = ') ? 'hidden' : 'indexed');
          // The cap: the LIMIT closing the candidates' CTE.
          const limit = /LIMIT \$(\d+)\s*\)/.exec(q.text);
          caps.push(Number(q.values[Number(limit?.[1]) - 1]));
        }
        return t.db.query(q, label);
      },
    };
    // Statistics that sampled no message with any word, of a table of a million messages: every
    // word goes to the capped read first, and a common one on to the windows; under the lowered
    // limits (a walk of 2,000 rows) the table is large enough that a short word goes to the trigram
    // index first (unseenMatches).
    const blind = blindStatistics(spied);
    // Without searchdesk's index by sender: a search with `from` plans as any other.
    const noSenderIndex: Db = {
      ...spied,
      query: <R extends object>(q: SqlQuery, label?: string) =>
        label === 'index_catalog' ? Promise.resolve([] as R[]) : spied.query<R>(q, label),
    };
    const ids = (statement: SqlQuery) => t.db.query<{ id: number }>(statement).then((r) => r.map((x) => Number(x.id)));
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.constantFrom(...words),
            fc.constantFrom(...words).map((w) => w.slice(0, 3)),
            // A word the word index does not serve (not ASCII): the others' read must still test it.
            fc.constantFrom('a', 'zz', 'qx9', 'order', 'ordér'),
          ),
          { minLength: 1, maxLength: 3 },
        ),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom('admin' as const, 'agent' as const),
        fc.oneof(fc.constant({}), filtersArb),
        boundsArb.filter((b) => !('since' in b) || b.since >= NOW.getTime() / 1000 - 90 * DAY),
        async (qWords, page, who, filters, bounds) => {
          const params = { q: qWords.join(' '), page, ...filters, ...bounds };
          const query = buildMessageQuery(access[who], params, NOW.getTime());
          if (!query) return;
          const walk = await ids(walkStatement(query));
          expect(await ids(trigramStatement(query, {}))).toEqual(walk);
          expect(await ids(trigramStatement(query, { scope: 'hidden' }))).toEqual(walk);
          // The candidates from searchdesk's word index, by the words it serves (the word-start
          // expression decides on the others), for both ways to the scope.
          const served = query.words.filter(wordIndexServes);
          if (served.length > 0) {
            bump(counts, served.length < query.words.length ? 'word index read, some words' : 'word index read');
            expect(await ids(trigramStatement(query, { wordIndex: served }))).toEqual(walk);
            expect(await ids(trigramStatement(query, { wordIndex: served, scope: 'hidden' }))).toEqual(walk);
          }
          // The page's records as the walk's ids read again by primary key.
          const records = await t.db.query<MessageRow>({
            text: `SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.id = ANY($1::bigint[]) ORDER BY m.created_at DESC, m.id DESC`,
            values: [walk],
          });
          for (const rows of [MESSAGE_WINDOW, ...MESSAGE_TEST_WINDOWS]) {
            const window = await ids(windowStatement(query, { rows }));
            if (window.length >= query.limit) {
              bump(counts, 'window answered');
              for (const key of Object.keys(filters)) bump(counts, `window answered with ${key}`);
              expect(window).toEqual(walk);
            } else bump(counts, 'window gave way');
            // The inboxes and the sender tested before the words: the same rows.
            expect(await ids(windowStatement(query, { rows, narrowingFirst: true }))).toEqual(window);
            // One inbox's own messages walked: a window that holds the page holds the walk's.
            if (query.inboxIds.length === 1) {
              const inboxWindow = await ids(windowStatement(query, { rows, walk: 'inbox' }));
              if (inboxWindow.length >= query.limit) {
                bump(counts, 'inbox window answered');
                expect(inboxWindow).toEqual(walk);
              } else expect(walk.slice(0, inboxWindow.length)).toEqual(inboxWindow);
            }
          }
          // As planned on each database, and each strategy forced first on the real statistics
          // (the ladder going on after it when it gives way).
          const runs: Array<{ db: Db; force?: string; limits?: MessageLimits }> = [
            ...[spied, blind, noSenderIndex].map((db) => ({ db })),
            ...MESSAGE_FORCED.map((force) => ({ db: spied, force })),
            ...MESSAGE_SHORT_WINDOWS.flatMap((limits) => [spied, blind, noSenderIndex].map((db) => ({ db, limits }))),
          ];
          for (const { db, force, limits } of runs) {
            ran.length = 0;
            cappedScopes.length = 0;
            caps.length = 0;
            inboxWalks = 0;
            wordIndexReads.length = 0;
            const engine = createPostgresEngine(db, limits, { force });
            expect(await engine.findIds(query)).toEqual(walk);
            bump(counts, ran.join(' > '));
            if (inboxWalks > 0) bump(counts, `${ran.join(' > ')} through one inbox`);
            for (const read of new Set(wordIndexReads)) bump(counts, `${read} through the word index`);
            if (ran[0] === 'capped' && query.sender) bump(counts, `${ran.join(' > ')} with from`);
            if (ran.join() === 'capped' && walk.length === 0) bump(counts, 'capped, empty page');
            if (ran.join() === 'capped') bump(counts, `capped, scope ${cappedScopes[0]}`);
            // The blind statistics' million messages raise the lowered caps (cappedReadCap).
            if (db === blind && limits && page === 1 && ran[0] === 'trigram')
              bump(counts, 'unseen words in a large scope: trigram first');
            if (ran[0] === 'capped' && ran.length > 1 && (caps[0] ?? 0) > (limits ?? MESSAGE_LIMITS).capped)
              bump(counts, 'a raised cap reached, then the windows');
            // The same plan reading the records in its statements: the same rows, every column.
            const rows = await engine.findRows!(query);
            expect(rows.map(({ matched: _, ...row }: MessageRow & { matched?: number }) => row)).toEqual(records);
          }
        },
      ),
      {
        seed: VARIANT_SEED,
        numRuns: VARIANT_RUNS,
        examples: [
          [[commonest], 1, 'admin', { from: busy }, {}],
          [[inboxWords[0] ?? 'order'], 1, 'admin', { inbox_id: inbox!.inbox_id }, {}],
          [[inboxWords[0] ?? 'order'], 2, 'admin', { inbox_id: inbox!.inbox_id }, {}],
          [[inboxWords[5] ?? 'order'], 1, 'admin', { inbox_id: inbox!.inbox_id }, {}],
          [[inboxWords[20] ?? 'order'], 1, 'admin', { inbox_id: inbox!.inbox_id }, {}],
        ],
      },
    );
    for (const key of [
      'window answered',
      'window gave way',
      'window answered with inbox_id',
      'window answered with from',
      'walk',
      'window',
      'window > trigram',
      // A window continued from its last match; the continued window giving way.
      'window > window',
      'window > window > trigram',
      // One inbox's messages walked by its index, answered there, and continued.
      'inbox window answered',
      'window through one inbox',
      'window > window through one inbox',
      'trigram',
      'capped',
      'capped > window',
      'sender',
      // A word the statistics never saw, from a busy sender: the capped read answers it.
      'capped with from',
      // Its row without a message: no match among fewer candidates than the cap.
      'capped, empty page',
      // Its scope written for the index on (account_id, inbox_id), and hidden from it.
      'capped, scope hidden',
      'capped, scope indexed',
      // Words no sampled message holds, in a scope where they may be past the cap (unseenMatches).
      'unseen words in a large scope: trigram first',
      'a raised cap reached, then the windows',
      // Candidates from searchdesk's word index: by every word, by the words it serves, and in the
      // engine's capped and trigram reads (words the statistics did not see).
      'word index read',
      'word index read, some words',
      'capped through the word index',
      'trigram through the word index',
    ])
      expect(counts[key] ?? 0, `${key} in ${JSON.stringify(counts)}`).toBeGreaterThan(0);
  }, 180_000);
});
