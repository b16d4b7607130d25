import { describe, expect, it } from 'vitest';
import type { Db, SqlQuery } from '../db/db.js';
import { onAdvice } from '../events.js';
import {
  lexemeStats,
  prefixShare,
  sampledValuesHolding,
  shareWithinAccount,
  STATS_TTL_MS,
  tableStats,
  valuesShare,
  type TableStats,
} from './statistics.js';

/** A Db answering the statistics statement with `rows`, or failing when `fail` is set; counts its calls. */
function fakeDb(rows: () => object[], fail: () => boolean = () => false) {
  const calls: SqlQuery[] = [];
  const db: Db = {
    kind: 'pg',
    query: <R extends object>(q: SqlQuery) => {
      calls.push(q);
      return fail() ? Promise.reject(new Error('down')) : Promise.resolve(rows() as R[]);
    },
    ping: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  return { db, calls };
}

const row = (attname: string, hist: string[]) => ({
  attname,
  null_frac: 0,
  mcv: ['Ana'],
  mcf: [0.5],
  n_distinct: -0.5,
  hist,
  table_rows: 1000,
});

describe('tableStats', () => {
  it('reads once per TTL, folds the values, and answers with the copy in hand while a newer one loads', async () => {
    let hist = ['Bob'];
    const { db, calls } = fakeDb(() => [row('name', hist)]);
    const first = await tableStats(db, 'contacts', ['name'], 1_000);
    expect(first?.rows).toBe(1000);
    // n_distinct -0.5: half the table's 1,000 rows are distinct values.
    expect(first?.columns.get('name')).toEqual({
      nullFrac: 0,
      common: [{ value: 'ana', share: 0.5 }],
      histogram: ['bob'],
      distinct: 500,
    });
    expect(await tableStats(db, 'contacts', ['name'], 1_000 + STATS_TTL_MS - 1)).toBe(first);
    expect(calls).toHaveLength(1);

    hist = ['Zoë'];
    // Past the TTL: the old copy now, the new one from the next call on.
    expect(await tableStats(db, 'contacts', ['name'], 1_000 + STATS_TTL_MS)).toBe(first);
    await new Promise((r) => setImmediate(r));
    const second = await tableStats(db, 'contacts', ['name'], 1_000 + STATS_TTL_MS + 1);
    expect(second?.columns.get('name')?.histogram).toEqual(['zoë']);
    expect(calls).toHaveLength(2);
  });

  it('keeps the last statistics when a read fails, and has none when the first read fails', async () => {
    let down = false;
    const { db } = fakeDb(
      () => [row('name', ['Bob'])],
      () => down,
    );
    const first = await tableStats(db, 'contacts', ['name'], 0);
    down = true;
    await tableStats(db, 'contacts', ['name'], STATS_TTL_MS);
    await new Promise((r) => setImmediate(r));
    expect(await tableStats(db, 'contacts', ['name'], STATS_TTL_MS + 1)).toBe(first);

    const { db: downDb } = fakeDb(
      () => [],
      () => true,
    );
    expect(await tableStats(downDb, 'contacts', ['name'], 0)).toBeUndefined();
  });

  it('has none for a table never analysed', async () => {
    const { db } = fakeDb(() => []);
    expect(await tableStats(db, 'contacts', ['name'], 0)).toBeUndefined();
  });
});

describe('valuesShare', () => {
  /** Inboxes 5 and 7 common with the shares given, `nullFrac` NULL, the rest spread over 8 values. */
  const inboxStats = (five: number, seven: number, nullFrac: number): TableStats => ({
    rows: 1_000,
    columns: new Map([
      [
        'inbox_id',
        {
          nullFrac,
          common: [
            { value: '5', share: five },
            { value: '7', share: seven },
          ],
          histogram: [],
          distinct: 10,
        },
      ],
    ]),
  });
  // 5 and 7 are common (30% and 20%); 10% are NULL; the other 40% spread over 8 values.
  const stats = inboxStats(0.3, 0.2, 0.1);

  it("adds the common values' shares and an equal part of the rest for each other value", () => {
    expect(valuesShare(stats, 'inbox_id', [5])).toBeCloseTo(0.3);
    expect(valuesShare(stats, 'inbox_id', [5, 7, 7])).toBeCloseTo(0.5);
    expect(valuesShare(stats, 'inbox_id', [5, 99])).toBeCloseTo(0.3 + 0.4 / 8);
    expect(valuesShare(stats, 'sender_id', [5])).toBeUndefined();
  });

  it('weighs a list again for new statistics, and each list for itself', () => {
    const inboxes = [5, 7];
    expect(valuesShare(stats, 'inbox_id', inboxes)).toBeCloseTo(0.5);
    expect(valuesShare(stats, 'inbox_id', inboxes)).toBeCloseTo(0.5);
    expect(valuesShare(stats, 'inbox_id', [5, 99])).toBeCloseTo(0.3 + 0.4 / 8);
    // A new read of the statistics (inbox 7 now holds 40 %) is weighed anew for the same list.
    expect(valuesShare(inboxStats(0.3, 0.4, 0), 'inbox_id', inboxes)).toBeCloseTo(0.7);
    expect(valuesShare(stats, 'sender_id', inboxes)).toBeUndefined();
  });
});

describe('shareWithinAccount', () => {
  const stats: TableStats = {
    rows: 1_000,
    columns: new Map([
      // Account 1 holds 80% of the rows, account 2 the other 20%.
      [
        'account_id',
        {
          nullFrac: 0,
          common: [
            { value: '1', share: 0.8 },
            { value: '2', share: 0.2 },
          ],
          histogram: [],
          distinct: 2,
        },
      ],
      // Inbox 5 (account 1) holds 40%, inbox 9 (account 2) 10%; the other 50% over 10 values.
      [
        'inbox_id',
        {
          nullFrac: 0,
          common: [
            { value: '5', share: 0.4 },
            { value: '9', share: 0.1 },
          ],
          histogram: [],
          distinct: 12,
        },
      ],
    ]),
  };

  it("gives the inboxes' share of the account's rows, not of the table's", () => {
    expect(shareWithinAccount(stats, 1, 'inbox_id', [5])).toBeCloseTo(0.5);
    expect(shareWithinAccount(stats, 2, 'inbox_id', [9])).toBeCloseTo(0.5);
    expect(shareWithinAccount(stats, 1, 'inbox_id', [5, 40])).toBeCloseTo((0.4 + 0.05) / 0.8);
    // Never more than all of the account's.
    expect(shareWithinAccount(stats, 2, 'inbox_id', [5])).toBe(1);
  });

  it('is unknown without statistics of the column', () => {
    expect(shareWithinAccount(stats, 1, 'sender_id', [5])).toBeUndefined();
    expect(shareWithinAccount({ rows: 0, columns: new Map() }, 1, 'inbox_id', [5])).toBeUndefined();
  });
});

describe('sampledValuesHolding', () => {
  const stats: TableStats = {
    rows: 100_000,
    columns: new Map([
      ['name', { nullFrac: 0, common: [{ value: 'olivia taylor', share: 0.0004 }], histogram: ['ann lee', 'max taylor'] }],
      ['email', { nullFrac: 0, common: [], histogram: ['taylor.j@example.com', 'bo@example.com'] }],
    ]),
  };

  it('counts the common values and histogram bounds of every column that hold the term, folded', () => {
    expect(sampledValuesHolding(stats, ['name', 'email'], 'TAYLOR')).toBe(3);
    expect(sampledValuesHolding(stats, ['name'], 'Taylor')).toBe(2);
    expect(sampledValuesHolding(stats, ['name', 'email'], 'lee')).toBe(1);
    expect(sampledValuesHolding(stats, ['name', 'email'], 'quill')).toBe(0);
  });

  it('counts nothing for a column without statistics', () => {
    expect(sampledValuesHolding(stats, ['phone_number'], 'taylor')).toBe(0);
  });
});

describe('lexemeStats', () => {
  const lexemeRow = { elems: ['order', 'a', 'refund', 'orders'], freqs: [0.2, 0.5, 0.01, 0.05, 0.01, 0.5] };

  it("reads an index's most common lexemes once per TTL, in code-unit order, with the least share kept", async () => {
    const { db, calls } = fakeDb(() => [lexemeRow]);
    const stats = await lexemeStats(db, 'searchdesk_messages_words', 0);
    expect(stats).toEqual({ lexemes: ['a', 'order', 'orders', 'refund'], shares: [0.5, 0.2, 0.05, 0.01], least: 0.01 });
    expect(await lexemeStats(db, 'searchdesk_messages_words', STATS_TTL_MS - 1)).toBe(stats);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.values).toEqual(['searchdesk_messages_words', 'searchdesk_message_word_stats']);
  });

  it("reads them through the index's statistics function when pg_stats shows none and the role may call it", async () => {
    const answers = [[{ elems: null, freqs: null, callable: true }], [lexemeRow]];
    const { db, calls } = fakeDb(() => answers.shift()!);
    expect((await lexemeStats(db, 'searchdesk_messages_words', 0))?.lexemes).toEqual(['a', 'order', 'orders', 'refund']);
    expect(calls.map((c) => c.text.includes('searchdesk_message_word_stats()'))).toEqual([false, true]);
    // Not granted EXECUTE: none, without calling it.
    const refused = fakeDb(() => [{ elems: null, freqs: null, callable: false }]);
    expect(await lexemeStats(refused.db, 'searchdesk_messages_words', 0)).toBeUndefined();
    expect(refused.calls).toHaveLength(1);
    // An index without a statistics function asks for none.
    const other = fakeDb(() => [{ elems: null, freqs: null, callable: false }]);
    expect(await lexemeStats(other.db, 'i', 0)).toBeUndefined();
    expect(other.calls[0]!.values).toEqual(['i', null]);
  });

  it('advises a role that reads none of them, and only such a role, how to read them', async () => {
    const said: string[] = [];
    const stop = onAdvice((a) => said.push(`${a.event}: ${a.message}`));
    try {
      const row = { elems: null, freqs: null, callable: false, indexed: true, owns: false, function: true, role: 'sd_ro' };
      await lexemeStats(fakeDb(() => [row]).db, 'searchdesk_messages_words', 0);
      expect(said).toEqual([expect.stringContaining('GRANT EXECUTE ON FUNCTION searchdesk_message_word_stats() TO sd_ro')]);
      await lexemeStats(fakeDb(() => [{ ...row, function: false }]).db, 'searchdesk_messages_words', 0);
      expect(said[1]).toMatch(/run `searchdesk db indexes` again as the tables' owner, then GRANT EXECUTE/);
      // The owner (a table never analysed), no word index, or an index without a statistics function: nothing to advise.
      await lexemeStats(fakeDb(() => [{ ...row, owns: true }]).db, 'searchdesk_messages_words', 0);
      await lexemeStats(fakeDb(() => [{ ...row, indexed: false }]).db, 'searchdesk_messages_words', 0);
      await lexemeStats(fakeDb(() => [row]).db, 'i', 0);
      expect(said).toHaveLength(2);
    } finally {
      stop();
    }
  });

  it('has none for an index never analysed, or statistics without their shares', async () => {
    expect(await lexemeStats(fakeDb(() => []).db, 'i', 0)).toBeUndefined();
    expect(await lexemeStats(fakeDb(() => [{ elems: null, freqs: null }]).db, 'i', 0)).toBeUndefined();
    expect(await lexemeStats(fakeDb(() => [{ elems: ['a', 'b'], freqs: [0.1, 0.1] }]).db, 'i', 0)).toBeUndefined();
  });
});

describe('prefixShare', () => {
  const stats = {
    lexemes: ['a', 'order', 'ordered', 'orders', 'refund', 'zebra'],
    shares: [0.5, 0.2, 0.03, 0.05, 0.01, 0.9],
    least: 0.01,
  };

  it('adds the shares of the lexemes a word starts, at most 1, and is 0 for a word that starts none', () => {
    expect(prefixShare(stats, 'order')).toBeCloseTo(0.28);
    expect(prefixShare(stats, 'ordere')).toBeCloseTo(0.03);
    expect(prefixShare(stats, 'refund')).toBeCloseTo(0.01);
    expect(prefixShare(stats, 'refunds')).toBe(0);
    expect(prefixShare(stats, 'rder')).toBe(0);
    expect(prefixShare(stats, 'zz')).toBe(0);
    expect(prefixShare({ ...stats, shares: [0.9, 0.9, 0.9, 0.9, 0.9, 0.9] }, 'or')).toBe(1);
  });
});
