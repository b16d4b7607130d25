/**
 * The notices of a message search (contract §10): one sentence each, for a result that is empty,
 * short or not quite what was asked, so a model never has to guess why. Built from the search's
 * own query and engine. The word checks of an empty search (../notices.ts) ask the engine that
 * answered (MessageEngine.firstMatch, its own matching, so "matches" is never wrong): one
 * statement or request per word, at most five words, and none when the page has a message.
 */
import type { SearchContext } from '../context.js';
import { PAGE_SIZE } from '../context.js';
import type { MessagesParams } from '../params.js';
import type { MessageEngine } from './engine.js';
import type { MessageEngines, MessagePage } from './index.js';
import { wordCheckNotices } from '../notices.js';
import { WINDOW_DAYS, type MessageQuery } from './query.js';

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

/**
 * The checks of an empty search's words on `engine`, under every filter of `query`
 * (wordCheckNotices): shorter forms only where the engine matches word prefixes.
 */
async function wordNotices(ctx: SearchContext, engine: MessageEngine, query: MessageQuery): Promise<string[]> {
  if (!engine.firstMatch) return [];
  return wordCheckNotices(query.words, async (forms) => engine.firstMatch?.(query, forms), {
    shorter: engine.analyzed !== true,
    noun: 'message',
    logger: ctx.logger,
  });
}
