/**
 * The benchmark's stand-in for the help desk's own search SQL (bench/perf/helpdesk.ts) and its
 * contact index layouts (bench/perf/indexes.ts), on tiny generated bench data: the help desk's
 * queries must find the rows searchdesk finds for the same caller (otherwise the side-by-side
 * speed-ups compare different work), respect the caller's inboxes, and the layouts must switch and
 * be put back exactly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, resolveAccess, type AccessContext } from '../src/auth/access.js';
import { searchArticles } from '../src/search/articles.js';
import { searchContacts } from '../src/search/contacts.js';
import type { SearchContext } from '../src/search/context.js';
import { searchConversations } from '../src/search/conversations.js';
import { generateData } from '../bench/generator/generate-data.js';
import { LARGE_ADMIN_TOKEN, LARGE_AGENT_TOKEN } from '../bench/generator/org.js';
import { divideLarge, SCALES, type ScaleSpec } from '../bench/generator/scale.js';
import { articlesSql, contactsSql, conversationsSql, helpdeskSql, messagesSql } from '../bench/perf/helpdesk.js';
import {
  contactTrigramIndexes,
  HELPDESK_CONTACTS_INDEX,
  restoreContactIndexes,
  setContactLayout,
} from '../bench/perf/indexes.js';
import { evenRunCount, evenRuns } from '../bench/perf/measure.js';
import { geoMean } from '../bench/run/report.js';
import { createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';

const TINY: ScaleSpec = {
  ...SCALES.S,
  large: divideLarge(SCALES.S.large, 50),
  small: { ...SCALES.S.small, contacts: 50, conversations: 100, messages: 250, articles: 4 },
  smallAccounts: 3,
};

describe("the help desk's SQL in the benchmark", () => {
  let t: TestDatabase;
  let admin: AccessContext;
  let agent: AccessContext;
  const ctx = (access: AccessContext, gin: boolean): SearchContext => ({
    db: t.db,
    access: { ...access, flags: { ...access.flags, searchWithGin: gin } },
    logger: silentLogger,
    now: Date.now,
  });
  const ids = async (sql: { text: string; values: unknown[] } | undefined) =>
    sql ? (await t.admin.query<{ id: string | number }>(sql.text, sql.values)).rows.map((r) => Number(r.id)) : [];

  beforeAll(async () => {
    t = await createTestDatabase();
    await generateData({ db: t.admin, scale: TINY, seed: 3, now: new Date() });
    admin = await resolveAccess(t.db, await authenticate(t.db, LARGE_ADMIN_TOKEN), 1);
    agent = await resolveAccess(t.db, await authenticate(t.db, LARGE_AGENT_TOKEN), 1);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('finds the contacts searchdesk finds, in the same order, pages and time bounds included', async () => {
    const { rows } = await t.admin.query<{ name: string }>('SELECT name FROM contacts WHERE account_id = 1 ORDER BY id LIMIT 1');
    // "example" is the e-mail domain of many contacts: more than one page
    const cases = [
      { q: rows[0]!.name.split(' ')[0]! },
      { q: 'example' },
      { q: 'example', page: 2 },
      { q: 'example', since: Math.floor(Date.now() / 1000) - 30 * 86_400 },
    ];
    let seen = 0;
    for (const params of cases) {
      const expected = (await searchContacts(ctx(admin, true), params)).items.map((c) => c.id);
      expect(await ids(contactsSql(admin, params)), JSON.stringify(params)).toEqual(expected);
      seen += expected.length;
    }
    expect(seen).toBeGreaterThan(15);
  });

  it("finds the conversations searchdesk finds for each caller, only in the caller's inboxes", async () => {
    const { rows } = await t.admin.query<{ name: string; display_id: number }>(
      'SELECT ct.name, cv.display_id FROM conversations cv JOIN contacts ct ON ct.id = cv.contact_id WHERE cv.account_id = 1 ORDER BY cv.id LIMIT 1',
    );
    const cases = [{ q: rows[0]!.name.split(' ')[0]! }, { q: String(rows[0]!.display_id) }, { q: 'example' }];
    for (const access of [admin, agent])
      for (const params of cases) {
        const expected = (await searchConversations(ctx(access, false), params)).items.map((c) => c.id);
        const got = await ids(conversationsSql(access, params));
        expect(got, `${access.role} ${JSON.stringify(params)}`).toEqual(expected);
      }
    const agentRows = await t.admin.query<{ inbox_id: number }>(
      'SELECT DISTINCT inbox_id FROM conversations WHERE id = ANY($1::int[])',
      [await ids(conversationsSql(agent, { q: 'example' }))],
    );
    expect(agentRows.rows.length).toBeGreaterThan(0);
    for (const r of agentRows.rows) expect(agent.inboxIds).toContain(Number(r.inbox_id));
  });

  it('finds the articles searchdesk finds (its own rank order aside)', async () => {
    const { rows } = await t.admin.query<{ title: string }>(
      'SELECT title FROM articles WHERE account_id = 1 ORDER BY id LIMIT 1',
    );
    const word = rows[0]!.title.split(/[^\p{L}\p{N}]+/u).find((w) => w.length >= 4)!;
    for (const q of [word, word.slice(0, 3)]) {
      const expected = (await searchArticles(ctx(admin, false), { q })).items.map((a) => a.id).sort();
      expect((await ids(articlesSql(admin, { q }))).sort(), q).toEqual(expected);
      expect(expected.length).toBeGreaterThan(0);
    }
  });

  it("searches only the caller's recent incoming/outgoing messages, with the interface's filters", async () => {
    const sql = messagesSql(agent, { q: 'order' }, Date.now());
    const found = await ids(sql);
    expect(found.length).toBeGreaterThan(0);
    const { rows } = await t.admin.query<{ ok: boolean }>(
      `SELECT bool_and(account_id = 1 AND inbox_id = ANY($2::int[]) AND message_type IN (0, 1)
                       AND created_at >= now() AT TIME ZONE 'UTC' - interval '90 days' AND content ILIKE '%order%') AS ok
       FROM messages WHERE id = ANY($1::int[])`,
      [found, agent.inboxIds],
    );
    expect(rows[0]!.ok).toBe(true);
    const inbox = agent.inboxIds[0]!;
    const inInbox = await ids(messagesSql(agent, { q: 'order', inbox_id: inbox }, Date.now()));
    const { rows: inboxes } = await t.admin.query<{ inbox_id: number }>(
      'SELECT DISTINCT inbox_id FROM messages WHERE id = ANY($1::int[])',
      [inInbox],
    );
    expect(inboxes.map((r) => Number(r.inbox_id))).toEqual(inInbox.length ? [inbox] : []);
    // search_all runs the four searches, messages only with advanced_search
    expect(
      helpdeskSql(admin, { tool: 'search_all', kind: 'x', role: 'admin', args: { q: 'order' } }, Date.now()).map((s) => s.part),
    ).toEqual(['contacts', 'conversations', ...(admin.flags.advancedSearch ? ['messages'] : []), 'articles']);
  });

  it("switches contacts between the help desk's combined index and per-column ones, and puts back what was there", async () => {
    const log = () => undefined;
    const start = await contactTrigramIndexes(t.admin);
    expect(start.map((i) => i.name)).toEqual([HELPDESK_CONTACTS_INDEX]);
    await setContactLayout(t.url, t.admin, 'per-column', log);
    expect((await contactTrigramIndexes(t.admin)).map((i) => i.name)).toEqual([
      'sdbench_contacts_email_trgm',
      'sdbench_contacts_identifier_trgm',
      'sdbench_contacts_name_trgm',
      'sdbench_contacts_phone_number_trgm',
    ]);
    // the help desk's query still answers the same on either layout
    const before = await ids(contactsSql(admin, { q: 'example' }));
    await restoreContactIndexes(t.url, t.admin, start, log);
    expect(await contactTrigramIndexes(t.admin)).toEqual(start);
    expect(await ids(contactsSql(admin, { q: 'example' }))).toEqual(before);
  });

  it('summarises speed-ups by their geometric mean, ignoring queries without a figure', () => {
    expect(geoMean([2, 8])).toBeCloseTo(4);
    expect(geoMean([0.5, 2, Number.NaN, 0])).toBeCloseTo(1);
    expect(geoMean([])).toBeNaN();
  });

  it("weighs every query alike in a tool's p50 and p95, however often its statement ran", () => {
    // A short statement runs nine times, a long one three (SHORT_STATEMENT_PAIRS): the summary
    // takes three of each, so the short query does not pull the tool's p50 down.
    const short = [1, 1, 1, 1, 1, 1, 1, 1, 1];
    const long = [100, 100, 100];
    expect(evenRunCount([short, long, []])).toBe(3);
    expect(evenRuns([short, long, []])).toEqual([1, 1, 1, 100, 100, 100]);
    expect(evenRuns([])).toEqual([]);
  });
});
