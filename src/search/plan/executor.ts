/** The one executor of search plans (docs/plans.md, How the executor picks): forced, else cheapest; one debug line a plan. */
import type { SqlQuery } from '../../db/db.js';
import type { PlanContext, PlanOptions, Progress, Strategy } from './strategy.js';

/** More steps than any plan takes: a strategy that keeps applying is a bug, not a slow search. */
const MAX_STEPS = 8;
type TraceStep = { ran: string; weighed: Record<string, number>; rows: number; done: boolean };
/** Disables every plan made once (SqlQuery.planOnce), for the ablation bench. */
export const PLAN_ONCE = 'plan.once';

/** The statement `strategy` runs at `so`, with SqlQuery.planOnce/anyAccount as it declares (unless PLAN_ONCE is disabled). */
export function planStatement<I, Row>(
  strategy: Strategy<I, Row>,
  input: I,
  so: Progress<Row>,
  options: PlanOptions = {},
): SqlQuery {
  const caching = options.disabled?.has(PLAN_ONCE) ? 'no' : (strategy.caching?.(input, so) ?? 'no');
  if (caching === 'no') return strategy.statement(input, so, false);
  const query = strategy.statement(input, so, true);
  if (caching === 'once') return { ...query, planOnce: true };
  return { ...query, planOnce: true, anyAccount: () => strategy.statement(input, so, false) };
}

/** The strategy to run next, and the costs weighed: undefined when none applies. */
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

/** Runs `strategies` until a step gives the page; throws when none applies (a plan ends with one that always does). */
export async function runPlan<I, Row extends object>(
  ctx: PlanContext,
  strategies: ReadonlyArray<Strategy<I, Row>>,
  input: I,
): Promise<Row[]> {
  const so: Progress<Row> = { found: [], tried: [], last: [] };
  const trace: TraceStep[] = [];
  try {
    for (let n = 0; n < MAX_STEPS; n++) {
      const { strategy, weighed } = chooseStrategy(strategies, input, so, ctx.plan);
      if (!strategy) throw new Error(`no strategy applies after ${so.tried.join(' > ') || 'none'}`);
      const rows = await ctx.db.query<Row>(planStatement(strategy, input, so, ctx.plan), strategy.label);
      const step = strategy.read(rows, input, so);
      trace.push({ ran: strategy.name, weighed, rows: rows.length, done: step.done });
      if (step.done) return step.rows;
      so.found = step.rows;
      so.tried.push(strategy.name);
      so.last = rows;
    }
    throw new Error(`plan ran past ${MAX_STEPS} steps: ${so.tried.join(' > ')}`);
  } finally {
    if (ctx.logger?.isLevelEnabled('debug')) ctx.logger.debug({ event: 'search_plan', steps: trace }, 'plan');
  }
}
