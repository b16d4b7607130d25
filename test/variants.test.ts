/**
 * search_with_gin must return exactly the default variant's rows in the same order, for every
 * input (contract §4.3). A property over many generated queries on generated data: substrings of
 * real names, emails, phone numbers, identifiers and display ids, numbers, one- and two-character
 * terms, misses, with and without time bounds, several pages, an administrator and an agent.
 * The data is large enough that the index-backed conversation search takes each of its paths.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateData, type GeneratedData } from '../bench/generator/generate-data.js';
import { divideLarge, SCALES, type ScaleSpec } from '../bench/generator/scale.js';
import { resolveAccess, type AccessContext } from '../src/auth/access.js';
import { createSearchIndexes } from '../src/db/admin.js';
import { createPgDb } from '../src/db/pg.js';
import { searchArticles } from '../src/search/articles.js';
import { searchContacts } from '../src/search/contacts.js';
import type { SearchContext } from '../src/search/context.js';
import { buildConversationsQuery, searchConversations, type ConversationRow } from '../src/search/conversations.js';
import { createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';

export const VARIANT_SEED = 1122;
export const VARIANT_RUNS = 200;
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
const access: Record<'admin' | 'agent', AccessContext> = {} as never;

beforeAll(async () => {
  t = await createTestDatabase();
  data = await generateData({ db: t.admin, scale: SCALE, seed: 3, now: NOW });
  const writable = createPgDb({ url: t.url, readOnly: false, statementTimeoutMs: 0, poolSize: 1, logger: silentLogger });
  await createSearchIndexes(writable, silentLogger);
  await writable.close();
  const { large } = data;
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
}, 120_000);

afterAll(() => t.drop());

const ctx = (who: 'admin' | 'agent', gin: boolean): SearchContext => ({
  db: t.db,
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
  );
const boundsArb = fc.oneof(
  fc.constant({}),
  fc.record({ since: fc.integer({ min: 0, max: 200 }).map((d) => Math.floor(NOW.getTime() / 1000) - d * DAY) }),
  fc.record({ until: fc.integer({ min: 0, max: 200 }).map((d) => Math.floor(NOW.getTime() / 1000) - d * DAY) }),
);

describe('search_with_gin returns exactly the default variant', () => {
  it(`for contacts, conversations and articles (${VARIANT_RUNS} runs, seed ${VARIANT_SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(
        queryArb().filter((q) => q.trim() !== ''),
        boundsArb,
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom('admin' as const, 'agent' as const),
        async (q, bounds, page, who) => {
          const params = { q: q.trim(), page, ...bounds };
          for (const search of [searchContacts, searchConversations] as const) {
            const plain = await search(ctx(who, false), params);
            const gin = await search(ctx(who, true), params);
            expect(gin.items.map((r) => r.id)).toEqual(plain.items.map((r) => r.id));
            expect(gin.hasMore).toBe(plain.hasMore);
          }
          const a = await searchArticles(ctx(who, false), { q: params.q, page });
          const b = await searchArticles(ctx(who, true), { q: params.q, page });
          expect(b).toEqual(a);
        },
      ),
      { seed: VARIANT_SEED, numRuns: VARIANT_RUNS },
    );
  });

  it('takes every path of the index-backed conversation search, each exact', async () => {
    const run = (q: string, strategy: 'scan' | 'window' | 'trigram') =>
      t.db.query<ConversationRow>(buildConversationsQuery(access.admin, { q }, strategy)).then((rows) => rows.map((r) => r.id));
    // A common term fills the window; a rare one needs the trigram path.
    const common = 'a';
    const rare = samples.find((s) => s.includes('@'))!;
    expect((await run(common, 'window')).length).toBe(16);
    expect(await run(common, 'window')).toEqual(await run(common, 'scan'));
    expect((await run(rare, 'window')).length).toBeLessThan(16);
    expect(await run(rare, 'trigram')).toEqual(await run(rare, 'scan'));
    expect((await run(rare, 'scan')).length).toBeGreaterThan(0);
  });
});
