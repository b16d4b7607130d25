/**
 * The word index of message contents (`searchdesk_messages_words`, created by `db indexes`): the
 * starts of words as lexemes of a GIN index, so that the Postgres engine finds the messages
 * holding a word start by a few posting lists instead of the trigram index's candidates (a word no
 * sampled message holds, at M: 1.6 ms with the trigram index, 0.7–1.05 with this one).
 *
 * The index is a prefilter: a superset of the messages where each word starts a word, which the
 * word-start expression then decides (wordStartRegex). It holds, for the first
 * MESSAGE_WORDS_INDEXED characters of each content, every run of ASCII letters and digits after
 * İ → i and the Kelvin sign → k and ASCII lower-casing (the only code points foldCase makes ASCII
 * letters of), each run cut into pieces of WORD_PIECE characters (a lexeme holds at most 2,047
 * bytes), and a marker lexeme on every longer content, which every query of the index matches. So
 * a word of ASCII letters and digits that starts a word of a content is the start of a lexeme of
 * it, or the content is marked:
 * - the character before a word start is no letter, mark or number (word-characters.ts), so
 *   neither an ASCII letter nor digit: the run starts with the word;
 * - every character of the word's place in the content folds to an ASCII letter or digit, and is
 *   one after the mapping: the run holds the whole word, and its first piece does (a word of at
 *   most WORD_PIECE characters).
 * Every expression is the C collation's (`COLLATE "C"`): the index holds the same lexemes in every
 * database, whatever its locale. No input makes it fail, so it never fails a write of the help desk
 * (tsvector's 1 MB limit and its lexemes' 2 KB are out of reach). A read through it looks up the
 * words it serves (wordIndexQuery) and tests every word of the query by its word start; with none
 * of them served, the candidates come from the trigram index.
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
