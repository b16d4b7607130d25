/** The Postgres message engine's knobs, in rows a window walk tests unless said; evidence: docs/plans.md#messages-postgres-engine. */
/** First window's rows: its matches tell how common the words are. */
export const MESSAGE_WINDOW = 3_000;
/** Longest window: past it the trigram index is the bounded choice. */
export const MESSAGE_WALK_CAP = 40_000;
/** A longer window walks this many times the rows its estimate says (a ratio). */
export const MESSAGE_ROOM = 1.5;
/** First window for unseen words the capped read cannot answer: its matches size the next. */
export const MESSAGE_SAMPLE_WINDOW = 600;
/** The capped read's least cap (matches): rare words' whole answer in one statement. */
export const MESSAGE_CAPPED = 1_000;
/** A candidate's visit by the trigram read, in window rows. */
export const MESSAGE_MATCH_ROWS = 10;
/** Rows of a window that gave way counted again to estimate what the trigram index fetches. */
export const MESSAGE_SAMPLE_ROWS = 1_000;
/** Messages of the scope up to which few candidates intersect the scope's index (about 1 ms). */
export const MESSAGE_SCOPE_INDEX = 20_000;
/** Entries of the scope's index worth one visit, over how much likelier a rare word is (a judgment). */
export const MESSAGE_VISIT_ENTRIES = 12;
/** Share of messages under which a word start is read from the word index, not the trigram index. */
export const MESSAGE_WORD_INDEX_SHARE = 0.01;
/** A word index posting gathered and its message visited, in window rows. */
export const MESSAGE_WORD_INDEX_ROWS = 1.6;
/** Index entries that cost one window row. */
export const MESSAGE_ENTRY_ROWS = 30;
/** Share of the walked rows under which a window tests the inboxes and the sender before the words. */
export const NARROWING_FIRST_SHARE = 0.5;
