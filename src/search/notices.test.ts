import { describe, expect, it } from 'vitest';
import { buildFirstMatchSearch, firstMatchOfHits } from './messages/first-match.js';
import { describeChecks, shorterForms, wordCheckNotices, type FirstMatch } from './notices.js';
import { createLogger } from '../logger.js';

const logger = createLogger('silent');

describe('shorterForms', () => {
  it('drops one or two trailing letters, never below four letters', () => {
    expect(shorterForms('refunds')).toEqual(['refund', 'refun']);
    expect(shorterForms('boxes')).toEqual(['boxe']);
    expect(shorterForms('pack')).toEqual([]);
    // Letters, not UTF-16 units.
    expect(shorterForms('çağrılar')).toEqual(['çağrıla', 'çağrıl']);
  });
});

describe('wordCheckNotices', () => {
  /** A first-match that records its calls and answers from `matching` (forms that match). */
  const recorder = (matching: string[]) => {
    const calls: string[][] = [];
    const firstMatch: FirstMatch = (forms) => {
      calls.push(forms);
      const i = forms.findIndex((f) => matching.includes(f));
      return Promise.resolve(i < 0 ? undefined : i);
    };
    return { calls, firstMatch };
  };
  const opts = { shorter: true, noun: 'message', logger };

  it('makes one call per word, five words at most, with the word first when there are several', async () => {
    const r = recorder(['damaged']);
    await wordCheckNotices(['damaged', 'parcels', 'a', 'b', 'c', 'd', 'e'], r.firstMatch, opts);
    expect(r.calls).toEqual([['damaged', 'damage', 'damag'], ['parcels', 'parcel', 'parce'], ['a'], ['b'], ['c']]);
  });

  it('checks only the shorter forms of a single word, and nothing when it has none', async () => {
    const r = recorder([]);
    expect(await wordCheckNotices(['refunds'], r.firstMatch, opts)).toEqual([]);
    expect(await wordCheckNotices(['box'], r.firstMatch, opts)).toEqual([]);
    expect(r.calls).toEqual([['refund', 'refun']]);
  });

  it('asks an engine that stems for the words alone', async () => {
    const r = recorder(['damaged']);
    await wordCheckNotices(['damaged', 'parcels'], r.firstMatch, { ...opts, shorter: false });
    await wordCheckNotices(['parcels'], r.firstMatch, { ...opts, shorter: false });
    expect(r.calls).toEqual([['damaged'], ['parcels']]);
  });

  it('gives no word notice when a check fails', async () => {
    const failing: FirstMatch = () => Promise.reject(new Error('statement timeout'));
    expect(await wordCheckNotices(['damaged', 'parcel'], failing, opts)).toEqual([]);
  });
});

describe('describeChecks', () => {
  it('says which words match alone and which shorter form matches', () => {
    expect(
      describeChecks(
        [
          { word: 'damaged', alone: true, shorter: undefined },
          { word: 'parcels', alone: false, shorter: 'parcel' },
        ],
        2,
        'message',
      ),
    ).toEqual([
      'No message has every word; `damaged` alone matches, `parcels` does not: drop the words that do not match.',
      '`parcels` finds nothing; `parcel` matches — words must start a word of the text, so try the shorter form.',
    ]);
  });

  it('says how many words were checked when there were more', () => {
    const checks = ['a', 'b', 'c', 'd', 'e'].map((word) => ({ word, alone: false, shorter: undefined }));
    expect(describeChecks(checks, 7, 'article')).toEqual([
      'No article has any of the words `a`, `b`, `c`, `d` and `e`, even alone (the first 5 words were checked).',
    ]);
  });
});

describe('the query-DSL word check', () => {
  it('scores the first form highest, so the best hit names it', () => {
    const body = buildFirstMatchSearch([{ term: { account_id: 1 } }], [{ a: 1 }, { b: 1 }, { c: 1 }]);
    expect(body).toMatchObject({
      size: 1,
      query: {
        bool: {
          filter: [{ term: { account_id: 1 } }],
          should: [
            { constant_score: { filter: { a: 1 }, boost: 4 } },
            { constant_score: { filter: { b: 1 }, boost: 2 } },
            { constant_score: { filter: { c: 1 }, boost: 1 } },
          ],
          minimum_should_match: 1,
        },
      },
    });
    const hit = (score: number) => [{ id: undefined, sort: [score, 0] }];
    expect(firstMatchOfHits(hit(7), 3)).toBe(0);
    expect(firstMatchOfHits(hit(4), 3)).toBe(0);
    expect(firstMatchOfHits(hit(3), 3)).toBe(1);
    expect(firstMatchOfHits(hit(1), 3)).toBe(2);
    expect(firstMatchOfHits([], 3)).toBeUndefined();
  });
});
