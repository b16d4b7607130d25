/**
 * The word-start test of the Postgres statements (message and article search, their word
 * checks): whether the folded `word` starts a word of a text, as `text ~ wordStartRegex(word)`
 * says, without compiling that pattern for most texts.
 *
 * wordStartRegex spells out every character that is no word character (NON_WORD_CLASS, about 800
 * ranges): Postgres compiles each new pattern once per session (and a search's words are mostly
 * new), and compiling this one costs many times what a pattern of a few ranges does, as much as
 * the rest of a short search statement. The test is split instead, with the same answer on every
 * text:
 * - the word at the start or after an ASCII character that is no letter or digit (a few ranges):
 *   true, and the whole pattern would say so too;
 * - otherwise it can only start a word after a character past ASCII, so unless the word follows
 *   one somewhere (a pattern of one range), false;
 * - otherwise the whole pattern decides. It is a subquery's value, hidden from the planner, so it
 *   is neither compiled to estimate the statement nor read before a text needs it.
 */
import type { SqlParams } from '../db/db.js';
import { foldedRegex, wordStartRegex } from './text.js';
import { ASCII_NON_WORD_CLASS, BEYOND_ASCII_CLASS } from './word-characters.js';

/**
 * The test for the folded `word` as SQL over a text expression (evaluated up to three times, so a
 * column or a cheap expression); the patterns are added to `p` once, for every text tested.
 */
export function wordStartTest(word: string, p: SqlParams): (text: string) => string {
  const folded = foldedRegex(word);
  const ascii = p.add(`(^|${ASCII_NON_WORD_CLASS})${folded}`);
  const beyond = p.add(`${BEYOND_ASCII_CLASS}${folded}`);
  const whole = p.add(wordStartRegex(word));
  return (text) => `(${text} ~ ${ascii} OR (${text} ~ ${beyond} AND ${text} ~ (SELECT ${whole}::text)))`;
}
