/**
 * INTERIM (h50-conv): the shared strategy interface and executor of PLAN50 until h50-core's
 * src/search/plan/ lands; replaced by imports from ./plan/ at the merge, then deleted.
 */
import type { Db, SqlQuery } from '../db/db.js';
import type { Logger } from '../logger.js';

export interface PlanOptions {
  force?: string;
  disabled?: ReadonlySet<string>;
}
export interface PlanContext {
  db: Db;
  logger?: Logger;
  plan?: PlanOptions;
}
export interface Progress<Row> {
  found: Row[];
  tried: string[];
  last: Row[];
}
export interface Step<Row> {
  done: boolean;
  rows: Row[];
}
export type PlanCaching = 'no' | 'once' | 'oncePerAccount';
export interface Strategy<I, Row> {
  readonly name: string;
  readonly label: string;
  applies(input: I, so: Progress<Row>): boolean;
  cost(input: I, so: Progress<Row>): number;
  caching?(input: I, so: Progress<Row>): PlanCaching;
  statement(input: I, so: Progress<Row>, inText: boolean): SqlQuery;
  read(rows: Row[], input: I, so: Progress<Row>): Step<Row>;
}

export function planStatement<I, Row>(strategy: Strategy<I, Row>, input: I, so: Progress<Row>): SqlQuery {
  const caching = strategy.caching?.(input, so) ?? 'no';
  if (caching === 'no') return strategy.statement(input, so, false);
  const query = strategy.statement(input, so, true);
  if (caching === 'once') return { ...query, planOnce: true };
  return { ...query, planOnce: true, anyAccount: () => strategy.statement(input, so, false) };
}

export function chooseStrategy<I, Row>(
  strategies: ReadonlyArray<Strategy<I, Row>>,
  input: I,
  so: Progress<Row>,
  options: PlanOptions = {},
): { strategy?: Strategy<I, Row>; weighed: Record<string, number> } {
  const weighed: Record<string, number> = {};
  let best: Strategy<I, Row> | undefined;
  let bestCost = Infinity;
  for (const s of strategies) {
    if (options.disabled?.has(s.name) || !s.applies(input, so)) continue;
    const cost = s.cost(input, so);
    weighed[s.name] = cost;
    if (s.name === options.force) return { strategy: s, weighed };
    if (best === undefined || cost < bestCost) [best, bestCost] = [s, cost];
  }
  return { strategy: best, weighed };
}

export async function runPlan<I, Row extends object>(
  ctx: PlanContext,
  strategies: ReadonlyArray<Strategy<I, Row>>,
  input: I,
): Promise<Row[]> {
  const so: Progress<Row> = { found: [], tried: [], last: [] };
  for (let n = 0; n < 8; n++) {
    const { strategy } = chooseStrategy(strategies, input, so, ctx.plan);
    if (!strategy) throw new Error(`no strategy applies after ${so.tried.join(' > ') || 'none'}`);
    const rows = await ctx.db.query<Row>(planStatement(strategy, input, so), strategy.label);
    const step = strategy.read(rows, input, so);
    if (step.done) return step.rows;
    so.found = step.rows;
    so.tried.push(strategy.name);
    so.last = rows;
  }
  throw new Error(`plan ran past 8 steps: ${so.tried.join(' > ')}`);
}
