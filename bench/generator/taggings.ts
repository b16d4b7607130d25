/**
 * The `taggings` rows of conversations' labels (see labels.ts): one per label slot a
 * conversation fills, created during the conversation.
 */
import type { SqlQuery } from '../../src/db/db.js';
import { conversationRows } from './conversations.js';
import { LABEL_SLOTS, labelAt, labelCount } from './labels.js';
import { Statement, type StatementContext } from './sql-build.js';
import { int } from './sql-random.js';

/** The taggings of conversations from … to (local, 1-based) of one account. */
export function buildTaggingsInsert(ctx: StatementContext, from: number, to: number): SqlQuery {
  const st = new Statement(ctx);
  const r = st.random('conversations');
  const { plan } = ctx;
  const id = `(${int(plan.first.conversation - 1)} + t.c)`;
  const added = st.timeIn(ctx.days, `t.created_s + floor(t.dur_s * ${r.unit('(t.c * 4 + t.j)', 36)})::bigint`);
  return st.done(`
    INSERT INTO taggings (id, tag_id, taggable_type, taggable_id, tagger_type, tagger_id, context, created_at)
    SELECT (${id} - 1) * ${int(LABEL_SLOTS)} + t.j, ${labelAt(st, r, 't.c', 't.j')}, 'Conversation', ${id}, NULL, NULL, 'labels', ${added}
    FROM (
      SELECT v.c, v.created_s, v.dur_s, j
      FROM (${conversationRows(st, from, to)}) AS v
      CROSS JOIN LATERAL generate_series(1, ${labelCount(st, r, 'v.c')}) AS j OFFSET 0
    ) AS t`);
}
