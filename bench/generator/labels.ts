/**
 * Conversation labels, the help desk's way: a `taggings` row (context `labels`, taggable_type
 * `Conversation`) per label of a conversation, pointing at the shared `tags` row of its title.
 * About half of the conversations carry labels (1 to 3, distinct). The first label is drawn
 * Zipf-like over the account's labels (a few busy labels, a long tail); the others at fixed
 * distinct offsets from it. Like every conversation attribute, the labels are a pure function of
 * the conversation's local index, so the conversation statement (its `cached_label_list`) and
 * the taggings statement agree without joining.
 */
import { LABEL_TITLES } from './people.js';
import { at, type Statement } from './sql-build.js';
import { int, type RowRandom } from './sql-random.js';

/** Taggings ids: (conversation id − 1) × LABEL_SLOTS + slot, so chunks on several connections never collide. */
export const LABEL_SLOTS = 3;

/** SQL: how many labels conversation `c` carries (0 for about half of them). */
export function labelCount(st: Statement, r: RowRandom, c: string): string {
  if (st.ctx.plan.counts.labels === 0) return '0';
  const u = r.unit(c, 30);
  return `(CASE WHEN ${u} < 0.5 THEN 0 WHEN ${u} < 0.8 THEN 1 WHEN ${u} < 0.93 THEN 2 ELSE 3 END)`;
}

/**
 * SQL: the 1-based label (and tag id) in slot `j` (1, 2 or 3, an SQL expression) of conversation
 * `c`. Offsets from the first label are 0, [1, h] and [h + 1, n − 1] with h = ⌊(n − 1)/2⌋, so the
 * slots of one conversation never repeat a label.
 */
export function labelAt(st: Statement, r: RowRandom, c: string, j: string): string {
  const n = st.ctx.plan.counts.labels;
  const h = Math.floor((n - 1) / 2);
  const second = `(1 + ${r.below(c, 32, h)})`;
  const third = `(${int(h + 1)} + ${r.below(c, 33, n - 1 - h)})`;
  const offset = `(CASE ${j} WHEN 1 THEN 0 WHEN 2 THEN ${second} ELSE ${third} END)`;
  return `((${r.zipf(c, 34, n)} - 1 + ${offset}) % ${int(n)} + 1)`;
}

/** SQL: the help desk's `cached_label_list` of conversation `c` ('a, b', in slot order), NULL without labels. */
export function cachedLabelList(st: Statement, r: RowRandom, c: string): string {
  if (st.ctx.plan.counts.labels === 0) return 'NULL::text';
  const titles = st.names(LABEL_TITLES);
  const title = (j: number) => at(titles, labelAt(st, r, c, String(j)));
  const count = labelCount(st, r, c);
  return `CASE ${count} WHEN 0 THEN NULL WHEN 1 THEN ${title(1)} WHEN 2 THEN ${title(1)} || ', ' || ${title(2)}
      ELSE ${title(1)} || ', ' || ${title(2)} || ', ' || ${title(3)} END`;
}
