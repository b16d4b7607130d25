import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTACT_PLAN } from '../src/search/contacts.js';
import type { SearchDeps } from '../src/search/core.js';
import { contactRecordSchema } from '../src/search/records.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { ids, makeDeps, search } from './helpers/core.js';

const NOW = Math.floor(Date.now() / 1000);
let t: TestDatabase;
let deps: SearchDeps;
let token: string;
let account: number;
const c: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestDatabase();
  deps = makeDeps(t.db);
  const fx = new Fixture(t.admin);
  account = await fx.account();
  const other = await fx.account();
  const user = await fx.user();
  await fx.member(account, user, 'agent');
  token = await fx.token(user);
  c.byName = await fx.contact(account, { name: 'Priya Raman', last_activity_at: NOW - 1 * DAY });
  c.byEmail = await fx.contact(account, { name: 'X', email: 'orders@RamanTools.example', last_activity_at: NOW - 2 * DAY });
  c.byPhone = await fx.contact(account, { name: 'Y', phone_number: '+4915112345678', last_activity_at: NOW - 3 * DAY });
  c.byIdentifier = await fx.contact(account, { name: 'Z', identifier: 'crm-raman-77', last_activity_at: NOW - 4 * DAY });
  c.neverActive = await fx.contact(account, { name: 'Raman Neveractive', last_activity_at: null });
  c.percent = await fx.contact(account, { name: '100% Real_Name', identifier: 'back\\slash', last_activity_at: NOW - 5 * DAY });
  c.plain = await fx.contact(account, { name: '1000 RealXName', last_activity_at: NOW - 5 * DAY });
  c.unicode = await fx.contact(account, {
    name: 'Zoë Ŝmith-Jürgens 😀',
    additional_attributes: { city: 'Köln', tags: ['vip'] },
    created_at: NOW - DAY,
    last_activity_at: NOW - 6 * DAY,
  });
  c.nullAttrs = await fx.contact(account, {
    name: 'Nullattr Person',
    additional_attributes: null,
    last_activity_at: NOW - 6 * DAY,
  });
  // Stored with microseconds, shown as T = NOW - 8 days (floor).
  c.fraction = await fx.contact(account, { name: 'Fractional Second', last_activity_at: NOW - 8 * DAY + 0.999999 });
  c.greek = await fx.contact(account, { name: 'ΝΙΚΟΣ ΠΑΠΑΔΟΠΟΥΛΟΣ', last_activity_at: NOW - 9 * DAY });
  c.turkish = await fx.contact(account, {
    name: 'İstanbul Shop',
    email: 'info@ISTANBUL.example',
    last_activity_at: NOW - 9 * DAY - 1,
  });
  await fx.contact(other, { name: 'Priya Raman of another account' });
  for (let i = 0; i < 17; i++)
    c[`tie${i}`] = await fx.contact(account, { name: `Tiebreak ${i}`, last_activity_at: NOW - 7 * DAY });
});

afterAll(() => t.drop());

const find = async (params: Record<string, unknown>) => ids(await search(deps, token, account, 'contacts', params), 'contacts');

describe('contact search (contract §4)', () => {
  it('matches a substring of the name, email, phone number or identifier', async () => {
    expect(await find({ q: 'raman' })).toEqual([c.byName, c.byEmail, c.byIdentifier, c.neverActive]);
    expect(await find({ q: '12345' })).toEqual([c.byPhone]);
    // q is one literal substring, not a set of words.
    expect(await find({ q: 'raman tools' })).toEqual([]);
  });

  it('is case-insensitive on every field', async () => {
    expect(await find({ q: 'RAMANTOOLS' })).toEqual([c.byEmail]);
    expect(await find({ q: 'CRM-RAMAN' })).toEqual([c.byIdentifier]);
  });

  it('folds case the same way as every other search: final sigma and İ', async () => {
    expect(await find({ q: 'νικος' })).toEqual([c.greek]);
    expect(await find({ q: 'Νικος Παπαδοπουλος' })).toEqual([c.greek]);
    expect(await find({ q: 'ΝΙΚΟΣ' })).toEqual([c.greek]);
    expect(await find({ q: 'κοσ π' })).toEqual([c.greek]);
    expect(await find({ q: 'istanbul' })).toEqual([c.turkish]);
    expect(await find({ q: 'İSTANBUL' })).toEqual([c.turkish]);
    expect(await find({ q: 'İstanbul.example' })).toEqual([c.turkish]);
    expect(await find({ q: 'ıstanbul' })).toEqual([]);
  });

  it('matches %, _ and \\ literally', async () => {
    expect(await find({ q: '100%' })).toEqual([c.percent]);
    expect(await find({ q: 'l_N' })).toEqual([c.percent]);
    expect(await find({ q: '%' })).toEqual([c.percent]);
    expect(await find({ q: '_' })).toEqual([c.percent]);
    expect(await find({ q: 'k\\s' })).toEqual([c.percent]);
  });

  it('matches Unicode text and trims q', async () => {
    expect(await find({ q: '  Zoë Ŝ  ' })).toEqual([c.unicode]);
    expect(await find({ q: '😀' })).toEqual([c.unicode]);
  });

  it('orders by last activity (never-active last), then id descending', async () => {
    const all = await find({ q: 'raman' });
    expect(all.at(-1)).toBe(c.neverActive);
  });

  it('filters last_activity_at with inclusive since and until, alone or together', async () => {
    expect(await find({ q: 'raman', since: NOW - 2 * DAY })).toEqual([c.byName, c.byEmail]);
    expect(await find({ q: 'raman', until: NOW - 2 * DAY })).toEqual([c.byEmail, c.byIdentifier]);
    expect(await find({ q: 'raman', since: NOW - 2 * DAY, until: NOW - 2 * DAY })).toEqual([c.byEmail]);
    expect(await find({ q: 'raman', since: NOW, until: NOW - DAY })).toEqual([]);
  });

  it('treats since and until as whole seconds: a record shown as T is in since=T and until=T', async () => {
    const T = NOW - 8 * DAY;
    const shown = await search(deps, token, account, 'contacts', { q: 'fractional' });
    expect(shown.payload.contacts?.[0]?.last_activity_at).toBe(T);
    expect(await find({ q: 'fractional', until: T })).toEqual([c.fraction]);
    expect(await find({ q: 'fractional', since: T, until: T })).toEqual([c.fraction]);
    expect(await find({ q: 'fractional', since: T })).toEqual([c.fraction]);
    expect(await find({ q: 'fractional', until: T - 1 })).toEqual([]);
    expect(await find({ q: 'fractional', since: T + 1 })).toEqual([]);
  });

  it('pages 15 at a time without overlap across ties', async () => {
    const p1 = await search(deps, token, account, 'contacts', { q: 'tiebreak' });
    const p2 = await search(deps, token, account, 'contacts', { q: 'tiebreak', page: 2 });
    const expected = Array.from({ length: 17 }, (_, i) => c[`tie${16 - i}`]);
    expect([...ids(p1, 'contacts'), ...ids(p2, 'contacts')]).toEqual(expected);
    expect(ids(p1, 'contacts')).toHaveLength(15);
    expect(p1.meta.has_more).toEqual({ contacts: true });
    expect(p2.meta.has_more).toEqual({ contacts: false });
  });

  it('returns complete contact records with integer Unix seconds', async () => {
    const r = await search(deps, token, account, 'contacts', { q: 'Zoë' });
    const rec = contactRecordSchema.strict().parse(r.payload.contacts?.[0]);
    expect(rec).toEqual({
      id: c.unicode,
      name: 'Zoë Ŝmith-Jürgens 😀',
      email: null,
      phone_number: null,
      identifier: null,
      additional_attributes: { city: 'Köln', tags: ['vip'] },
      created_at: NOW - DAY,
      last_activity_at: NOW - 6 * DAY,
    });
    const n = await search(deps, token, account, 'contacts', { q: 'Nullattr' });
    expect(n.payload.contacts?.[0]?.additional_attributes).toEqual({});
    expect(Object.keys(r.payload)).toEqual(['contacts']);
  });

  it('never returns contacts of another account', async () => {
    expect(await find({ q: 'another account' })).toEqual([]);
  });
});

describe('every contacts strategy (docs/plans.md, Contacts)', () => {
  it('finds exactly what the planned search finds, in its order, when forced', async () => {
    const searches = [
      { q: 'raman' },
      { q: 'raman', since: NOW - 2 * DAY },
      { q: 'raman', until: NOW - 2 * DAY },
      { q: '12345' },
      { q: 'RAMANTOOLS' },
      { q: 'Νικος Παπαδοπουλος' },
      { q: 'İstanbul.example' },
      { q: '100%' },
      { q: 'l_N' },
      { q: 'Zoë Ŝ' },
      { q: 'tiebreak' },
      { q: 'tiebreak', page: 2 },
      { q: 'fractional', until: NOW - 8 * DAY },
      { q: 'e' },
      { q: 'no such contact' },
    ];
    for (const params of searches) {
      const planned = await search(deps, token, account, 'contacts', params);
      for (const force of CONTACT_PLAN.map((s) => s.name)) {
        const forced = await search({ ...deps, plan: { force } }, token, account, 'contacts', params);
        expect(ids(forced, 'contacts'), `${force} ${JSON.stringify(params)}`).toEqual(ids(planned, 'contacts'));
        expect(forced.meta.has_more).toEqual(planned.meta.has_more);
      }
    }
  });
});
