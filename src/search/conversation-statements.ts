/** Conversation search's statements (docs/plans.md): each finds and pages its hits, then decorates only the page. */
import { SqlParams, type SqlQuery } from '../db/db.js';
import type { AccessContext } from '../auth/access.js';
import { CONVERSATION_DECORATION } from './conversation-record.js';
import { PAGE_SIZE, type ConversationsParams } from './params.js';
import { checkClause, epoch, pageClause, rowCount, tableRows, timeBounds } from './sql.js';
import { CONTACT_COLUMNS } from './contacts.js';
import { indexedSubstringMatch, rowMatch, substringMatch } from './text.js';

export type ConversationStatement = 'scan' | 'window' | 'candidates';
export type ConversationSizes = Record<'window' | 'candidateCap' | 'displayIdCap', number>;
/** A display id is an integer: only a `q` of digits (at most 10, an int4's) can be in its text. */
export const canMatchDisplayId = (q: string) => /^\d+$/.test(q);
const TRIAGE_COLUMNS = 'cv.priority, cv.waiting_since, cv.snoozed_until, cv.first_reply_created_at, cv.custom_attributes';

/** Every column the record shows but the decoration's (cv: conversations, ct: its contact). */
const HIT_COLUMNS = `cv.id, cv.display_id, cv.account_id, cv.inbox_id, cv.status, cv.created_at, cv.last_activity_at,
          cv.assignee_id, cv.team_id, ${TRIAGE_COLUMNS}, ct.id AS contact_id, ct.name AS contact_name, ct.email AS contact_email,
          ct.phone_number AS contact_phone_number, ct.identifier AS contact_identifier`;
const ORDER = 'ORDER BY cv.created_at DESC, cv.id DESC';
const JOIN_CONTACT = 'LEFT JOIN contacts ct ON ct.id = cv.contact_id AND ct.account_id = cv.account_id';
const CONTACT_TEXTS = CONTACT_COLUMNS.map((c) => `ct.${c}`);
const SEARCHED = ['cv.display_id::text', ...CONTACT_TEXTS];

/** The clauses every statement shares, parameters first; `once`: a window planned once, its account in the text. */
function parts(access: Pick<AccessContext, 'accountId' | 'inboxIds'>, params: ConversationsParams, once?: number) {
  const p = new SqlParams();
  const account = once !== undefined ? rowCount(access.accountId) : p.add(access.accountId);
  const scope = [`cv.account_id = ${account}::bigint`, `cv.inbox_id = ANY(${p.add(access.inboxIds)}::bigint[])`];
  const bounds = timeBounds('cv.last_activity_at', params.since, params.until, p);
  const accessible = [...scope, ...bounds].join(' AND ');
  const accessibleCheck = checkClause([...scope, ...bounds]).join(' AND ');
  const page = pageClause(params.page ?? 1, PAGE_SIZE, p, once !== undefined);
  return { p, q: params.q, account, scope, bounds, accessible, accessibleCheck, page, once };
}
type Parts = ReturnType<typeof parts>;

/** The newest `rows` conversations (the outer LIMIT stops the walk), each contact by key, one rowMatch, since/until outside. */
function windowHits({ p, q, scope, bounds, page, once }: Parts, rows: number): string {
  const walked = (once !== undefined ? [scope[0], ...checkClause([scope[1]!])] : scope).join(' AND ');
  return `hits AS (SELECT ${HIT_COLUMNS}
        FROM (SELECT cv.id, cv.account_id, cv.contact_id, cv.display_id, cv.created_at, cv.last_activity_at, cv.inbox_id,
              cv.status, cv.assignee_id, cv.team_id, ${TRIAGE_COLUMNS} FROM conversations cv WHERE ${walked}
              ${ORDER} LIMIT ${once !== undefined ? rowCount(once) : p.add(rows)}) cv
        LEFT JOIN LATERAL (SELECT ct.id, ${CONTACT_TEXTS.join(', ')} FROM contacts ct
          WHERE ct.id = cv.contact_id AND ct.account_id = cv.account_id LIMIT 1) ct ON true
        WHERE ${[...bounds, rowMatch(SEARCHED, q, p)].join(' AND ')} ${ORDER} ${page})`;
}

// The display ids holding digits q (k) at j from the end, a·10^(k+j) + q·10^j + b, up to max(display_id) if at most `cap`.
function displayIdsHolding(q: string, account: string, cap: string, p: SqlParams): { ctes: string; ids: string; fits: string } {
  const k = p.add(q.length);
  const ctes = `dpos AS MATERIALIZED (
        SELECT d.mx, ${p.add(BigInt(q).toString())}::bigint AS v, ${p.add(q.startsWith('0') ? 1 : 0)}::bigint AS amin,
               (10::numeric ^ j)::bigint AS low, (10::numeric ^ (${k}::int + j))::bigint AS high
        FROM (SELECT coalesce(max(display_id), 0)::bigint AS mx FROM conversations WHERE account_id = ${account}::bigint) d,
             generate_series(0, length(d.mx::text) - ${k}::int) j),
      dfits AS MATERIALIZED (SELECT coalesce(sum(greatest(mx / high - amin + 1, 0) * low), 0) <= ${cap} AS fits FROM dpos),`;
  const ids = `SELECT n.n FROM dpos, generate_series(dpos.amin, dpos.mx / dpos.high) a, generate_series(0, dpos.low - 1) b,
        LATERAL (SELECT a * dpos.high + dpos.v * dpos.low + b AS n) n WHERE (SELECT fits FROM dfits) AND n.n <= dpos.mx`;
  return { ctes, ids, fits: '(SELECT fits FROM dfits)' };
}

/** The display-id matches: the generated ids probed in the unique (account_id, display_id) index, else matched as text. */
function displayMatches(x: Parts, cap: string, displayIdCap: number): { ctes: string; display: string } {
  if (!canMatchDisplayId(x.q) || x.q.length > 10)
    return { ctes: '', display: 'SELECT NULL::int AS id, NULL::timestamp AS created_at WHERE false' };
  const held = displayIdsHolding(x.q, x.account, x.p.add(displayIdCap), x.p);
  const display = `SELECT cv.id, cv.created_at FROM (${held.ids}) n
        CROSS JOIN LATERAL (SELECT cv.id, cv.created_at, cv.account_id, cv.inbox_id, cv.last_activity_at FROM conversations cv
          WHERE cv.account_id = ${x.account}::bigint AND cv.display_id = n.n LIMIT 1) cv
        WHERE ${x.accessibleCheck}
        UNION ALL SELECT cv.id, cv.created_at FROM conversations cv
        WHERE NOT ${held.fits} AND ${x.accessible} AND ${substringMatch(['cv.display_id::text'], x.q, x.p)} LIMIT ${cap}`;
  return { ctes: held.ctes, display };
}

/** The matching contacts (trigram), their conversations by contact_id probes, and the display ids; past the cap, `overflow`. */
function candidateHits(x: Parts, { candidateCap, displayIdCap }: ConversationSizes): string {
  const cap = x.p.add(candidateCap + 1);
  const { ctes, display } = displayMatches(x, cap, displayIdCap);
  return `${ctes}
      cand AS MATERIALIZED (SELECT ct.id FROM contacts ct
        WHERE ct.account_id = ${x.account}::bigint AND ${indexedSubstringMatch(CONTACT_TEXTS, x.q, x.p)} LIMIT ${cap}),
      disp AS MATERIALIZED (${display}),
      over AS MATERIALIZED (SELECT (SELECT count(*) FROM cand) >= ${cap} OR (SELECT count(*) FROM disp) >= ${cap} AS overflow),
      matched AS MATERIALIZED (SELECT cv.id, cv.created_at FROM conversations cv
        WHERE NOT (SELECT overflow FROM over) AND ${x.accessibleCheck} AND cv.contact_id = ANY(ARRAY(SELECT id FROM cand))
        UNION SELECT id, created_at FROM disp WHERE NOT (SELECT overflow FROM over)),
      hits AS (SELECT ${HIT_COLUMNS}
        FROM (SELECT cv.id, cv.created_at FROM matched cv ${ORDER} ${x.page}) h
        JOIN conversations cv ON cv.id = h.id ${JOIN_CONTACT})`;
}

const scanHits = (x: Parts) => `hits AS (SELECT ${HIT_COLUMNS} FROM conversations cv ${JOIN_CONTACT}
        WHERE ${x.accessible} AND ${substringMatch(SEARCHED, x.q, x.p)} ${ORDER} ${x.page})`;

/** One statement; a window planned once has its ladder length (`onceRows`) and its account in the text, unless `anyAccount`. */
export function conversationStatement(
  access: Pick<AccessContext, 'accountId' | 'inboxIds'>,
  params: ConversationsParams,
  kind: ConversationStatement,
  sizes: ConversationSizes,
  onceRows?: number,
  anyAccount = false,
): SqlQuery {
  const x = parts(access, params, anyAccount ? undefined : onceRows);
  const candidates = kind === 'candidates';
  const ctes = kind === 'window' ? windowHits(x, onceRows ?? sizes.window) : candidates ? candidateHits(x, sizes) : scanHits(x);
  const text = `
    WITH ${ctes}
    SELECT c.id, c.display_id, c.account_id, c.inbox_id, c.status,
           ${epoch('c.created_at')} AS created_at, ${epoch('c.last_activity_at')} AS last_activity_at,
           c.contact_id, c.contact_name, c.contact_email, c.contact_phone_number, c.contact_identifier,
           ${CONVERSATION_DECORATION},
           ${candidates ? 'meta.overflow' : 'false'} AS overflow,
           ${kind === 'window' ? tableRows('conversations') : 'NULL::float8'} AS table_rows
    ${candidates ? `FROM (SELECT (SELECT overflow FROM over) AS overflow) meta LEFT JOIN hits c ON true` : 'FROM hits c'}
    ORDER BY c.created_at DESC, c.id DESC`;
  return { text, values: x.p.values };
}
