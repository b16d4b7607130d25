import { describe, expect, it } from 'vitest';
import { SearchError } from '../errors.js';
import {
  coerceNumericStrings,
  getConversationParamsSchema,
  parseParams,
  parseQueryParams,
  parseWith,
  queryInput,
  readInputProblems,
  type Operation,
} from './params.js';
import { timeMessage } from './times.js';

const fail = (fn: () => unknown): SearchError => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SearchError);
    expect((e as SearchError).code).toBe('invalid_params');
    return e as SearchError;
  }
  throw new Error('expected a SearchError');
};
const SINCE = timeMessage('since');
const UNTIL = timeMessage('until');
const rest = <O extends Operation>(op: O, qs: string) => parseQueryParams(op, new URLSearchParams(qs));

describe('q (contract §3)', () => {
  it('is required', () => {
    expect(fail(() => parseParams('contacts', {})).message).toBe('q is required');
    expect(fail(() => rest('contacts', 'page=2')).message).toBe('q is required');
  });
  it('is trimmed and must not be blank', () => {
    expect(parseParams('contacts', { q: '  ab  ' }).q).toBe('ab');
    expect(fail(() => parseParams('contacts', { q: '   ' })).message).toBe('q must not be blank');
    expect(fail(() => rest('contacts', 'q=')).message).toBe('q must not be blank');
  });
  it('is at most 500 characters after trimming', () => {
    expect(parseParams('contacts', { q: ` ${'a'.repeat(500)} ` }).q).toHaveLength(500);
    expect(fail(() => parseParams('contacts', { q: 'a'.repeat(501) })).message).toBe('q must be at most 500 characters');
  });
  it('must not contain NUL', () => {
    expect(fail(() => parseParams('contacts', { q: 'a\u0000b' })).message).toBe('q must not contain NUL characters');
  });
  it('must be well-formed Unicode', () => {
    expect(fail(() => parseParams('contacts', { q: 'a\ud83d' })).message).toBe('q must be valid Unicode text');
    expect(parseParams('contacts', { q: 'a😀' }).q).toBe('a😀');
  });
  it('must be a string', () => {
    expect(fail(() => parseParams('contacts', { q: 5 })).message).toBe('q must be a string');
    expect(fail(() => parseParams('contacts', { q: ['a'] })).message).toBe('q must be a string');
  });
});

describe('page, since, until, inbox_id', () => {
  it('accepts integers 1–500 for page, from numbers or REST text', () => {
    expect(parseParams('contacts', { q: 'a', page: 500 }).page).toBe(500);
    expect(rest('contacts', 'q=a&page=2').page).toBe(2);
    expect(rest('contacts', 'q=a&page=').page).toBeUndefined();
  });
  it.each([0, 501, 1.5, -1, '2', null])('rejects page %j', (page) => {
    expect(fail(() => parseParams('contacts', { q: 'a', page })).message).toBe('page must be an integer between 1 and 500');
  });
  it.each(['abc', '1.0', '1e2', '0x10', '9'.repeat(30)])('rejects REST page=%s', (page) => {
    expect(fail(() => rest('contacts', `q=a&page=${page}`)).message).toBe('page must be an integer between 1 and 500');
  });
  it('validates since and until as non-negative integer seconds', () => {
    expect(parseParams('contacts', { q: 'a', since: 0, until: 1_700_000_000 })).toMatchObject({ since: 0, until: 1_700_000_000 });
    expect(fail(() => parseParams('contacts', { q: 'a', since: -1 })).message).toBe(SINCE);
    expect(fail(() => parseParams('conversations', { q: 'a', until: 1.5 })).message).toBe(UNTIL);
    expect(fail(() => rest('messages', 'q=a&until=yesterday')).message).toBe(UNTIL);
    expect(fail(() => parseParams('contacts', { q: 'a', since: 1e20 })).message).toBe(SINCE);
  });
  it('accepts since and until as ISO 8601 too, from MCP arguments and REST text alike (contract §10)', () => {
    const day = Date.parse('2026-11-28T00:00:00Z') / 1000;
    expect(parseParams('contacts', { q: 'a', since: '2026-11-28', until: '2026-11-28' })).toMatchObject({
      since: day,
      until: day + 86_399,
    });
    expect(rest('messages', 'q=a&since=2026-11-28T09:00:00Z&until=2026-11-28T10:00:00%2B01:00')).toMatchObject({
      since: day + 9 * 3600,
      until: day + 9 * 3600,
    });
    expect(rest('conversations', 'q=a&since=1700000000').since).toBe(1_700_000_000);
    expect(fail(() => rest('messages', 'q=a&since=28.11.2026')).message).toBe(SINCE);
    expect(fail(() => parseParams('all', { q: 'a', until: '2026-11-28T09:00:00' })).message).toBe(UNTIL);
    expect(SINCE).toBe(
      'since must be a Unix timestamp in seconds or an ISO 8601 date or date-time (e.g. 2026-11-28 or 2026-11-28T09:00:00Z)',
    );
  });
  it('validates inbox_id as a positive integer', () => {
    expect(rest('messages', 'q=a&inbox_id=3').inbox_id).toBe(3);
    for (const inbox_id of [0, -2, 'x', 2.5]) {
      expect(fail(() => parseParams('messages', { q: 'a', inbox_id })).message).toBe('inbox_id must be a positive integer');
    }
  });
});

describe('from', () => {
  it('is never an error', () => {
    expect(parseParams('messages', { q: 'a', from: 'contact:1' }).from).toBe('contact:1');
    expect(parseParams('messages', { q: 'a', from: 42 }).from).toBeUndefined();
    expect(rest('messages', 'q=a&from=x&from=y').from).toBeUndefined();
  });
});

describe('which parameters an operation takes', () => {
  it('rejects unknown MCP arguments', () => {
    expect(fail(() => parseParams('articles', { q: 'a', since: 1 })).message).toBe('unknown argument: since');
    expect(fail(() => parseParams('contacts', { q: 'a', x: 1, y: 2 })).message).toBe('unknown arguments: x, y');
  });
  it('ignores unknown REST parameters', () => {
    expect(rest('articles', 'q=a&since=1&foo=bar')).toEqual({ q: 'a' });
  });
  it('rejects a repeated REST parameter', () => {
    expect(fail(() => rest('contacts', 'q=a&q=b')).message).toBe('q must be given once');
  });
});

describe('every problem in one message (issue 14)', () => {
  it('lists each argument problem once, in the schema order, unknown arguments last', () => {
    expect(fail(() => parseParams('messages', { q: ' ', page: 0, since: -1, until: -2, bogus: 1 })).message).toBe(
      `q must not be blank; page must be an integer between 1 and 500; ${SINCE}; ${UNTIL}; unknown argument: bogus`,
    );
    expect(fail(() => rest('contacts', 'q=a&q=b&page=1&page=2')).message).toBe('q must be given once; page must be given once');
  });

  it('gives a value of the wrong type one problem, not the checks after it', () => {
    expect(fail(() => parseParams('contacts', { q: [] })).message).toBe('q must be a string');
  });
});

describe('integers as decimal text (issue 14)', () => {
  it('reads integer arguments sent as decimal text, and leaves every other value alone', () => {
    expect(coerceNumericStrings({ page: '2', since: ' 10 ', id: '+3', q: '5', from: '7', before: '1.5', after: '0x1' })).toEqual({
      page: 2,
      since: 10,
      id: 3,
      q: '5',
      from: '7',
      before: '1.5',
      after: '0x1',
    });
  });
});

describe('get_conversation parameters (issue 14)', () => {
  const read = (input: Record<string, unknown>) =>
    parseWith(getConversationParamsSchema, input, readInputProblems('get_conversation', input));

  it('takes display_id or id, one cursor, and include_activity', () => {
    expect(read({ display_id: 4, before: 9, include_activity: true })).toEqual({
      display_id: 4,
      before: 9,
      include_activity: true,
    });
    expect(read({ id: 4, after: 9 })).toEqual({ id: 4, after: 9 });
  });

  it('names what is missing or given twice together with the fields’ own problems', () => {
    expect(fail(() => read({})).message).toBe('display_id or id is required');
    expect(fail(() => read({ display_id: 0.5, id: 2, before: 1, after: 'x' })).message).toBe(
      'display_id must be a positive integer; after must be a positive integer; give display_id or id, not both; give before or after, not both',
    );
    expect(fail(() => read({ id: 1, include_activity: 'yes' })).message).toBe('include_activity must be true or false');
  });

  it('reads REST booleans as true/false or 1/0 and leaves anything else for the schema to refuse', () => {
    const q = (s: string) => queryInput(getConversationParamsSchema, new URLSearchParams(s));
    expect(q('include_activity=TRUE&before=3')).toEqual({ include_activity: true, before: 3 });
    expect(q('include_activity=0')).toEqual({ include_activity: false });
    expect(q('include_activity=yes')).toEqual({ include_activity: 'yes' });
  });
});
