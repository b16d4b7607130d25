/**
 * Conversation search as a plan (docs/plans.md, Conversations): a window of the newest
 * conversations, maybe a longer one, the candidates (contacts by trigram, display ids), the scan.
 */
import type { AccessContext } from '../auth/access.js';
import { INDEX, searchdeskIndexes } from '../db/catalog.js';
import { toPage, type Page, type SearchContext } from './context.js';
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

/** The sizes of a search (costs.ts); tests lower them to reach every path on small data. */
export type ConversationLimits = WindowLimits & { candidateCap: number; displayIdCap: number };

export const conversationLimits = (options?: PlanOptions): ConversationLimits => ({
  window: knob('conversations.firstWindow', options),
  walkCap: knob('conversations.walkCap', options),
  room: knob('conversations.room', options),
  candidateCap: knob('conversations.candidateCap', options),
  displayIdCap: knob('conversations.displayIdCap', options),
});

export const CONVERSATION_LIMITS = conversationLimits();

export interface ConversationInput {
  access: Pick<AccessContext, 'accountId' | 'inboxIds'> & Partial<Pick<AccessContext, 'role'>>;
  params: ConversationsParams;
  /** An index gives created_at order (searchdesk_conversations_account_created). */
  ordered: boolean;
  /** `window`: the first window's rows (firstConversationWindow). */
  limits: ConversationLimits;
  /** The share of the account's conversations in the caller's inboxes (windowPlannedOnce). */
  inboxShare?: number;
}

/** A candidates row when nothing matched carries only its `overflow`. */
type Row = Omit<ConversationRow, 'id'> & { id: number | null; overflow: boolean };
type Input = ConversationInput;

const isRow = (r: Row): r is Row & ConversationRow => r.id !== null;
const pageOf = (i: Input) => i.params.page ?? 1;

/** A first page's window length on the ladder when its walk (length ÷ inboxShare) stays within walkCap: planned once. */
export function windowPlannedOnce(
  params: ConversationsParams,
  window: number,
  inboxShare: number | undefined,
): number | undefined {
  if ((params.page ?? 1) !== 1 || !inboxShare) return undefined;
  const cap = COSTS['conversations.walkCap'].value;
  const rows = ladderAbove(window, cap);
  return rows !== undefined && rows / inboxShare <= cap ? rows : undefined;
}

/** Walk first: an index in that order, a page the window holds, a term that does not look specific (looksSpecific). */
const walks = (i: Input) => i.ordered && windowCanHold(pageOf(i), i.limits.window) && !looksSpecific(i.params.q);

/** A window of `rows` (undefined: none), planned once by the inboxes' share (an administrator's: 1). */
function windowStrategy(
  name: string,
  rows: (i: Input, so: Progress<Row>) => number | undefined,
  when = walks,
): Strategy<Input, Row> {
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
    // Exact when it holds the page plus the row telling has_more; else a prefix.
    read: (found) => ({ done: found.length > PAGE_SIZE, rows: found.filter(isRow) }),
  };
}

/** The first window's rows, after it gave way: its matches and tableRows weigh what comes next. */
const firstWindow = (so: Progress<Row>) => (so.tried.at(-1) === 'conversations.window' ? so.last : undefined);

/** The candidates' fetch in window rows: tableRows × matches ÷ window after a first window, else walkCap (the window is sized below it). */
function candidatesCost(i: Input, so: Progress<Row>): number {
  const first = firstWindow(so);
  return (first && weighLongerWindow(pageOf(i), first.length, first[0]?.table_rows, i.limits)?.fetched) ?? i.limits.walkCap;
}

const statement = (kind: ConversationStatement) => (i: Input) => conversationStatement(i.access, i.params, kind, i.limits);

/** Every conversations strategy (ties: this order); each returns exactly the scan's rows. */
export const CONVERSATION_STRATEGIES: ReadonlyArray<Strategy<Input, Row>> = [
  windowStrategy('conversations.window', (i) => i.limits.window),
  windowStrategy(
    'conversations.longerWindow',
    (i, so) => {
      const first = firstWindow(so);
      return first && longerWindow(pageOf(i), first.length, first[0]?.table_rows, i.limits);
    },
    () => true,
  ),
  {
    name: 'conversations.candidates',
    label: 'search_conversations_candidates',
    // No trigram and no window: the term is short and usually common, the scan is quicker.
    applies: (i, so) => (hasTrigram(i.params.q) || walks(i)) && !so.tried.includes('conversations.candidates'),
    cost: candidatesCost,
    statement: statement('candidates'),
    read: (rows) => ({ done: !rows[0]?.overflow, rows: rows[0]?.overflow ? [] : rows.filter(isRow) }),
  },
  {
    name: 'conversations.scan',
    label: 'search_conversations_scan',
    applies: () => true,
    cost: () => Infinity,
    statement: statement('scan'),
    read: (rows) => ({ done: true, rows: rows.filter(isRow) }),
  },
];

/**
 * The first window's rows from the contacts' statistics: `room` × the rows the page needs, up to
 * walkCap; 0 for a term no sampled contact holds unless its candidates could pass walkCap (then
 * sampleWindow); `window` for digits, since/until (not the created_at walked) or no statistics.
 */
export function firstConversationWindow(
  params: ConversationsParams,
  stats: TableStats | undefined,
  limits: ConversationLimits = CONVERSATION_LIMITS,
  options?: PlanOptions,
): number {
  const bounded = params.since !== undefined || params.until !== undefined;
  const share = stats && !bounded && !canMatchDisplayId(params.q) ? estimateShare(stats, CONTACT_COLUMNS, params.q) : undefined;
  if (share === undefined || stats === undefined) return limits.window;
  const candidates = UNSEEN_SHARE * stats.rows * knob('conversations.candidateCost', options);
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

export async function searchConversations(
  ctx: SearchContext,
  params: ConversationsParams,
  base = conversationLimits(ctx.plan),
): Promise<Page<ConversationRecord>> {
  if (ctx.access.inboxIds.length === 0) return { items: [], hasMore: false };
  // The index-backed variant counts on searchdesk's index; the default one looks it up.
  const ordered = ctx.access.flags.searchWithGin || (await searchdeskIndexes(ctx.db)).has(INDEX.conversationsCreated);
  const stats = ordered && hasTrigram(params.q) ? await tableStats(ctx.db, 'contacts', CONTACT_COLUMNS) : undefined;
  const limits = { ...base, window: firstConversationWindow(params, stats, base, ctx.plan) };
  const input: Input = { access: ctx.access, params, ordered, limits };
  if (walks(input)) input.inboxShare = await inboxShare(ctx, params);
  const rows = await runPlan(ctx, CONVERSATION_STRATEGIES, input);
  return toPage((rows as ConversationRow[]).map((row) => toConversationRecord(row, ctx.appUrl)));
}
