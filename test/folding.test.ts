/**
 * One case folding everywhere (issue 12, README "Case-insensitivity"). A property over generated
 * non-ASCII text — Greek with final sigma, Turkish İ and ı, German ß and ẞ, accented Latin
 * precomposed and decomposed, lone combining marks, titlecase digraphs, the Kelvin sign — with
 * queries typed in other cases: engine against engine (Postgres, Elasticsearch, OpenSearch, on the
 * searchdesk index format), variant against variant (search_with_gin off and on for contacts,
 * conversations and articles), and every one against an oracle that folds in JavaScript.
 * Then the database side of the bargain, on server Postgres and on PGlite: the ILIKE prefilters
 * (what the trigram indexes serve) never drop a row the folded comparison keeps, and the C
 * collation's ILIKE that walks test with folds ASCII letters exactly as foldCase does.
 */
import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAccess, type AccessContext } from '../src/auth/access.js';
import { searchArticles } from '../src/search/articles.js';
import { searchContacts } from '../src/search/contacts.js';
import type { SearchContext } from '../src/search/context.js';
import { searchConversations } from '../src/search/conversations.js';
import type { MessageEngine } from '../src/search/messages/engine.js';
import { createPostgresEngine } from '../src/search/messages/postgres.js';
import { buildMessageQuery } from '../src/search/messages/query.js';
import { PAGE_SIZE } from '../src/search/params.js';
import {
  asciiLikePattern,
  caseVariants,
  foldCase,
  foldedRegex,
  foldsDifferentlyInDb,
  likePrefilter,
} from '../src/search/text.js';
import { createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';
import { createTestIndex, hasEs, type TestIndex } from './helpers/es.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { createOpenSearchTestIndex, hasOs } from './helpers/opensearch.js';
import { expectArticles, expectContacts, expectConversations, expectMessages, foldText } from './helpers/oracle.js';

export const FOLDING_DATA_SEED = 1201;
export const FOLDING_SEED = 1212;
export const FOLDING_RUNS = 150;

const NOW = Math.floor(Date.now() / 1000);
const clock = () => NOW * 1000;

/** Letters (some of them several code points) whose case folding differs between naive implementations. */
const LETTERS = [
  ...['a', 'e', 'i', 'o', 'n', 's', 'k', 't', 'I', 'S', 'K', '\u212a'],
  ...['σ', 'ς', 'Σ', 'κ', 'Κ', 'ω', 'Ω', 'ο', 'Ο', 'ά', 'Ά', 'ΐ', 'ι', 'Ι'],
  ...['İ', 'ı', 'ş', 'Ş', 'ğ', 'Ğ', 'ç', 'Ç'],
  ...['ß', 'ẞ', 'ü', 'Ü', 'u\u0308', 'U\u0308'],
  ...['é', 'É', 'e\u0301', 'E\u0301', 'ñ', 'Ñ', 'n\u0303', '\u0301', '\u0308'],
  ...['ǅ', 'Ǆ', 'ǆ'],
];
const wordArb = fc.array(fc.constantFrom(...LETTERS), { minLength: 1, maxLength: 6 }).map((xs) => xs.join(''));
const textArb = fc
  .array(fc.tuple(wordArb, fc.constantFrom(' ', ' ', '-', ', ', '. ', '_', '/')), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.map(([w, sep], i) => (i === 0 ? w : sep + w)).join(''));

/** The same text typed another way: each code point replaced by one of its case forms. */
const retypeArb = (text: string) =>
  fc.array(fc.nat(5), { minLength: [...text].length, maxLength: [...text].length }).map((choices) =>
    [...text]
      .map((c, i) => {
        const forms = [c, c.toLowerCase(), c.toUpperCase(), ...caseVariants(foldCase(c))];
        return forms[choices[i]! % forms.length]!;
      })
      .join(''),
  );

interface World {
  contacts: Array<{ id: number; name: string; identifier: string; last: number }>;
  conversations: Array<{ id: number; contact: number; display: number; created: number }>;
  messages: Array<{ id: number; content: string; created: number }>;
  articles: Array<{ id: number; title: string; content: string; updated: number }>;
}

let t: TestDatabase;
let esIndex: TestIndex | undefined;
let osIndex: TestIndex | undefined;
let access: AccessContext;
const w: World = { contacts: [], conversations: [], messages: [], articles: [] };

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  const { account, user, inbox } = await fx.administeredInbox();
  const portal = await fx.portal(account);
  const texts = fc.sample(textArb, { seed: FOLDING_DATA_SEED, numRuns: 400 });
  let k = 0;
  const next = () => texts[k++ % texts.length]!;
  for (let i = 0; i < 60; i++) {
    const name = next();
    const identifier = next();
    const last = NOW - (1 + i) * 3_600;
    const id = await fx.contact(account, { name, identifier, last_activity_at: last });
    w.contacts.push({ id, name, identifier, last });
    const created = NOW - (1 + i) * 7_200;
    const conv = await fx.conversation(account, inbox, { contact_id: id, created_at: created, last_activity_at: created });
    w.conversations.push({ id: conv, contact: id, display: i + 1, created });
  }
  for (let i = 0; i < 120; i++) {
    const content = next();
    const created = NOW - DAY - i * 600;
    const id = await fx.message(w.conversations[i % w.conversations.length]!.id, { content, created_at: created });
    w.messages.push({ id, content, created });
  }
  for (let i = 0; i < 40; i++) {
    const title = next();
    const content = next();
    const updated = NOW - (1 + i) * DAY;
    const id = await fx.article(account, portal, { title, content, updated_at: updated });
    w.articles.push({ id, title, content, updated });
  }
  await t.createSearchIndexes();
  access = await resolveAccess(t.db, { userId: user }, account);
  if (hasEs) esIndex = await createTestIndex(t.db);
  if (hasOs) osIndex = await createOpenSearchTestIndex(t.db);
}, 120_000);

afterAll(async () => {
  await esIndex?.drop();
  await osIndex?.drop();
  await t?.drop();
});

const ctx = (gin: boolean): SearchContext => ({
  db: t.db,
  logger: silentLogger,
  now: clock,
  access: { ...access, flags: { ...access.flags, searchWithGin: gin } },
});

const page1 = (ids: number[]) => ({ ids: ids.slice(0, PAGE_SIZE), hasMore: ids.length > PAGE_SIZE });

/** The shared oracle (helpers/oracle.ts) on this world: the contract's matching and order, with foldText on both sides. */
const oracle = {
  messages: (q: string) => expectMessages(w.messages, q),
  contacts: (q: string) =>
    expectContacts(
      w.contacts.map((c) => ({ id: c.id, texts: [c.name, c.identifier], last: c.last })),
      q,
    ),
  conversations: (q: string) =>
    expectConversations(
      w.conversations.map((v) => {
        const c = w.contacts.find((x) => x.id === v.contact)!;
        return { ...v, contactTexts: [c.name, c.identifier], last: v.created };
      }),
      q,
    ),
  articles: (q: string) => expectArticles(w.articles, q),
};

/** A word, a word prefix, a substring or several words of the generated data, typed in other cases. */
const queryArb = () => {
  const sources = () => [
    ...w.messages.map((m) => m.content),
    ...w.contacts.flatMap((c) => [c.name, c.identifier]),
    ...w.articles.map((a) => a.title),
  ];
  const slice = fc
    .constantFrom(...sources())
    .chain((text) => {
      const cps = [...text];
      return fc
        .tuple(fc.nat(Math.max(0, cps.length - 1)), fc.integer({ min: 1, max: 10 }))
        .map(([i, n]) => cps.slice(i, i + n).join(''));
    })
    .chain(retypeArb);
  return fc.oneof(slice, wordArb, fc.constantFrom(...sources()).chain(retypeArb));
};

describe('one case folding, every engine and variant agree with the oracle', () => {
  const engines = (): Array<[string, MessageEngine]> => [
    ['postgres', createPostgresEngine(t.db)],
    ...(esIndex ? [['elasticsearch', esIndex.engine] as [string, MessageEngine]] : []),
    ...(osIndex ? [['opensearch', osIndex.engine] as [string, MessageEngine]] : []),
  ];

  it(`on generated non-ASCII text (${FOLDING_RUNS} runs, seed ${FOLDING_SEED}, data seed ${FOLDING_DATA_SEED})`, async () => {
    expect(engines().map(([name]) => name)).toEqual([
      'postgres',
      ...(hasEs ? ['elasticsearch'] : []),
      ...(hasOs ? ['opensearch'] : []),
    ]);
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(
        queryArb().filter((q) => q.trim() !== ''),
        async (raw) => {
          const q = raw.trim();
          const expected = oracle.messages(q);
          const query = buildMessageQuery(access, { q }, clock());
          for (const [name, engine] of engines()) {
            const found = query ? await engine.findIds({ ...query, offset: 0, limit: 1_000 }) : [];
            expect({ engine: name, q, ids: found }).toEqual({ engine: name, q, ids: expected });
          }
          let contactHits = 0;
          for (const [op, run] of [
            ['contacts', searchContacts],
            ['conversations', searchConversations],
          ] as const) {
            const want = page1(oracle[op](q));
            for (const gin of [false, true]) {
              const got = await run(ctx(gin), { q });
              expect({ op, gin, q, ...page1(got.items.map((r) => r.id)), hasMore: got.hasMore }).toEqual({ op, gin, q, ...want });
              contactHits += got.items.length;
            }
          }
          const plain = await searchArticles(ctx(false), { q });
          const gin = await searchArticles(ctx(true), { q });
          expect(gin).toEqual(plain);
          expect({ q, ...page1(plain.items.map((a) => a.id)), hasMore: plain.hasMore }).toEqual({
            q,
            ...page1(oracle.articles(q)),
          });
          if (expected.length > 0 || plain.items.length > 0 || contactHits > 0) nonEmpty++;
        },
      ),
      { seed: FOLDING_SEED, numRuns: FOLDING_RUNS },
    );
    // Not a comparison of empty lists: most queries come from the data.
    console.log(`[folding] ${nonEmpty} of ${FOLDING_RUNS} queries found rows`);
    expect(nonEmpty).toBeGreaterThan(FOLDING_RUNS / 2);
  }, 300_000);
});

/** Every code point that has other case forms, grouped by its fold (the oracle's), which the product agrees with. */
function foldGroups(): Array<{ folded: string; members: string[] }> {
  const groups = new Map<string, string[]>();
  const differ: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp === 0xd800) cp = 0xe000;
    const c = String.fromCodePoint(cp);
    const folded = foldText(c);
    if (foldCase(c) !== folded) differ.push(c);
    const members = groups.get(folded);
    if (members) members.push(c);
    else groups.set(folded, [c]);
  }
  expect(differ).toEqual([]);
  const multi = [...groups].filter(([, members]) => members.length > 1);
  for (const [folded, members] of multi) expect([...caseVariants(folded)].sort()).toEqual(members.sort());
  return multi.map(([folded, members]) => ({ folded, members }));
}

type Query = (text: string, values: unknown[]) => Promise<Array<Record<string, unknown>>>;

/** The database side, for one database: what the prefilters and the folded regular expressions rely on. */
async function checkDatabase(query: Query) {
  const groups = foldGroups();
  const pairs = groups.flatMap((g) => g.members.map((m) => ({ ...g, member: m })));
  // Every member of a group passes its group's ILIKE prefilter (where no '_' stands for it).
  const trusted = pairs.filter((p) => !foldsDifferentlyInDb(p.folded));
  const dropped = await query(`SELECT m, p FROM unnest($1::text[], $2::text[]) AS t(m, p) WHERE NOT (m ILIKE p)`, [
    trusted.map((p) => p.member),
    trusted.map((p) => likePrefilter(p.folded)),
  ]);
  expect(dropped).toEqual([]);
  // Every member matches its group's regular expression, and no member of another group does.
  const regexMisses = await query(`SELECT m, r FROM unnest($1::text[], $2::text[]) AS t(m, r) WHERE NOT (m ~ r)`, [
    pairs.map((p) => p.member),
    pairs.map((p) => foldedRegex(p.folded)),
  ]);
  expect(regexMisses).toEqual([]);
  const others = pairs.map((p, i) => ({ member: pairs[(i + 7) % pairs.length]!.member, folded: p.folded }));
  const wrong = others.filter((o) => foldCase(o.member) !== o.folded);
  const regexFalse = await query(`SELECT m, r FROM unnest($1::text[], $2::text[]) AS t(m, r) WHERE m ~ r`, [
    wrong.map((o) => o.member),
    wrong.map((o) => foldedRegex(o.folded)),
  ]);
  expect(regexFalse).toEqual([]);
  // ILIKE with an ASCII pattern (contacts and conversations skip the regex then) equates exactly
  // what foldCase equates: the code points the database lower-cases to an ASCII letter.
  const rows = await query(
    `SELECT cp FROM generate_series(1, 1114111) AS cp
     WHERE cp NOT BETWEEN 55296 AND 57343 AND lower(chr(cp)) ~ '^[a-z]$'`,
    [],
  );
  const db = rows.map((r) => Number(r.cp)).sort((a, b) => a - b);
  const js: number[] = [];
  for (let cp = 1; cp <= 0x10ffff; cp++) {
    if (cp === 0xd800) cp = 0xe000;
    if (/^[a-z]$/.test(foldCase(String.fromCodePoint(cp)))) js.push(cp);
  }
  expect(db).toEqual(js);
  // The C collation's ILIKE (asciiLikePattern, which walks test first) matches an ASCII letter
  // other than i and k in exactly the code points foldCase folds to it: the letter in both cases.
  const letters = [...'abcdefghjlmnopqrstuvwxyz'];
  for (const x of letters) expect(asciiLikePattern(x)).toEqual({ pattern: `%${x}%`, exact: true });
  const cRows = await query(
    `SELECT cp FROM generate_series(1, 1114111) AS cp
     WHERE cp NOT BETWEEN 55296 AND 57343 AND chr(cp) COLLATE "C" ILIKE ANY($1::text[])`,
    [letters],
  );
  const cLike = cRows.map((r) => Number(r.cp)).sort((a, b) => a - b);
  const folding: number[] = [];
  for (let cp = 1; cp <= 0x10ffff; cp++) {
    if (cp === 0xd800) cp = 0xe000;
    if (letters.includes(foldCase(String.fromCodePoint(cp)))) folding.push(cp);
  }
  expect(cLike).toEqual(folding);
  expect(cLike).toHaveLength(2 * letters.length);
  return { groups: groups.length, trusted: trusted.length, pairs: pairs.length };
}

describe('the database folds every letter the prefilters rely on like foldCase', () => {
  it('on server Postgres', async () => {
    const counts = await checkDatabase(async (text, values) => (await t.admin.query<Record<string, unknown>>(text, values)).rows);
    console.log(`[folding] server Postgres: ${counts.pairs} code points in ${counts.groups} case groups checked`);
  }, 60_000);

  it('on PGlite (the embedded database)', async () => {
    const pglite = new PGlite();
    try {
      await checkDatabase(async (text, values) => (await pglite.query<Record<string, unknown>>(text, values)).rows);
    } finally {
      await pglite.close();
    }
  }, 120_000);
});
