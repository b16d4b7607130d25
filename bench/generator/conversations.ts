/**
 * Conversations, generated inside Postgres. Every attribute is a pure function of the
 * conversation's local index `c`, so the message statement recomputes the attributes it needs
 * (inbox, contact, responder, time span) instead of joining. Conversations ascend in time with
 * their ids over the last `days` days; display_id is c (1 … N per account). In the skewed shape
 * half of them belong to a few contacts drawn Zipf-like (skewed.ts).
 */
import type { SqlQuery } from '../../src/db/db.js';
import { contactFirstName } from './contacts.js';
import { cachedLabelList } from './labels.js';
import { CONCENTRATED_SHARE, concentratedContact } from './skewed.js';
import { ascendingSeconds, at, DAY_SECONDS, Statement, type StatementContext } from './sql-build.js';
import { int, type RowRandom } from './sql-random.js';

const MAX_DURATION_SECONDS = 14 * DAY_SECONDS;

/** The agent (user id) of inbox `k`'s group picked by `salt`: only agents who are members of that inbox. */
function groupAgent(st: Statement, r: RowRandom, k: string, salt: number): string {
  const { counts, first } = st.ctx.plan;
  const groups = int(counts.inboxes / counts.agentInboxes);
  const group = `(${k} % ${groups})`;
  const inGroup = `((${int(counts.agents)} - 1 - ${group}) / ${groups} + 1)`;
  return `(${int(first.user)} + 1 + ${group} + ${groups} * ${r.below('a.c', salt, inGroup)})`;
}

/** SQL: the conversation's contact (1-based local index): uniform, or in the skewed shape half concentrated. */
function contactOf(st: Statement, r: RowRandom, c: string): string {
  const { contacts } = st.ctx.plan.counts;
  const uniform = `1 + ${r.below(c, 3, contacts)}`;
  if (st.ctx.shape !== 'skewed') return uniform;
  return `CASE WHEN ${r.unit(c, 40)} < ${CONCENTRATED_SHARE} THEN ${concentratedContact(r, c, 41, contacts)} ELSE ${uniform} END`;
}

/**
 * `SELECT` of conversations from … to with columns c, k (inbox, 0-based), ci (contact, 1-based),
 * created_s and dur_s (seconds into the window), status, assignee, responder (who answers:
 * the assignee, else an agent of the inbox), team, and — with `withGreeting` — cfirst, the
 * contact's first name.
 */
export function conversationRows(st: Statement, from: number, to: number, withGreeting = false): string {
  const r = st.random('conversations');
  const { counts, first } = st.ctx.plan;
  const window = st.ctx.days * DAY_SECONDS;
  const admin = int(first.user);
  const inbox = `floor(${int(counts.inboxes)} * ${r.unit('c', 1)} * (0.25 + 0.75 * ${r.unit('c', 2)}))::int`;
  const base = `SELECT c, (${inbox} + 3) % ${int(counts.inboxes)} AS k,
        ${contactOf(st, r, 'c')} AS ci,
        ${ascendingSeconds('c', counts.conversations, window, r.unit('c', 4))} AS created_s,
        300 + floor(${int(MAX_DURATION_SECONDS)} * ${r.unit('c', 5)} * ${r.unit('c', 6)} * ${r.unit('c', 7)})::bigint AS dur_raw,
        ${r.unit('c', 8)} AS ua
      FROM generate_series(${int(from)}, ${int(to)}) AS c OFFSET 0`;
  const status = `CASE WHEN ${r.unit('a.c', 9)} < 0.22 THEN 0 WHEN ${r.unit('a.c', 9)} < 0.82 THEN 1
      WHEN ${r.unit('a.c', 9)} < 0.93 THEN 2 ELSE 3 END`;
  const team =
    counts.teams === 0
      ? 'NULL::bigint'
      : `CASE WHEN ${r.unit('a.c', 12)} < 0.35 THEN NULL ELSE ${int(first.team)} + ${r.below('a.c', 13, counts.teams)} END`;
  const greeting = withGreeting ? `, ${contactFirstName(st, st.random('contacts'), 'a.ci')} AS cfirst` : '';
  return `SELECT a.c, a.k, a.ci, a.created_s, least(a.dur_raw, ${int(window)} - a.created_s) AS dur_s,
        ${status} AS status,
        CASE WHEN a.ua < 0.15 THEN NULL WHEN a.ua < 0.2 THEN ${admin} ELSE ${groupAgent(st, r, 'a.k', 10)} END AS assignee,
        CASE WHEN a.ua < 0.15 THEN ${groupAgent(st, r, 'a.k', 11)} WHEN a.ua < 0.2 THEN ${admin}
          ELSE ${groupAgent(st, r, 'a.k', 10)} END AS responder,
        ${team} AS team${greeting}
      FROM (${base}) AS a OFFSET 0`;
}

/**
 * The triage columns over `v` (a conversationRows row): priority (45% set, urgent rarest);
 * first_reply_created_at (none yet for a quarter of the open, half of the pending, a tenth of the
 * snoozed and 3% of the resolved conversations, else within four hours, skewed short);
 * waiting_since (open or pending conversations without a reply wait since their start, 30% of the
 * other open ones since their last activity); snoozed_until (snoozed ones, 80% of them 1 hour to 7
 * days after now); custom_attributes on 30%; cached_label_list as the taggings say.
 */
function triageColumns(st: Statement, r: RowRandom): Record<string, string> {
  const u = (salt: number) => r.unit('v.c', salt);
  const priority = `CASE WHEN ${u(20)} < 0.55 THEN NULL WHEN ${u(20)} < 0.72 THEN 0 WHEN ${u(20)} < 0.86 THEN 1
      WHEN ${u(20)} < 0.96 THEN 2 ELSE 3 END`;
  const unreplied = `${u(21)} < CASE v.status WHEN 0 THEN 0.25 WHEN 2 THEN 0.5 WHEN 3 THEN 0.1 ELSE 0.03 END`;
  const replyDelay = `least(v.dur_s, 30 + floor(14400 * ${u(22)} * ${u(23)})::bigint)`;
  const window = st.ctx.days * DAY_SECONDS;
  const snoozedFor = `${int(window)} + 3600 + floor(${int(7 * DAY_SECONDS - 3600)} * ${u(29)})::bigint`;
  const plans = st.names(['free', 'starter', 'pro', 'enterprise']);
  const attributes = `CASE WHEN ${u(26)} < 0.3 THEN jsonb_build_object('plan', ${at(plans, `1 + ${r.below('v.c', 27, 4)}`)},
      'order_value', 10 + ${r.below('v.c', 28, 990)}) ELSE '{}'::jsonb END`;
  return {
    priority,
    first_reply_created_at: `CASE WHEN ${unreplied} THEN NULL ELSE ${st.timeIn(st.ctx.days, `v.created_s + ${replyDelay}`)} END`,
    waiting_since: `CASE WHEN v.status IN (0, 2) AND ${unreplied} THEN ${st.timeIn(st.ctx.days, 'v.created_s')}
      WHEN v.status = 0 AND ${u(24)} < 0.3 THEN ${st.timeIn(st.ctx.days, 'v.created_s + v.dur_s')} END`,
    snoozed_until: `CASE WHEN v.status = 3 AND ${u(25)} < 0.8 THEN ${st.timeIn(st.ctx.days, snoozedFor)} END`,
    custom_attributes: attributes,
    cached_label_list: cachedLabelList(st, r, 'v.c'),
  };
}

/** Conversations with local indexes from … to (1-based) of one account. */
export function buildConversationsInsert(ctx: StatementContext, from: number, to: number): SqlQuery {
  const st = new Statement(ctx);
  const { plan } = ctx;
  const created = st.timeIn(ctx.days, 'v.created_s');
  const last = st.timeIn(ctx.days, 'v.created_s + v.dur_s');
  const rows = conversationRows(st, from, to);
  const triage = triageColumns(st, st.random('conversations'));
  return st.done(`
    INSERT INTO conversations (id, account_id, inbox_id, display_id, status, contact_id, assignee_id, team_id,
                               created_at, updated_at, last_activity_at, ${Object.keys(triage).join(', ')})
    SELECT ${int(plan.first.conversation - 1)} + v.c, ${int(plan.accountId)}, ${int(plan.first.inbox)} + v.k, v.c, v.status,
           ${int(plan.first.contact - 1)} + v.ci, v.assignee, v.team, ${created}, ${last}, ${last},
           ${Object.values(triage).join(',\n           ')}
    FROM (${rows}) AS v`);
}
