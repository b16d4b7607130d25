/**
 * The word index of message contents (`searchdesk_messages_words`, `db indexes`): the starts of
 * words as lexemes of a GIN index, a prefilter the word-start expression then decides on. For the
 * first MESSAGE_WORDS_INDEXED characters of a content it holds every run of ASCII letters and
 * digits (after İ → i, the Kelvin sign → k and ASCII lower-casing: the only code points foldCase
 * makes ASCII letters of), cut into pieces of WORD_PIECE characters, and a marker on every longer
 * content, which every query matches. A word start is no letter, mark or number after another, so
 * a served word that starts a word of a content starts a lexeme of it. In the C collation, so the
 * same lexemes in every database; no input fails a write of the help desk. Evidence: docs/plans.md.
 */
/** The code points foldCase makes ASCII letters of: İ (→ i) and the Kelvin sign (→ k). */
const FOLDED_TO_ASCII = '\u0130\u212a';

/** Characters of a content the word index holds; a longer content is marked (LONG_CONTENT). */
export const MESSAGE_WORDS_INDEXED = 100_000;

/** The longest lexeme, in characters (ASCII: bytes); the longest word the index serves. */
export const WORD_PIECE = 250;

/** The lexeme of a content longer than MESSAGE_WORDS_INDEXED (not a run of letters and digits). */
const LONG_CONTENT = '~long';

/**
 * The index's expression over a content column (`content` in the index, `m.content` in a search:
 * the same expression, which is how the planner matches the two). A change to it needs a new index
 * name: `db indexes` keeps an index of the old name, which the new expression would not match.
 */
export function messageWordsVector(column: string): string {
  const lowered = `lower(translate(left(${column}, ${MESSAGE_WORDS_INDEXED}), '${FOLDED_TO_ASCII}', 'ik') COLLATE "C")`;
  const pieces = `regexp_replace(${lowered}, '([[:alnum:]]{${WORD_PIECE}})', '\\1 ', 'g')`;
  const runs = `array_remove(regexp_split_to_array(${pieces}, '[^[:alnum:]]+'), '')`;
  const marker = `CASE WHEN length(${column}) > ${MESSAGE_WORDS_INDEXED} THEN '{${LONG_CONTENT}}'::text[] ELSE '{}'::text[] END`;
  return `array_to_tsvector(${runs} || ${marker})`;
}

const SERVED = new RegExp(`^[a-z0-9]{1,${WORD_PIECE}}$`);

/**
 * Whether the word index holds the places of folded `word`: a word of ASCII letters and digits no
 * longer than a lexeme.
 */
export function wordIndexServes(word: string): boolean {
  return SERVED.test(word);
}

/**
 * The tsquery the word index answers for folded `words` (each a lexeme's start, or a marked
 * content), or undefined when it does not serve every word (wordIndexServes).
 */
export function wordIndexQuery(words: readonly string[]): string | undefined {
  if (words.length === 0 || !words.every(wordIndexServes)) return undefined;
  return `(${words.map((w) => `'${w}':*`).join(' & ')}) | '${LONG_CONTENT}'`;
}
