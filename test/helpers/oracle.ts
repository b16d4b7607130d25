/**
 * The one oracle: what the contract says a search answers, computed in memory from rows a test
 * wrote, written independently of src/ (README "Search", contract §4). Every property test asks
 * it — isolation (tenant-world.ts), folding, the surface fuzz — each after its own access rule
 * (which accounts, inboxes and message types a caller may see) has picked the rows.
 * Results are every matching id in the contract's order, before paging.
 */

/**
 * The product's case folding (README): each code point on its own is lower-cased (so Σ → σ
 * wherever it stands), then İ → i and ς → σ.
 */
export const foldText = (s: string) =>
  [...s].map((c) => (c === '\u0130' ? 'i' : c === '\u03c2' ? '\u03c3' : c.toLowerCase())).join('');

/** Contract §4.2 and README: words are runs of letters, combining marks and digits, folded. */
export const wordsOf = (s: string) =>
  foldText(s)
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter(Boolean);

/** Whether some word of `text` starts with `word` (already folded). */
export const startsWord = (text: string, word: string) => wordsOf(text).some((w) => w.startsWith(word));

/** Whether every word of `q` starts a word of one of `texts` (and `q` has a word at all). */
const everyWordStarts = (q: string, ...texts: string[]) => {
  const words = wordsOf(q);
  return words.length > 0 && words.every((qw) => texts.some((t) => startsWord(t, qw)));
};

export interface Window {
  since?: number;
  until?: number;
}
const within = (at: number, w: Window = {}) =>
  (w.since === undefined || at >= w.since) && (w.until === undefined || at <= w.until);

/** Sorts by `key` descending, element by element (the contract's "newest first, then id"). */
const ordered = <T extends { id: number }>(rows: T[], key: (r: T) => number[]) =>
  rows
    .map((r) => ({ key: key(r), id: r.id }))
    .sort((a, b) => {
      for (let i = 0; i < a.key.length; i++) if (a.key[i] !== b.key[i]) return b.key[i]! - a.key[i]!;
      return 0;
    })
    .map((r) => r.id);

/** Contacts: `q` (folded) inside one of its texts (name, email, identifier); window on last activity; most recent first. */
export function expectContacts(rows: Array<{ id: number; texts: string[]; last: number }>, q: string, w?: Window): number[] {
  const fq = foldText(q);
  return ordered(
    rows.filter((c) => c.texts.some((t) => foldText(t).includes(fq)) && within(c.last, w)),
    (c) => [c.last, c.id],
  );
}

/**
 * Conversations: `q` inside the display id or one of its contact's texts; window on last
 * activity; newest created first.
 */
export function expectConversations(
  rows: Array<{ id: number; display: number; contactTexts: string[]; created: number; last: number }>,
  q: string,
  w?: Window,
): number[] {
  const fq = foldText(q);
  return ordered(
    rows.filter(
      (v) => (String(v.display).includes(fq) || v.contactTexts.some((t) => foldText(t).includes(fq))) && within(v.last, w),
    ),
    (v) => [v.created, v.id],
  );
}

/** Messages: every word of `q` starts a word of the content; window on creation (the 90-day floor is the caller's); newest first. */
export function expectMessages(rows: Array<{ id: number; content: string; created: number }>, q: string, w?: Window): number[] {
  return ordered(
    rows.filter((m) => everyWordStarts(q, m.content) && within(m.created, w)),
    (m) => [m.created, m.id],
  );
}

/**
 * Articles: every word of `q` starts a word of the title or the content. Relevance tiers
 * (README): every word in the title (2), else the content was needed (0); then most recently
 * updated.
 */
export function expectArticles(
  rows: Array<{ id: number; title: string; content: string; updated: number }>,
  q: string,
): number[] {
  return ordered(
    rows.filter((a) => everyWordStarts(q, a.title, a.content)),
    (a) => [everyWordStarts(q, a.title) ? 2 : 0, a.updated, a.id],
  );
}

// ---------------------------------------------------------------------------------------------
// Reads (README "Reading"): what get_contact and get_conversation show, after the test's access
// rule picked the rows (the caller's conversations; the conversation's messages it may read).
// ---------------------------------------------------------------------------------------------

/** get_contact: the contact's conversations, most recent activity first, then id; page `page` of 15. */
export function expectContactConversations(rows: Array<{ id: number; last: number }>, page = 1): number[] {
  return ordered(rows, (r) => [r.last, r.id]).slice((page - 1) * 15, page * 15);
}

export type Transcript = { rows: number[]; hasMore: { before: boolean; after: boolean } } | { missing: 'before' | 'after' };

/**
 * get_conversation: message ids oldest first (then id), 50 a page. Without a cursor the newest 50;
 * `before`/`after` a message id, the 50 next to it on that side (`missing` when the id is not a
 * message of the conversation).
 */
export function expectTranscript(
  messages: Array<{ id: number; created: number }>,
  cursor: { before?: number; after?: number } = {},
): Transcript {
  const ids = ordered(messages, (m) => [m.created, m.id]).reverse();
  const side = cursor.before !== undefined ? 'before' : cursor.after !== undefined ? 'after' : undefined;
  if (side === undefined) return { rows: ids.slice(-50), hasMore: { before: ids.length > 50, after: false } };
  const at = ids.indexOf(cursor[side]!);
  if (at === -1) return { missing: side };
  if (side === 'before') {
    const older = ids.slice(0, at);
    return { rows: older.slice(-50), hasMore: { before: older.length > 50, after: true } };
  }
  const newer = ids.slice(at + 1);
  return { rows: newer.slice(0, 50), hasMore: { before: true, after: newer.length > 50 } };
}
