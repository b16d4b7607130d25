import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchDeps } from '../src/search/core.js';
import { articleRecordSchema } from '../src/search/records.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { ids, makeDeps, search } from './helpers/core.js';

const NOW = Math.floor(Date.now() / 1000);
let t: TestDatabase;
let deps: SearchDeps;
let token: string;
let account: number;
const a: Record<string, number> = {};
let category: number;

beforeAll(async () => {
  t = await createTestDatabase();
  deps = makeDeps(t.db);
  const fx = new Fixture(t.admin);
  account = await fx.account();
  const other = await fx.account();
  const user = await fx.user();
  await fx.member(account, user, 'agent');
  token = await fx.token(user);
  const portal = await fx.portal(account, 'help');
  category = await fx.category(account, portal, 'Billing');
  a.contentOnly = await fx.article(account, portal, {
    title: 'Payments',
    content: 'How to request a refund for an order.',
    updated_at: NOW - 1 * DAY,
  });
  a.descOnly = await fx.article(account, portal, {
    title: 'Money back',
    description: 'Refunds explained',
    content: 'x',
    updated_at: NOW - 3 * DAY,
  });
  a.title = await fx.article(account, portal, {
    title: 'Refund policy',
    content: 'Our policy…',
    category_id: category,
    status: 1,
    updated_at: NOW - 5 * DAY,
    slug: 'refund-policy',
    description: 'All about refunds',
  });
  a.draft = await fx.article(account, portal, { title: 'Refund drafts', status: 0, updated_at: NOW - 6 * DAY });
  a.archived = await fx.article(account, portal, { title: 'Old refund rules', status: 2, updated_at: NOW - 7 * DAY });
  a.split = await fx.article(account, portal, {
    title: 'Shipping',
    description: 'international delivery',
    content: 'Customs forms',
    updated_at: NOW - 2 * DAY,
  });
  a.inside = await fx.article(account, portal, { title: 'Prerefund checks', updated_at: NOW - 1 * DAY });
  a.long = await fx.article(account, portal, {
    title: 'Long guide',
    content: `<h1>Intro</h1><p>${'lorem ipsum dolor sit amet '.repeat(30)}</p><p>The **warranty** covers parts.</p><p>${'consectetur adipiscing elit '.repeat(30)}</p>`,
    updated_at: NOW - 9 * DAY,
  });
  a.entities = await fx.article(account, portal, {
    title: 'Entity guide',
    content: '<p>Our caf&eacute; &mdash; we&#8217;re open&nbsp;daily&hellip;</p>',
    updated_at: NOW - 9 * DAY,
  });
  a.percent = await fx.article(account, portal, { title: 'Save 20% today', updated_at: NOW - 9 * DAY });
  const otherPortal = await fx.portal(other, 'other');
  await fx.article(other, otherPortal, { title: 'Refund policy of another account' });
  for (let i = 0; i < 16; i++)
    a[`tie${i}`] = await fx.article(account, portal, { title: `Tieword ${i}`, updated_at: NOW - 10 * DAY });
});

// The same folding articles, in an account with search_with_gin (the index-backed variant).
const folding: Record<'plain' | 'gin', { token: string; account: number; ids: Record<string, number> }> = {} as never;
beforeAll(async () => {
  const fx = new Fixture(t.admin);
  for (const variant of ['plain', 'gin'] as const) {
    const acc = await fx.account({ searchWithGin: variant === 'gin' });
    const user = await fx.user();
    await fx.member(acc, user, 'agent');
    const portal = await fx.portal(acc, `fold-${variant}`);
    const ids: Record<string, number> = {};
    ids.greek = await fx.article(acc, portal, { title: 'ΚΩΔΙΚΟΣ ΠΡΟΣΒΑΣΗΣ', content: 'Επαναφορά', updated_at: NOW - DAY });
    ids.turkish = await fx.article(acc, portal, { title: 'Mağaza', content: 'İstanbul şubesi', updated_at: NOW - 2 * DAY });
    ids.sigma = await fx.article(acc, portal, { title: 'κωδικοσ με σίγμα', updated_at: NOW - 3 * DAY });
    folding[variant] = { token: await fx.token(user), account: acc, ids };
  }
});

afterAll(() => t.drop());

const find = async (q: string, page?: number) =>
  ids(await search(deps, token, account, 'articles', page ? { q, page } : { q }), 'articles');

describe.each(['plain', 'gin'] as const)('article search folds case one way (%s variant)', (variant) => {
  const findIn = async (q: string) => {
    const { token: tok, account: acc, ids } = folding[variant];
    const r = await search(deps, tok, acc, 'articles', { q });
    return r.payload.articles?.map((x) => Object.keys(ids).find((k) => ids[k] === x.id));
  };
  it('folds a final sigma however it is typed', async () => {
    expect(await findIn('κωδικος')).toEqual(['greek', 'sigma']);
    expect(await findIn('ΚΩΔΙΚΟΣ')).toEqual(['greek', 'sigma']);
    expect(await findIn('κωδικοσ προσβασης')).toEqual(['greek']);
  });
  it('folds İ to i', async () => {
    expect(await findIn('istanbul')).toEqual(['turkish']);
    expect(await findIn('İstanbul')).toEqual(['turkish']);
    expect(await findIn('ıstanbul')).toEqual([]);
  });
});

describe('article search (contract §4)', () => {
  it('gives a plain-text snippet with every HTML entity decoded', async () => {
    const r = await search(deps, token, account, 'articles', { q: 'entity guide' });
    expect(r.payload.articles?.[0]?.snippet).toBe('Our café — we’re open daily…');
  });

  it('matches word prefixes in title, description or content, title matches first', async () => {
    expect(await find('refund')).toEqual([a.title, a.draft, a.archived, a.descOnly, a.contentOnly]);
  });

  it('does not match inside a word', async () => {
    expect(await find('efund')).toEqual([]);
  });

  it('lets the words of q come from different fields', async () => {
    expect(await find('shipping customs')).toEqual([a.split]);
    expect(await find('shipping nothing')).toEqual([]);
  });

  it('is case-insensitive and treats wildcards as separators', async () => {
    expect(await find('SAVE 20%')).toEqual([a.percent]);
    expect(await find('%')).toEqual([]);
  });

  it('returns every status with its name', async () => {
    const r = await search(deps, token, account, 'articles', { q: 'refund' });
    expect(r.payload.articles?.map((x) => x.status)).toEqual(['published', 'draft', 'archived', 'published', 'published']);
  });

  it('builds complete article records', async () => {
    const r = await search(deps, token, account, 'articles', { q: 'refund policy' });
    expect(articleRecordSchema.strict().parse(r.payload.articles?.[0])).toEqual({
      id: a.title,
      title: 'Refund policy',
      slug: 'refund-policy',
      portal_slug: 'help',
      account_id: account,
      category_name: 'Billing',
      status: 'published',
      updated_at: NOW - 5 * DAY,
      locale: 'en',
      description: 'All about refunds',
      snippet: 'Our policy…',
    });
  });

  it("links an article to its public help-center page when SEARCHDESK_APP_URL is set, on the portal's custom domain first", async () => {
    const linked = makeDeps(t.db, { appUrl: 'https://desk.example.com' });
    const r = await search(linked, token, account, 'articles', { q: 'refund policy' });
    expect(r.payload.articles?.[0]?.url).toBe('https://desk.example.com/hc/help/articles/refund-policy');
    await t.admin.query(`UPDATE portals SET custom_domain = 'help.shop.example' WHERE account_id = $1 AND slug = 'help'`, [
      account,
    ]);
    try {
      const onDomain = await search(linked, token, account, 'articles', { q: 'refund policy' });
      expect(onDomain.payload.articles?.[0]?.url).toBe('https://help.shop.example/hc/help/articles/refund-policy');
      // Without the setting, no url even with a custom domain.
      const plain = await search(deps, token, account, 'articles', { q: 'refund policy' });
      expect(plain.payload.articles?.[0]).not.toHaveProperty('url');
    } finally {
      await t.admin.query(`UPDATE portals SET custom_domain = NULL WHERE account_id = $1`, [account]);
    }
  });

  it('gives a plain-text snippet of at most 300 characters around the first matched word', async () => {
    const r = await search(deps, token, account, 'articles', { q: 'warranty' });
    const snippet = r.payload.articles?.[0]?.snippet ?? '';
    expect(snippet.length).toBeLessThanOrEqual(300);
    expect(snippet).toContain('The warranty covers parts.');
    expect(snippet).not.toMatch(/[<>*]/);
    expect(snippet.startsWith('…')).toBe(true);
    expect(snippet.endsWith('…')).toBe(true);
  });

  it('pages with updated_at then id as tie-breakers', async () => {
    const all = [...(await find('tieword')), ...(await find('tieword', 2))];
    expect(all).toEqual(Array.from({ length: 16 }, (_, i) => a[`tie${15 - i}`]));
  });

  it('never returns articles of another account', async () => {
    expect(await find('another account')).toEqual([]);
  });
});
