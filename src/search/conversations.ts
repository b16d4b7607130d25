/** Conversation search as a plan (docs/plans.md, Conversations): window, longer window, candidates, scan. */
import type { AccessContext } from '../auth/access.js';
import { INDEX, searchdeskIndexes } from '../db/catalog.js';
import { toPage, type SearchContext } from './context.js';
import { toConversationRecord, type ConversationRow } from './conversation-record.js';
import { canMatchDisplayId, conversationStatement, type ConversationStatement } from './conversation-statements.js';
import { PAGE_SIZE, type ConversationsParams } from './params.js';
import type { ConversationRecord } from './records.js';
import { COSTS, knob } from './plan/costs.js';
import { runPlan } from './plan/executor.js';
import type { PlanOptions, Progress, Strategy } from './plan/strategy.js';
import { ladderAbove, longerWindow, shareWindow, weighLongerWindow, windowCanHold, type WindowLimits } from './plan/windows.js';
import { CONTACT_COLUMNS } from './contacts.js';
import { estimateShare, shareWithinAccount, tableStats, UNSEEN_SHARE, type TableStats } from './statistics.js';
import { hasTrigram, looksSpecific } from './text.js';

/** The sizes of a search (costs.ts). */
export type ConversationLimits = WindowLimits & { candidateCap: number; displayIdCap: number };
export const conversationLimits = (options?: PlanOptions): ConversationLimits => ({
  window: knob('conversations.firstWindow', options),
  walkCap: knob('conversations.walkCap', options),
  room: knob('conversations.room', options),
  candidateCap: knob('conversations.candidateCap', options),
  displayIdCap: knob('conversations.displayIdCap', options),
});
export const CONVERSATION_LIMITS = conversationLimits();
/** `ordered`: an index in created_at order; `limits.window`: the first window; `inboxShare`: see windowPlannedOnce. */
export interface ConversationInput {
  access: Pick<AccessContext, 'accountId' | 'inboxIds'> & Partial<Pick<AccessContext, 'role'>>;
  params: ConversationsParams;
  ordered: boolean;
  limits: ConversationLimits;
  inboxShare?: number;
}
/** A candidates row when nothing matched carries only its `overflow`. */
type Row = Omit<ConversationRow, 'id'> & { id: number | null; overflow: boolean };
type Input = ConversationInput;
const isRow = (r: Row): r is Row & ConversationRow => r.id !== null;
const pageOf = (i: Input) => i.params.page ?? 1;
/** A first page's window length on the ladder when its walk (length ÷ inboxShare) stays within walkCap: planned once. */
export function windowPlannedOnce(params: ConversationsParams, window: number, share?: number): number | undefined {
  if ((params.page ?? 1) !== 1 || !share) return undefined;
  const cap = COSTS['conversations.walkCap'].value;
  const rows = ladderAbove(window, cap);
  return rows !== undefined && rows / share <= cap ? rows : undefined;
}

const [always, never] = [() => true, () => Infinity];
/** Walk first: an index in that order, a page the window holds, a term that does not look specific (looksSpecific). */
const walks = (i: Input) => i.ordered && windowCanHold(pageOf(i), i.limits.window) && !looksSpecific(i.params.q);
type Rows = (i: Input, so: Progress<Row>) => number | undefined;
function windowStrategy(name: string, rows: Rows, when = walks): Strategy<Input, Row> {
  const share = (i: Input) => i.inboxShare ?? (i.access.role === 'administrator' ? 1 : undefined);
  const once = (i: Input, so: Progress<Row>) => windowPlannedOnce(i.params, rows(i, so) ?? 0, share(i));
  return {
    name,
    label: 'search_conversations_window',
    applies: (i, so) => when(i) && rows(i, so) !== undefined && !so.tried.includes(name),
    cost: (i, so) => rows(i, so) ?? Infinity,
    caching: (i, so) => (once(i, so) === undefined ? 'no' : 'oncePerAccount'),
    statement: (i, so, inText) =>
      conversationStatement(i.access, i.params, 'window', { ...i.limits, window: rows(i, so) ?? 0 }, once(i, so), !inText),
    read: (found) => ({ done: found.length > PAGE_SIZE, rows: found.filter(isRow) }),
  };
}

const firstWindow = (so: Progress<Row>) => (so.tried.at(-1) === 'conversations.window' ? so.last : undefined);
const longer = (i: Input, so: Progress<Row>) => {
  const first = firstWindow(so);
  return first && longerWindow(pageOf(i), first.length, first[0]?.table_rows, i.limits);
};
/** The candidates' fetch in window rows: after a first window tableRows × matches ÷ window, else walkCap. */
function candidatesCost(i: Input, so: Progress<Row>): number {
  const first = firstWindow(so);
  return (first && weighLongerWindow(pageOf(i), first.length, first[0]?.table_rows, i.limits)?.fetched) ?? i.limits.walkCap;
}

/** The candidates (exact unless they overflowed) or the scan. */
function plain(
  kind: ConversationStatement,
  applies: (i: Input) => boolean,
  cost: Strategy<Input, Row>['cost'],
): Strategy<Input, Row> {
  const name = `conversations.${kind}`;
  return {
    name,
    label: `search_conversations_${kind}`,
    applies: (i, so) => applies(i) && !so.tried.includes(name),
    cost,
    statement: (i) => conversationStatement(i.access, i.params, kind, i.limits),
    read: (rows) => ({ done: !rows[0]?.overflow, rows: rows[0]?.overflow ? [] : rows.filter(isRow) }),
  };
}
/** Every conversations strategy (ties: this order); each returns exactly the scan's rows. */
export const CONVERSATION_STRATEGIES: ReadonlyArray<Strategy<Input, Row>> = [
  windowStrategy('conversations.window', (i) => i.limits.window),
  windowStrategy('conversations.longerWindow', longer, always),
  // No trigram and no window: the term is short and usually common, the scan is quicker.
  plain('candidates', (i) => hasTrigram(i.params.q) || walks(i), candidatesCost),
  plain('scan', always, never),
];

/** The first window from the contacts' statistics (docs/plans.md, Conversations). */
export function firstConversationWindow(
  params: ConversationsParams,
  stats: TableStats | undefined,
  limits: ConversationLimits = CONVERSATION_LIMITS,
  options?: PlanOptions,
): number {
  const bounded = params.since !== undefined || params.until !== undefined;
  const share = stats && !bounded && !canMatchDisplayId(params.q) ? estimateShare(stats, CONTACT_COLUMNS, params.q) : undefined;
  if (share === undefined || stats === undefined) return limits.window;
  const candidates = UNSEEN_SHARE * stats.rows;
  if (share === 0) return candidates > limits.walkCap ? knob('conversations.sampleWindow', options) : 0;
  return shareWindow(params.page ?? 1, share, limits).rows ?? limits.window;
}

/** An administrator's inboxes hold the account (1); an agent's first page weighs the statistics' share. */
async function inboxShare(ctx: SearchContext, params: ConversationsParams): Promise<number | undefined> {
  if (ctx.access.role === 'administrator') return 1;
  if ((params.page ?? 1) !== 1) return undefined;
  const stats = await tableStats(ctx.db, 'conversations', ['account_id', 'inbox_id']);
  return stats && shareWithinAccount(stats, ctx.access.accountId, 'inbox_id', ctx.access.inboxIds);
}

export async function searchConversations(ctx: SearchContext, params: ConversationsParams, base = conversationLimits(ctx.plan)) {
  if (ctx.access.inboxIds.length === 0) return toPage<ConversationRecord>([]);
  const ordered = ctx.access.flags.searchWithGin || (await searchdeskIndexes(ctx.db)).has(INDEX.conversationsCreated);
  const stats = ordered && hasTrigram(params.q) ? await tableStats(ctx.db, 'contacts', CONTACT_COLUMNS) : undefined;
  const limits = { ...base, window: firstConversationWindow(params, stats, base, ctx.plan) };
  const input: Input = { access: ctx.access, params, ordered, limits };
  if (walks(input)) input.inboxShare = await inboxShare(ctx, params);
  const rows = await runPlan(ctx, CONVERSATION_STRATEGIES, input);
  return toPage((rows as ConversationRow[]).map((row) => toConversationRecord(row, ctx.appUrl)));
}
