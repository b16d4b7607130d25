/**
 * The benchmark data generator at a tiny scale (1/50 of S in the large account, 3 noise accounts),
 * in real test databases: exact counts, determinism across databases, the time window, flags,
 * memberships and tokens the benchmarks rely on, and consistent senders; then the skewed shape's
 * own properties (shared names, unique e-mails, head words, busy contacts, the help desk's indexes).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, FEATURE_BITS, resolveAccess } from '../src/auth/access.js';
import { DatabaseNotEmptyError, schemaIndexes } from '../bench/generator/database.js';
import { addDirectoryAccount, generateData, type GeneratedData } from '../bench/generator/generate-data.js';
import { directoryCounts, divideLarge, SCALES, TABLES, type ScaleSpec, type TableName } from '../bench/generator/scale.js';
import { HELPDESK_EXTRA_INDEXES, readData } from '../bench/generator/shape.js';
import { SKEWED_LAST_NAMES } from '../bench/generator/skewed.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';

const TINY: ScaleSpec = {
  ...SCALES.S,
  large: divideLarge(SCALES.S.large, 50),
  small: { ...SCALES.S.small, contacts: 50, conversations: 100, messages: 250, articles: 4 },
  smallAccounts: 3,
};
const NOW = new Date('2025-03-01T12:00:00Z');

/** One md5 per table over every column of every row, in id order. */
async function tableHashes(t: TestDatabase): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  for (const table of TABLES) {
    const { rows } = await t.admin.query<{ h: string }>(
      `SELECT md5(string_agg(t::text, '|' ORDER BY t.id)) AS h FROM ${table} t`,
    );
    hashes[table] = rows[0]!.h;
  }
  return hashes;
}

async function one<T>(t: TestDatabase, text: string, values: unknown[] = []): Promise<T> {
  return (await t.admin.query(text, values)).rows[0] as T;
}

describe('bench data generator', () => {
  let a: TestDatabase;
  let b: TestDatabase;
  let data: GeneratedData;
  const lines: string[] = [];

  beforeAll(async () => {
    [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    data = await generateData({ db: a.admin, scale: TINY, seed: 7, now: NOW, log: (l) => lines.push(l) });
    // One client instead of a pool: chunks run one by one, in another order than on two connections.
    const client = new pg.Client({ connectionString: b.url });
    await client.connect();
    try {
      await generateData({ db: client, scale: TINY, seed: 7, now: NOW });
    } finally {
      await client.end();
    }
  });
  afterAll(async () => {
    await Promise.all([a?.drop(), b?.drop()]);
  });

  it('inserts exactly the planned rows and reports rows/s per table', async () => {
    const expected: Partial<Record<TableName, number>> = {
      accounts: 4,
      contacts: 200 + 3 * 50,
      conversations: 400 + 3 * 100,
      messages: 1_000 + 3 * 250,
      articles: 4 + 3 * 4,
      inboxes: 50 + 3 * 3,
      users: 41 + 3 * 7,
    };
    expect(data.shape).toBe('default');
    for (const [table, n] of Object.entries(expected)) {
      expect(data.counts[table as TableName], table).toBe(n);
      expect(Number((await one<{ n: string }>(a, `SELECT count(*) AS n FROM ${table}`)).n), table).toBe(n);
    }
    expect(lines).toContainEqual(expect.stringMatching(/^messages: 1,750 rows in [\d.]+ s \([\d,]+ rows\/s\)$/));
  });

  it('rebuilds every index of the schema after loading', async () => {
    const names = schemaIndexes().map((i) => i.name);
    expect(names).toContain('index_messages_on_content');
    const { rows } = await a.admin.query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE indexname = ANY($1)', [
      names,
    ]);
    expect(rows.map((r) => r.indexname).sort()).toEqual([...names].sort());
    const extra = await a.admin.query('SELECT 1 FROM pg_indexes WHERE indexname = ANY($1)', [
      HELPDESK_EXTRA_INDEXES.map((i) => i.name),
    ]);
    expect(extra.rows).toEqual([]);
  });

  it('generates identical rows from the same seed in another database and session layout, different ones from another seed', async () => {
    const [ha, hb] = await Promise.all([tableHashes(a), tableHashes(b)]);
    expect(ha).toEqual(hb);
    const c = await createTestDatabase();
    try {
      await generateData({ db: c.admin, scale: TINY, seed: 8, now: NOW });
      const hc = await tableHashes(c);
      expect(hc.messages).not.toBe(ha.messages);
      expect(hc.contacts).not.toBe(ha.contacts);
    } finally {
      await c.drop();
    }
  });

  it('spreads messages over the last 180 days, about half of them within 90 days', async () => {
    const r = await one<Record<string, boolean | string>>(
      a,
      `SELECT min(created_at) >= $1::timestamp - interval '180 days' AS starts_in_window,
              min(created_at) < $1::timestamp - interval '170 days' AS starts_early,
              max(created_at) <= $1::timestamp AS ends_by_now,
              max(created_at) > $1::timestamp - interval '2 days' AS ends_late,
              bool_and(updated_at = created_at) AS never_updated,
              count(*) FILTER (WHERE created_at < $1::timestamp - interval '90 days') AS old, count(*) AS total
       FROM messages WHERE account_id = 1`,
      [NOW.toISOString().slice(0, 19)],
    );
    expect(r).toMatchObject({
      starts_in_window: true,
      starts_early: true,
      ends_by_now: true,
      ends_late: true,
      never_updated: true,
    });
    expect(Number(r.old) / Number(r.total)).toBeGreaterThan(0.4);
    expect(Number(r.old) / Number(r.total)).toBeLessThan(0.6);
  });

  it('gives the large account both search flags', async () => {
    const r = await one<{ gin: boolean; advanced: boolean }>(
      a,
      `SELECT (feature_flags & $1::bigint) <> 0 AS gin, (feature_flags & $2::bigint) <> 0 AS advanced FROM accounts WHERE id = $3`,
      [FEATURE_BITS.searchWithGin.toString(), FEATURE_BITS.advancedSearch.toString(), data.large.accountId],
    );
    expect(r).toEqual({ gin: true, advanced: true });
  });

  it('makes the agent a member of exactly 10 of the large account’s 50 inboxes; tokens resolve to admin and agent', async () => {
    const agent = await resolveAccess(a.db, await authenticate(a.db, data.large.agentToken), data.large.accountId);
    expect(agent).toMatchObject({ userId: data.large.agentUserId, role: 'agent' });
    expect(agent.inboxIds).toEqual(data.large.agentInboxIds);
    expect(agent.inboxIds).toHaveLength(10);
    expect(agent.flags).toEqual({ searchWithGin: true, advancedSearch: true });
    const admin = await resolveAccess(a.db, await authenticate(a.db, data.large.adminToken), data.large.accountId);
    expect(admin).toMatchObject({ userId: data.large.adminUserId, role: 'administrator' });
    expect(admin.inboxIds).toEqual(data.large.inboxIds);
    expect(admin.inboxIds).toHaveLength(50);
  });

  it('keeps senders, assignees and display ids consistent', async () => {
    const r = await one<Record<string, string>>(
      a,
      `SELECT
         (SELECT count(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id
          WHERE m.inbox_id <> c.inbox_id OR m.account_id <> c.account_id
             OR (m.sender_type = 'Contact' AND (m.message_type <> 0 OR m.sender_id <> c.contact_id))
             OR (m.sender_type = 'User' AND m.message_type <> 1)
             OR (m.sender_type IS NULL AND m.message_type NOT IN (2, 3))
             OR m.created_at NOT BETWEEN c.created_at AND c.last_activity_at) AS bad_messages,
         (SELECT count(*) FROM messages m
          WHERE m.sender_type = 'User'
            AND NOT EXISTS (SELECT 1 FROM inbox_members im WHERE im.user_id = m.sender_id AND im.inbox_id = m.inbox_id)
            AND NOT EXISTS (SELECT 1 FROM account_users au
                            WHERE au.user_id = m.sender_id AND au.account_id = m.account_id AND au.role = 1)) AS outsiders,
         (SELECT count(*) FROM conversations c
          WHERE c.assignee_id IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM account_users au WHERE au.user_id = c.assignee_id AND au.account_id = c.account_id)
         ) AS foreign_assignees,
         (SELECT count(*) FROM (SELECT account_id FROM conversations GROUP BY account_id
                                HAVING min(display_id) <> 1 OR max(display_id) <> count(*)) s) AS bad_display_ids`,
    );
    expect(r).toEqual({ bad_messages: '0', outsiders: '0', foreign_assignees: '0', bad_display_ids: '0' });
  });

  it('writes a mix of message types with common and near-unique words', async () => {
    const r = await one<{ incoming: string; outgoing: string; notes: string; activity: string; total: string; common: string }>(
      a,
      `SELECT count(*) FILTER (WHERE message_type = 0) AS incoming, count(*) FILTER (WHERE message_type = 1 AND NOT private) AS outgoing,
              count(*) FILTER (WHERE private) AS notes, count(*) FILTER (WHERE message_type = 2) AS activity, count(*) AS total,
              count(*) FILTER (WHERE content ~* '\\morder\\M') AS common
       FROM messages WHERE account_id = 1`,
    );
    const share = (n: string) => Number(n) / Number(r.total);
    expect(share(r.incoming) + share(r.outgoing)).toBeGreaterThan(0.85);
    expect(share(r.notes)).toBeGreaterThan(0.02);
    expect(share(r.activity)).toBeGreaterThan(0.01);
    expect(share(r.activity)).toBeLessThan(0.06);
    expect(share(r.common)).toBeGreaterThan(0.15);
    const codes = await a.admin.query<{ n: string }>(
      `SELECT count(*) AS n FROM messages WHERE content ~ 'ORD-[0-9]{6}' GROUP BY substring(content from 'ORD-[0-9]{6}')`,
    );
    expect(codes.rows.length).toBeGreaterThan(5);
    expect(codes.rows.every((row) => Number(row.n) <= 2)).toBe(true);
  });

  it('gives conversations a triage queue: labels on about half, priorities, statuses, unattended and snoozed ones', async () => {
    const r = await one<Record<string, string>>(
      a,
      `SELECT count(*) AS total,
              count(*) FILTER (WHERE EXISTS (SELECT 1 FROM taggings t WHERE t.taggable_id = c.id
                                             AND t.taggable_type = 'Conversation' AND t.context = 'labels')) AS labelled,
              count(DISTINCT status) AS statuses, count(DISTINCT priority) AS priorities,
              count(*) FILTER (WHERE priority IS NULL) AS no_priority,
              count(*) FILTER (WHERE first_reply_created_at IS NULL OR waiting_since IS NOT NULL) AS unattended,
              count(*) FILTER (WHERE status = 0 AND first_reply_created_at IS NULL) AS open_unreplied,
              count(*) FILTER (WHERE (snoozed_until IS NOT NULL) AND (status <> 3 OR snoozed_until <= $1::timestamp)) AS bad_snoozed,
              count(*) FILTER (WHERE status = 3 AND snoozed_until IS NOT NULL) AS snoozed_until,
              count(*) FILTER (WHERE waiting_since IS NOT NULL AND status NOT IN (0, 2)) AS bad_waiting,
              count(*) FILTER (WHERE first_reply_created_at NOT BETWEEN created_at AND last_activity_at) AS bad_reply,
              count(*) FILTER (WHERE custom_attributes <> '{}'::jsonb) AS with_attributes,
              count(DISTINCT team_id) AS teams
       FROM conversations c WHERE account_id = 1`,
      [NOW.toISOString().slice(0, 19)],
    );
    const share = (n: string) => Number(n) / Number(r.total);
    expect(share(r.labelled!)).toBeGreaterThan(0.4);
    expect(share(r.labelled!)).toBeLessThan(0.6);
    expect(r).toMatchObject({ statuses: '4', priorities: '4', bad_snoozed: '0', bad_waiting: '0', bad_reply: '0' });
    expect(share(r.no_priority!)).toBeGreaterThan(0.4);
    expect(Number(r.open_unreplied)).toBeGreaterThan(0);
    expect(Number(r.snoozed_until)).toBeGreaterThan(0);
    expect(share(r.unattended!)).toBeGreaterThan(0.05);
    expect(share(r.with_attributes!)).toBeGreaterThan(0.2);
    expect(Number(r.teams)).toBeGreaterThan(3);
  });

  it('labels like the help desk: per-account labels, shared tags with counts, distinct taggings, cached_label_list equal', async () => {
    const r = await one<Record<string, string>>(
      a,
      `SELECT (SELECT count(*) FROM labels WHERE account_id = 1) AS large_labels,
              (SELECT count(*) FROM labels WHERE account_id = 2) AS small_labels,
              (SELECT count(*) FROM labels l WHERE NOT EXISTS (SELECT 1 FROM tags t WHERE t.name = l.title)) AS untagged_labels,
              (SELECT count(*) FROM tags t WHERE taggings_count <> (SELECT count(*) FROM taggings g WHERE g.tag_id = t.id)) AS bad_counts,
              (SELECT count(*) FROM taggings g JOIN conversations c ON c.id = g.taggable_id JOIN tags t ON t.id = g.tag_id
               WHERE NOT EXISTS (SELECT 1 FROM labels l WHERE l.account_id = c.account_id AND l.title = t.name)) AS foreign_labels,
              (SELECT count(*) FROM conversations c
               WHERE c.cached_label_list IS DISTINCT FROM (
                 SELECT string_agg(t.name, ', ' ORDER BY g.id) FROM taggings g JOIN tags t ON t.id = g.tag_id
                 WHERE g.taggable_id = c.id AND g.taggable_type = 'Conversation' AND g.context = 'labels')) AS bad_cache`,
    );
    expect(r).toEqual({
      large_labels: '40',
      small_labels: '8',
      untagged_labels: '0',
      bad_counts: '0',
      foreign_labels: '0',
      bad_cache: '0',
    });
    // A few busy labels and a long tail.
    const { rows } = await a.admin.query<{ n: string }>(
      `SELECT count(*) AS n FROM taggings g JOIN conversations c ON c.id = g.taggable_id
       WHERE c.account_id = 1 GROUP BY g.tag_id ORDER BY count(*) DESC`,
    );
    expect(Number(rows[0]!.n)).toBeGreaterThan(4 * Number(rows[rows.length - 1]!.n));
  });

  it('refuses a database that already has rows, and regenerates the same rows with force', async () => {
    const before = await tableHashes(b);
    await expect(generateData({ db: b.admin, scale: TINY, seed: 7, now: NOW })).rejects.toBeInstanceOf(DatabaseNotEmptyError);
    await b.admin.query('DROP TABLE articles');
    const forced: string[] = [];
    await generateData({ db: b.admin, scale: TINY, seed: 7, now: NOW, force: true, log: (l) => forced.push(l) });
    expect(forced).toContain('created the searchdesk schema');
    expect(await tableHashes(b)).toEqual(before);
    const next = await one<{ id: number }>(b, `SELECT nextval(pg_get_serial_sequence('messages', 'id'))::int AS id`);
    expect(next.id).toBe(data.counts.messages + 1);
  });
});

describe('the directory account (many agents and inboxes, for get_account)', () => {
  const WITH_DIRECTORY: ScaleSpec = { ...TINY, directory: directoryCounts(30, 20, 40) };
  let full: TestDatabase;
  let added: TestDatabase;
  let data: GeneratedData;

  beforeAll(async () => {
    [full, added] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    data = await generateData({ db: full.admin, scale: WITH_DIRECTORY, seed: 7, now: NOW });
    await generateData({ db: added.admin, scale: TINY, seed: 7, now: NOW });
  });
  afterAll(async () => {
    await Promise.all([full?.drop(), added?.drop()]);
  });

  it('comes after the noise accounts, its agents each a member of 10 of its inboxes', async () => {
    const directory = data.directory!;
    expect(directory).toMatchObject({ accountId: 5, agents: 30, inboxes: 20 });
    const admin = await resolveAccess(full.db, await authenticate(full.db, directory.adminToken), directory.accountId);
    expect(admin).toMatchObject({ role: 'administrator' });
    expect(admin.inboxIds).toHaveLength(20);
    const agent = await resolveAccess(full.db, await authenticate(full.db, directory.agentToken), directory.accountId);
    expect(agent).toMatchObject({ role: 'agent' });
    expect(agent.inboxIds).toHaveLength(10);
    const r = await one<{ agents: string; conversations: string }>(
      full,
      `SELECT (SELECT count(*) FROM account_users WHERE account_id = $1) AS agents,
              (SELECT count(*) FROM conversations WHERE account_id = $1) AS conversations`,
      [directory.accountId],
    );
    expect(r).toEqual({ agents: '31', conversations: '40' });
  });

  it('added to a database generated without it, gives the rows of a full generation, once', async () => {
    const first = await addDirectoryAccount({ db: added.admin, scale: WITH_DIRECTORY, seed: 7, now: NOW });
    expect(first.added).toBe(true);
    expect(await tableHashes(added)).toEqual(await tableHashes(full));
    const again = await addDirectoryAccount({ db: added.admin, scale: WITH_DIRECTORY, seed: 7, now: NOW });
    expect(again).toEqual({ ...first, added: false });
    expect(await tableHashes(added)).toEqual(await tableHashes(full));
    const next = await one<{ id: number }>(added, `SELECT nextval(pg_get_serial_sequence('users', 'id'))::int AS id`);
    expect(next.id).toBe(data.counts.users + 1);
  });

  it('refuses a database whose ids it would take', async () => {
    // One noise account fewer: the directory account's ids are the last noise account's.
    const shorter = { ...WITH_DIRECTORY, smallAccounts: TINY.smallAccounts - 1 };
    await expect(addDirectoryAccount({ db: added.admin, scale: shorter, seed: 7, now: NOW })).rejects.toThrow(
      /not a database generated at this scale/,
    );
  });
});

describe('bench data generator, skewed shape', () => {
  let a: TestDatabase;
  let b: TestDatabase;
  let data: GeneratedData;

  beforeAll(async () => {
    [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    data = await generateData({ db: a.admin, scale: TINY, shape: 'skewed', seed: 7, now: NOW });
    const client = new pg.Client({ connectionString: b.url });
    await client.connect();
    try {
      await generateData({ db: client, scale: TINY, shape: 'skewed', seed: 7, now: NOW });
    } finally {
      await client.end();
    }
  });
  afterAll(async () => {
    await Promise.all([a?.drop(), b?.drop()]);
  });

  it('records its shape in the summary and in the database, and generates the same rows from the same seed', async () => {
    expect(data.shape).toBe('skewed');
    expect(await readData(a.admin)).toEqual({
      generator: 'searchdesk bench:data',
      shape: 'skewed',
      scale: 'custom',
      seed: 7,
      now: NOW.toISOString(),
    });
    expect(await tableHashes(a)).toEqual(await tableHashes(b));
  });

  it('shares each common last name among many contacts, umlauts among them, with unique e-mails', async () => {
    const r = await one<Record<string, string>>(
      a,
      `SELECT count(*) AS named, count(*) FILTER (WHERE split_part(name, ' ', 2) = ANY($1)) AS head,
              count(*) FILTER (WHERE split_part(name, ' ', 2) IN ('Müller', 'Schröder', 'Jäger')) AS umlauts,
              (SELECT max(n) FROM (SELECT count(*) AS n FROM contacts WHERE account_id = 1 AND name LIKE '% %'
                                   GROUP BY split_part(name, ' ', 2)) s) AS busiest
       FROM contacts WHERE account_id = 1 AND name LIKE '% %'`,
      [SKEWED_LAST_NAMES.slice(0, 25)],
    );
    // Half of the draws go to the 25 head names: each is on 2% of the contacts (2,000 at M).
    expect(Number(r.head) / Number(r.named)).toBeGreaterThan(0.4);
    expect(Number(r.busiest) / Number(r.named)).toBeGreaterThan(0.02);
    expect(Number(r.umlauts)).toBeGreaterThan(3);
    const emails = await one<{ with_email: string; distinct_emails: string }>(
      a,
      'SELECT count(*) AS with_email, count(DISTINCT (email, account_id)) AS distinct_emails FROM contacts WHERE email IS NOT NULL',
    );
    expect(Number(emails.with_email)).toBeGreaterThan(200);
    expect(emails.distinct_emails).toBe(emails.with_email);
  });

  it('concentrates conversations on a few contacts', async () => {
    const { rows } = await a.admin.query<{ n: string }>(
      `SELECT count(*) AS n FROM conversations WHERE account_id = 1 GROUP BY contact_id ORDER BY count(*) DESC LIMIT 5`,
    );
    const total = data.scale.large.conversations;
    // Two conversations per contact on average; the busiest contact has a twentieth of them all.
    expect(Number(rows[0]!.n) / total).toBeGreaterThan(0.05);
    expect(rows.reduce((sum, row) => sum + Number(row.n), 0) / total).toBeGreaterThan(0.15);
  });

  it('puts each of a few head words in most messages', async () => {
    const r = await one<Record<string, string>>(
      a,
      `SELECT count(*) AS total, count(*) FILTER (WHERE content ~* '\\morder\\M') AS "order",
              count(*) FILTER (WHERE content ~* '\\maccount\\M') AS account,
              count(*) FILTER (WHERE content ~* '\\mpassword\\M') AS password,
              count(*) FILTER (WHERE content ~* '\\minvoice\\M') AS invoice
       FROM messages WHERE account_id = 1 AND message_type IN (0, 1)`,
    );
    const share = (n: string) => Number(n) / Number(r.total);
    for (const word of ['order', 'account', 'password']) expect(share(r[word]!), word).toBeGreaterThan(0.5);
    // The tail: the next word is in few.
    expect(share(r.invoice!)).toBeLessThan(0.1);
  });

  it("has the help desk's full index layout on the searched tables; the default shape does not", async () => {
    const names = HELPDESK_EXTRA_INDEXES.map((i) => i.name);
    expect(names).toContain('uniq_email_per_account_contact');
    const present = async (t: TestDatabase) =>
      (await t.admin.query<{ n: string }>('SELECT indexname AS n FROM pg_indexes WHERE indexname = ANY($1)', [names])).rows
        .map((row) => row.n)
        .sort();
    expect(await present(a)).toEqual([...names].sort());
    // Regenerated with the default shape, the database has the schema's indexes only, and says so.
    await generateData({ db: b.admin, scale: TINY, seed: 7, now: NOW, force: true });
    expect(await present(b)).toEqual([]);
    expect(await readData(b.admin)).toMatchObject({ shape: 'default' });
  });
});
