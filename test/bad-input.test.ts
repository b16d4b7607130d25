/**
 * Bad input, as properties: every parameter of every operation gets odd values (wildcards,
 * quotes, SQL and DSL fragments, NUL, emoji, combining marks, RTL text, huge strings, numbers out
 * of range, floats, arrays, objects). Each call either answers correctly — literal matching
 * checked against an oracle computed from the fixture data — or fails with the contract's 422.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchDeps } from '../src/search/core.js';
import { SearchError } from '../src/errors.js';
import { OPERATIONS } from '../src/search/params.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { makeDeps, search } from './helpers/core.js';

export const BAD_INPUT_SEED = 4242;
export const BAD_INPUT_RUNS = 300;

let t: TestDatabase;
let deps: SearchDeps;
let token: string;
let account: number;
const contacts: Array<{ id: number; name: string }> = [];

const NAMES = [
  '100% Pure_Name',
  "back\\slash O'Brien",
  'Zoë "Quote" 😀',
  'e\u0301cole combining',
  'مرحبا right-to-left \u202Eevil',
  "Robert'); DROP TABLE contacts;--",
  '{"match_all":{}} dsl',
  'plain person',
];
const ALPHABET = [
  '%',
  '_',
  '\\',
  "'",
  '"',
  ';',
  '-',
  '*',
  '{',
  '}',
  ':',
  ' ',
  'a',
  'e',
  'o',
  'P',
  'r',
  '1',
  '0',
  'ë',
  '😀',
  '\u0301',
  '\u202E',
  'م',
  'OR',
  '1=1',
  '--',
  '$1',
  'NULL',
];
const isWellFormed = (s: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

beforeAll(async () => {
  t = await createTestDatabase();
  deps = makeDeps(t.db);
  const fx = new Fixture(t.admin);
  account = await fx.account({ advancedSearch: true });
  const user = await fx.user();
  await fx.member(account, user, 'administrator');
  token = await fx.token(user);
  for (const name of NAMES) contacts.push({ id: await fx.contact(account, { name }), name });
  const conv = await fx.conversation(account, await fx.inbox(account));
  for (const name of NAMES) await fx.message(conv, { content: name });
});

afterAll(() => t.drop());

const qArb = fc.oneof(
  fc
    .constantFrom(...NAMES)
    .chain((n) => fc.tuple(fc.nat(n.length - 1), fc.integer({ min: 1, max: 8 })).map(([i, len]) => n.slice(i, i + len))),
  fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 6 }).map((xs) => xs.join('')),
);

describe('bad input (issue 6)', () => {
  it(`matches q literally against an oracle (${BAD_INPUT_RUNS} runs, seed ${BAD_INPUT_SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(qArb, async (q) => {
        const trimmed = q.trim();
        const result = await search(deps, token, account, 'contacts', { q }).catch((e: unknown) => e);
        if (trimmed === '') {
          expect(result).toMatchObject({ code: 'invalid_params', message: 'q must not be blank' });
          return;
        }
        if (!isWellFormed(trimmed)) {
          expect(result).toMatchObject({ code: 'invalid_params', message: 'q must be valid Unicode text' });
          return;
        }
        const expected = contacts.filter((c) => asciiLower(c.name).includes(asciiLower(trimmed))).map((c) => c.id);
        expect(result).not.toBeInstanceOf(Error);
        const got = ((result as { payload: { contacts: Array<{ id: number }> } }).payload.contacts ?? []).map((c) => c.id);
        expect(got.sort()).toEqual(expected.sort());
      }),
      { seed: BAD_INPUT_SEED, numRuns: BAD_INPUT_RUNS },
    );
  });

  it(`answers every operation with a result or a 422, whatever the parameters (${BAD_INPUT_RUNS} runs)`, async () => {
    const value = fc.oneof(
      qArb,
      fc.string({ maxLength: 20 }),
      fc.constant('x'.repeat(10_000)),
      fc.constant('a\u0000b'),
      fc.integer(),
      fc.double(),
      fc.constantFrom(0, -1, 1.5, 2 ** 53, 1e300, Number.NaN, Infinity, 501, 90 * 86_400),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 2 }),
      fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
    );
    const params = fc.record(
      { q: value, page: value, since: value, until: value, inbox_id: value, from: value, extra: value },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...OPERATIONS), params, async (op, raw) => {
        try {
          const r = await search(deps, token, account, op, raw);
          expect(typeof r.payload).toBe('object');
        } catch (e) {
          expect(e).toBeInstanceOf(SearchError);
          const err = e as SearchError;
          expect(['invalid_params', 'window_exceeded']).toContain(err.code);
          expect(err.message).not.toMatch(/select|from \w+ where|stack|at \w+ \(/i);
        }
      }),
      { seed: BAD_INPUT_SEED, numRuns: BAD_INPUT_RUNS },
    );
  });

  it('matches message words literally, whatever surrounds them', async () => {
    const r = await search(deps, token, account, 'messages', { q: "'); DROP TABLE" });
    expect(r.payload.messages?.map((m) => m.content)).toEqual(["Robert'); DROP TABLE contacts;--"]);
    const dsl = await search(deps, token, account, 'messages', { q: '{"match_all":{}}' });
    expect(dsl.payload.messages?.map((m) => m.content)).toEqual(['{"match_all":{}} dsl']);
  });
});
