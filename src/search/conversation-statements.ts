/**
 * The statements of conversation search (docs/plans.md, Conversations): a literal substring of
 * the display id (as text) or of the contact's name, email, phone number or identifier; only
 * conversations of inboxes the caller may access; newest first.
 */
import { SqlParams, type SqlQuery } from '../db/db.js';
import type { AccessContext } from '../auth/access.js';
import { CONVERSATION_DECORATION } from './conversation-record.js';
import { PAGE_SIZE, type ConversationsParams } from './params.js';
import { checkClause, epoch, pageClause, rowCount, tableRows, timeBounds } from './sql.js';
import { CONTACT_COLUMNS } from './contacts.js';
import { indexedSubstringMatch, rowMatch, substringMatch } from './text.js';

/** Which statement: the window, the candidates or the plain statement ('scan', the reference). */
export type ConversationStatement = 'scan' | 'window' | 'candidates';

/** The sizes one statement uses: a window's rows, the candidates' caps. */
export interface ConversationSizes {
  window: number;
  candidateCap: number;
  displayIdCap: number;
}

/**
 * How a window statement is planned: `onceRows`, its length on the ladder when it is planned
 * once (the account and the length written in the text: SqlQuery.planOnce); `accountAsParameter`,
 * the same statement for any account (SqlQuery.anyAccount).
 */
export interface ConversationPlanning {
  onceRows?: number;
  accountAsParameter?: boolean;
}

/** Digits of the largest display id (an int4): a longer q is in none. */
const DISPLAY_ID_DIGITS = 10;

/** A display id is an integer: only a `q` of digits can be a substring of its text. */
export function canMatchDisplayId(q: string): boolean {
  return /^\d+$/.test(q);
}

/** The columns of `conversations` (alias cv) CONVERSATION_DECORATION shows as they are. */
const TRIAGE_COLUMNS = 'cv.priority, cv.waiting_since, cv.snoozed_until, cv.first_reply_created_at, cv.custom_attributes';

/**
 * What the search's `hits` carry for each row of the page (cv: conversations, ct: its contact):
 * every column the record shows but the decoration's, so that the page is not read again.
 */
const HIT_COLUMNS = `cv.id, cv.display_id, cv.account_id, cv.inbox_id, cv.status, cv.created_at, cv.last_activity_at,
          cv.assignee_id, cv.team_id, ${TRIAGE_COLUMNS}, ct.id AS contact_id, ct.name AS contact_name, ct.email AS contact_email,
          ct.phone_number AS contact_phone_number, ct.identifier AS contact_identifier`;

const ORDER = 'ORDER BY cv.created_at DESC, cv.id DESC';
const JOIN_CONTACT = 'LEFT JOIN contacts ct ON ct.id = cv.contact_id AND ct.account_id = cv.account_id';
const CONTACT_TEXTS = CONTACT_COLUMNS.map((c) => `ct.${c}`);
const SEARCHED = ['cv.display_id::text', ...CONTACT_TEXTS];

/** The clauses every statement shares, in the order their parameters are added. */
interface Parts {
  p: SqlParams;
  q: string;
  account: string;
  scope: string[];
  bounds: string[];
  /** The accessible conversations, as clauses an index may serve. */
  accessible: string;
  /** The same, checking rows a probe already found: one clause (checkClause), no index but the probe's. */
  accessibleCheck: string;
  page: string;
  once?: number;
}

function parts(
  access: Pick<AccessContext, 'accountId' | 'inboxIds'>,
  params: ConversationsParams,
  planning: ConversationPlanning,
): Parts {
  const p = new SqlParams();
  const once = planning.accountAsParameter ? undefined : planning.onceRows;
  const account = once !== undefined ? rowCount(access.accountId) : p.add(access.accountId);
  const scope = [`cv.account_id = ${account}::bigint`, `cv.inbox_id = ANY(${p.add(access.inboxIds)}::bigint[])`];
  const bounds = timeBounds('cv.last_activity_at', params.since, params.until, p);
  const accessible = [...scope, ...bounds].join(' AND ');
  const accessibleCheck = checkClause([...scope, ...bounds]).join(' AND ');
  const page = pageClause(params.page ?? 1, PAGE_SIZE, p, once !== undefined);
  return { p, q: params.q, account, scope, bounds, accessible, accessibleCheck, page, once };
}

/**
 * The newest accessible conversations, `rows` of them, with the match as a filter. Not
 * materialised: the outer LIMIT stops the walk once the page is full. Each row's contact is read
 * by primary key (LIMIT 1 keeps the lateral subquery from being flattened into a join that may
 * hash every contact); the match is one test of the row's texts joined (rowMatch). since/until
 * (on last_activity_at) are tested with the match, outside the window: inside, the planner may
 * sort every recently active conversation rather than walk (docs/plans.md, Conversations).
 */
function windowHits({ p, q, scope, bounds, page, once }: Parts, rows: number): string {
  const walked = (once !== undefined ? [scope[0], ...checkClause([scope[1]!])] : scope).join(' AND ');
  return `
      hits AS (
        SELECT ${HIT_COLUMNS}
        FROM (SELECT cv.id, cv.account_id, cv.contact_id, cv.display_id, cv.created_at, cv.last_activity_at,
                     cv.inbox_id, cv.status, cv.assignee_id, cv.team_id, ${TRIAGE_COLUMNS}
              FROM conversations cv WHERE ${walked}
              ${ORDER} LIMIT ${once !== undefined ? rowCount(once) : p.add(rows)}) cv
        LEFT JOIN LATERAL (
          SELECT ct.id, ${CONTACT_TEXTS.join(', ')} FROM contacts ct
          WHERE ct.id = cv.contact_id AND ct.account_id = cv.account_id LIMIT 1
        ) ct ON true
        WHERE ${[...bounds, rowMatch(SEARCHED, q, p)].join(' AND ')} ${ORDER} ${page}
      )`;
}

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
 * The display-id branch of the candidates: the ids holding q generated and probed one by one in
 * the unique (account_id, display_id) index (LIMIT 1 keeps each probe a probe) when there are at
 * most displayIdCap of them, else the display ids matched as text. Only a q of digits has one.
 */
function displayMatches(x: Parts, cap: string, displayIdCap: number): { ctes: string; display: string } {
  if (!canMatchDisplayId(x.q) || x.q.length > DISPLAY_ID_DIGITS)
    return { ctes: '', display: 'SELECT NULL::int AS id, NULL::timestamp AS created_at WHERE false' };
  const held = displayIdsHolding(x.q, x.account, x.p.add(displayIdCap), x.p);
  const display = `
        SELECT cv.id, cv.created_at FROM (${held.ids}) n
        CROSS JOIN LATERAL (
          SELECT cv.id, cv.created_at, cv.account_id, cv.inbox_id, cv.last_activity_at FROM conversations cv
          WHERE cv.account_id = ${x.account}::bigint AND cv.display_id = n.n LIMIT 1
        ) cv
        WHERE ${x.accessibleCheck}
        UNION ALL
        SELECT cv.id, cv.created_at FROM conversations cv
        WHERE NOT ${held.fits} AND ${x.accessible} AND ${substringMatch(['cv.display_id::text'], x.q, x.p)}
        LIMIT ${cap}`;
  return { ctes: held.ctes, display };
}

/**
 * The matching contacts first (a trigram bitmap where q has a trigram), then their conversations
 * by contact_id (ANY(ARRAY(…)): an index probe per contact, never a walk), plus the display-id
 * matches. Both sets stop at the cap + 1 rows; past the cap nothing more is fetched and
 * `overflow` says the answer is not known.
 */
function candidateHits(x: Parts, { candidateCap, displayIdCap }: ConversationSizes): string {
  const cap = x.p.add(candidateCap + 1);
  const { ctes, display } = displayMatches(x, cap, displayIdCap);
  return `${ctes}
      cand AS MATERIALIZED (
        SELECT ct.id FROM contacts ct
        WHERE ct.account_id = ${x.account}::bigint AND ${indexedSubstringMatch(CONTACT_TEXTS, x.q, x.p)} LIMIT ${cap}
      ),
      disp AS MATERIALIZED (${display}),
      over AS MATERIALIZED (
        SELECT (SELECT count(*) FROM cand) >= ${cap} OR (SELECT count(*) FROM disp) >= ${cap} AS overflow
      ),
      matched AS MATERIALIZED (
        SELECT cv.id, cv.created_at FROM conversations cv
        WHERE NOT (SELECT overflow FROM over) AND ${x.accessibleCheck} AND cv.contact_id = ANY(ARRAY(SELECT id FROM cand))
        UNION
        SELECT id, created_at FROM disp WHERE NOT (SELECT overflow FROM over)
      ),
      hits AS (
        SELECT ${HIT_COLUMNS}
        FROM (SELECT cv.id, cv.created_at FROM matched cv ${ORDER} ${x.page}) h
        JOIN conversations cv ON cv.id = h.id
        ${JOIN_CONTACT}
      )`;
}

/** The plain statement: the accessible conversations with the match as a filter. */
function scanHits(x: Parts): string {
  return `
      hits AS (
        SELECT ${HIT_COLUMNS} FROM conversations cv ${JOIN_CONTACT}
        WHERE ${x.accessible} AND ${substringMatch(SEARCHED, x.q, x.p)} ${ORDER} ${x.page}
      )`;
}

/**
 * One statement: find and page the rows first (hits carry their own columns and contact's), then
 * decorate only the rows of this page. The candidates return one row even when nothing matched,
 * so that their `overflow` always reaches the caller; a window carries tableRows.
 */
export function conversationStatement(
  access: Pick<AccessContext, 'accountId' | 'inboxIds'>,
  params: ConversationsParams,
  statement: ConversationStatement,
  sizes: ConversationSizes,
  planning: ConversationPlanning = {},
): SqlQuery {
  const x = parts(access, params, planning);
  const candidates = statement === 'candidates';
  const ctes =
    statement === 'window'
      ? windowHits(x, planning.onceRows ?? sizes.window)
      : candidates
        ? candidateHits(x, sizes)
        : scanHits(x);
  const from = candidates ? `FROM (SELECT (SELECT overflow FROM over) AS overflow) meta LEFT JOIN hits c ON true` : 'FROM hits c';
  const text = `
    WITH ${ctes}
    SELECT c.id, c.display_id, c.account_id, c.inbox_id, c.status,
           ${epoch('c.created_at')} AS created_at, ${epoch('c.last_activity_at')} AS last_activity_at,
           c.contact_id, c.contact_name, c.contact_email, c.contact_phone_number, c.contact_identifier,
           ${CONVERSATION_DECORATION},
           ${candidates ? 'meta.overflow' : 'false'} AS overflow,
           ${statement === 'window' ? tableRows('conversations') : 'NULL::float8'} AS table_rows
    ${from}
    ORDER BY c.created_at DESC, c.id DESC`;
  return { text, values: x.p.values };
}
