/**
 * Messages, generated inside Postgres conversation by conversation. Conversation c owns the
 * message indexes [start(c), start(c + 1)), where start(c) = ⌊M·(c − 1 + g_c)/N⌋ with a random
 * g_c ∈ [0, 1): the account gets exactly M messages, conversations get 0 … 2·M/N of them, and
 * ids ascend with time like in a real help desk. The first message of a conversation is the
 * contact's; later ones are replies, more customer messages, private notes (~5%), activity (~3%)
 * and templates (~0.6%), spread over the conversation's time span: about 55% incoming, 36% public
 * replies. In the skewed shape most word slots take one of a few head words (skewed.ts).
 */
import type { SqlQuery } from '../../src/db/db.js';
import { conversationRows } from './conversations.js';
import { at, Statement, type StatementContext } from './sql-build.js';
import { HEAD_WORD_SHARE, HEAD_WORDS } from './skewed.js';
import { int, type RowRandom } from './sql-random.js';
import {
  ACTIVITIES,
  CLOSINGS,
  CODE_SENTENCES,
  GREETINGS,
  SENTENCE_RANGES,
  SENTENCES,
  TEMPLATE_MESSAGES,
  WORDS,
} from './vocabulary.js';

/** Message kinds (not the stored message_type): 0 incoming, 1 reply, 2 private note, 3 activity, 4 template. */
const KIND = { incoming: 0, reply: 1, note: 2, activity: 3, template: 4 } as const;
const MAX_SENTENCES = 5;

const PRE = SENTENCES.map((t) => t[0]);
const MID = SENTENCES.map((t) => t[1]);
const POST = SENTENCES.map((t) => t[2]);
const CODE_PRE = CODE_SENTENCES.map((t) => t[0]);
const CODE_POST = CODE_SENTENCES.map((t) => t[1]);

/** The first message index of conversation `c` (0-based; start(N + 1) = M). */
function startOf(st: Statement, r: RowRandom, c: string): string {
  const { conversations, messages } = st.ctx.plan.counts;
  const jitter = `CASE WHEN ${c} IN (1, ${int(conversations + 1)}) THEN 0 ELSE ${r.unit(c, 1)} END`;
  return `floor(${int(messages)}::float8 * (${c} - 1 + ${jitter}) / ${int(conversations)})::bigint`;
}

/** An order, invoice, ticket or tracking code: almost unique, so a very selective search term. */
function code(r: RowRandom, key: string, phrase: string): string {
  return `CASE (${phrase} - 1) % 4
      WHEN 0 THEN 'ORD-' || (100000 + ${r.below(key, 80, 900000)})
      WHEN 1 THEN 'INV-' || (1000000 + ${r.below(key, 81, 9000000)})
      WHEN 2 THEN 'TCK-' || (10000 + ${r.below(key, 82, 90000)})
      ELSE '1Z' || upper(lpad(to_hex(${r.hash(key, 83)} & 1099511627775), 10, '0')) END`;
}

/** Sentence j of the message in row `x`: a template with two Zipf-drawn words, or (customers) a code. */
function sentence(st: Statement, r: RowRandom, j: number): string {
  const key = `(x.m * 8 + ${int(j)})`;
  const words = st.names(WORDS);
  const zipf = (salt: number) => r.zipf(key, salt, WORDS.length);
  // Skewed: a head word (rank 1 … HEAD_WORDS) most of the time, salts 90 … 93 beside the Zipf draw's.
  const rank =
    st.ctx.shape === 'skewed'
      ? (salt: number) =>
          `CASE WHEN ${r.unit(key, salt + 17)} < ${HEAD_WORD_SHARE} THEN 1 + ${r.below(key, salt + 18, HEAD_WORDS)} ELSE ${zipf(salt)} END`
      : zipf;
  const word = (salt: number) => at(words, rank(salt));
  const t = `(x.tb + ${r.below(key, 71, 'x.tn')})`;
  const phrase = `(1 + ${r.below(key, 72, CODE_SENTENCES.length)})`;
  const withCode = `${at(st.names(CODE_PRE), phrase)} || ${code(r, key, phrase)} || ${at(st.names(CODE_POST), phrase)}`;
  const plain = `${at(st.names(PRE), t)} || ${word(73)} || ${at(st.names(MID), t)} || ${word(75)} || ${at(st.names(POST), t)}`;
  return `CASE WHEN x.kind = ${KIND.incoming} AND ${r.unit(key, 70)} < 0.12 THEN ${withCode} ELSE ${plain} END`;
}

function contentExpr(st: Statement, r: RowRandom): string {
  const pick = (values: readonly string[], salt: number) => at(st.names(values), `1 + ${r.below('x.m', salt, values.length)}`);
  const sentences = Array.from({ length: MAX_SENTENCES }, (_, i) =>
    i === 0 ? sentence(st, r, 1) : `CASE WHEN x.ns > ${i} THEN ${sentence(st, r, i + 1)} END`,
  );
  const opening = `CASE WHEN x.kind = ${KIND.incoming} AND ${r.unit('x.m', 60)} < 0.5 THEN ${pick(GREETINGS, 61)}
      WHEN x.kind = ${KIND.reply} AND ${r.unit('x.m', 60)} < 0.7 THEN 'Hi ' || x.cfirst || ',' END`;
  const closing = `CASE WHEN x.kind = ${KIND.reply} AND ${r.unit('x.m', 62)} < 0.3 THEN ${pick(CLOSINGS, 63)} END`;
  return `CASE x.kind WHEN ${KIND.activity} THEN ${pick(ACTIVITIES, 64)} WHEN ${KIND.template} THEN ${pick(TEMPLATE_MESSAGES, 65)}
      ELSE concat_ws(' ', ${opening}, ${sentences.join(', ')}, ${closing}) END`;
}

/** Per message: its kind (the first of a conversation is the contact's), sentence count and time. */
function messageRows(st: Statement, r: RowRandom, from: number, to: number): string {
  const u = r.unit('m', 2);
  const later = `CASE WHEN ${u} < 0.05 THEN ${KIND.activity} WHEN ${u} < 0.06 THEN ${KIND.template}
      WHEN ${u} < 0.14 THEN ${KIND.note} WHEN ${u} < 0.74 THEN ${KIND.reply} ELSE ${KIND.incoming} END`;
  const range = (kind: keyof typeof SENTENCE_RANGES, field: 'first' | 'count') => int(SENTENCE_RANGES[kind][field]);
  const startSecond = `floor(v.dur_s * ((m - v.s0) + ${r.unit('m', 3)}) / (v.s1 - v.s0))::bigint`;
  const withKind = `SELECT v.*, m, CASE WHEN m = v.s0 THEN ${KIND.incoming} ELSE ${later} END AS kind,
        v.created_s + CASE WHEN m = v.s0 THEN 0 ELSE ${startSecond} END AS at_s
      FROM (
        SELECT w.*, ${startOf(st, r, 'w.c')} AS s0, ${startOf(st, r, 'w.c + 1')} AS s1
        FROM (${conversationRows(st, from, to, true)}) AS w OFFSET 0
      ) AS v CROSS JOIN LATERAL generate_series(v.s0, v.s1 - 1) AS m OFFSET 0`;
  return `SELECT y.*,
        CASE WHEN y.kind = ${KIND.note} THEN 1 + ${r.below('y.m', 4, 2)} ELSE 1 + ${r.skewedBelow('y.m', 5, MAX_SENTENCES)} END AS ns,
        CASE y.kind WHEN ${KIND.incoming} THEN ${range('incoming', 'first')} WHEN ${KIND.reply} THEN ${range('outgoing', 'first')}
          ELSE ${range('note', 'first')} END AS tb,
        CASE y.kind WHEN ${KIND.incoming} THEN ${range('incoming', 'count')} WHEN ${KIND.reply} THEN ${range('outgoing', 'count')}
          ELSE ${range('note', 'count')} END AS tn
      FROM (${withKind}) AS y OFFSET 0`;
}

/** The messages of conversations from … to (local, 1-based) of one account. */
export function buildMessagesInsert(ctx: StatementContext, from: number, to: number): SqlQuery {
  const st = new Statement(ctx);
  const r = st.random('messages');
  const { plan } = ctx;
  const at_ = st.timeIn(ctx.days, 'x.at_s');
  const sender = `CASE x.kind WHEN ${KIND.incoming} THEN ${int(plan.first.contact - 1)} + x.ci WHEN ${KIND.reply} THEN x.responder
      WHEN ${KIND.note} THEN CASE WHEN ${r.unit('x.m', 7)} < 0.7 THEN x.responder ELSE ${int(plan.first.user)} END END`;
  return st.done(`
    INSERT INTO messages (id, account_id, inbox_id, conversation_id, content, message_type, private, sender_type, sender_id,
                          created_at, updated_at)
    SELECT ${int(plan.first.message)} + x.m, ${int(plan.accountId)}, ${int(plan.first.inbox)} + x.k,
           ${int(plan.first.conversation - 1)} + x.c, ${contentExpr(st, r)},
           CASE x.kind WHEN ${KIND.incoming} THEN 0 WHEN ${KIND.reply} THEN 1 WHEN ${KIND.note} THEN 1
             WHEN ${KIND.activity} THEN 2 ELSE 3 END,
           x.kind = ${KIND.note},
           CASE WHEN x.kind = ${KIND.incoming} THEN 'Contact' WHEN x.kind IN (${KIND.reply}, ${KIND.note}) THEN 'User' END,
           ${sender}, ${at_}, ${at_}
    FROM (${messageRows(st, r, from, to)}) AS x`);
}
