/**
 * The word checks of an empty search (contract §10), shared by message and article search: for
 * each word (at most MAX_CHECKED_WORDS), whether it matches on its own and which shorter form of
 * it matches, asked through one call per word to whatever searched (firstMatch), and the
 * sentences that say what they found. Every word must match in both searches, so an empty result
 * of several words, or of a plural the text does not hold, is worth a sentence a model can act on.
 */
import type { Logger } from '../logger.js';

/** The most words of one search checked on their own. */
export const MAX_CHECKED_WORDS = 5;
/** How many trailing letters a shorter form drops at most. */
export const MAX_SHORTENED = 2;
/** No shorter form is shorter than this: a stem of three letters starts too many words to tell anything. */
export const MIN_FORM_LENGTH = 4;

/** `word` without its last one or two letters, never below MIN_FORM_LENGTH letters, longest first. */
export function shorterForms(word: string): string[] {
  const chars = [...word];
  const forms: string[] = [];
  for (let cut = 1; cut <= MAX_SHORTENED && chars.length - cut >= MIN_FORM_LENGTH; cut++)
    forms.push(chars.slice(0, chars.length - cut).join(''));
  return forms;
}

/** What the checks found for one word: whether it matches alone, and its longest shorter form that does. */
export interface WordCheck {
  word: string;
  alone: boolean;
  shorter: string | undefined;
}

/**
 * Of `forms` (the one wanted most first), the index of the first that matches on its own under
 * the search's filters, or undefined: one statement or request.
 */
export type FirstMatch = (forms: string[]) => Promise<number | undefined>;

export interface WordCheckOptions {
  /** Whether shorter forms can find more than the word (prefix matching: yes; stems and typos: no). */
  shorter: boolean;
  /** What the search finds, for the sentences: `message`, `article`. */
  noun: string;
  logger: Logger;
}

/**
 * Checks the words of an empty search, one call of `firstMatch` per word: with several words, the
 * word alone and then its shorter forms; with one, its shorter forms only (the search itself was
 * the word's check). A check that fails costs the notices, never the result: it is logged and
 * no sentence is given.
 */
export async function wordCheckNotices(words: string[], firstMatch: FirstMatch, options: WordCheckOptions): Promise<string[]> {
  const several = words.length > 1;
  const checks: WordCheck[] = [];
  for (const word of words.slice(0, MAX_CHECKED_WORDS)) {
    const forms = [...(several ? [word] : []), ...(options.shorter ? shorterForms(word) : [])];
    let first: number | undefined;
    if (forms.length > 0) {
      try {
        first = await firstMatch(forms);
      } catch (err) {
        options.logger.warn(
          { event: 'word_check_failed', reason: (err as Error).name, message: (err as Error).message },
          'an empty search could not check its words; answered without their notices',
        );
        return [];
      }
    }
    const alone = several && first === 0;
    checks.push({ word, alone, shorter: first === undefined || alone ? undefined : forms[first] });
  }
  return describeChecks(checks, words.length, options.noun);
}

const quote = (word: string) => `\`${word}\``;

function listWords(words: string[]): string {
  const quoted = words.map(quote);
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]}`;
}

/** The sentences of the word checks: which words match alone (several words), and each shorter form that matches. */
export function describeChecks(checks: WordCheck[], wordCount: number, noun: string): string[] {
  const notices: string[] = [];
  if (wordCount > 1) {
    const alone = checks.filter((c) => c.alone).map((c) => c.word);
    const not = checks.filter((c) => !c.alone).map((c) => c.word);
    const checked = wordCount > checks.length ? ` (the first ${checks.length} words were checked)` : '';
    if (not.length === 0)
      notices.push(
        `No ${noun} has every word, though ${listWords(alone)} each match alone${checked}: search fewer words at once.`,
      );
    else if (alone.length === 0) notices.push(`No ${noun} has any of the words ${listWords(not)}, even alone${checked}.`);
    else {
      const match = alone.length > 1 ? 'match' : 'matches';
      const does = not.length > 1 ? 'do' : 'does';
      notices.push(
        `No ${noun} has every word; ${listWords(alone)} alone ${match}, ${listWords(not)} ${does} not${checked}: drop the words that do not match.`,
      );
    }
  }
  for (const c of checks)
    if (c.shorter !== undefined)
      notices.push(
        `${quote(c.word)} finds nothing; ${quote(c.shorter)} matches — words must start a word of the text, so try the shorter form.`,
      );
  return notices;
}
