import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchDeps } from '../src/search/core.js';
import { envelopeSchemas } from '../src/search/records.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { ids, makeDeps, search } from './helpers/core.js';

const NOW = Math.floor(Date.now() / 1000);
let t: TestDatabase;
let deps: SearchDeps;
const f = {} as Record<
  'account' | 'noFlag' | 'recentContact' | 'oldContact' | 'conv' | 'oldConv' | 'msg' | 'oldMsg' | 'article',
  number
>;
let token: string;
let noFlagToken: string;

beforeAll(async () => {
  t = await createTestDatabase();
  deps = makeDeps(t.db);
  const fx = new Fixture(t.admin);
  f.account = await fx.account({ advancedSearch: true });
  f.noFlag = await fx.account({ advancedSearch: false });
  const user = await fx.user();
  await fx.member(f.account, user, 'administrator');
  await fx.member(f.noFlag, user, 'administrator');
  token = await fx.token(user);
  noFlagToken = token;
  const inbox = await fx.inbox(f.account);
  f.recentContact = await fx.contact(f.account, { name: 'Orion Recent', last_activity_at: NOW - DAY });
  f.oldContact = await fx.contact(f.account, { name: 'Orion Old', last_activity_at: NOW - 30 * DAY });
  f.conv = await fx.conversation(f.account, inbox, { contact_id: f.recentContact, last_activity_at: NOW - DAY });
  f.oldConv = await fx.conversation(f.account, inbox, { contact_id: f.oldContact, last_activity_at: NOW - 30 * DAY });
  f.msg = await fx.message(f.conv, { content: 'orion nebula photo', created_at: NOW - 40 * DAY });
  f.oldMsg = await fx.message(f.conv, { content: 'orion long ago', created_at: NOW - 120 * DAY });
  const portal = await fx.portal(f.account);
  f.article = await fx.article(f.account, portal, { title: 'Orion setup guide', updated_at: NOW - 60 * DAY });
  const nfInbox = await fx.inbox(f.noFlag);
  const nfContact = await fx.contact(f.noFlag, { name: 'Orion Noflag' });
  const nfConv = await fx.conversation(f.noFlag, nfInbox, { contact_id: nfContact });
  await fx.message(nfConv, { content: 'orion noflag message' });
});

afterAll(() => t.drop());

describe('search all (contract §4.1)', () => {
  it('returns all four kinds for the same q', async () => {
    const r = await search(deps, token, f.account, 'all', { q: 'orion' });
    envelopeSchemas.all.parse({ payload: r.payload });
    expect(Object.keys(r.payload)).toEqual(['contacts', 'conversations', 'messages', 'articles']);
    expect(ids(r, 'contacts')).toEqual([f.recentContact, f.oldContact]);
    expect(ids(r, 'conversations')).toEqual([f.oldConv, f.conv]);
    expect(ids(r, 'messages')).toEqual([f.msg]);
    expect(ids(r, 'articles')).toEqual([f.article]);
    expect(r.meta.has_more).toEqual({ contacts: false, conversations: false, messages: false, articles: false });
  });

  it('applies since/until to contacts and conversations only', async () => {
    const r = await search(deps, token, f.account, 'all', { q: 'orion', since: NOW - 2 * DAY });
    expect(ids(r, 'contacts')).toEqual([f.recentContact]);
    expect(ids(r, 'conversations')).toEqual([f.conv]);
    expect(ids(r, 'messages')).toEqual([f.msg]);
    expect(ids(r, 'articles')).toEqual([f.article]);
  });

  it('accepts a since older than 90 days (the message window is the default there)', async () => {
    const r = await search(deps, token, f.account, 'all', { q: 'orion', since: NOW - 365 * DAY });
    expect(ids(r, 'messages')).toEqual([f.msg]);
  });

  it('gives messages: [] without advanced_search, and the other kinds still', async () => {
    const r = await search(deps, noFlagToken, f.noFlag, 'all', { q: 'orion' });
    expect(r.payload.messages).toEqual([]);
    expect(r.payload.contacts).toHaveLength(1);
    expect(r.payload.conversations).toHaveLength(1);
  });

  it('rejects parameters it does not take', async () => {
    await expect(search(deps, token, f.account, 'all', { q: 'orion', from: 'contact:1' })).rejects.toMatchObject({
      code: 'invalid_params',
    });
  });
});
