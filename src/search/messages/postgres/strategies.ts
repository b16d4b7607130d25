/** The message strategies (docs/plans.md, Messages): each costs its estimate when nextStep chooses it, else Infinity. */
import type { SqlQuery } from '../../../db/db.js';
import { PAGE_SIZE } from '../../context.js';
import type { PlanCaching, Progress, Step, Strategy } from '../../plan/strategy.js';
import { longerWindow, windowCanHold } from '../../plan/windows.js';
import type { TableStats } from '../../statistics.js';
import type { MessageQuery } from '../query.js';
import { fewCandidatesScope, narrowingFirst, scopeRows, type FirstMessageStep, type MessageLimits } from './estimates.js';
import * as st from './statements.js';

/** What every strategy weighs, gathered once per search (postgres.ts); `first` undefined when no word has a trigram. */
export interface MessagePlanInput {
  query: MessageQuery;
  select: st.Select;
  limits: MessageLimits;
  stats: TableStats | undefined;
  walk: st.MessageWalk;
  first: FirstMessageStep | undefined;
  senderRows: number | undefined;
  wordIndex: readonly string[];
  disabled?: ReadonlySet<string>;
}
/** A row of any strategy: ids alone or records; the capped read's carry its count of candidates. */
export type MessageHit = { id: number | null; matched?: number };
type MessageStrategy = Strategy<MessagePlanInput, MessageHit>;
type So = Progress<MessageHit>;
const CAPPED = 'messages.capped';
const SENDER = 'messages.sender';
const WALK = 'messages.walk';
const WINDOW = 'messages.window';
const REST = 'messages.window_rest';
const TRIGRAM = 'messages.trigram';
const done = (rows: MessageHit[]): Step<MessageHit> => ({ done: true, rows });
const upToPage = (rows: MessageHit[], { query }: MessagePlanInput) =>
  rows.length >= query.limit ? done(rows) : { done: false, rows };
const page = (input: MessagePlanInput) => input.query.offset / PAGE_SIZE + 1;
const lastRun = (so: So) => so.tried[so.tried.length - 1];
const firstPage = (input: MessagePlanInput): PlanCaching => (input.query.offset === 0 ? 'once' : 'no');

function statement(input: MessagePlanInput, build: (select: st.Select) => SqlQuery, capped = false): SqlQuery {
  return input.select === 'record' ? st.asRecords(build('record'), capped) : build('id');
}
const capOf = ({ first, limits }: MessagePlanInput) => (first?.strategy === 'capped' ? first.cap : limits.capped);

function windowRows({ first, limits }: MessagePlanInput): number {
  return first?.strategy === 'window' ? first.window : first?.strategy === 'capped' ? first.then : limits.window;
}
const windowShape = ({ query, stats, walk, limits }: MessagePlanInput) => ({
  walk,
  narrowingFirst: narrowingFirst(query, stats, walk, limits),
});
/** The rows of the rest of a first window that gave way (longerWindow), undefined for the index (as without statistics). */
function restRows(input: MessagePlanInput, so: So): number | undefined {
  const { stats, query, walk, limits } = input;
  if (!stats || stats.rows <= 0) return undefined;
  const fetched = walk === 'inbox' ? scopeRows(query, stats) * limits.matchRows : stats.rows;
  return longerWindow(page(input), so.found.length, fetched, { ...limits, window: windowRows(input) }, 0, true);
}
/** The step the statistics choose (docs/plans.md, Messages); a disabled capped read is passed over, any other for the index. */
export function nextStep(input: MessagePlanInput, so: So): string {
  const step = statisticsStep(input, so);
  if (!input.disabled?.has(step)) return step;
  return step === CAPPED ? statisticsStep(input, { ...so, tried: [CAPPED] }) : input.first ? TRIGRAM : WALK;
}
function statisticsStep(input: MessagePlanInput, so: So): string {
  const { first, senderRows, limits } = input;
  const last = lastRun(so);
  if (last === WINDOW && restRows(input, so) !== undefined) return REST;
  if (last !== undefined && last !== CAPPED) return first ? TRIGRAM : WALK;
  if (!last && first?.strategy === 'capped' && (senderRows === undefined || senderRows > limits.capped)) return CAPPED;
  if (senderRows !== undefined) return SENDER;
  if (!first) return WALK;
  return first.strategy !== 'trigram' && windowCanHold(page(input), windowRows(input)) ? WINDOW : TRIGRAM;
}
const scopeCost = ({ stats, query }: MessagePlanInput, perRow = 1) => (stats ? scopeRows(query, stats) * perRow : 0);
type Parts = Pick<MessageStrategy, 'applies' | 'statement' | 'read' | 'caching'>;

/** Strategy `name`, its statements run as `search_messages_pg_<label>`, its cost `estimate` when nextStep chooses it. */
function define(name: string, label: string, estimate: MessageStrategy['cost'], parts: Parts): MessageStrategy {
  const cost = (input: MessagePlanInput, so: So) => (nextStep(input, so) === name ? estimate(input, so) : Infinity);
  return { name, label: `search_messages_pg_${label}`, cost, ...parts };
}
export const capped = define(CAPPED, 'capped', (input) => capOf(input) * input.limits.matchRows, {
  applies: (input, so) => input.first !== undefined && so.tried.length === 0,
  caching: (input) => (fewCandidatesScope(input.query, input.stats, capOf(input)) === 'hidden' ? firstPage(input) : 'no'),
  statement: (input, _so, inText) => {
    const scope = fewCandidatesScope(input.query, input.stats, capOf(input));
    const shape = { cap: capOf(input), scope, wordIndex: input.wordIndex };
    return statement(input, (select) => st.trigramStatement(input.query, shape, select, inText), true);
  },
  // Fewer candidates than the cap: every match was among them (a null id: an empty page).
  read: (rows, input) =>
    Number(rows[0]?.matched) < capOf(input) ? done(rows.filter((r) => r.id !== null)) : { done: false, rows: [] },
});
export const sender = define(SENDER, 'sender', ({ senderRows }) => senderRows ?? 0, {
  applies: ({ query }, so) => query.sender !== undefined && so.found.length === 0,
  caching: firstPage,
  statement: (input, _so, inText) => statement(input, (select) => st.senderStatement(input.query, select, inText)),
  read: done,
});
export const walk = define(WALK, 'walk', (input) => scopeCost(input), {
  applies: () => true,
  statement: (input) => statement(input, (select) => st.walkStatement(input.query, select)),
  read: done,
});
export const window = define(WINDOW, 'window', windowRows, {
  applies: (input, so) => so.found.length === 0 && !so.tried.includes(WINDOW) && windowCanHold(page(input), windowRows(input)),
  // One plan whatever the values: the account's walk weighed for its account, or one inbox's.
  caching: (input) => (input.query.offset > 0 ? 'no' : input.walk === 'inbox' ? 'once' : 'oncePerAccount'),
  statement: (input, _so, inText) =>
    statement(input, (select) =>
      st.windowStatement(input.query, { rows: windowRows(input), ...windowShape(input) }, select, inText),
    ),
  read: upToPage,
});
export const windowRest = define(REST, 'window', (input, so) => restRows(input, so) as number, {
  applies: (input, so) => lastRun(so) === WINDOW && restRows(input, so) !== undefined,
  // From the first window's last match on: all the page's rows before it were in that window.
  statement: (input, so) => {
    const rest = { after: Number(so.found.at(-1)!.id), rows: restRows(input, so) as number, found: so.found.length };
    return statement(input, (select) => st.windowStatement(input.query, { rows: rest, ...windowShape(input) }, select));
  },
  read: (rows, input, so) => upToPage([...so.found, ...rows], input),
});
/** A code's few candidates, or the word index's: the scope's index only where small. */
function trigramScope(input: MessagePlanInput) {
  const few = input.first?.strategy === 'trigram' && input.first.few;
  return few || input.wordIndex.length > 0 ? fewCandidatesScope(input.query, input.stats) : 'indexed';
}
export const trigram = define(TRIGRAM, 'trigram', (input) => scopeCost(input, input.limits.matchRows), {
  applies: ({ first }) => first !== undefined,
  caching: (input) => (trigramScope(input) === 'hidden' ? firstPage(input) : 'no'),
  statement: (input, _so, inText) => {
    const shape = { scope: trigramScope(input), wordIndex: input.wordIndex };
    return statement(input, (select) => st.trigramStatement(input.query, shape, select, inText));
  },
  read: done,
});
/** In order of preference among equals; the plain walk last. */
export const MESSAGE_STRATEGIES: readonly MessageStrategy[] = [capped, sender, window, windowRest, trigram, walk];
