/**
 * The word index of message contents (`searchdesk_messages_words`): a prefilter for the word-start test. Of a content's first
 * MESSAGE_WORDS_INDEXED characters, every run of ASCII letters and digits (folded as foldCase folds them, C collation) in pieces
 * of WORD_PIECE, and a marker on a longer content that every query matches: a served word starting a word starts a lexeme.
 */
/** The code points foldCase makes ASCII letters of: İ (→ i) and the Kelvin sign (→ k). */
const FOLDED_TO_ASCII = '\u0130\u212a';
/** Characters of a content the word index holds; a longer content is marked (LONG_CONTENT). */
export const MESSAGE_WORDS_INDEXED = 100_000;
/** The longest lexeme, in characters (ASCII: bytes); the longest word the index serves. */
export const WORD_PIECE = 250;
/** The lexeme of a content longer than MESSAGE_WORDS_INDEXED (not a run of letters and digits). */
const LONG_CONTENT = '~long';

/** The index's expression over a content column (the planner matches it to the index); a change to it needs a new index name. */
export function messageWordsVector(column: string): string {
  const lowered = `lower(translate(left(${column}, ${MESSAGE_WORDS_INDEXED}), '${FOLDED_TO_ASCII}', 'ik') COLLATE "C")`;
  const pieces = `regexp_replace(${lowered}, '([[:alnum:]]{${WORD_PIECE}})', '\\1 ', 'g')`;
  const runs = `array_remove(regexp_split_to_array(${pieces}, '[^[:alnum:]]+'), '')`;
  const marker = `CASE WHEN length(${column}) > ${MESSAGE_WORDS_INDEXED} THEN '{${LONG_CONTENT}}'::text[] ELSE '{}'::text[] END`;
  return `array_to_tsvector(${runs} || ${marker})`;
}

const SERVED = new RegExp(`^[a-z0-9]{1,${WORD_PIECE}}$`);

/** Whether the word index serves folded `word`: ASCII letters and digits, no longer than a lexeme. */
export function wordIndexServes(word: string): boolean {
  return SERVED.test(word);
}

/** The word index's tsquery for folded `words` (each a lexeme's start, or a marked content); undefined unless it serves each. */
export function wordIndexQuery(words: readonly string[]): string | undefined {
  if (words.length === 0 || !words.every(wordIndexServes)) return undefined;
  return `(${words.map((w) => `'${w}':*`).join(' & ')}) | '${LONG_CONTENT}'`;
}
