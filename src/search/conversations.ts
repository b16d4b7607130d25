/**
 * Conversation search: literal substring of the display id (as text) or of the contact's name,
 * email, phone number or identifier; only conversations of inboxes the caller may access.
 */
import { SqlParams, type SqlQuery } from '../db/db.js';
import type { AccessContext } from '../auth/access.js';
import { INDEX, searchdeskIndexes } from '../db/catalog.js';
import { toPage, type Page, type SearchContext } from './context.js';
import { LATEST_MESSAGE, toMessageRecord, type MessageRow } from './messages/records.js';
import { PAGE_SIZE, type ConversationsParams } from './params.js';
import type { ConversationRecord } from './records.js';
import { CONVERSATION_PRIORITIES, CONVERSATION_STATUSES, jsonObject } from './conversation-state.js';
import { CONVERSATION_LABELS } from './labels.js';
import { conversationUrl, type AppUrl } from './links.js';
import {
  checkClause,
  epoch,
  ladderAbove,
  longerWindow,
  pageClause,
  rowCount,
  shareWindow,
  tableRows,
  timeBounds,
  windowCanHold,
  type WindowLimits,
} from './sql.js';
import { CONTACT_COLUMNS } from './contacts.js';
import { estimateShare, shareWithinAccount, tableStats, UNSEEN_SHARE, type TableStats } from './statistics.js';
import { hasTrigram, indexedSubstringMatch, looksSpecific, rowMatch, substringMatch } from './text.js';

export interface ConversationRow {
  id: number;
  display_id: number;
  account_id: number;
  inbox_id: number;
  status: number;
  created_at: number | null;
  last_activity_at: number | null;
  contact_id: number | null;
  contact_name: string | null;
  contact_email: string | null;
  contact_phone_number: string | null;
  contact_identifier: string | null;
  /** CONVERSATION_DECORATION's state columns (contract §9.3). */
  priority: number | null;
  labels: string[] | null;
  waiting_since: number | null;
  snoozed_until: number | null;
  first_reply_created_at: number | null;
  custom_attributes: Record<string, unknown> | null;
  /** CONVERSATION_DECORATION's objects: null where there is none (no assignee, a deleted team). */
  assignee: { id: number; name: string | null; email: string | null } | null;
  team: { id: number; name: string | null } | null;
  inbox: { name: string | null; channel_type: string | null } | null;
  latest_message: MessageRow | null;
  /** The window strategy's estimate of the conversations table's rows (see tableRows). */
  table_rows?: number | null;
}

/** The candidate strategy's row when nothing matched: only its `overflow` is set. */
type MaybeConversationRow = Omit<ConversationRow, 'id'> & {
  id: number | null;
  /** Set by the candidate strategy when it reached its cap: its rows may be incomplete. */
  overflow: boolean;
};

/** How the matching conversations are found; every strategy returns the same rows in the same order. */
export type ConversationStrategy =
  /** Walk the account's conversations with the match as a filter: the plain statement, the reference. */
  | 'scan'
  /** Only the newest N accessible conversations: exact when they hold the whole page. */
  | 'window'
  /** The matching contacts first (their trigram index), then their conversations, plus display-id matches. */
  | 'candidates';

/** Rows of the newest-first window tried first when an index gives created_at order. */
export const CONVERSATION_WINDOW = 1_000;

/**
 * Rows of the first window for a term no sampled contact holds, where its candidates could cost
 * more than the longest walk (firstConversationWindow): small, since most such terms are rare and
 * the candidates answer them after it (2.3 ms at L become 4.6 for an administrator, 2.1 become
 * 5.2–6.1 for an agent of 10 inboxes of 50), while its matches show a common one.
 */
export const CONVERSATION_SAMPLE_WINDOW = 250;

/**
 * What the candidates pay for a contact they collect, against a row a window tests: its index
 * row and heap visit, and the probes of its conversations. At L: 12.3–12.8 µs a contact (Baker,
 * 11,720 contacts, 150 ms; Tanaka, 1,410, 17.4 ms), 5.7 µs a window row (Weber, about 2,960 rows,
 * 17 ms).
 */
export const CANDIDATE_COST = 2;

/** The longest second window (see longerWindow): past it, the candidates answer. */
export const CONVERSATION_WALK_CAP = 10_000;

/**
 * Most contacts (and display ids) the candidate strategy collects before it gives way to the plain
 * statement: past this, fetching their conversations one by one costs more than a scan.
 */
export const CANDIDATE_CAP = 20_000;

/**
 * Most display ids the candidate strategy enumerates (every integer up to the account's highest
 * display id whose text holds q: one unique-index probe each); past it, the display ids are
 * matched as text instead (the trigram index, where it exists).
 */
export const DISPLAY_ID_CAP = 3_000;

/** Digits of the largest display id (an int4): a longer q is in none. */
const DISPLAY_ID_DIGITS = 10;

/** A display id is an integer: only a `q` of digits can be a substring of its text. */
export function canMatchDisplayId(q: string): boolean {
  return /^\d+$/.test(q);
}

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

/**
 * SQL for the display ids (bigint) of the account whose text holds the digits `q`, when there
 * are at most `cap` of them up to the account's highest display id (else none: `fits` is false).
 * An integer whose text holds q at j digits from its end is a·10^(k+j) + q·10^j + b (k = q's
 * length, 0 ≤ b < 10^j, a ≥ 1 when q starts with 0, since a leading zero is never written); j
 * runs up to the highest id's length minus k. Only the bound per position is read from the
 * table (the unique (account_id, display_id) index gives max() at once); the ids are generated.
 */
function displayIdsHolding(q: string, account: string, cap: string, p: SqlParams): { ctes: string; ids: string; fits: string } {
  const k = p.add(q.length);
  const ctes = `
      dpos AS MATERIALIZED (
        SELECT d.mx, ${p.add(BigInt(q).toString())}::bigint AS v, ${p.add(q.startsWith('0') ? 1 : 0)}::bigint AS amin,
               (10::numeric ^ j)::bigint AS low, (10::numeric ^ (${k}::int + j))::bigint AS high
        FROM (SELECT coalesce(max(display_id), 0)::bigint AS mx FROM conversations WHERE account_id = ${account}::bigint) d,
             generate_series(0, length(d.mx::text) - ${k}::int) j
      ),
      dfits AS MATERIALIZED (
        SELECT coalesce(sum(greatest(mx / high - amin + 1, 0) * low), 0) <= ${cap} AS fits FROM dpos
      ),`;
  const ids = `
        SELECT n.n FROM dpos, generate_series(dpos.amin, dpos.mx / dpos.high) a, generate_series(0, dpos.low - 1) b,
             LATERAL (SELECT a * dpos.high + dpos.v * dpos.low + b AS n) n
        WHERE (SELECT fits FROM dfits) AND n.n <= dpos.mx`;
  return { ctes, ids, fits: '(SELECT fits FROM dfits)' };
}

/**
 * The select list that decorates a conversation row (alias `c`, with the columns of
 * `conversations`): its triage state (priority, custom attributes, the waiting, snoozed and
 * first-reply times, labels: contract §9.3), its assignee, team and inbox as json objects and its
 * latest message. Each lookup is
 * a scalar subquery by primary key, run for the rows a statement returns only; none is a join, so
 * none adds to the planner's join search (a conversation search page at M: 2.80 ms with the
 * contact, assignee, team, inbox and latest message joined, 2.10 with subqueries and the contact
 * carried from the search's own read; the help desk's statement, bare rows: 2.16). LIMIT 1 keeps
 * a probe from becoming a scan of a whole small table for every row.
 */
export const CONVERSATION_DECORATION = `
    c.priority, c.custom_attributes, ${epoch('c.waiting_since')} AS waiting_since,
    ${epoch('c.snoozed_until')} AS snoozed_until, ${epoch('c.first_reply_created_at')} AS first_reply_created_at,
    ${CONVERSATION_LABELS} AS labels,
    (SELECT json_build_object('id', u.id, 'name', coalesce(nullif(u.display_name, ''), u.name), 'email', u.email)
     FROM users u WHERE u.id = c.assignee_id LIMIT 1) AS assignee,
    (SELECT json_build_object('id', t.id, 'name', t.name)
     FROM teams t WHERE t.id = c.team_id AND t.account_id = c.account_id LIMIT 1) AS team,
    (SELECT json_build_object('name', i.name, 'channel_type', i.channel_type) FROM inboxes i WHERE i.id = c.inbox_id LIMIT 1) AS inbox,
    ${LATEST_MESSAGE} AS latest_message`;

/**
 * A conversation record's whole select list, for a statement that reads `conversations c` and
 * its contact `ct` (a read, the triage list); the search's own list reads its hits instead.
 */
export const CONVERSATION_WITH_CONTACT = `c.id, c.display_id, c.account_id, c.inbox_id, c.status,
           ${epoch('c.created_at')} AS created_at, ${epoch('c.last_activity_at')} AS last_activity_at,
           ct.id AS contact_id, ct.name AS contact_name, ct.email AS contact_email,
           ct.phone_number AS contact_phone_number, ct.identifier AS contact_identifier,
           ${CONVERSATION_DECORATION}`;

/** The columns of `conversations` (alias cv) CONVERSATION_DECORATION shows as they are. */
const TRIAGE_COLUMNS = 'cv.priority, cv.waiting_since, cv.snoozed_until, cv.first_reply_created_at, cv.custom_attributes';

/**
 * What the search's `hits` carry for each row of the page (cv: conversations, ct: its contact):
 * every column the record shows but the decoration's, so that the page is not read again.
 */
const HIT_COLUMNS = `cv.id, cv.display_id, cv.account_id, cv.inbox_id, cv.status, cv.created_at, cv.last_activity_at,
          cv.assignee_id, cv.team_id, ${TRIAGE_COLUMNS}, ct.id AS contact_id, ct.name AS contact_name, ct.email AS contact_email,
          ct.phone_number AS contact_phone_number, ct.identifier AS contact_identifier`;

/** The sizes one statement uses (a window's length, the candidates' caps). */
type QueryLimits = Pick<ConversationLimits, 'window' | 'candidateCap' | 'displayIdCap'>;

/**
 * The length of a first-page window when it is planned once (SqlQuery.planOnce), else undefined.
 * Planning was 0.25 ms of a common term's 1.1–1.5 ms window at M on one machine, 1.1 of 3.0–5.8
 * ms on another, and its plan is the walk of searchdesk_conversations_account_created whatever
 * the values, once the account and the window's length are in the text (the one plan is then
 * weighed for the account's rows and that length, as a plan for the values is) and the inboxes
 * are a check no index serves. (With the length a parameter, weighed as a tenth of the account's
 * conversations, the one plan of `webmail` at M scanned the table and sorted it: 2.0 → 42.7 ms.)
 * The length is rounded up to a ladder of ten steps a decade from 100 to 10,000 (ladderAbove).
 *
 * The walk reads about length ÷ `inboxShare` rows: the share of the account's conversations in
 * the caller's inboxes (1 for an administrator, whose inboxes are all the account's; for an
 * agent, from the statistics, as a plan for the values weighs it; undefined without them). It is
 * planned once while that stays within CONVERSATION_WALK_CAP, the longest walk a window ever
 * makes; past it, planned for the values, which may read the few inboxes' rows and sort them. An
 * agent's `example` at M, 10 inboxes of 50 (20 % of the account), 3.0 → 2.0 ms; one inbox of 1 %
 * (11,000 rows walked), 4.0 → 3.3; one of 0.2 % (52,000), 5.8 → 7.3, and one of 44
 * conversations (the whole account walked), 3.6 → 25.9: those stay planned for their values.
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

/** How one conversations statement is written, beside its strategy and sizes. */
export interface ConversationQueryOptions {
  /** The share of the account's conversations in the caller's inboxes (windowPlannedOnce). */
  inboxShare?: number;
  /** The general statement (SqlQuery.anyAccount): the account a parameter, planned for its values. */
  accountAsParameter?: boolean;
}

export function buildConversationsQuery(
  access: Pick<AccessContext, 'accountId' | 'inboxIds'> & Partial<Pick<AccessContext, 'role'>>,
  params: ConversationsParams,
  strategy: ConversationStrategy = 'scan',
  limits: QueryLimits = CONVERSATION_LIMITS,
  options: ConversationQueryOptions = {},
): SqlQuery {
  const { candidateCap, displayIdCap } = limits;
  const { inboxShare = access.role === 'administrator' ? 1 : undefined, accountAsParameter = false } = options;
  const p = new SqlParams();
  // The general statement (SqlQuery.anyAccount) reads the same window, the account a parameter.
  const ladder = strategy === 'window' ? windowPlannedOnce(params, limits.window, inboxShare) : undefined;
  const windowRows = ladder ?? limits.window;
  const planOnce = ladder !== undefined && !accountAsParameter;
  const account = planOnce ? rowCount(access.accountId) : p.add(access.accountId);
  const inboxes = `cv.inbox_id = ANY(${p.add(access.inboxIds)}::bigint[])`;
  const scope = [`cv.account_id = ${account}::bigint`, inboxes];
  const bounds = timeBounds('cv.last_activity_at', params.since, params.until, p);
  const accessible = [...scope, ...bounds].join(' AND ');
  // The same, checking rows a probe already found (by display id, by contact): one clause
  // (checkClause), 0.05–0.25 ms of a candidates statement at M, and no index but the probe's.
  const accessibleCheck = checkClause([...scope, ...bounds]).join(' AND ');
  const contactColumns = CONTACT_COLUMNS.map((c) => `ct.${c}`);
  // Built where used: a placeholder that no statement mentions has no type Postgres can infer.
  const searched = ['cv.display_id::text', ...contactColumns];
  const match = () => substringMatch(searched, params.q, p);
  const order = 'ORDER BY cv.created_at DESC, cv.id DESC';
  const page = pageClause(params.page ?? 1, PAGE_SIZE, p, planOnce);
  const joinContact = 'LEFT JOIN contacts ct ON ct.id = cv.contact_id AND ct.account_id = cv.account_id';
  let ctes: string;
  /** SQL of the candidate strategy's overflow flag; the other strategies never overflow. */
  let overflow: string | undefined;
  if (strategy === 'window') {
    // Not materialised: the outer LIMIT stops the walk as soon as the page is full. Each row's
    // contact is read by primary key (the LIMIT 1 keeps the lateral subquery from being flattened
    // into a join, which the planner may answer by hashing every contact of the table). The
    // match is one test of the row's texts joined (rowMatch), the walk's main cost. The window
    // is the newest accessible conversations; since/until (on last_activity_at) are tested with
    // the match, outside it: inside, the planner weighs a walk in created_at order that must
    // pass them against a sort of every recently active conversation, and may sort (an agent's
    // "Oliver" since 20 days at M: 12 ms, against a walk that stops at the page).
    ctes = `
      hits AS (
        SELECT ${HIT_COLUMNS}
        FROM (SELECT cv.id, cv.account_id, cv.contact_id, cv.display_id, cv.created_at, cv.last_activity_at,
                     cv.inbox_id, cv.status, cv.assignee_id, cv.team_id, ${TRIAGE_COLUMNS}
              FROM conversations cv WHERE ${(planOnce ? [scope[0], ...checkClause([inboxes])] : scope).join(' AND ')}
              ${order} LIMIT ${planOnce ? rowCount(windowRows) : p.add(windowRows)}) cv
        LEFT JOIN LATERAL (
          SELECT ct.id, ${contactColumns.join(', ')} FROM contacts ct
          WHERE ct.id = cv.contact_id AND ct.account_id = cv.account_id LIMIT 1
        ) ct ON true
        WHERE ${[...bounds, rowMatch(searched, params.q, p)].join(' AND ')} ${order} ${page}
      )`;
  } else if (strategy === 'candidates') {
    // The matching contacts first (a trigram bitmap where q has a trigram), then their
    // conversations by contact_id (ANY(ARRAY(…)): an index probe per contact, never a walk).
    // Display ids are digits: any other q skips that branch. The ids holding q are generated and
    // probed one by one in the unique (account_id, display_id) index (LIMIT 1 keeps each probe a
    // probe) when there are at most displayIdCap of them; else the display ids are matched as
    // text. Both sets stop at the cap + 1 rows; past the cap nothing more is fetched and
    // `overflow` tells the caller to scan instead.
    const cap = p.add(candidateCap + 1);
    let display = 'SELECT NULL::int AS id, NULL::timestamp AS created_at WHERE false';
    let displayCtes = '';
    if (canMatchDisplayId(params.q) && params.q.length <= DISPLAY_ID_DIGITS) {
      const held = displayIdsHolding(params.q, account, p.add(displayIdCap), p);
      displayCtes = held.ctes;
      display = `
        SELECT cv.id, cv.created_at FROM (${held.ids}) n
        CROSS JOIN LATERAL (
          SELECT cv.id, cv.created_at, cv.account_id, cv.inbox_id, cv.last_activity_at FROM conversations cv
          WHERE cv.account_id = ${account}::bigint AND cv.display_id = n.n LIMIT 1
        ) cv
        WHERE ${accessibleCheck}
        UNION ALL
        SELECT cv.id, cv.created_at FROM conversations cv
        WHERE NOT ${held.fits} AND ${accessible} AND ${substringMatch(['cv.display_id::text'], params.q, p)}
        LIMIT ${cap}`;
    }
    ctes = `${displayCtes}
      cand AS MATERIALIZED (
        SELECT ct.id FROM contacts ct
        WHERE ct.account_id = ${account}::bigint AND ${indexedSubstringMatch(contactColumns, params.q, p)} LIMIT ${cap}
      ),
      disp AS MATERIALIZED (${display}),
      over AS MATERIALIZED (
        SELECT (SELECT count(*) FROM cand) >= ${cap} OR (SELECT count(*) FROM disp) >= ${cap} AS overflow
      ),
      matched AS MATERIALIZED (
        SELECT cv.id, cv.created_at FROM conversations cv
        WHERE NOT (SELECT overflow FROM over) AND ${accessibleCheck} AND cv.contact_id = ANY(ARRAY(SELECT id FROM cand))
        UNION
        SELECT id, created_at FROM disp WHERE NOT (SELECT overflow FROM over)
      ),
      hits AS (
        SELECT ${HIT_COLUMNS}
        FROM (SELECT cv.id, cv.created_at FROM matched cv ${order} ${page}) h
        JOIN conversations cv ON cv.id = h.id
        ${joinContact}
      )`;
    overflow = '(SELECT overflow FROM over)';
  } else {
    ctes = `
      hits AS (
        SELECT ${HIT_COLUMNS} FROM conversations cv ${joinContact}
        WHERE ${accessible} AND ${match()} ${order} ${page}
      )`;
  }
  const from =
    overflow === undefined
      ? 'FROM hits c'
      : // One row even when nothing matched, so the caller always learns about an overflow.
        `FROM (SELECT ${overflow} AS overflow) meta LEFT JOIN hits c ON true`;
  // Find and page the rows first (hits carry their own columns and contact's), then decorate
  // only the rows of this page.
  const text = `
    WITH ${ctes}
    SELECT c.id, c.display_id, c.account_id, c.inbox_id, c.status,
           ${epoch('c.created_at')} AS created_at, ${epoch('c.last_activity_at')} AS last_activity_at,
           c.contact_id, c.contact_name, c.contact_email, c.contact_phone_number, c.contact_identifier,
           ${CONVERSATION_DECORATION},
           ${overflow === undefined ? 'false' : 'meta.overflow'} AS overflow,
           ${strategy === 'window' ? tableRows('conversations') : 'NULL::float8'} AS table_rows
    ${from}
    ORDER BY c.created_at DESC, c.id DESC`;
  if (!planOnce) return { text, values: p.values };
  return {
    text,
    values: p.values,
    planOnce,
    anyAccount: () => buildConversationsQuery(access, params, strategy, limits, { ...options, accountAsParameter: true }),
  };
}

/**
 * A row (with CONVERSATION_DECORATION's columns) as a conversation record; with `appUrl` (the
 * request's SearchContext.appUrl) it carries the agent app's `url`.
 */
export function toConversationRecord(row: ConversationRow, appUrl: AppUrl): ConversationRecord {
  const url = conversationUrl(appUrl, row.account_id, row.display_id);
  return {
    id: row.id,
    display_id: row.display_id,
    account_id: row.account_id,
    inbox_id: row.inbox_id,
    status: CONVERSATION_STATUSES[row.status] ?? 'open',
    priority: row.priority === null ? null : (CONVERSATION_PRIORITIES[row.priority] ?? null),
    labels: row.labels ?? [],
    created_at: row.created_at,
    last_activity_at: row.last_activity_at,
    waiting_since: row.waiting_since,
    snoozed_until: row.snoozed_until,
    first_reply_created_at: row.first_reply_created_at,
    custom_attributes: jsonObject(row.custom_attributes),
    ...(url !== undefined && { url }),
    messages: row.latest_message ? [toMessageRecord(row.latest_message)] : [],
    meta: {
      sender:
        row.contact_id === null
          ? null
          : {
              id: row.contact_id,
              name: row.contact_name,
              email: row.contact_email,
              phone_number: row.contact_phone_number,
              identifier: row.contact_identifier,
              type: 'contact',
            },
      assignee: row.assignee === null ? null : { ...row.assignee, type: 'user' },
      team: row.team,
      inbox: { id: row.inbox_id, name: row.inbox?.name ?? null, channel_type: row.inbox?.channel_type ?? null },
    },
  };
}

/**
 * Which strategies a search tries, in order; the last one always answers. A window may be
 * followed by a longer one (searchConversations decides from what the first one saw).
 */
export function conversationPlan(
  params: ConversationsParams,
  ordered: boolean,
  windowRows = CONVERSATION_WINDOW,
): ConversationStrategy[] {
  // A specific-looking term (an id, a phone number, a full name; it always has a trigram) is in
  // few conversations: the window would only read its rows to find nothing.
  const window = ordered && windowCanHold(params.page ?? 1, windowRows) && !looksSpecific(params.q);
  // Without a trigram the contacts cannot be found by index; without an ordered index such a
  // short term is usually in most conversations, and the plain statement is the quicker one.
  if (!hasTrigram(params.q) && !window) return ['scan'];
  return window ? ['window', 'candidates', 'scan'] : ['candidates', 'scan'];
}

/**
 * Rows of the first window. A conversation matches mostly through its contact, so the contacts'
 * statistics tell how common a term is (estimateShare), among accessible conversations as among
 * all: the window is `room` times the rows the page is expected to need, up to the cap — one
 * statement for a term in a few percent of them, where a window of 1,000 would give way to a
 * second. A term no sampled contact holds reads none (its few conversations come from the
 * candidates), unless the contacts are so many that it could be in more conversations than the
 * longest walk reads (CONVERSATION_SAMPLE_WINDOW rows then); a term of digits (display ids), one
 * expected past the cap, a search bounded by since/until, or a table without statistics reads
 * `window` rows, whose matches then decide (longerWindow).
 */
export function firstConversationWindow(
  params: ConversationsParams,
  stats: TableStats | undefined,
  limits: ConversationLimits = CONVERSATION_LIMITS,
): number {
  // since/until bound last_activity_at, not the created_at the window walks: the rows it reads
  // past the bounds do not count, and a longer window can read much of the account to fill.
  const bounded = params.since !== undefined || params.until !== undefined;
  const share = stats && !bounded && !canMatchDisplayId(params.q) ? estimateShare(stats, CONTACT_COLUMNS, params.q) : undefined;
  if (share === undefined || stats === undefined) return limits.window;
  // A term no sampled contact holds is in at most about UNSEEN_SHARE of them: in 100,000 contacts
  // up to 1,000, whose candidates cost less than the longest walk; in a million, up to 10,000,
  // which cost more (Baker at L, in 1.2 % of contacts: the candidates 150 ms, the help desk's
  // walk 33–45). There a small window goes first, and its matches decide (longerWindow).
  if (share === 0) return UNSEEN_SHARE * stats.rows * CANDIDATE_COST > limits.walkCap ? CONVERSATION_SAMPLE_WINDOW : 0;
  return shareWindow(params.page ?? 1, share, limits).rows ?? limits.window;
}

/**
 * The share of the account's conversations in the caller's inboxes, for a window of the first
 * page (windowPlannedOnce): 1 for an administrator, an agent's from the statistics of
 * conversations.account_id and inbox_id (read at most once per STATS_TTL_MS), undefined without.
 */
async function inboxShare(ctx: SearchContext, params: ConversationsParams): Promise<number | undefined> {
  if (ctx.access.role === 'administrator') return 1;
  if ((params.page ?? 1) !== 1) return undefined;
  const stats = await tableStats(ctx.db, 'conversations', ['account_id', 'inbox_id']);
  return stats && shareWithinAccount(stats, ctx.access.accountId, 'inbox_id', ctx.access.inboxIds);
}

const isRow = (r: MaybeConversationRow): r is MaybeConversationRow & ConversationRow => r.id !== null;

/** The rows of one strategy, or undefined when that strategy cannot tell the exact answer. */
async function tryStrategy(
  ctx: SearchContext,
  params: ConversationsParams,
  strategy: ConversationStrategy,
  limits: QueryLimits,
  options: ConversationQueryOptions,
): Promise<{ rows?: ConversationRow[]; tableRows?: number | null; returned: number }> {
  const rows = await ctx.db.query<MaybeConversationRow>(
    buildConversationsQuery(ctx.access, params, strategy, limits, options),
    `search_conversations_${strategy}`,
  );
  // A window is exact when it holds the whole page plus the row telling has_more.
  if (strategy === 'window') {
    const exact = rows.length > PAGE_SIZE ? rows.filter(isRow) : undefined;
    return { rows: exact, tableRows: rows[0]?.table_rows, returned: rows.length };
  }
  if (strategy === 'candidates' && rows[0]?.overflow) return { returned: 0 };
  return { rows: rows.filter(isRow), returned: rows.length };
}

/**
 * Common terms are found by walking the newest conversations (a window, exact when it holds the
 * page plus one row; when it holds only a few matches, they tell whether a longer window reads
 * fewer rows than the candidates would fetch: longerWindow), rare ones through the contacts'
 * trigram index and the display ids, and what neither settles (a term in more than
 * CANDIDATE_CAP contacts, none of them recent) by the plain statement. The window needs an
 * index in created_at order: the index-backed variant (`search_with_gin`) counts on
 * searchdesk's; the default variant uses it only when `searchdesk db indexes` created it. Every
 * strategy returns exactly the plain statement's rows.
 */
export async function searchConversations(
  ctx: SearchContext,
  params: ConversationsParams,
  baseLimits: ConversationLimits = CONVERSATION_LIMITS,
): Promise<Page<ConversationRecord>> {
  if (ctx.access.inboxIds.length === 0) return { items: [], hasMore: false };
  const ordered = ctx.access.flags.searchWithGin || (await searchdeskIndexes(ctx.db)).has(INDEX.conversationsCreated);
  const done = (rows: ConversationRow[]) => toPage(rows.map((row) => toConversationRecord(row, ctx.appUrl)));
  const stats = ordered && hasTrigram(params.q) ? await tableStats(ctx.db, 'contacts', CONTACT_COLUMNS) : undefined;
  const limits = { ...baseLimits, window: firstConversationWindow(params, stats, baseLimits) };
  const plan = conversationPlan(params, ordered, limits.window);
  const options = { inboxShare: plan[0] === 'window' ? await inboxShare(ctx, params) : undefined };
  for (const strategy of plan) {
    const first = await tryStrategy(ctx, params, strategy, limits, options);
    if (first.rows) return done(first.rows);
    if (strategy !== 'window') continue;
    const longer = longerWindow(params.page ?? 1, first.returned, first.tableRows, limits);
    if (longer === undefined) continue;
    const second = await tryStrategy(ctx, params, 'window', { ...limits, window: longer }, options);
    if (second.rows) return done(second.rows);
  }
  throw new Error('the plain statement, last in every plan, always answers');
}
