import { describe, expect, it } from 'vitest';
import type { AccessContext } from '../../auth/access.js';
import { buildMessageQuery, cutPage, messagePage, parseFrom, WINDOW_SECONDS } from './query.js';

const access: AccessContext = {
  accountId: 1,
  userId: 2,
  role: 'agent',
  inboxIds: [10, 11],
  flags: { searchWithGin: false, advancedSearch: true },
};
const NOW_MS = 1_800_000_000_000;
const NOW = NOW_MS / 1000;

describe('parseFrom', () => {
  it('reads contact:<id> and agent:<id>', () => {
    expect(parseFrom('contact:12')).toEqual({ type: 'Contact', id: '12' });
    expect(parseFrom('agent:007')).toEqual({ type: 'User', id: '7' });
  });
  it.each(['', 'contact:', 'contact:-1', 'Contact:1', 'agent:1.5', ' contact:1', 'bot:1', 'contact:1 '])('ignores %j', (from) => {
    expect(parseFrom(from)).toBeUndefined();
  });
  it('knows an id beyond int64 matches nothing', () => {
    expect(parseFrom(`contact:${'9'.repeat(20)}`)).toBe('matches_nothing');
  });
});

describe('buildMessageQuery', () => {
  it('defaults the window to the last 90 days', () => {
    expect(buildMessageQuery(access, { q: 'a' }, NOW_MS)?.since).toBe(NOW - WINDOW_SECONDS);
  });
  it('narrows to an accessible inbox_id and ignores an inaccessible one', () => {
    expect(buildMessageQuery(access, { q: 'a', inbox_id: 11 }, NOW_MS)?.inboxIds).toEqual([11]);
    expect(buildMessageQuery(access, { q: 'a', inbox_id: 12 }, NOW_MS)?.inboxIds).toEqual([10, 11]);
  });
  it('returns null when nothing can match', () => {
    expect(buildMessageQuery(access, { q: '!!!' }, NOW_MS)).toBeNull();
    expect(buildMessageQuery({ ...access, inboxIds: [] }, { q: 'a' }, NOW_MS)).toBeNull();
  });
  it('pages with one extra row', () => {
    expect(buildMessageQuery(access, { q: 'a', page: 3 }, NOW_MS)).toMatchObject({ offset: 30, limit: 16 });
  });
  it("marks an administrator's first page over every inbox, and nothing narrower", () => {
    const admin: AccessContext = { ...access, role: 'administrator' };
    const every = (a: AccessContext, params: Record<string, unknown>) =>
      buildMessageQuery(a, { q: 'a', ...params }, NOW_MS)?.everyInbox;
    expect(every(admin, {})).toBe(true);
    expect(every(admin, { page: 1 })).toBe(true);
    expect(every(admin, { inbox_id: 12 })).toBe(true);
    expect(every(admin, { inbox_id: 11 })).toBe(false);
    expect(every(admin, { page: 2 })).toBe(false);
    expect(every(access, {})).toBe(false);
  });
});

describe('cutPage', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => i);
  it('shows a page and tells has_more from the one extra row', () => {
    expect(cutPage(rows(16))).toEqual({ items: rows(15), hasMore: true });
    expect(cutPage(rows(15))).toEqual({ items: rows(15), hasMore: false });
  });
  it('fetches exactly one row more than it shows', () => {
    const { limit } = messagePage();
    expect(cutPage(rows(limit)).hasMore).toBe(true);
    expect(cutPage(rows(limit - 1)).hasMore).toBe(false);
  });
});
