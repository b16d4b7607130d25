/**
 * Conversation search as a plan (docs/plans.md, Conversations): common terms walk the newest
 * conversations (a window, then maybe a longer one), rare ones go through the contacts' trigram
 * index and the display ids (the candidates), and what neither settles to the plain statement.
 * The window needs an index in created_at order: the index-backed variant (`search_with_gin`)
 * counts on searchdesk's; the default variant uses it only when `searchdesk db indexes` made it.
 */
import type { AccessContext } from '../auth/access.js';
import { INDEX, searchdeskIndexes } from '../db/catalog.js';
import { toPage, type Page, type SearchContext } from './context.js';
import { toConversationRecord, type ConversationRow } from './conversation-record.js';
import { canMatchDisplayId, conversationStatement, type ConversationStatement } from './conversation-statements.js';
import { PAGE_SIZE, type ConversationsParams } from './params.js';
import type { ConversationRecord } from './records.js';
import { ladderAbove, longerWindow, shareWindow, windowCanHold, type WindowLimits } from './sql.js';
import { CONTACT_COLUMNS } from './contacts.js';
import { estimateShare, shareWithinAccount, tableStats, UNSEEN_SHARE, type TableStats } from './statistics.js';
import { hasTrigram, looksSpecific } from './text.js';
import { runPlan, type Progress, type Step, type Strategy } from './local-plan.js';

// Knobs, in rows a window tests (why and evidence: docs/plans.md, Conversations).
/** Rows of the first window when the statistics do not size it. */
export const CONVERSATION_WINDOW = 1_000;
/** Rows of the first window for a term no sampled contact holds whose candidates could pass the longest walk. */
export const CONVERSATION_SAMPLE_WINDOW = 250;
/** A contact the candidates collect (index row, heap visit, probes of its conversations), in window rows. */
export const CANDIDATE_COST = 2;
/** The longest window: past it, the candidates answer. */
export const CONVERSATION_WALK_CAP = 10_000;
/** Most contacts (and display ids) the candidates collect before the plain statement answers. */
export const CANDIDATE_CAP = 20_000;
/** Most display ids the candidates enumerate; past it they are matched as text. */
export const DISPLAY_ID_CAP = 3_000;

/** The sizes searchConversations works with (tests lower them to reach every path on small data). */
export interface ConversationLimits extends WindowLimits {
  candidateCap: number;
  displayIdCap: number;
}

export const CONVERSATION_LIMITS: ConversationLimits = {
  window: CONVERSATION_WINDOW,
  walkCap: CONVERSATION_WALK_CAP,
  room: 3,
  candidateCap: CANDIDATE_CAP,
  displayIdCap: DISPLAY_ID_CAP,
};

/** What every conversations strategy weighs. */
export interface ConversationInput {
  access: Pick<AccessContext, 'accountId' | 'inboxIds'> & Partial<Pick<AccessContext, 'role'>>;
  params: ConversationsParams;
  /** An index gives created_at order (searchdesk_conversations_account_created). */
  ordered: boolean;
  /** The sizes; `window` is the first window's rows (firstConversationWindow). */
  limits: ConversationLimits;
  /** The share of the account's conversations in the caller's inboxes (windowPlannedOnce). */
  inboxShare?: number;
}

/** A candidates row when nothing matched carries only its `overflow`. */
export type MaybeConversationRow = Omit<ConversationRow, 'id'> & { id: number | null; overflow: boolean };
type Row = MaybeConversationRow;
type ConversationStrategy = Strategy<ConversationInput, Row>;

const isRow = (r: Row): r is Row & ConversationRow => r.id !== null;
const pageOf = (i: ConversationInput) => i.params.page ?? 1;

/**
 * The length of a first-page window when it is planned once, else undefined: on the ladder
 * (ladderAbove), while the walk it makes, about length ÷ `inboxShare` rows, stays within the
 * longest walk. An administrator's share is 1, an agent's from the statistics (docs/plans.md).
 */
export function windowPlannedOnce(
  params: ConversationsParams,
  window: number,
  inboxShare: number | undefined,
): number | undefined {
  if ((params.page ?? 1) !== 1 || !inboxShare) return undefined;
  const rows = ladderAbove(window, CONVERSATION_WALK_CAP);
  return rows !== undefined && rows / inboxShare <= CONVERSATION_WALK_CAP ? rows : undefined;
}

/**
 * Whether the plan walks the newest conversations first: with an index in that order, a page the
 * window holds, and a term that does not look specific (an id, a phone number, a full name is in
 * few conversations: the window would only read rows to find nothing).
 */
const walks = (i: ConversationInput) => i.ordered && windowCanHold(pageOf(i), i.limits.window) && !looksSpecific(i.params.q);

/** A window of `rows` (undefined: none), planned once or not by the inboxes' share (an administrator's: 1). */
function windowStrategy(
  name: string,
  rows: (i: ConversationInput, so: Progress<Row>) => number | undefined,
  when: (i: ConversationInput) => boolean = () => true,
): ConversationStrategy {
  const share = (i: ConversationInput) => i.inboxShare ?? (i.access.role === 'administrator' ? 1 : undefined);
  const once = (i: ConversationInput, so: Progress<Row>) => windowPlannedOnce(i.params, rows(i, so) ?? 0, share(i));
  return {
    name,
    label: 'search_conversations_window',
    applies: (i, so) => when(i) && rows(i, so) !== undefined && !so.tried.includes(name),
    cost: (i, so) => rows(i, so) ?? Infinity,
    caching: (i, so) => (once(i, so) === undefined ? 'no' : 'oncePerAccount'),
    statement: (i, so, inText) =>
      conversationStatement(
        i.access,
        i.params,
        'window',
        { ...i.limits, window: rows(i, so) ?? 0 },
        {
          onceRows: once(i, so),
          accountAsParameter: !inText,
        },
      ),
    // Exact when it holds the page plus the row telling has_more; else its rows are a prefix.
    read: (found) => ({ done: found.length > PAGE_SIZE, rows: found.filter(isRow) }),
  };
}

/** After the first window gave way: its matches and tableRows weigh a longer one (longerWindow). */
const afterFirst = (so: Progress<Row>) => (so.tried.at(-1) === 'conversations.window' ? so.last : undefined);

/**
 * What the candidates fetch, in window rows: after a first window, the table's rows times its
 * matches over its length (longerWindow weighs the same); before it, the longest walk, since the
 * first window is sized to cost less (firstConversationWindow).
 */
function candidatesCost(i: ConversationInput, so: Progress<Row>): number {
  const first = afterFirst(so);
  if (!first) return i.limits.walkCap;
  return ((first[0]?.table_rows ?? 0) * ((pageOf(i) - 1) * PAGE_SIZE + first.length)) / i.limits.window;
}

const statement = (kind: ConversationStatement) => (i: ConversationInput) =>
  conversationStatement(i.access, i.params, kind, i.limits);

/** Every conversations strategy; each returns exactly the plain statement's rows (ties: this order). */
export const CONVERSATION_STRATEGIES: readonly ConversationStrategy[] = [
  windowStrategy('conversations.window', (i) => i.limits.window, walks),
  windowStrategy('conversations.longerWindow', (i, so) => {
    const first = afterFirst(so);
    return first && longerWindow(pageOf(i), first.length, first[0]?.table_rows, i.limits);
  }),
  {
    name: 'conversations.candidates',
    label: 'search_conversations_candidates',
    // Without a trigram the contacts cannot be found by index; without a window either, such a
    // short term is usually in most conversations, and the plain statement is the quicker one.
    applies: (i, so) => (hasTrigram(i.params.q) || walks(i)) && !so.tried.includes('conversations.candidates'),
    cost: candidatesCost,
    statement: statement('candidates'),
    // Past the cap the candidates fetched nothing and cannot tell the answer.
    read: (rows): Step<Row> => (rows[0]?.overflow ? { done: false, rows: [] } : { done: true, rows: rows.filter(isRow) }),
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
 * Rows of the first window, from the contacts' statistics (a conversation matches mostly
 * through its contact): `room` times the rows the page is expected to need, up to the cap
 * (shareWindow). A term no sampled contact holds reads none (the candidates answer), unless its
 * candidates could cost more than the longest walk (the sample window then); digits (display
 * ids), a term past the cap, a search bounded by since/until (they bound last_activity_at, not
 * the created_at walked) or no statistics read `window` rows, whose matches then decide.
 */
export function firstConversationWindow(
  params: ConversationsParams,
  stats: TableStats | undefined,
  limits: ConversationLimits = CONVERSATION_LIMITS,
): number {
  const bounded = params.since !== undefined || params.until !== undefined;
  const share = stats && !bounded && !canMatchDisplayId(params.q) ? estimateShare(stats, CONTACT_COLUMNS, params.q) : undefined;
  if (share === undefined || stats === undefined) return limits.window;
  if (share === 0) return UNSEEN_SHARE * stats.rows * CANDIDATE_COST > limits.walkCap ? CONVERSATION_SAMPLE_WINDOW : 0;
  return shareWindow(params.page ?? 1, share, limits).rows ?? limits.window;
}

/**
 * The share of the account's conversations in the caller's inboxes, for a first-page window
 * (windowPlannedOnce): 1 for an administrator, an agent's from the statistics of
 * conversations.account_id and inbox_id, undefined without them.
 */
async function inboxShare(ctx: SearchContext, params: ConversationsParams): Promise<number | undefined> {
  if (ctx.access.role === 'administrator') return 1;
  if ((params.page ?? 1) !== 1) return undefined;
  const stats = await tableStats(ctx.db, 'conversations', ['account_id', 'inbox_id']);
  return stats && shareWithinAccount(stats, ctx.access.accountId, 'inbox_id', ctx.access.inboxIds);
}

/** The input of a search: the index, the statistics' first window and the inboxes' share. */
export async function conversationInput(
  ctx: SearchContext,
  params: ConversationsParams,
  base: ConversationLimits = CONVERSATION_LIMITS,
): Promise<ConversationInput> {
  const ordered = ctx.access.flags.searchWithGin || (await searchdeskIndexes(ctx.db)).has(INDEX.conversationsCreated);
  const stats = ordered && hasTrigram(params.q) ? await tableStats(ctx.db, 'contacts', CONTACT_COLUMNS) : undefined;
  const input: ConversationInput = {
    access: ctx.access,
    params,
    ordered,
    limits: { ...base, window: firstConversationWindow(params, stats, base) },
  };
  if (walks(input)) input.inboxShare = await inboxShare(ctx, params);
  return input;
}

export async function searchConversations(
  ctx: SearchContext,
  params: ConversationsParams,
  limits: ConversationLimits = CONVERSATION_LIMITS,
): Promise<Page<ConversationRecord>> {
  if (ctx.access.inboxIds.length === 0) return { items: [], hasMore: false };
  const rows = await runPlan(ctx, CONVERSATION_STRATEGIES, await conversationInput(ctx, params, limits));
  return toPage((rows as ConversationRow[]).map((row) => toConversationRecord(row, ctx.appUrl)));
}
