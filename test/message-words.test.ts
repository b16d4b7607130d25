/**
 * searchdesk's word index of message contents (searchdesk_messages_words) is a prefilter: every
 * message where a word it serves starts a word must be among its candidates, whatever the text
 * around it (letters that fold to ASCII ones, marks, digits, very long words and contents), and no
 * content may fail the help desk's write of it. The Postgres engine's reads through it must return
 * exactly the plain walk's ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAccess, type AccessContext } from '../src/auth/access.js';
import { INDEX, STATISTICS_FUNCTIONS } from '../src/db/catalog.js';
import { MESSAGE_WORDS_INDEXED, WORD_PIECE, wordIndexQuery, wordIndexServes } from '../src/db/message-words.js';
import type { Db, SqlQuery } from '../src/db/db.js';
import { createPostgresEngine } from '../src/search/messages/postgres.js';
import { trigramStatement, walkStatement } from '../src/search/messages/postgres/statements.js';
import { buildMessageQuery } from '../src/search/messages/query.js';
import { lexemeStats, prefixShare, tableStats } from '../src/search/statistics.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { memoryLogger } from './helpers/log.js';
import { blindStatistics, createTestDatabase, createTestRole, dropTestRole, openDb, type TestDatabase } from './helpers/db.js';
import { DAY, Fixture } from './helpers/fixtures.js';

const NOW = Math.floor(Date.now() / 1000);

let t: TestDatabase;
let access: AccessContext;
const ids: Record<string, number> = {};

/** Contents whose words sit where a naive word index would lose them. */
const CONTENTS: Record<string, string | null> = {
  dotted: 'TROUGİL report', // İ folds to i
  kelvin: 'Temperature in \u212Aelvin', // the Kelvin sign folds to k
  underscore: 'x86_64 build',
  accented: 'naïve approach',
  mark: 'e\u0301tude of e\u0301clairs', // a combining mark before "tude": no word start
  digits: '123abc 1e5 0x1F',
  longRun: `${'a'.repeat(3_000)}b then`,
  longContent: `${'x '.repeat(60_000)}needleword`,
  fullyIndexed: `${'y '.repeat(Math.floor((MESSAGE_WORDS_INDEXED - 'finalword'.length) / 2))}finalword`,
  empty: null,
};

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  const { account, user, inbox } = await fx.administeredInbox();
  const contact = await fx.contact(account);
  const conv = await fx.conversation(account, inbox, { contact_id: contact });
  let at = NOW - DAY;
  for (const [key, content] of Object.entries(CONTENTS)) ids[key] = await fx.message(conv, { content, created_at: at-- });
  await t.createSearchIndexes();
  await t.admin.query('ANALYZE messages');
  access = await resolveAccess(t.db, { userId: user }, account);
}, 60_000);

afterAll(async () => {
  await t?.drop();
});

/** The ids the plain walk finds for `q`, and those of the trigram read with the word index, both ways to the scope. */
async function search(q: string) {
  const query = { ...buildMessageQuery(access, { q }, NOW * 1000)!, limit: 1_000 };
  // The words the index serves; the word-start expression decides on the others too.
  const served = query.words.filter(wordIndexServes);
  const run = async (statement: SqlQuery) => (await t.db.query<{ id: number }>(statement)).map((r) => Number(r.id));
  return {
    walk: await run(walkStatement(query)),
    words: await run(trigramStatement(query, { wordIndex: served })),
    hidden: await run(trigramStatement(query, { wordIndex: served, scope: 'hidden' })),
  };
}

describe('the word index of message contents', () => {
  it('finds every word start the walk finds, around letters, marks and digits', async () => {
    const expected: Array<[string, string[]]> = [
      ['trougil', ['dotted']],
      ['kelvin', ['kelvin']],
      ['x86', ['underscore']],
      ['64', ['underscore']],
      ['86', []],
      ['na', ['accented']],
      ['ve', []],
      ['tude', []],
      ['123ab', ['digits']],
      ['1e', ['digits']],
      ['0x1', ['digits']],
      ['aaa', ['longRun']],
      ['a'.repeat(WORD_PIECE), ['longRun']],
      // A piece of the long run starts with b, a word of another message does.
      ['b', ['underscore']],
      ['needleword', ['longContent']],
      ['finalword', ['fullyIndexed']],
      ['report trougil', ['dotted']],
      ['TROUGİL', ['dotted']],
      ['naïve approach', ['accented']],
      ['naive approach', []],
    ];
    for (const [q, keys] of expected) {
      const found = await search(q);
      const want = keys.map((k) => ids[k]!).sort((a, b) => b - a);
      expect({ q, walk: found.walk }).toEqual({ q, walk: want });
      expect({ q, words: found.words, hidden: found.hidden }).toEqual({ q, words: want, hidden: want });
    }
  });

  it('serves only words of ASCII letters and digits no longer than a lexeme', () => {
    expect(wordIndexQuery(['trougil', 'x86'])).toBe(`('trougil':* & 'x86':*) | '~long'`);
    for (const words of [[], ['naïve'], ['σ'], ['a'.repeat(WORD_PIECE + 1)], ['ok', "o'k"]])
      expect(wordIndexQuery(words), JSON.stringify(words)).toBeUndefined();
  });

  it('never fails a write: a content of a million characters, and a word of ten thousand', async () => {
    const [conv] = (await t.admin.query<{ id: number }>('SELECT id FROM conversations LIMIT 1')).rows;
    const fx = new Fixture(t.admin);
    // Distinct words past the 1 MB a tsvector holds, had the whole content been indexed.
    const words = Array.from({ length: 90_000 }, (_, i) => `w${i.toString().padStart(10, '0')}`).join(' ');
    await expect(fx.message(conv!.id, { content: words })).resolves.toBeGreaterThan(0);
    await expect(fx.message(conv!.id, { content: 'q'.repeat(10_000) })).resolves.toBeGreaterThan(0);
  });

  it('is what the reads use when the planner may choose', async () => {
    const query = { ...buildMessageQuery(access, { q: 'trougil' }, NOW * 1000)!, limit: 16 };
    const client = await t.admin.connect();
    try {
      await client.query('SET enable_seqscan = off');
      for (const cap of [undefined, 1_000]) {
        const strategy = cap ? 'capped' : 'trigram';
        const statement = trigramStatement(query, { cap, wordIndex: query.words, scope: 'hidden' });
        const plan = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.text}`, statement.values)).rows;
        expect(plan.map((r) => r['QUERY PLAN']).join('\n'), strategy).toContain(`Bitmap Index Scan on ${INDEX.messagesWords}`);
      }
    } finally {
      await client.query('RESET enable_seqscan');
      client.release();
    }
  });

  it('has statistics of its words once the table is analysed, folded as it folds them', async () => {
    const lexemes = await lexemeStats(t.db, INDEX.messagesWords);
    expect(lexemes).toBeDefined();
    // `Temperature in \u212Aelvin`: one content in ten.
    expect(prefixShare(lexemes!, 'kelvin')).toBeCloseTo(0.1, 1);
    expect(prefixShare(lexemes!, 'kel')).toBeCloseTo(0.1, 1);
    expect(prefixShare(lexemes!, 'elvin')).toBe(0);
    expect(await lexemeStats(t.db, 'searchdesk_no_such_index')).toBeUndefined();
  });

  it("has statistics README's read-only role reads through the statistics function once granted EXECUTE, and only then", async (ctx) => {
    const reader = await createTestRole(t, 'sd_ro');
    if (!reader) return ctx.skip();
    const fn = STATISTICS_FUNCTIONS[INDEX.messagesWords]!;
    // A new pool each time: statistics are cached per pool.
    const asReader = async <T>(read: (db: Db) => Promise<T>): Promise<T> => {
      const db = openDb(reader.url);
      try {
        return await read(db);
      } finally {
        await db.close();
      }
    };
    try {
      await t.admin.query(`GRANT SELECT ON messages TO ${reader.role}`);
      // Postgres shows an index's statistics to the table's owner only; the table's own stay visible.
      // The server says once what the role lacks (a new app: statistics are cached per pool).
      const advice = async () => {
        const log = memoryLogger('info');
        const app = await createApp(loadConfig({ DATABASE_URL: reader.url }), log.logger);
        try {
          // Two pools, two reads, one line.
          await lexemeStats(app.deps.db, INDEX.messagesWords);
          await asReader((db) => lexemeStats(db, INDEX.messagesWords));
        } finally {
          await app.close();
        }
        return log.lines().filter((l) => l.event === 'word_statistics_unreadable');
      };
      await asReader(async (db) => {
        expect(await lexemeStats(db, INDEX.messagesWords)).toBeUndefined();
        expect((await tableStats(db, 'messages', ['content']))?.columns.has('content')).toBe(true);
        // Not PUBLIC's to call.
        await expect(db.query({ text: `SELECT * FROM ${fn}()`, values: [] })).rejects.toThrow();
      });
      const said = await advice();
      expect(said).toHaveLength(1);
      expect(said[0]!.msg).toContain(`GRANT EXECUTE ON FUNCTION ${fn}() TO ${reader.role}`);
      expect(said[0]!.level).toBe(40);
      await t.admin.query(`GRANT EXECUTE ON FUNCTION ${fn}() TO ${reader.role}`);
      const owners = await lexemeStats(t.db, INDEX.messagesWords);
      expect(owners?.lexemes.length).toBeGreaterThan(0);
      expect(await asReader((db) => lexemeStats(db, INDEX.messagesWords))).toEqual(owners);
      expect(await advice()).toEqual([]);
    } finally {
      await dropTestRole(t, reader.role);
    }
  });

  it('has a statistics function that runs as its owner with a fixed search_path, callable by no one it was not granted to', async () => {
    const fn = STATISTICS_FUNCTIONS[INDEX.messagesWords]!;
    const { rows } = await t.admin.query<{ definer: boolean; config: string[]; public_may: boolean; volatility: string }>(
      `SELECT p.prosecdef AS definer, p.proconfig AS config, p.provolatile AS volatility,
              EXISTS (SELECT 1 FROM aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
                      WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE') AS public_may
       FROM pg_proc p WHERE p.oid = to_regprocedure($1)`,
      [`${fn}()`],
    );
    expect(rows).toEqual([{ definer: true, config: ['search_path=pg_catalog, pg_temp'], public_may: false, volatility: 's' }]);
  });

  it("is used by the engine for a word the statistics never saw, with the walk's answer", async () => {
    const texts: string[] = [];
    const spied: Db = {
      ...t.db,
      query: <R extends object>(q: SqlQuery, label?: string) => {
        if (label?.startsWith('search_messages_pg_')) texts.push(q.text);
        return t.db.query<R>(q, label);
      },
    };
    const query = buildMessageQuery(access, { q: 'kelvin' }, NOW * 1000)!;
    expect(await createPostgresEngine(blindStatistics(spied)).findIds(query)).toEqual([ids.kelvin]);
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.every((text) => text.includes('array_to_tsvector'))).toBe(true);
  });

  it('is read by one word only: the one the statistics find in the fewest messages, else the longest', async () => {
    const tsqueries: string[] = [];
    const spied: Db = {
      ...t.db,
      query: <R extends object>(q: SqlQuery, label?: string) => {
        if (label?.startsWith('search_messages_pg_') && q.text.includes('array_to_tsvector'))
          tsqueries.push(...q.values.filter((v): v is string => typeof v === 'string' && v.includes("':*")));
        return t.db.query<R>(q, label);
      },
    };
    // `temperature` starts a word of 1 sampled content in 200 (0.5 %, under the word index's 1 %).
    const sampled = ['temperature readings', ...Array<string>(199).fill('-')];
    for (const [q, hist, word] of [
      ['temperature kelvin', sampled, 'kelvin'],
      ['kelvin temperature', sampled, 'kelvin'],
      ['tempe kelvin', undefined, 'kelvin'],
      ['kelvin temperature', undefined, 'temperature'],
    ] as const) {
      tsqueries.length = 0;
      const query = buildMessageQuery(access, { q }, NOW * 1000)!;
      const found = await createPostgresEngine(blindStatistics(spied, hist)).findIds(query);
      expect(found, q).toEqual([ids.kelvin]);
      expect(tsqueries.length, q).toBeGreaterThan(0);
      expect(new Set(tsqueries), q).toEqual(new Set([wordIndexQuery([word])]));
    }
  });
});
