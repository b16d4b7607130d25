import { describe, expect, it } from 'vitest';
import { ARTICLE_SIZES, ARTICLE_STRATEGIES, articleWindow, type ArticleIndexes } from './articles.js';
import { CONTACT_LIMITS, CONTACT_PLAN, CONTACT_WALK_CAP, contactWindowPlannedOnce, firstContactWindow } from './contacts.js';
import {
  cappedReadCap,
  fewCandidatesScope,
  firstMessageStep,
  looseCandidates,
  MESSAGE_LIMITS,
  narrowingFirst,
  scopeShare,
  unseenMatches,
  wordShares,
} from './messages/postgres/estimates.js';
import type { MessageQuery } from './messages/query.js';
import { estimateShare, type ColumnStats, type LexemeStats, type TableStats } from './statistics.js';
import { CONVERSATION_LIMITS, CONVERSATION_STRATEGIES, firstConversationWindow, windowPlannedOnce } from './conversations.js';
import { COSTS } from './plan/costs.js';
import { chooseStrategy } from './plan/executor.js';
import type { Strategy } from './plan/strategy.js';
import type { ConversationsParams } from './params.js';
import { longerWindow, windowCanHold } from './plan/windows.js';
import { looksSpecific } from './text.js';

const ARTICLE_WINDOW = COSTS['articles.titleWindow'].value;
const ARTICLE_CONTENT_WINDOW = COSTS['articles.contentWindow'].value;
const CONVERSATION_WINDOW = COSTS['conversations.firstWindow'].value;
const CONVERSATION_SAMPLE_WINDOW = COSTS['conversations.sampleWindow'].value;

/**
 * The statements a plan runs, in order, when every step gives way (no rows found), up to the
 * strategy that always answers.
 */
function ladderOf<I>(strategies: ReadonlyArray<Strategy<I, never>>, input: I, last: string[]): string[] {
  const so = { found: [], tried: [] as string[], last: [] };
  for (let s = chooseStrategy(strategies, input, so).strategy; s; s = chooseStrategy(strategies, input, so).strategy) {
    so.tried.push(s.name);
    if (last.some((l) => s.name.endsWith(`.${l}`)) || so.tried.length > 8) break;
  }
  return so.tried.map((name) => name.split('.')[1]!);
}

describe('the article plan', () => {
  const all = { ordered: true, trigram: true, titleDescriptionTrigram: true, titleTrigram: true };
  const none = { ordered: false, trigram: false, titleDescriptionTrigram: false, titleTrigram: false };
  const articlePlan = (page: number, words: string[], indexes: ArticleIndexes) => {
    const input = { access: { accountId: 1 }, params: { q: words.join(' '), page }, words, indexes, sizes: ARTICLE_SIZES };
    return ladderOf(ARTICLE_STRATEGIES as never, input, ['matches', 'rank']);
  };
  it('walks with every index, else tries the newest titles, the trigram candidates, the tiers, then the plain statement', () => {
    expect(articlePlan(1, ['refund'], all)).toEqual(['walk', 'trigramTiers', 'matches']);
    const noTitle = { ...all, titleTrigram: false };
    expect(articlePlan(1, ['refund'], noTitle)).toEqual(['window', 'candidates', 'trigramTiers', 'matches']);
    expect(articlePlan(1, ['refund'], { ...all, ordered: false })).toEqual(['candidates', 'matches']);
    expect(articlePlan(1, ['refund'], { ...all, trigram: false })).toEqual(['window', 'trigramTiers', 'rank']);
    expect(articlePlan(1, ['refund'], { ...all, titleDescriptionTrigram: false })).toEqual([
      'window',
      'candidates',
      'tiers',
      'matches',
    ]);
    expect(articlePlan(1, ['refund'], { ...none, ordered: true })).toEqual(['window', 'tiers', 'rank']);
    expect(articlePlan(1, ['refund'], none)).toEqual(['rank']);
  });

  it('asks the trigram indexes only when some word has a trigram', () => {
    expect(articlePlan(1, ['to', 'up'], all)).toEqual(['window', 'tiers', 'rank']);
    expect(articlePlan(1, ['set', 'up'], all)).toEqual(['walk', 'trigramTiers', 'matches']);
  });

  it('walks and reads the newest contents only for a page they can hold', () => {
    const deepest = Math.floor((ARTICLE_CONTENT_WINDOW - 1) / 15);
    expect(articlePlan(deepest, ['refund'], all)).toEqual(['walk', 'trigramTiers', 'matches']);
    expect(articlePlan(deepest + 1, ['refund'], all)).toEqual(['candidates', 'matches']);
  });

  it('skips the window for a page deeper than the window holds', () => {
    const deepest = Math.floor((ARTICLE_WINDOW - 1) / 15);
    const noTitle = { ...all, titleTrigram: false };
    expect(articlePlan(deepest, ['refund'], noTitle)[0]).toBe('window');
    expect(articlePlan(deepest + 1, ['refund'], noTitle)[0]).toBe('candidates');
  });
});

describe('looksSpecific', () => {
  it('takes phone numbers, ids and full names for rare terms', () => {
    for (const q of [
      '8800164',
      'crm-0042580',
      'bold-lake-6678',
      '+44 7911',
      'Mia Carter',
      'Ана Петрова',
      'cus_917aea579e9405',
      'a1b2c3d4',
      'mateo_john',
    ])
      expect(looksSpecific(q), q).toBe(true);
  });

  it('takes single words, short numbers and fragments for possibly common ones', () => {
    for (const q of [
      'example',
      'gmail',
      'Wright',
      'j.kowal',
      '2024',
      '123',
      'Ben ',
      'Al Smith',
      'example.com',
      'victor.cost',
      'zara_sm',
      'mp3s',
      'ab12cd3',
      'cus_a1b2c3d',
    ])
      expect(looksSpecific(q), q).toBe(q === '2024');
  });
});

describe('longerWindow', () => {
  const LIMITS = { window: 250, walkCap: 20_000, room: 1.5 };
  const { window } = LIMITS;

  it('goes to the trigram index when the first window saw no match or there is no estimate', () => {
    expect(longerWindow(1, 0, 1_000_000, LIMITS)).toBeUndefined();
    expect(longerWindow(1, 5, undefined, LIMITS)).toBeUndefined();
    expect(longerWindow(1, 5, -1, LIMITS)).toBeUndefined();
  });

  it('walks further when the walk reads fewer rows than the trigram index would fetch', () => {
    // 10 matches in the window: the page needs about 1.6 windows; the index would fetch 1% of the table.
    const walk = Math.ceil(((16 * window) / 10) * 1.5);
    expect(longerWindow(1, 10, 1_000_000, LIMITS)).toBe(walk);
    // A small table: the index fetches fewer rows than the walk reads.
    expect(longerWindow(1, 10, (walk * window) / 10 - 1, LIMITS)).toBeUndefined();
  });

  it('counts the rows of earlier pages as matches and needs the whole page plus one', () => {
    const walk = Math.ceil(((31 * window) / 20) * 1.5);
    expect(longerWindow(2, 5, 1_000_000, LIMITS)).toBe(walk);
  });

  it('weighs the index by the rows it fetches when more than the matches', () => {
    // 10 matches but 40 rows holding the word's trigrams: the index fetches 4% of the table.
    const walk = Math.ceil(((16 * window) / 10) * 1.5);
    expect(longerWindow(1, 10, (walk * window) / 10 - 1, LIMITS, 40)).toBe(walk);
    expect(longerWindow(1, 10, 1_000_000, LIMITS, 5)).toBe(walk);
  });

  it('weighs a window that continues after the first by the rows still to read', () => {
    const limits = { window: 1_000, walkCap: 20_000, room: 1.5 };
    // 11 matches: the page is expected after 1,455 rows; the index would fetch 1,100 of 100,000.
    // Starting over reads 2,183 rows; continuing reads 455 new ones and about 91 again (the
    // first window's rows after its last match: 1,000 ÷ 11).
    expect(longerWindow(1, 11, 100_000, limits)).toBeUndefined();
    expect(longerWindow(1, 11, 100_000, limits, 0, true)).toBe(2_182);
    expect(longerWindow(1, 11, 50_000, limits, 0, true)).toBe(2_182);
    // Fewer rows for the index (440) than even the continuing walk (546): the index.
    expect(longerWindow(1, 11, 40_000, limits, 0, true)).toBeUndefined();
  });

  it('never walks past the cap', () => {
    // One match in the window: the walk reads 16 × 1.5 = 24 windows.
    expect(longerWindow(1, 1, 1e9, { window: 1_000, walkCap: 20_000, room: 1.5 })).toBeUndefined();
    expect(longerWindow(1, 1, 1e9, { window: 100, walkCap: 2_400, room: 1.5 })).toBe(2_400);
  });
});

describe('the conversation plan', () => {
  const conversationPlan = (params: ConversationsParams, ordered: boolean) => {
    const access = { accountId: 1, inboxIds: [1], role: 'administrator' as const };
    return ladderOf(CONVERSATION_STRATEGIES as never, { access, params, ordered, limits: CONVERSATION_LIMITS }, ['scan']);
  };
  it('walks the newest conversations first only where an index gives created_at order', () => {
    expect(conversationPlan({ q: 'kowalski' }, true)).toEqual(['window', 'candidates', 'scan']);
    expect(conversationPlan({ q: 'kowalski' }, false)).toEqual(['candidates', 'scan']);
  });

  it('sends a term without three letters or digits in a row to the plain statement when it cannot walk', () => {
    expect(conversationPlan({ q: 'li' }, false)).toEqual(['scan']);
    expect(conversationPlan({ q: 'li' }, true)).toEqual(['window', 'candidates', 'scan']);
  });

  it('sends a display id, phone number or full name to the candidates without walking', () => {
    for (const q of ['36359', 'crm-0022586', 'Olivia Garcia'])
      expect(conversationPlan({ q }, true), q).toEqual(['candidates', 'scan']);
  });

  it('skips the window for a page deeper than the window holds', () => {
    const deepest = Math.floor((CONVERSATION_WINDOW - 1) / 15);
    expect(conversationPlan({ q: 'kowalski', page: deepest }, true)[0]).toBe('window');
    expect(conversationPlan({ q: 'kowalski', page: deepest + 1 }, true)[0]).toBe('candidates');
  });
});

describe('windowCanHold', () => {
  it('needs room for every row up to the page end plus the row telling has_more', () => {
    expect(windowCanHold(1, 16)).toBe(true);
    expect(windowCanHold(1, 15)).toBe(false);
    expect(windowCanHold(2, 31)).toBe(true);
    expect(windowCanHold(2, 30)).toBe(false);
  });
});

describe('estimateShare', () => {
  const column = (c: Partial<ColumnStats>): ColumnStats => ({ nullFrac: 0, common: [], histogram: [], ...c });
  const stats = (columns: Record<string, ColumnStats>, rows = 1_000_000): TableStats => ({
    rows,
    columns: new Map(Object.entries(columns)),
  });

  it('adds the common values holding the term to the histogram share of the rest, folded', () => {
    const s = stats({
      name: column({
        nullFrac: 0.1,
        common: [
          { value: 'sofia li', share: 0.2 },
          { value: 'ana', share: 0.1 },
        ],
        // The rest, 60% of the rows, sampled by four bounds: one holds the term.
        histogram: ['bob', 'sofía', 'zoë', 'josofia'],
      }),
    });
    expect(estimateShare(s, ['name'], 'SOFIA')).toBeCloseTo(0.2 + 0.6 / 4);
    expect(estimateShare(s, ['name'], 'nobody')).toBe(0);
  });

  it('takes the column holding the term most often, and has no estimate when a column has no statistics', () => {
    const s = stats({ name: column({ histogram: ['ab', 'cd'] }), email: column({ histogram: ['ab', 'xy', 'zz', 'qq'] }) });
    expect(estimateShare(s, ['name', 'email'], 'ab')).toBeCloseTo(0.5);
    expect(estimateShare(s, ['name', 'email', 'phone_number'], 'ab')).toBeUndefined();
  });
});

describe('firstContactWindow', () => {
  const columns = (share: number, bounds: number): TableStats['columns'] =>
    new Map(
      ['name', 'email', 'phone_number', 'identifier'].map((c, i) => [
        c,
        {
          nullFrac: 0,
          common: [],
          // `bounds` bounds, `share` of them holding "term" in the name column only.
          histogram: Array.from({ length: bounds }, (_, j) => (i === 0 && j < share * bounds ? 'a term' : 'other')),
        },
      ]),
    );
  const at = (share: number, rows = 1_000_000, bounds = 10_000): TableStats => ({ rows, columns: columns(share, bounds) });
  const { window, walkCap } = CONTACT_LIMITS;

  it('reads 3 times the rows the page is expected to need when that is cheaper than the index', () => {
    // 2%: the page plus one row (16) after about 800 rows; the index would fetch 20,000 at 4 each.
    expect(firstContactWindow({ q: 'term' }, at(0.02))).toBe(2_400);
    // Page 2 needs 31 rows.
    expect(firstContactWindow({ q: 'term', page: 2 }, at(0.02))).toBe(4_650);
    // Never less than the sample window.
    expect(firstContactWindow({ q: 'term' }, at(0.5))).toBe(window);
  });

  it('samples a first window when the index looks cheaper, or no sampled value holds the term in a large table', () => {
    // 0.1% of 1,000,000, under what the sample can tell: up to 1%, 10,000 rows the index could
    // fetch at 4 each, past the longest walk.
    expect(firstContactWindow({ q: 'term' }, at(0.001))).toBe(window);
    // 1% of a table of 10,000: 100 fetched at 4 each against 1,600 read.
    expect(firstContactWindow({ q: 'term' }, at(0.01, 10_000))).toBe(window);
    // No sampled value holds it: in 1,000,000 rows its index read could fetch 10,000 at 4 each,
    // past the longest walk; in 100,000 the index answers at once.
    expect(firstContactWindow({ q: 'term' }, at(0))).toBe(window);
    expect(firstContactWindow({ q: 'term' }, at(0, 100_000))).toBe(0);
    expect(firstContactWindow({ q: 'Mia Carter' }, at(0.5))).toBe(0);
  });

  it('takes a term under 1 % as one no sampled value holds: a single sampled value cannot size it', () => {
    // One common email of 0.02 % holds it: the term may be in many more contacts, or none.
    // Where the index could fetch past the longest walk, the sample window; else the index.
    const rareCommon = (rows: number): TableStats => {
      const stats = at(0, rows);
      const email = stats.columns.get('email')!;
      stats.columns.set('email', { ...email, common: [{ value: 'a.term@example.com', share: 0.0002 }] });
      return stats;
    };
    expect(firstContactWindow({ q: 'term' }, rareCommon(100_000))).toBe(0);
    expect(firstContactWindow({ q: 'term' }, rareCommon(1_000_000))).toBe(window);
    // One histogram value of two hundred: 0.5 %, read the same way.
    expect(firstContactWindow({ q: 'term' }, at(0.005, 100_000, 200))).toBe(0);
    expect(firstContactWindow({ q: 'term' }, at(0.005, 1_000_000, 200))).toBe(window);
    // A common value of 2 % is a share the statistics know: the window it sizes.
    const common = rareCommon(100_000);
    common.columns.set('email', { ...common.columns.get('email')!, common: [{ value: 'a.term@example.com', share: 0.02 }] });
    expect(firstContactWindow({ q: 'term' }, common)).toBe(2_400);
  });

  it('weighs a share under 1 % as it is when several sampled values hold the term', () => {
    // A name of 125 sampled and two common emails (as Taylor at M): 0.8 %, the page after about
    // 2,000 rows, against 800 index rows at 4 each in 100,000: three times 2,000.
    const stats = at(0.008, 100_000, 125);
    const email = stats.columns.get('email')!;
    const common = [
      { value: 'ann.term@example.com', share: 0.0004 },
      { value: 'bo.term@example.com', share: 0.0004 },
    ];
    stats.columns.set('email', { ...email, common });
    expect(firstContactWindow({ q: 'term' }, stats)).toBe(6_000);
    // The name's one value alone: the index at once.
    stats.columns.set('email', email);
    expect(firstContactWindow({ q: 'term' }, stats)).toBe(0);
    // 0.5 % in fifty of 10,000 values: the index (500 rows at 4 each) is cheaper than the 3,200
    // rows a walk expects, so the sample window tells; alone, one of those values would send it
    // to the index at once (above).
    expect(firstContactWindow({ q: 'term' }, at(0.005, 100_000))).toBe(window);
  });

  it('never reads past the cap', () => {
    // 1%, page 5: 7,600 rows expected, 22,800 with room: the cap.
    expect(firstContactWindow({ q: 'term', page: 5 }, at(0.01, 1e9))).toBe(walkCap);
    // Page 14: 21,100 expected, past the cap: the sample window.
    expect(firstContactWindow({ q: 'term', page: 14 }, at(0.01, 1e9))).toBe(window);
  });

  it('reads the sample window without statistics, when it can hold the page', () => {
    expect(firstContactWindow({ q: 'term' }, undefined)).toBe(window);
    const deepest = Math.floor((window - 1) / 15);
    expect(firstContactWindow({ q: 'term', page: deepest + 1 }, undefined)).toBe(0);
  });
});

describe('windowPlannedOnce', () => {
  it("plans an administrator's first-page window once, its length rounded up to a ladder of ten steps a decade", () => {
    expect(windowPlannedOnce({ q: 'oliver' }, 446, 1)).toBe(501);
    expect(windowPlannedOnce({ q: 'oliver' }, 30, 1)).toBe(100);
    expect(windowPlannedOnce({ q: 'oliver' }, 1_000, 1)).toBe(1_000);
    expect(windowPlannedOnce({ q: 'oliver' }, 1_089, 1)).toBe(1_259);
    expect(windowPlannedOnce({ q: 'oliver' }, 10_000, 1)).toBe(10_000);
    const lengths = new Set(Array.from({ length: 10_000 }, (_, i) => windowPlannedOnce({ q: 'oliver' }, i + 1, 1)));
    expect(lengths.size).toBe(21);
  });
  it("plans an agent's window once while its walk stays within the longest window", () => {
    // 10 inboxes of 50: at most 2,000 ÷ 0.2 rows walked.
    expect(windowPlannedOnce({ q: 'oliver' }, 1_000, 0.2)).toBe(1_000);
    expect(windowPlannedOnce({ q: 'oliver' }, 1_995, 0.2)).toBe(1_995);
    expect(windowPlannedOnce({ q: 'oliver' }, 2_000, 0.2)).toBeUndefined();
    // 1 % of the account: 100 rows on the ladder, about 10,000 walked.
    expect(windowPlannedOnce({ q: 'oliver' }, 60, 0.01)).toBe(100);
    expect(windowPlannedOnce({ q: 'oliver' }, 60, 0.009)).toBeUndefined();
    expect(windowPlannedOnce({ q: 'oliver' }, 30, 0.0002)).toBeUndefined();
  });
  it('plans a later page, a window past the longest walk and one without statistics for their values', () => {
    expect(windowPlannedOnce({ q: 'oliver', page: 2 }, 446, 1)).toBeUndefined();
    expect(windowPlannedOnce({ q: 'oliver' }, 10_001, 1)).toBeUndefined();
    expect(windowPlannedOnce({ q: 'oliver' }, 446, undefined)).toBeUndefined();
    expect(windowPlannedOnce({ q: 'oliver' }, 446, 0)).toBeUndefined();
  });
});

describe('the contacts plan after a sample window', () => {
  // A million contacts; the sample window (250 newest) gave way holding `m` matches of the page.
  const after = (m: number) => {
    const input = { access: { accountId: 1 }, params: { q: 'term' }, limits: CONTACT_LIMITS, sized: CONTACT_LIMITS.window };
    const found = Array.from({ length: m }, (_, i) => ({ id: 1_000 - i, last_activity_at: 1_000 - i, table_rows: 1_000_000 }));
    const so = { found, tried: ['contacts.window'], last: found };
    return chooseStrategy(CONTACT_PLAN as never, input as never, so as never).strategy?.name;
  };

  it('reads the trigram index after one match: the walk a page needs from it has no expected length', () => {
    expect(after(1)).toBe('contacts.trigram');
  });

  it('walks on from the last match after a few, the index fetching about a match per 250 contacts', () => {
    expect(after(2)).toBe('contacts.window');
    expect(after(8)).toBe('contacts.window');
  });
});

describe('contactWindowPlannedOnce', () => {
  it("plans a first page's window once, its length rounded up to the ladder up to the longest walk", () => {
    expect(contactWindowPlannedOnce({ q: 'oliver' }, 250)).toBe(251);
    expect(contactWindowPlannedOnce({ q: 'oliver' }, 1_089)).toBe(1_259);
    expect(contactWindowPlannedOnce({ q: 'oliver' }, 19_954)).toBe(CONTACT_WALK_CAP);
    expect(contactWindowPlannedOnce({ q: 'oliver' }, CONTACT_WALK_CAP)).toBe(CONTACT_WALK_CAP);
    expect(contactWindowPlannedOnce({ q: 'oliver' }, CONTACT_WALK_CAP + 1)).toBeUndefined();
    expect(contactWindowPlannedOnce({ q: 'oliver', page: 2 }, 250)).toBeUndefined();
    expect(contactWindowPlannedOnce({ q: 'oliver' }, Number.NaN)).toBeUndefined();
  });
});

describe('firstConversationWindow', () => {
  const stats = (share: number, rows = 100_000): TableStats => ({
    rows,
    columns: new Map(
      ['name', 'email', 'phone_number', 'identifier'].map((c) => [
        c,
        { nullFrac: 0, common: [], histogram: Array.from({ length: 1_000 }, (_, j) => (j < share * 1_000 ? 'oliver' : 'x')) },
      ]),
    ),
  });

  it('reads 3 times the rows the contacts statistics say the page needs, up to the cap', () => {
    // 1%: the page plus one row after 1,600 conversations.
    expect(firstConversationWindow({ q: 'oliver' }, stats(0.01))).toBe(4_800);
    expect(firstConversationWindow({ q: 'oliver' }, stats(0.004))).toBe(CONVERSATION_LIMITS.walkCap);
  });

  it('reads none for a term no sampled contact holds, and the fixed window otherwise', () => {
    // 100,000 contacts: such a term is in at most about 1,000, whose candidates cost about as
    // much as 2,000 window rows, under the longest walk.
    expect(firstConversationWindow({ q: 'oliver' }, stats(0))).toBe(0);
    // 0.1%: 16,000 expected, past the cap: a first window whose matches decide.
    expect(firstConversationWindow({ q: 'oliver' }, stats(0.001))).toBe(CONVERSATION_WINDOW);
    expect(firstConversationWindow({ q: 'oliver' }, undefined)).toBe(CONVERSATION_WINDOW);
    // A time bound on last_activity_at makes the created_at walk read rows that do not count.
    expect(firstConversationWindow({ q: 'oliver', since: 1 }, stats(0.01))).toBe(CONVERSATION_WINDOW);
    // Digits are display ids, which the contacts' statistics know nothing of.
    expect(firstConversationWindow({ q: '123' }, stats(0))).toBe(CONVERSATION_WINDOW);
  });

  it('samples the newest conversations first for a term no sampled contact holds among a million contacts', () => {
    // Up to about 10,000 contacts, a window row each: past the longest walk (Baker at L, in 1.2 %
    // of contacts: the candidates 150 ms, a window 17). The bound is 1,000,000 contacts.
    expect(firstConversationWindow({ q: 'oliver' }, stats(0, 1_050_000))).toBe(CONVERSATION_SAMPLE_WINDOW);
    expect(firstConversationWindow({ q: 'oliver' }, stats(0, 1_000_000))).toBe(0);
    expect(firstConversationWindow({ q: 'oliver' }, stats(0, 1_000_001))).toBe(CONVERSATION_SAMPLE_WINDOW);
  });
});

describe('firstMessageStep', () => {
  // One account holding half the messages, in inboxes 1 (20% of the table) and 2 (30%).
  const stats: TableStats = {
    rows: 1_000_000,
    columns: new Map<string, ColumnStats>([
      ['content', { nullFrac: 0, common: [], histogram: ['where is my order', 'refund please', 'thanks', 'order 2'] }],
      ['account_id', { nullFrac: 0, common: [{ value: '1', share: 0.5 }], histogram: [], distinct: 2 }],
      [
        'inbox_id',
        {
          nullFrac: 0,
          common: [
            { value: '1', share: 0.2 },
            { value: '2', share: 0.3 },
          ],
          histogram: [],
          distinct: 2,
        },
      ],
      ['sender_id', { nullFrac: 0, common: [], histogram: [], distinct: 10_000 }],
    ]),
  };
  const query = (words: string[], more: Partial<MessageQuery> = {}): MessageQuery => ({
    accountId: 1,
    inboxIds: [1, 2],
    everyInbox: false,
    words,
    text: words.join(' '),
    since: 0,
    until: undefined,
    sender: undefined,
    offset: 0,
    limit: 16,
    ...more,
  });

  it("estimates the share of the account's messages the inboxes and the sender leave", () => {
    expect(scopeShare(query(['order']), stats)).toBeCloseTo(1);
    expect(scopeShare(query(['order'], { inboxIds: [1] }), stats)).toBeCloseTo(0.4);
    // One sender of 10,000: 1 in 5,000 of the account's messages.
    expect(scopeShare(query(['order'], { inboxIds: [1], sender: { type: 'User', id: '3' } }), stats)).toBeCloseTo(0.4 / 5_000);
  });

  it('tests the inboxes and the sender before the words in a window when they keep at most half the messages', () => {
    expect(narrowingFirst(query(['order']), stats)).toBe(false);
    // Inbox 2: 60 % of the account's messages; inbox 1: 40 %.
    expect(narrowingFirst(query(['order'], { inboxIds: [2] }), stats)).toBe(false);
    expect(narrowingFirst(query(['order'], { inboxIds: [1] }), stats)).toBe(true);
    expect(narrowingFirst(query(['order'], { sender: { type: 'Contact', id: '7' } }), stats)).toBe(true);
    expect(narrowingFirst(query(['order'], { inboxIds: [1] }), undefined)).toBe(false);
  });

  it("walks one inbox's messages for the word's share of them where that costs less than the trigram read of the inbox", () => {
    // 10 million messages of one account; inbox 1 holds 1 % of them (100,000), and `upgrade` is
    // in `share` of the sampled contents.
    const inboxStats = (share: number): TableStats => ({
      rows: 10_000_000,
      columns: new Map<string, ColumnStats>([
        [
          'content',
          { nullFrac: 0, common: [], histogram: Array.from({ length: 1_000 }, (_, i) => (i < share * 1_000 ? 'upgrade' : 'x')) },
        ],
        ['account_id', { nullFrac: 0, common: [{ value: '1', share: 1 }], histogram: [], distinct: 1 }],
        ['inbox_id', { nullFrac: 0, common: [{ value: '1', share: 0.01 }], histogram: [], distinct: 100 }],
        ['sender_id', { nullFrac: 0, common: [], histogram: [], distinct: 10_000 }],
      ]),
    });
    const one = query(['upgrade'], { inboxIds: [1] });
    // 1 %: the page after 1,600 of the inbox's rows, a window of 2,400 (at least 3,000), against
    // a read worth 1,000 visits × 10 = 10,000 rows.
    expect(firstMessageStep(one, inboxStats(0.01), MESSAGE_LIMITS, 'inbox')).toEqual({ strategy: 'window', window: 3_000 });
    // The account's walk would need 160,000 rows, past the longest walk.
    expect(firstMessageStep(one, inboxStats(0.01))).toEqual({ strategy: 'trigram' });
    // 0.6 %: a window of 4,000 against 6,000.
    expect(firstMessageStep(one, inboxStats(0.006), MESSAGE_LIMITS, 'inbox')).toEqual({ strategy: 'window', window: 4_000 });
    // 0.4 %: a window of 6,000 against 4,000: the trigram read.
    expect(firstMessageStep(one, inboxStats(0.004), MESSAGE_LIMITS, 'inbox')).toEqual({ strategy: 'trigram' });
    // A sender of 10,000 in the inbox: sized for the sender's share of its rows, past the longest walk.
    const sender = query(['upgrade'], { inboxIds: [1], sender: { type: 'User', id: '3' } });
    expect(firstMessageStep(sender, inboxStats(0.01), MESSAGE_LIMITS, 'inbox')).toEqual({ strategy: 'trigram' });
    expect(narrowingFirst(one, inboxStats(0.01), 'inbox')).toBe(false);
    expect(narrowingFirst(sender, inboxStats(0.01), 'inbox')).toBe(true);
  });

  it('reads the capped trigram matches when some word is in no sampled message, the trigram index past the cap', () => {
    // Past the cap: the 500,000 messages of the account hold 1,000 matches or more (cappedReadCap,
    // balanced at 1,095, on its ladder), so the page's 16 rows are within 8,000 of them, walked
    // half again.
    const capped = { strategy: 'capped', cap: 1_000, then: 12_000 };
    expect(firstMessageStep(query(['trougil']), stats)).toEqual(capped);
    expect(firstMessageStep(query(['order', 'trougil']), stats)).toEqual(capped);
    // Inbox 1 holds 200,000 of them, with the least cap: 3,200 rows, walked half again.
    expect(firstMessageStep(query(['trougil'], { inboxIds: [1] }), stats)).toEqual({
      strategy: 'capped',
      cap: MESSAGE_LIMITS.capped,
      then: 4_800,
    });
    // A page past the largest cap, ten times the least.
    const pastCap = { offset: Math.ceil((10 * MESSAGE_LIMITS.capped) / 15) * 15 };
    expect(firstMessageStep(query(['trougil'], pastCap), stats)).toEqual({ strategy: 'trigram' });
  });

  it("weighs a word the word index serves by the common words it starts, from the index's statistics", () => {
    // `letr` is in no sampled content's words but inside `pletrath`, in every sampled content.
    const sampled: TableStats = {
      ...stats,
      columns: new Map([
        ...stats.columns,
        ['content', { nullFrac: 0, common: [], histogram: ['pletrath arrived', 'a pletrath'] }],
      ]),
    };
    const lexemes: LexemeStats = {
      lexemes: ['a', 'arrived', 'order', 'orders', 'pletrath'],
      shares: [0.3, 0.2, 0.1, 0.05, 0.9],
      least: 0.05,
    };
    const [letr, order, pletr, accented] = wordShares(query(['letr', 'order', 'pletr', 'ordér']), sampled, lexemes);
    expect([letr, pletr, accented]).toEqual([0, 0.9, 0]);
    expect(order).toBeCloseTo(0.15);
    // Without them, the sampled contents holding it anywhere (and a word the index does not
    // serve, with them too).
    expect(wordShares(query(['letr', 'ordér']), sampled)).toEqual([1, 0]);
    expect(
      firstMessageStep(query(['letr']), sampled, MESSAGE_LIMITS, 'account', wordShares(query(['letr']), sampled, lexemes)),
    ).toEqual({
      strategy: 'capped',
      cap: 1_000,
      then: 12_000,
    });
    expect(firstMessageStep(query(['letr']), sampled)).toEqual({ strategy: 'window', window: 3_000 });
  });

  it('reads the capped matches of a word read through the word index that the statistics expect in fewer messages than the cap', () => {
    // The account's 500,000 messages, the cap 1,000: 0.1 % of them is 500 matches, 0.3 % 1,500.
    expect(firstMessageStep(query(['keyboard']), stats, MESSAGE_LIMITS, 'account', [0.001], 0.001)).toEqual({
      strategy: 'capped',
      cap: 1_000,
      then: 12_000,
    });
    expect(firstMessageStep(query(['keyboard']), stats, MESSAGE_LIMITS, 'account', [0.003], 0.003).strategy).toBe('window');
    // Read through the trigram index, the same share gets its window.
    expect(firstMessageStep(query(['keyboard']), stats, MESSAGE_LIMITS, 'account', [0.001]).strategy).toBe('window');
    // Inbox 1, 200,000 messages: 0.4 % of them is 800 matches, but the word index reads a word of
    // 0.7 % of the table, 7,000 rows' worth. The account's walk would read 10,000 rows for the
    // page; the inbox's own, 4,000 (its window 6,000).
    const inbox = query(['keyboard'], { inboxIds: [1] });
    expect(firstMessageStep(inbox, stats, MESSAGE_LIMITS, 'account', [0.004], 0.007).strategy).toBe('capped');
    expect(firstMessageStep(inbox, stats, MESSAGE_LIMITS, 'inbox', [0.004], 0.007)).toEqual({
      strategy: 'window',
      window: 6_000,
    });
    // Two words in inbox 1, in 0.4 % and 0.3 % of it: the page is 8,000 rows of the inbox's walk
    // away (5,300 read, about); the word index's read by a word of 0.3 % of the table is 3,000 rows'
    // worth, by one of 0.6 % 6,000, past the walk, which is past that read.
    const two = query(['keyboard', 'clavier'], { inboxIds: [1] });
    expect(firstMessageStep(two, stats, MESSAGE_LIMITS, 'inbox', [0.004, 0.003], 0.003).strategy).toBe('capped');
    expect(firstMessageStep(two, stats, MESSAGE_LIMITS, 'inbox', [0.004, 0.003], 0.006).strategy).toBe('trigram');
  });

  it('raises the cap with the scope, to where visiting the matches costs what the window after them walks', () => {
    const cap = (more: Partial<MessageQuery>, s: TableStats = stats) =>
      cappedReadCap(query(['trougil'], more), s, MESSAGE_LIMITS);
    // The account's 500,000 messages: √(1.5 × 16 × 500,000 ÷ 10) = 1,095, the ladder's nearest
    // step 1,000 (the next is 1,260).
    expect(cap({})).toBe(1_000);
    // Inbox 1, 2 in 5 of them: each match costs more candidates outside the scope; the least cap.
    expect(cap({ inboxIds: [1] })).toBe(MESSAGE_LIMITS.capped);
    // Ten times the table: 5 million messages, √(1.5 × 16 × 5,000,000 ÷ 10) = 3,464, the ladder's
    // 3,175 (1,000 × 2^(5/3)); past it the cap reached leaves a window of 1.5 × 16 × 5,000,000 ÷
    // 3,175 rows, not the longest walk (40,000).
    const large = { ...stats, rows: 10_000_000 };
    expect(cap({}, large)).toBe(3_175);
    expect(firstMessageStep(query(['trougil']), large)).toEqual({ strategy: 'capped', cap: 3_175, then: 37_796 });
    // Page 40 (601 rows): at most ten times the least cap.
    expect(cap({ offset: 39 * 15 }, large)).toBe(10 * MESSAGE_LIMITS.capped);
    // Without statistics of the account and the inboxes: the whole table is the scope (1,549: the
    // ladder's 1,587).
    expect(cap({}, { rows: 1_000_000, columns: new Map() })).toBe(1_587);
  });

  it('reads the trigram index for a short word no sampled message holds when the scope is large', () => {
    // Ten times the table: the account's 5 million messages may hold 50,000 of an unseen word,
    // past the longest walk (40,000); inbox 1 (2 million) at most 20,000.
    const large = { ...stats, rows: 10_000_000 };
    const sample = { strategy: 'trigram' };
    expect(unseenMatches(query(['trou']), large)).toBeCloseTo(50_000);
    expect(looseCandidates(query(['trou']))).toBe(true);
    expect(firstMessageStep(query(['trou']), large)).toEqual(sample);
    expect(firstMessageStep(query(['tro']), large)).toEqual(sample);
    expect(firstMessageStep(query(['trou']), stats)).toMatchObject({ strategy: 'capped' });
    expect(firstMessageStep(query(['trou'], { inboxIds: [1] }), large)).toMatchObject({ strategy: 'capped' });
    // One sender's share of them: the capped read.
    expect(firstMessageStep(query(['trou'], { sender: { type: 'User', id: '3' } }), large)).toMatchObject({
      strategy: 'capped',
    });
    // A longer word's candidates are its matches, nearly: the capped read answers a rare one.
    expect(looseCandidates(query(['trougil']))).toBe(false);
    expect(looseCandidates(query(['trou', 'gil']))).toBe(false);
    expect(firstMessageStep(query(['trougil']), large)).toMatchObject({ strategy: 'capped' });
  });

  it("sizes the window for the page at the words' share in the scope, the index past the longest walk", () => {
    // "order": half the sampled messages, all inboxes: the least window is plenty.
    expect(firstMessageStep(query(['order']), stats)).toEqual({ strategy: 'window', window: MESSAGE_LIMITS.window });
    // "refund" (1/4) in inbox 1 (2/5 of the account): 16 rows expected in 160, the least window.
    expect(firstMessageStep(query(['refund'], { inboxIds: [1] }), stats)).toEqual({ strategy: 'window', window: 3_000 });
    // Page 40 of it: 601 rows in 6,010, walked half again.
    expect(firstMessageStep(query(['refund'], { inboxIds: [1], offset: 39 * 15 }), stats)).toEqual({
      strategy: 'window',
      window: Math.ceil(((40 * 15 + 1) / 0.1) * 1.5),
    });
    // One sender: 16 rows expected in 800,000, past the longest walk.
    expect(firstMessageStep(query(['refund'], { sender: { type: 'User', id: '3' } }), stats)).toEqual({ strategy: 'trigram' });
  });

  it('goes to the index for a code, and walks the plain window without statistics', () => {
    expect(firstMessageStep(query(['tck-50088']), stats)).toEqual({ strategy: 'trigram', few: true });
    expect(firstMessageStep(query(['trougil']), undefined)).toEqual({ strategy: 'window', window: MESSAGE_LIMITS.window });
  });

  it('hides the scope from the indexes for few candidates, however small (messages.scopeIndex pruned)', () => {
    expect(fewCandidatesScope(query(['trougil']), stats)).toBe('hidden');
    expect(fewCandidatesScope(query(['trougil'], { inboxIds: [1] }), stats)).toBe('hidden');
    // A small account (1 in 10,000 of a million messages: 100 in all).
    const small = { ...stats, columns: new Map(stats.columns) };
    small.columns.set('account_id', { nullFrac: 0, common: [{ value: '1', share: 0.0001 }], histogram: [], distinct: 2 });
    expect(fewCandidatesScope(query(['trougil']), small)).toBe('hidden');
    expect(fewCandidatesScope(query(['trougil']), small, MESSAGE_LIMITS.capped)).toBe('indexed');
    expect(fewCandidatesScope(query(['trougil']), undefined)).toBe('hidden');
  });

  it('weighs the capped read: the scope hidden when its index costs more than the visits of a common word', () => {
    const cap = MESSAGE_LIMITS.capped;
    // The account's 500,000 messages: its index read costs more than visiting 2,000 candidates.
    expect(fewCandidatesScope(query(['trougil']), stats, cap)).toBe('hidden');
    // Inbox 1's 200,000 of a million: 200,000 entries against 5,000 visits, an entry costing a
    // visit (messages.visitEntries pruned) — hidden; a table a hundred times larger makes it
    // 500,000 visits, and the index is read.
    expect(fewCandidatesScope(query(['trougil'], { inboxIds: [1] }), stats, cap)).toBe('hidden');
    const larger = { ...stats, rows: 100_000_000 };
    const thin = { ...larger, columns: new Map(larger.columns) };
    thin.columns.set('inbox_id', { nullFrac: 0, common: [{ value: '1', share: 0.002 }], histogram: [], distinct: 500 });
    expect(fewCandidatesScope(query(['trougil'], { inboxIds: [1] }), thin, cap)).toBe('indexed');
    expect(fewCandidatesScope(query(['trougil'], { inboxIds: [1] }), thin)).toBe('hidden');
  });
});

describe('articleWindow', () => {
  const titles: TableStats = {
    rows: 20_000,
    columns: new Map([
      ['title', { nullFrac: 0, common: [], histogram: ['Reset your password', 'Billing and invoices', 'Set up SSO'] }],
    ]),
  };

  it('skips the title window when a word is in no sampled title', () => {
    expect(articleWindow(['douc'], titles)).toBe(0);
    expect(articleWindow(['password', 'douc'], titles)).toBe(0);
  });

  it('keeps it for words the sampled titles hold, and without statistics', () => {
    expect(articleWindow(['PASSWORD'], titles)).toBe(ARTICLE_WINDOW);
    expect(articleWindow(['set', 'up'], titles)).toBe(ARTICLE_WINDOW);
    expect(articleWindow(['douc'], undefined)).toBe(ARTICLE_WINDOW);
  });
});
