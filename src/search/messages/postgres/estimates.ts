/** What the message strategies weigh, from the statistics of messages (docs/plans.md, Messages): shares, caps, the first step. */
import { wordIndexServes } from '../../../db/message-words.js';
import { PAGE_SIZE } from '../../context.js';
import { COSTS, knob, type KnobName } from '../../plan/costs.js';
import type { PlanOptions } from '../../plan/strategy.js';
import { ladderStep, shareWindow, windowCanHold, type WindowLimits } from '../../plan/windows.js';
import {
  estimateShare,
  prefixShare,
  shareWithinAccount,
  UNSEEN_SHARE,
  valuesShare,
  type LexemeStats,
  type TableStats,
} from '../../statistics.js';
import { looksSpecific, prefilterTrigrams } from '../../text.js';
import type { MessageQuery } from '../query.js';
import type { ScopeIndex } from './clauses.js';
import type { MessageWalk } from './statements.js';

/** The engine's knobs (plan/costs.ts, `messages.*`) by name. */
export type MessageLimits = WindowLimits & { [K in KnobName as K extends `messages.${infer N}` ? N : never]: number };

export function messageLimits(options?: PlanOptions): MessageLimits {
  const names = Object.keys(COSTS).filter((n): n is KnobName => n.startsWith('messages.'));
  return Object.fromEntries(names.map((n) => [n.slice('messages.'.length), knob(n, options)])) as unknown as MessageLimits;
}
export const MESSAGE_LIMITS = messageLimits();

/** The first statement (firstMessageStep): capped's `then` is the window once the cap is reached; `few`: a code. */
export type FirstMessageStep =
  | { strategy: 'window'; window: number }
  | { strategy: 'capped'; cap: number; then: number }
  | { strategy: 'trigram'; few?: boolean };

const page = (query: MessageQuery) => query.offset / PAGE_SIZE + 1;
const need = (query: MessageQuery) => query.offset + query.limit;

/** The share of the account's messages with one of `values` in `column` (1 without statistics). */
function withinAccount(query: MessageQuery, stats: TableStats, column: string, values: ReadonlyArray<number | string>): number {
  return shareWithinAccount(stats, query.accountId, column, values) ?? 1;
}
/** The share of the account's messages the query's inboxes and sender leave. */
export function scopeShare(query: MessageQuery, stats: TableStats): number {
  const inboxes = withinAccount(query, stats, 'inbox_id', query.inboxIds);
  return query.sender ? inboxes * withinAccount(query, stats, 'sender_id', [query.sender.id]) : inboxes;
}
/** The share of a window's walked rows the filters leave: the walk of one inbox reads only its rows. */
function walkShare(query: MessageQuery, stats: TableStats, walk: MessageWalk): number {
  if (walk === 'account') return scopeShare(query, stats);
  return query.sender ? withinAccount(query, stats, 'sender_id', [query.sender.id]) : 1;
}
/** The account's messages (the whole table without statistics of account_id). */
function accountRows(query: MessageQuery, stats: TableStats): number {
  return stats.rows * (valuesShare(stats, 'account_id', [query.accountId]) ?? 1);
}
/** The query's messages over all time: the account's in its inboxes and sender. */
export function scopeRows(query: MessageQuery, stats: TableStats): number {
  return accountRows(query, stats) * scopeShare(query, stats);
}
/** Whether a window tests the inboxes and the sender before the words (`messages.narrowingFirst`). */
export function narrowingFirst(
  query: MessageQuery,
  stats: TableStats | undefined,
  walk: MessageWalk = 'account',
  limits = MESSAGE_LIMITS,
): boolean {
  return stats !== undefined && walkShare(query, stats, walk) <= limits.narrowingFirst;
}
/** Few candidates hide the scope from the indexes; a capped read uses its index when cheaper than cap ÷ share visits. */
export function fewCandidatesScope(query: MessageQuery, stats: TableStats | undefined, cap?: number): ScopeIndex {
  if (!stats || cap === undefined) return 'hidden';
  const rows = accountRows(query, stats) * withinAccount(query, stats, 'inbox_id', query.inboxIds);
  return rows * rows >= cap * stats.rows ? 'hidden' : 'indexed';
}
/** Each word's share of the messages: the word index's lexemes for a word it serves, else the sampled contents. */
export function wordShares(query: MessageQuery, stats: TableStats | undefined, lexemes?: LexemeStats): Array<number | undefined> {
  if (!stats) return [];
  return query.words.map((w) => (lexemes && wordIndexServes(w) ? prefixShare(lexemes, w) : estimateShare(stats, ['content'], w)));
}
/** The word the word index reads by: of the words it serves under `messages.wordIndexShare`, the rarest, then the longest. */
export function indexedWord(query: MessageQuery, shares: ReadonlyArray<number | undefined>, limits = MESSAGE_LIMITS) {
  let best: { word: string; share: number } | undefined;
  query.words.forEach((word, i) => {
    const share = shares[i];
    if (share === undefined || share >= limits.wordIndexShare || !wordIndexServes(word)) return;
    if (!best || share < best.share || (share === best.share && word.length > best.word.length)) best = { word, share };
  });
  return best;
}
/** Whether the words narrow the trigram index's candidates by two trigrams or fewer (`rent`). */
export function looseCandidates(query: MessageQuery): boolean {
  return new Set(query.words.flatMap(prefilterTrigrams)).size <= 2;
}
/** The most matches a word no sampled message holds may have in the scope: UNSEEN_SHARE of it. */
export function unseenMatches(query: MessageQuery, stats: TableStats): number {
  return UNSEEN_SHARE * scopeRows(query, stats);
}
/** The capped read's cap: share × √(room × need × account rows ÷ matchRows), its visits costing what the next window walks. */
export function cappedReadCap(query: MessageQuery, stats: TableStats, limits: MessageLimits): number {
  const rows = (limits.room * need(query) * accountRows(query, stats)) / limits.matchRows;
  const balanced = scopeShare(query, stats) * Math.sqrt(rows);
  return ladderStep(Math.min(10 * limits.capped, Math.max(limits.capped, balanced)), limits.capped);
}
/** The window after a capped read that reached its cap: the page within need × scope ÷ cap rows, `room` times over. */
export function cappedWindow(query: MessageQuery, stats: TableStats, limits: MessageLimits, cap: number): number {
  const rows = Math.ceil((limits.room * need(query) * scopeRows(query, stats)) / cap);
  return Math.min(limits.walkCap, Math.max(limits.window, rows));
}
/** The trigram read of one inbox, in rows: a visit of each match. */
function inboxIndexRows(query: MessageQuery, stats: TableStats, share: number, limits: MessageLimits): number {
  return scopeRows(query, stats) * share * limits.matchRows;
}
/** The first statement (docs/plans.md, Messages): a code's trigram read, the capped read, a sized window or the index. */
export function firstMessageStep(
  query: MessageQuery,
  stats: TableStats | undefined,
  limits: MessageLimits = MESSAGE_LIMITS,
  walk: MessageWalk = 'account',
  shares: ReadonlyArray<number | undefined> = wordShares(query, stats),
  indexShare?: number,
): FirstMessageStep {
  if (query.words.some(looksSpecific)) return { strategy: 'trigram', few: true };
  if (!stats || shares.length === 0 || shares.some((s) => s === undefined)) return { strategy: 'window', window: limits.window };
  const wordShare = Math.min(...(shares as number[]));
  const cap = cappedReadCap(query, stats, limits);
  const capped = { strategy: 'capped', cap, then: cappedWindow(query, stats, limits, cap) } as const;
  if (wordShare === 0) {
    const unseen = looseCandidates(query) && unseenMatches(query, stats) > limits.walkCap;
    return windowCanHold(page(query), cap) && !unseen ? capped : { strategy: 'trigram' };
  }
  const { rows } = shareWindow(page(query), wordShare * walkShare(query, stats, walk), limits);
  const indexRows = indexShare === undefined ? undefined : indexShare * stats.rows;
  const fewMatches = wordShare * scopeRows(query, stats) < cap && windowCanHold(page(query), cap);
  if (indexRows !== undefined && fewMatches && (rows === undefined || indexRows < rows / limits.room)) return capped;
  if (rows === undefined || (walk === 'inbox' && rows > (indexRows ?? inboxIndexRows(query, stats, wordShare, limits))))
    return { strategy: 'trigram' };
  return { strategy: 'window', window: Math.max(limits.window, rows) };
}
