/**
 * The search core's entry point: one function per operation name, returning the `payload`
 * envelope and the paging/engine facts both surfaces report. Knows nothing of MCP or HTTP.
 */
import { articleNotices } from './article-notices.js';
import { searchArticles } from './articles.js';
import { searchContacts } from './contacts.js';
import type { Page, SearchContext } from './context.js';
import { searchConversations } from './conversations.js';
import { messageSearchEnabled, searchMessages, type EngineLabel, type MessageEngines } from './messages/index.js';
import { MESSAGES_NOT_SEARCHED, messageNotices } from './messages/notices.js';
import { PAGE_SIZE, type Operation, type ParamsOf } from './params.js';
import type { Payload, PayloadKey } from './records.js';

export interface SearchMeta {
  page: number;
  per_page: number;
  has_more: Partial<Record<PayloadKey, boolean>>;
  /** Which engine answered the message part; `postgres` for the other resources. */
  engine: EngineLabel;
  /**
   * Sentences for the model when the result is empty, short or not what was asked (contract
   * §10): an ignored inbox_id, the 90-day window, which words match alone. `[]` when none.
   * MCP shows them; REST bodies do not carry them.
   */
  notices: string[];
}

export interface SearchResult {
  payload: Payload;
  meta: SearchMeta;
}

function single<K extends PayloadKey>(
  key: K,
  page: number,
  result: Page<NonNullable<Payload[K]>[number]>,
  engine: EngineLabel = 'postgres',
  notices: string[] = [],
): SearchResult {
  return {
    payload: { [key]: result.items },
    meta: { page, per_page: PAGE_SIZE, has_more: { [key]: result.hasMore }, engine, notices },
  };
}

/** `checks`: whether the notices may cost statements (the word checks of an empty search). */
export interface SearchOptions {
  checks: boolean;
}

/** Runs one operation with validated parameters for an authorised caller. */
export async function runSearch<O extends Operation>(
  ctx: SearchContext,
  engines: MessageEngines,
  op: O,
  params: ParamsOf<O>,
  options: SearchOptions = { checks: true },
): Promise<SearchResult> {
  const page = params.page ?? 1;
  switch (op) {
    case 'contacts':
      return single('contacts', page, await searchContacts(ctx, params as ParamsOf<'contacts'>));
    case 'conversations':
      return single('conversations', page, await searchConversations(ctx, params as ParamsOf<'conversations'>));
    case 'articles': {
      const result = await searchArticles(ctx, params);
      return single('articles', page, result, 'postgres', await articleNotices(ctx, params, result, options.checks));
    }
    case 'messages': {
      const messageParams = params as ParamsOf<'messages'>;
      const result = await searchMessages(ctx, engines, messageParams);
      const notices = await messageNotices(ctx, engines, messageParams, result, { wordChecks: options.checks });
      return single('messages', page, result, result.engine, notices);
    }
    case 'all':
      return searchAll(ctx, engines, params);
    default:
      throw new Error(`unknown operation ${String(op)}`);
  }
}

/**
 * All four kinds for the same q and page, concurrently. since/until apply to contacts and
 * conversations only; messages use the default window and are `[]` without the flag, which a
 * notice says. The messages' word checks are not run here (README, "Notices"): search_all stays
 * its four searches, and the 90-day notice still comes with a short message list.
 */
async function searchAll(ctx: SearchContext, engines: MessageEngines, params: ParamsOf<'all'>): Promise<SearchResult> {
  const { q, page, since, until } = params;
  const enabled = messageSearchEnabled(ctx, engines);
  const [contacts, conversations, messages, articles] = await Promise.all([
    searchContacts(ctx, { q, page, since, until }),
    searchConversations(ctx, { q, page, since, until }),
    enabled
      ? searchMessages(ctx, engines, { q, page })
      : Promise.resolve({ items: [], hasMore: false, engine: engines.primary.label }),
    searchArticles(ctx, { q, page }),
  ]);
  const notices = enabled ? await messageNotices(ctx, engines, {}, messages, { wordChecks: false }) : [MESSAGES_NOT_SEARCHED];
  return {
    payload: { contacts: contacts.items, conversations: conversations.items, messages: messages.items, articles: articles.items },
    meta: {
      page: page ?? 1,
      per_page: PAGE_SIZE,
      has_more: {
        contacts: contacts.hasMore,
        conversations: conversations.hasMore,
        messages: messages.hasMore,
        articles: articles.hasMore,
      },
      engine: messages.engine,
      notices,
    },
  };
}
