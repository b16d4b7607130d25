import { describe, expect, it } from 'vitest';
import type { Db, SqlQuery } from '../../db/db.js';
import type { Logger } from '../../logger.js';
import { COSTS, isKnob, knob } from './costs.js';
import { chooseStrategy, planStatement, runPlan } from './executor.js';
import type { PlanCaching, PlanContext, PlanOptions, Progress, Strategy } from './strategy.js';

interface Row {
  id: number;
}

/** A database answering each label with its rows, recording the labels and statements run. */
function fakeDb(answers: Record<string, Row[]>) {
  const ran: Array<{ label: string; query: SqlQuery }> = [];
  const db: Db = {
    kind: 'pg',
    ping: () => Promise.resolve(),
    close: () => Promise.resolve(),
    query: <R extends object>(query: SqlQuery, label = '') => {
      ran.push({ label, query });
      return Promise.resolve((answers[label] ?? []) as unknown as R[]);
    },
  };
  return { db, ran };
}

/** A strategy of a fixed cost that answers (or gives way) as told; `window` runs at most twice. */
function strategy(
  name: string,
  cost: number | ((so: Progress<Row>) => number),
  opts: { answers?: boolean; applies?: (so: Progress<Row>) => boolean; caching?: PlanCaching } = {},
): Strategy<unknown, Row> {
  return {
    name,
    label: `q_${name}`,
    applies: (_input, so) => opts.applies?.(so) ?? true,
    cost: (_input, so) => (typeof cost === 'number' ? cost : cost(so)),
    caching: () => opts.caching ?? 'no',
    statement: (_input, so, inText) => ({ text: `${name} after ${so.found.length} ${inText ? 'text' : 'param'}`, values: [1] }),
    read: (rows, _input, so) => {
      const all = [...so.found, ...rows];
      return { done: (opts.answers ?? true) || all.length > 2, rows: all };
    },
  };
}

const once = (name: string) => (so: Progress<Row>) => !so.tried.includes(name);
const plain = strategy('r.plain', Infinity);
const index = strategy('r.index', 50, { applies: once('r.index') });
const window = strategy('r.window', 10, { answers: false, applies: (so) => so.tried.length === 0 });

const run = (ctx: PlanContext, strategies: Array<Strategy<unknown, Row>>) => runPlan(ctx, strategies, undefined);

describe('runPlan', () => {
  it('runs the cheapest strategy that applies, and goes on after one that gives way', async () => {
    const { db, ran } = fakeDb({ 'q_r.window': [{ id: 1 }], 'q_r.index': [{ id: 2 }, { id: 3 }] });
    expect(await run({ db }, [window, index, plain])).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(ran.map((r) => r.label)).toEqual(['q_r.window', 'q_r.index']);
  });

  it('falls back in list order among equal costs, ending on the plain statement', async () => {
    const { db, ran } = fakeDb({});
    const giveWay = strategy('r.a', 5, { answers: false, applies: once('r.a') });
    const alsoFive = strategy('r.b', 5, { answers: false, applies: once('r.b') });
    await run({ db }, [giveWay, alsoFive, plain]);
    expect(ran.map((r) => r.label)).toEqual(['q_r.a', 'q_r.b', 'q_r.plain']);
  });

  it('runs a forced strategy whenever it applies, whatever its cost', async () => {
    const { db, ran } = fakeDb({});
    await run({ db, plan: { force: 'r.plain' } }, [window, index, plain]);
    expect(ran.map((r) => r.label)).toEqual(['q_r.plain']);
    ran.length = 0;
    // A forced strategy that does not apply: the others by cost.
    await run({ db, plan: { force: 'r.none' } }, [window, index, plain]);
    expect(ran.map((r) => r.label)).toEqual(['q_r.window', 'q_r.index']);
  });

  it('never runs a disabled strategy', async () => {
    const { db, ran } = fakeDb({});
    await run({ db, plan: { disabled: new Set(['r.window']) } }, [window, index, plain]);
    expect(ran.map((r) => r.label)).toEqual(['q_r.index']);
    ran.length = 0;
    await run({ db, plan: { disabled: new Set(['r.window', 'r.index']) } }, [window, index, plain]);
    expect(ran.map((r) => r.label)).toEqual(['q_r.plain']);
  });

  it('fails when no strategy applies or a plan never ends', async () => {
    const { db } = fakeDb({});
    await expect(run({ db, plan: { disabled: new Set(['r.plain']) } }, [plain])).rejects.toThrow(/no strategy applies/);
    await expect(run({ db }, [strategy('r.loop', 1, { answers: false })])).rejects.toThrow(/past 8 steps/);
  });

  it('logs one debug line with the costs weighed and the rows of each step', async () => {
    const { db } = fakeDb({ 'q_r.window': [{ id: 1 }] });
    const lines: unknown[] = [];
    const logger = { isLevelEnabled: (l: string) => l === 'debug', debug: (o: unknown) => lines.push(o) } as unknown as Logger;
    await run({ db, logger }, [window, index, plain]);
    expect(lines).toEqual([
      {
        event: 'search_plan',
        steps: [
          { ran: 'r.window', weighed: { 'r.window': 10, 'r.index': 50, 'r.plain': Infinity }, rows: 1, done: false },
          { ran: 'r.index', weighed: { 'r.index': 50, 'r.plain': Infinity }, rows: 0, done: true },
        ],
      },
    ]);
    const quiet = { isLevelEnabled: () => false, debug: (o: unknown) => lines.push(o) } as unknown as Logger;
    await run({ db, logger: quiet }, [window, index, plain]);
    expect(lines).toHaveLength(1);
  });
});

describe('planStatement', () => {
  const so: Progress<Row> = { found: [], tried: [], last: [] };
  it('plans a statement once as its strategy declares, with the per-value statement for any account', () => {
    expect(planStatement(strategy('r.x', 1), undefined, so)).toEqual({ text: 'r.x after 0 param', values: [1] });
    expect(planStatement(strategy('r.x', 1, { caching: 'once' }), undefined, so)).toEqual({
      text: 'r.x after 0 text',
      values: [1],
      planOnce: true,
    });
    const perAccount = planStatement(strategy('r.x', 1, { caching: 'oncePerAccount' }), undefined, so);
    expect(perAccount).toMatchObject({ text: 'r.x after 0 text', planOnce: true });
    expect(perAccount.anyAccount?.()).toEqual({ text: 'r.x after 0 param', values: [1] });
  });

  it('plans every statement for its values when plan caching is disabled', () => {
    const options: PlanOptions = { disabled: new Set(['plan.once']) };
    const s = strategy('r.x', 1, { caching: 'oncePerAccount' });
    expect(planStatement(s, undefined, so, options)).toEqual({ text: 'r.x after 0 param', values: [1] });
  });
});

describe('chooseStrategy', () => {
  it('tells the costs of every strategy that applies', () => {
    const so: Progress<Row> = { found: [], tried: ['r.window'], last: [] };
    const { strategy: next, weighed } = chooseStrategy([window, index, plain], undefined, so);
    expect(next?.name).toBe('r.index');
    expect(weighed).toEqual({ 'r.index': 50, 'r.plain': Infinity });
  });
});

describe('knob', () => {
  it('is its value, or its neutral value when disabled', () => {
    expect(knob('contacts.fetchCost')).toBe(COSTS['contacts.fetchCost'].value);
    expect(knob('contacts.fetchCost', { disabled: new Set(['contacts.fetchCost']) })).toBe(1);
    expect(isKnob('contacts.room')).toBe(true);
    expect(isKnob('contacts.window.rest')).toBe(false);
  });
});
