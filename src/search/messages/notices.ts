/**
 * The notices of a message search (contract §10): one sentence each, for a result that is empty,
 * short or not quite what was asked, so a model never has to guess why. Built from the search's
 * own query and engine. The word checks of an empty search ask the engine that answered
 * (MessageEngine.firstMatch, its own matching, so "matches" is never wrong): one statement or
 * request per word, at most MAX_CHECKED_WORDS words, and none when the page has a message.
 */
import type { SearchContext } from '../context.js';
import { PAGE_SIZE } from '../context.js';
import type { MessagesParams } from '../params.js';
import type { MessageEngine } from './engine.js';
import type { MessageEngines, MessagePage } from './index.js';
import { WINDOW_DAYS, type MessageQuery } from './query.js';

/** The most words of one search checked on their own. */
export const MAX_CHECKED_WORDS = 5;
/** How many trailing letters a shorter form drops at most. */
export const MAX_SHORTENED = 2;
/** No shorter form is shorter than this (a stem of 3 letters matches too much to tell anything). */
export const MIN_FORM_LENGTH = 4;

/** The notice of search_all when the account may not search messages. */
export const MESSAGES_NOT_SEARCHED =
  'Messages were not searched because message search is not enabled for this account, so an empty `messages` does not mean that no message mentions it.';

export const WINDOW_NOTICE = `Only messages of the last ${WINDOW_DAYS} days were searched (older ones cannot be searched); for older history, use search_conversations and get_conversation.`;

export const inboxIgnoredNotice = (inboxId: number) =>
  `Inbox ${inboxId} is not one you can access, so inbox_id was ignored and every inbox you can access was searched instead.`;

/** What the notices of one message search may cost: `wordChecks` allows the checks of an empty search. */
export interface MessageNoticeOptions {
  wordChecks: boolean;
}

/**
 * The notices of one message search: an inaccessible `inbox_id`, the word checks of an empty
 * first page (wordChecks), and the 90-day window when `since` was omitted and the page is short.
 */
export async function messageNotices(
  ctx: SearchContext,
  engines: MessageEngines,
  params: Pick<MessagesParams, 'inbox_id' | 'since'>,
  page: MessagePage,
  options: MessageNoticeOptions,
): Promise<string[]> {
  const notices: string[] = [];
  if (params.inbox_id !== undefined && !ctx.access.inboxIds.includes(params.inbox_id))
    notices.push(inboxIgnoredNotice(params.inbox_id));
  const { query } = page;
  if (!query) return notices;
  if (options.wordChecks && page.items.length === 0 && query.offset === 0) {
    // The engine that answered: after a fallback, Postgres.
    const engine = page.engine === 'postgres-fallback' ? engines.postgres : engines.primary;
    notices.push(...(await wordNotices(ctx, engine, query)));
  }
  if (params.since === undefined && page.items.length < PAGE_SIZE) notices.push(WINDOW_NOTICE);
  return notices;
}

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
 * Checks each word (the first MAX_CHECKED_WORDS) in one call to the engine: with several words,
 * the word alone and then its shorter forms; with one, its shorter forms only (the search itself
 * was the word's check). An engine that matches analysed words gets the words alone. A check
 * that fails costs the notices, never the result: it is logged and the checks stop.
 */
async function wordNotices(ctx: SearchContext, engine: MessageEngine, query: MessageQuery): Promise<string[]> {
  if (!engine.firstMatch) return [];
  const several = query.words.length > 1;
  const checks: WordCheck[] = [];
  for (const word of query.words.slice(0, MAX_CHECKED_WORDS)) {
    const shorter = engine.analyzed ? [] : shorterForms(word);
    const forms = several ? [word, ...shorter] : shorter;
    let first: number | undefined;
    if (forms.length > 0) {
      try {
        first = await engine.firstMatch(query, forms);
      } catch (err) {
        ctx.logger.warn(
          { event: 'word_check_failed', engine: engine.name, reason: (err as Error).name },
          'an empty search could not check its words; answered without their notices',
        );
        return [];
      }
    }
    const alone = several && first === 0;
    checks.push({ word, alone, shorter: first === undefined || alone ? undefined : forms[first] });
  }
  return describeChecks(checks, query.words.length);
}

const quote = (word: string) => `\`${word}\``;

function listWords(words: string[]): string {
  const quoted = words.map(quote);
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]}`;
}

/** The sentences of the word checks: which words match alone (several words), and each shorter form that matches. */
export function describeChecks(checks: WordCheck[], wordCount: number): string[] {
  const notices: string[] = [];
  if (wordCount > 1) {
    const alone = checks.filter((c) => c.alone).map((c) => c.word);
    const not = checks.filter((c) => !c.alone).map((c) => c.word);
    const checked = wordCount > checks.length ? ` (the first ${checks.length} words were checked)` : '';
    if (not.length === 0)
      notices.push(
        `No message has every word, though ${listWords(alone)} each match alone${checked}: search fewer words at once.`,
      );
    else if (alone.length === 0) notices.push(`No message has any of the words ${listWords(not)}, even alone${checked}.`);
    else
      notices.push(
        `No message has every word; ${listWords(alone)} alone ${alone.length > 1 ? 'match' : 'matches'}, ${listWords(not)} ${not.length > 1 ? 'do' : 'does'} not${checked}: drop the words that do not match.`,
      );
  }
  for (const c of checks)
    if (c.shorter !== undefined)
      notices.push(
        `${quote(c.word)} finds nothing; ${quote(c.shorter)} matches — words must start a word of the text, so try the shorter form.`,
      );
  return notices;
}
