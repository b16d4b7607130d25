/**
 * The triage list (contract §9.2): the help desk's own conversation list (its ConversationFinder)
 * with no search term — status, assignee, inbox, team, labels, priority, unattended, a time range
 * and five orders — and its four counts. Only conversations of the caller's inboxes, always within
 * its account; the records are the search's (CONVERSATION_WITH_CONTACT, toConversationRecord).
 */
import { SqlParams, type SqlQuery } from '../db/db.js';
import type { AccessContext } from '../auth/access.js';
import type { SearchContext } from './context.js';
import { CONVERSATION_WITH_CONTACT, toConversationRecord, type ConversationRow } from './conversation-record.js';
import { LIST_PAGE_SIZE, type ListConversationsParams } from './list-params.js';
import type { ConversationRecord } from './records.js';
import { pageClause, timeBounds } from './sql.js';
import { resolveScope, type ListScope } from './list-scope.js';

export { LIST_PAGE_SIZE };

type ListAccess = Pick<AccessContext, 'accountId' | 'userId' | 'inboxIds'>;

/** conversations.status and conversations.priority as the database stores them. */
const STATUS_CODES = { open: 0, resolved: 1, pending: 2, snoozed: 3 } as const;
const PRIORITY_CODES = { low: 0, medium: 1, high: 2, urgent: 3 } as const;

/**
 * Each order as the help desk's current SortHandler writes it, ended by `id DESC` (contract §4):
 * priority_desc puts conversations without a priority last, waiting_since_asc those not waiting.
 * `$` stands for the table alias.
 */
const ORDERS: Record<NonNullable<ListConversationsParams['sort_by']>, string> = {
  last_activity_at_desc: '$.last_activity_at DESC, $.id DESC',
  created_at_desc: '$.created_at DESC, $.id DESC',
  created_at_asc: '$.created_at ASC, $.id DESC',
  priority_desc: '$.priority DESC NULLS LAST, $.last_activity_at DESC, $.id DESC',
  waiting_since_asc: '$.waiting_since ASC NULLS LAST, $.created_at ASC, $.id DESC',
};

/** The ORDER BY list of `sort_by` on table alias `alias`. */
export function listOrder(sortBy: ListConversationsParams['sort_by'], alias: string): string {
  return ORDERS[sortBy ?? 'last_activity_at_desc'].replaceAll('$', alias);
}

/**
 * The WHERE clauses of the list on alias `cv`, but a busy label's probe (listSource joins it);
 * `withAssignee` false for the counts (contract §9.2).
 */
export function listClauses(
  access: ListAccess,
  params: ListConversationsParams,
  scope: ListScope,
  p: SqlParams,
  withAssignee: boolean,
): string[] {
  const clauses = [`cv.account_id = ${p.add(access.accountId)}::bigint`, `cv.inbox_id = ANY(${p.add(scope.inboxIds)}::bigint[])`];
  const status = params.status ?? 'open';
  if (status !== 'all') clauses.push(`cv.status = ${p.add(STATUS_CODES[status])}::int`);
  if (withAssignee) clauses.push(...assigneeClause(access, params.assignee_type, p));
  if (params.team_id !== undefined) clauses.push(`cv.team_id = ${p.add(params.team_id)}::bigint`);
  if (params.priority === 'none') clauses.push('cv.priority IS NULL');
  else if (params.priority !== undefined) clauses.push(`cv.priority = ${p.add(PRIORITY_CODES[params.priority])}::int`);
  // The help desk's `unattended` scope: no first reply yet, or waiting for a reply again.
  if (params.conversation_type === 'unattended')
    clauses.push('(cv.first_reply_created_at IS NULL OR cv.waiting_since IS NOT NULL)');
  clauses.push(...timeBounds('cv.last_activity_at', params.since, params.until, p));
  if (scope.tagIds !== undefined && !busyLabels(scope)) clauses.push(labelClause(scope.tagIds, p));
  return clauses;
}

function assigneeClause(access: ListAccess, type: ListConversationsParams['assignee_type'], p: SqlParams): string[] {
  switch (type) {
    case 'me':
      return [`cv.assignee_id = ${p.add(access.userId)}::bigint`];
    case 'unassigned':
      return ['cv.assignee_id IS NULL'];
    case 'assigned':
      return ['cv.assignee_id IS NOT NULL'];
    default:
      return [];
  }
}

/**
 * From how many taggings a label filter is a probe of each row rather than a hash of the labels'
 * taggings: hashing costs a read of every tagging, a probe a look-up per row walked, and a busy
 * label needs few rows walked per match.
 */
export const LABEL_PROBE_FROM = 120_000;

const busyLabels = (scope: ListScope) => scope.tagIds !== undefined && (scope.taggings ?? 0) >= LABEL_PROBE_FROM;

/**
 * Carries any of the labels: a tagging of context `labels` on the conversation with one of their
 * tags (acts-as-taggable-on's `tagged_with any`). Taggings are shared by every account: the other
 * clauses always keep the account and the caller's inboxes. Two plans, chosen by the labels'
 * taggings as their tags' `taggings_count` (acts-as-taggable-on's counter) gives them, an estimate
 * read only to choose (where the counter is not kept, 0: the hash; the result is the same either
 * way). For a busy label (listSource), a probe of `taggings_idx` (tag_id, taggable_id) for each
 * row the walk in the list's order reads, stopping when the page or the capped count is full: a
 * LATERAL join, which the written join order keeps a nested loop, each probe cheaper than a
 * correlated EXISTS. For a rarer one (here), a semi-join the planner weighs with its statistics
 * of each tag's share of `taggings`, where it hashes the labels' taggings (read from
 * `taggings_idx` alone) and checks each row against the hash.
 */
function labelClause(tagIds: number[], p: SqlParams): string {
  return `cv.id IN (SELECT tg.taggable_id FROM taggings tg
    WHERE tg.tag_id = ANY(${p.add(tagIds)}::int[]) AND tg.taggable_type = 'Conversation' AND tg.context = 'labels')`;
}

/** The rows a list reads, `FROM …` on alias `cv` (with a busy label's probe) `WHERE …` (listClauses). */
function listSource(
  access: ListAccess,
  params: ListConversationsParams,
  scope: ListScope,
  p: SqlParams,
  withAssignee: boolean,
): string {
  const probe = busyLabels(scope)
    ? `CROSS JOIN LATERAL (SELECT 1 FROM taggings tg WHERE tg.tag_id = ANY(${p.add(scope.tagIds)}::int[])
         AND tg.taggable_id = cv.id AND tg.taggable_type = 'Conversation' AND tg.context = 'labels' LIMIT 1) lbl`
    : '';
  return `conversations cv ${probe} WHERE ${listClauses(access, params, scope, p, withAssignee).join(' AND ')}`;
}

/**
 * The records of one page, by the ids its hits statement (buildListHitsQuery) found, in their
 * order; a conversation of another account is never decorated. Its plan is the same whatever the
 * ids (a primary-key probe per id, then the decoration's probes), so it is planned once per
 * connection (SqlQuery.planOnce): planning the decoration's subqueries cost more than running
 * them for a page.
 */
export function buildListRecordsQuery(accountId: number, ids: readonly number[]): SqlQuery {
  const text = `
    SELECT ${CONVERSATION_WITH_CONTACT}
    FROM unnest($1::bigint[]) WITH ORDINALITY h(id, n)
    JOIN conversations c ON c.id = h.id AND c.account_id = $2::bigint
    LEFT JOIN LATERAL (
      SELECT ct.id, ct.name, ct.email, ct.phone_number, ct.identifier FROM contacts ct
      WHERE ct.id = c.contact_id AND ct.account_id = c.account_id LIMIT 1
    ) ct ON true
    ORDER BY h.n`;
  return { text, values: [ids, accountId], planOnce: true };
}

export interface ListCounts {
  mine_count: number;
  assigned_count: number;
  unassigned_count: number;
  all_count: number;
  /** Present (true) when a count stopped at the cap (LIST_COUNT_CAP). */
  counts_capped?: true;
}

const NO_COUNTS: ListCounts = { mine_count: 0, assigned_count: 0, unassigned_count: 0, all_count: 0 };

/**
 * Where a count stops: each of the three reads (mine, assigned, unassigned) reads at most this
 * many matching rows plus one, so a count over the hundreds of thousands of open conversations of
 * a large account costs what one of five hundred does. A busy label probed per row walks about a
 * dozen rows per match, so the cost of its counts grows with the cap. A count that reaches it is
 * reported as the cap, with `counts_capped: true` and a notice.
 */
export const LIST_COUNT_CAP = 500;

/**
 * The ids of one page of the list in its order, and one more (`has_more`): found by an index in
 * the order where one exists, walking until the page is full, or by the index of the inboxes
 * alone (searchdesk_conversations_inbox_assignee_list holds the id and the activity time: no
 * row is read for a list of a few inboxes in the default order). Planned for its values: which index serves
 * depends on them. It is short, and planning it costs little.
 */
export function buildListHitsQuery(access: ListAccess, params: ListConversationsParams, scope: ListScope): SqlQuery {
  const p = new SqlParams();
  const source = listSource(access, params, scope, p, true);
  const text = `SELECT cv.id FROM ${source}
    ORDER BY ${listOrder(params.sort_by, 'cv')} ${pageClause(params.page ?? 1, LIST_PAGE_SIZE, p)}`;
  return { text, values: p.values };
}

/** The three reads of the counts; all is assigned plus unassigned (contract §9.2). */
type CountRead = 'mine_count' | 'assigned_count' | 'unassigned_count';
const COUNT_READS: readonly CountRead[] = ['mine_count', 'assigned_count', 'unassigned_count'];

/**
 * Counts of the list, over its filters except `assignee_type`, one column a read: each read is of
 * one assignee class and stops at `cap` + 1 matching rows. Without a label each read is of one
 * range of searchdesk_conversations_inbox_assignee_list (account, inbox, status, assignee, with the
 * other filters' columns included) or the help desk's conv_acid_inbid_stat_asgnid_idx; with a busy
 * label each row of it is probed.
 */
export function buildListCountsQuery(
  access: ListAccess,
  params: ListConversationsParams,
  scope: ListScope,
  reads: readonly CountRead[],
  cap = LIST_COUNT_CAP,
): SqlQuery {
  const p = new SqlParams();
  const source = listSource(access, params, scope, p, false);
  const limit = p.add(cap + 1);
  const assignee: Record<CountRead, () => string> = {
    mine_count: () => `cv.assignee_id = ${p.add(access.userId)}::bigint`,
    assigned_count: () => 'cv.assignee_id IS NOT NULL',
    unassigned_count: () => 'cv.assignee_id IS NULL',
  };
  const columns = reads.map(
    (read) => `(SELECT count(*)::int FROM (SELECT 1 FROM ${source} AND ${assignee[read]()} LIMIT ${limit}) x) AS ${read}`,
  );
  return { text: `SELECT ${columns.join(', ')}`, values: p.values };
}

/**
 * The four counts. With a label filter each read may walk up to `cap` ÷ the label's share of rows,
 * so the three run as separate statements side by side on the pool; without one each is a short
 * read of an index range, and one statement is cheaper than three.
 */
async function readCounts(
  ctx: SearchContext,
  params: ListConversationsParams,
  scope: ListScope,
  cap: number,
): Promise<Omit<ListCounts, 'counts_capped'>> {
  const read = async (reads: readonly CountRead[]) => {
    const [row] = await ctx.db.query<Partial<Record<CountRead, number>>>(
      buildListCountsQuery(ctx.access, params, scope, reads, cap),
      'list_conversations_counts',
    );
    return row ?? {};
  };
  const rows = scope.tagIds === undefined ? [await read(COUNT_READS)] : await Promise.all(COUNT_READS.map((r) => read([r])));
  const n = Object.assign({}, ...rows) as Partial<Record<CountRead, number>>;
  const count = (r: CountRead) => Number(n[r] ?? 0);
  const [assigned_count, unassigned_count] = [count('assigned_count'), count('unassigned_count')];
  return { mine_count: count('mine_count'), assigned_count, unassigned_count, all_count: assigned_count + unassigned_count };
}

/** The counts as the body shows them: each at most `cap`, and `counts_capped` when one reached past it. */
export function capCounts(raw: Omit<ListCounts, 'counts_capped'> | undefined, cap = LIST_COUNT_CAP): ListCounts {
  if (!raw) return NO_COUNTS;
  const keys = ['mine_count', 'assigned_count', 'unassigned_count', 'all_count'] as const;
  const capped = keys.some((k) => raw[k] > cap);
  const counts = Object.fromEntries(keys.map((k) => [k, Math.min(raw[k], cap)])) as Omit<ListCounts, 'counts_capped'>;
  return capped ? { ...counts, counts_capped: true } : counts;
}

/** One page's records in the list's order, and whether more follow: two statements, one after the other. */
async function listPage(
  ctx: SearchContext,
  params: ListConversationsParams,
  scope: ListScope,
): Promise<{ rows: ConversationRow[]; hasMore: boolean }> {
  const hits = await ctx.db.query<{ id: number }>(buildListHitsQuery(ctx.access, params, scope), 'list_conversations_hits');
  const ids = hits.slice(0, LIST_PAGE_SIZE).map((h) => Number(h.id));
  const rows =
    ids.length === 0
      ? []
      : await ctx.db.query<ConversationRow>(buildListRecordsQuery(ctx.access.accountId, ids), 'list_conversations_records');
  return { rows, hasMore: hits.length > LIST_PAGE_SIZE };
}

export interface ListPage {
  counts: ListCounts;
  items: ConversationRecord[];
  hasMore: boolean;
  notices: string[];
}

/**
 * One page of the triage list with its counts and notices; `countCap` is where a count stops
 * (LIST_COUNT_CAP; tests lower it to reach the cap on small data).
 */
export async function listConversations(
  ctx: SearchContext,
  params: ListConversationsParams,
  countCap = LIST_COUNT_CAP,
): Promise<ListPage> {
  const { scope, notices } = await resolveScope(ctx, params);
  if (scope.inboxIds.length === 0) return { counts: NO_COUNTS, items: [], hasMore: false, notices };
  // The page (its ids, then their records) beside the counts.
  const [page, counts] = await Promise.all([listPage(ctx, params, scope), readCounts(ctx, params, scope, countCap)]);
  const capped = capCounts(counts, countCap);
  if (capped.counts_capped)
    notices.push(`Counts stop at ${countCap}: a count of ${countCap} means at least that many (add filters for an exact count).`);
  return {
    counts: capped,
    items: page.rows.map((row) => toConversationRecord(row, ctx.appUrl)),
    hasMore: page.hasMore,
    notices,
  };
}
