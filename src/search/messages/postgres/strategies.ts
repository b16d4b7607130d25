/**
 * The Postgres message engine's strategies, in the order the executor tries them (docs/plans.md,
 * Messages): each returns exactly the walk's rows in its order. The statistics choose the first
 * step (firstMessageStep); a window that gives way continues from its last match, and the
 * trigram index answers whatever is left.
 */
import type { Db, SqlQuery } from '../../../db/db.js';
import { PAGE_SIZE } from '../../context.js';
import { longerWindow, windowCanHold } from '../../sql.js';
import type { TableStats } from '../../statistics.js';
import type { MessageQuery } from '../query.js';
import { fewCandidatesScope, narrowingFirst, scopeRows, type FirstMessageStep, type MessageLimits } from './estimates.js';
import { MESSAGE_MATCH_ROWS, MESSAGE_SAMPLE_ROWS } from './knobs.js';
import type { Progress, Step, Strategy } from './plan-local.js';
import * as st from './statements.js';

/** What every strategy weighs, gathered once per search (createPostgresEngine). */
export interface MessagePlanInput {
  db: Db;
  query: MessageQuery;
  select: st.Select;
  limits: MessageLimits;
  stats: TableStats | undefined;
  walk: st.MessageWalk;
  /** Undefined when no word has a trigram: only the walk can answer. */
  first: FirstMessageStep | undefined;
  /** The sender's estimated messages when they are walked by searchdesk's index by sender. */
  senderRows: number | undefined;
  /** The word searchdesk's word index reads by (none: each word's trigrams). */
  wordIndex: readonly string[];
}

/** A row of any strategy: ids alone or records; the capped read's carry its count of candidates. */
export type MessageHit = { id: number | null; matched?: number };

type MessageStrategy = Strategy<MessagePlanInput, MessageHit>;
type So = Progress<MessageHit>;

const done = (rows: MessageHit[]): Step<MessageHit> => ({ done: true, rows });
const statement = (input: MessagePlanInput, build: (select: st.Select) => SqlQuery, capped = false) =>
  input.select === 'record' ? st.asRecords(build('record'), capped) : build('id');
const page = (input: MessagePlanInput) => input.query.offset / PAGE_SIZE + 1;

/** The capped read's cap: the first step's, or the least. */
const capOf = ({ first, limits }: MessagePlanInput) => (first?.strategy === 'capped' ? first.cap : limits.capped);

/** The first window's rows: the first step's, after the capped read its `then`, else the least. */
function windowRows({ first, limits }: MessagePlanInput): number {
  return first?.strategy === 'window' ? first.window : first?.strategy === 'capped' ? first.then : limits.window;
}

/** Through the word index the candidates are about the matches: the scope's index only where small. */
function trigramScope(input: MessagePlanInput) {
  const few = input.first?.strategy === 'trigram' && input.first.few;
  const { query, stats, limits } = input;
  return few || input.wordIndex.length > 0 ? fewCandidatesScope(query, stats, limits) : 'indexed';
}

const windowShape = (input: MessagePlanInput) => ({
  walk: input.walk,
  narrowingFirst: narrowingFirst(input.query, input.stats, input.walk),
});

/** A window gave way holding some of the page: the last strategy run was a window and it found rows. */
const gaveWay = (so: So, name: string) => so.tried[so.tried.length - 1] === name && so.found.length > 0;

/**
 * The rows of the window that continues a first window that gave way (longerWindow), undefined
 * for the trigram index, or 'sample' when only the sample of its rows can decide: more
 * candidates only make the index dearer, so the statistics decide alone when no count could.
 */
function restRows(input: MessagePlanInput, so: So): number | 'sample' | undefined {
  const { stats, query, walk } = input;
  const returned = so.found.length;
  const window = windowRows(input);
  const sized = { ...input.limits, window };
  const known = stats !== undefined && stats.rows > 0;
  if (walk === 'inbox' && known)
    return longerWindow(page(input), returned, scopeRows(query, stats) * MESSAGE_MATCH_ROWS, sized, 0, true);
  if (so.tried[so.tried.length - 1] === 'messages.window_sample') {
    const { candidates, sampled, table_rows } = so.facts;
    const fetched = sampled ? ((candidates ?? 0) * window) / sampled : undefined;
    return longerWindow(page(input), returned, table_rows, sized, fetched, true);
  }
  if (known) {
    const least = longerWindow(page(input), returned, stats.rows, sized, 0, true);
    if (least !== undefined || longerWindow(page(input), returned, stats.rows, sized, Infinity, true) === undefined) return least;
  }
  return 'sample';
}

export const capped: MessageStrategy = {
  name: 'messages.capped',
  label: 'search_messages_pg_capped',
  // From a sender walked by its index, only a sender of more messages than the cap.
  applies: ({ first, senderRows, limits }) =>
    first?.strategy === 'capped' && (senderRows === undefined || senderRows > limits.capped),
  cost: (input) => capOf(input) * MESSAGE_MATCH_ROWS,
  statement: (input) => {
    const shape = {
      cap: capOf(input),
      scope: fewCandidatesScope(input.query, input.stats, input.limits, capOf(input)),
      wordIndex: input.wordIndex,
    };
    return statement(input, (select) => st.trigramStatement(input.query, shape, select), true);
  },
  // Fewer candidates than the cap: every match was among them (a null id stands for an empty page).
  read: (rows, input) =>
    Number(rows[0]?.matched) < capOf(input) ? done(rows.filter((row) => row.id !== null)) : { done: false, rows: [] },
};

export const sender: MessageStrategy = {
  name: 'messages.sender',
  label: 'search_messages_pg_sender',
  applies: ({ senderRows }) => senderRows !== undefined,
  cost: ({ senderRows }) => senderRows ?? Infinity,
  statement: (input) => statement(input, (select) => st.senderStatement(input.query, select)),
  read: done,
};

export const walk: MessageStrategy = {
  name: 'messages.walk',
  label: 'search_messages_pg_walk',
  applies: ({ first }) => first === undefined,
  cost: ({ stats, query }) => (stats ? scopeRows(query, stats) : 0),
  statement: (input) => statement(input, (select) => st.walkStatement(input.query, select)),
  read: done,
};

export const window: MessageStrategy = {
  name: 'messages.window',
  label: 'search_messages_pg_window',
  applies: (input) =>
    input.first?.strategy !== 'trigram' && input.first !== undefined && windowCanHold(page(input), windowRows(input)),
  cost: windowRows,
  statement: (input) =>
    statement(input, (select) => st.windowStatement(input.query, { rows: windowRows(input), ...windowShape(input) }, select)),
  read: (rows, { query }) => (rows.length >= query.limit ? done(rows) : { done: false, rows }),
};

export const windowSample: MessageStrategy = {
  name: 'messages.window_sample',
  label: 'search_messages_pg_window_sample',
  applies: (input, so) => gaveWay(so, window.name) && restRows(input, so) === 'sample',
  cost: () => MESSAGE_SAMPLE_ROWS,
  // The newest rows of the window stand for all of it; they are in the buffer cache.
  statement: (input) => st.sampleStatement(input.query, Math.min(windowRows(input), MESSAGE_SAMPLE_ROWS), input.walk),
  read: (rows, _input, so) => ({ done: false, rows: so.found, facts: rows[0] ?? {} }),
};

export const windowRest: MessageStrategy = {
  name: 'messages.window_rest',
  label: 'search_messages_pg_window',
  applies: (input, so) => (gaveWay(so, window.name) || gaveWay(so, windowSample.name)) && typeof restRows(input, so) === 'number',
  cost: (input, so) => restRows(input, so) as number,
  // From the first window's last match on: all the page's rows before it were in that window.
  statement: (input, so) => {
    const rest = {
      after: Number(so.found[so.found.length - 1]!.id),
      rows: restRows(input, so) as number,
      found: so.found.length,
    };
    return statement(input, (select) => st.windowStatement(input.query, { rows: rest, ...windowShape(input) }, select));
  },
  read: (rows, { query }, so) => {
    const all = [...so.found, ...rows];
    return all.length >= query.limit ? done(all) : { done: false, rows: all };
  },
};

export const trigram: MessageStrategy = {
  name: 'messages.trigram',
  label: 'search_messages_pg_trigram',
  applies: () => true,
  cost: ({ stats, query }) => (stats ? scopeRows(query, stats) * MESSAGE_MATCH_ROWS : 0),
  statement: (input) => {
    const shape = { scope: trigramScope(input), wordIndex: input.wordIndex };
    return statement(input, (select) => st.trigramStatement(input.query, shape, select));
  },
  read: done,
};

/** The ladder: a first step from the statistics, then a window's continuation, then the trigram index. */
export const MESSAGE_STRATEGIES: readonly MessageStrategy[] = [capped, sender, walk, window, windowSample, windowRest, trigram];
