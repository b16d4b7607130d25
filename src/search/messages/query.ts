/**
 * The message search, decided once for every engine: which words, which inboxes, which window,
 * which sender, which page. Engines only translate a MessageQuery into their own query language.
 */
import type { AccessContext } from '../../auth/access.js';
import { MESSAGES, SearchError } from '../../errors.js';
import { toPage, type Page } from '../context.js';
import { PAGE_SIZE, type MessagesParams } from '../params.js';
import { splitWords } from '../text.js';

export const WINDOW_DAYS = 90;
export const WINDOW_SECONDS = WINDOW_DAYS * 86_400;
const INT64_MAX = 2n ** 63n - 1n;

export interface SenderFilter {
  /** `messages.sender_type` value. */
  type: 'Contact' | 'User';
  /** Decimal id (int64 range). */
  id: string;
}

export interface MessageQuery {
  accountId: number;
  /** Inboxes to search: accessible ones, narrowed to `inbox_id` when that one is accessible. Never empty. */
  inboxIds: number[];
  /**
   * `inboxIds` are every inbox of the account (an administrator, no `inbox_id`), on the first
   * page. A search engine may then leave the inbox filter out (messageFilters): it removes nothing
   * from a consistent index, and searchMessages reads every hit's record with the inboxes and
   * searches again with them when a hit is in none. Not past the first page: a hit of a deleted
   * inbox on an earlier page would shift the page unseen.
   */
  everyInbox: boolean;
  /** Lower-cased words; each must start a word of the content. Never empty. */
  words: string[];
  /** The trimmed `q` as typed, for engines that analyse text themselves (the help desk's index). */
  text: string;
  /** Inclusive lower bound on created_at, Unix seconds. */
  since: number;
  /** Inclusive upper bound on created_at, Unix seconds. */
  until: number | undefined;
  sender: SenderFilter | undefined;
  offset: number;
  /** Rows to fetch: page size + 1, so has_more is exact (see messagePage / cutPage). */
  limit: number;
}

/** Where page `page` (default 1) starts, and how many rows to fetch: one more than it shows, for has_more. */
export function messagePage(page = 1): Pick<MessageQuery, 'offset' | 'limit'> {
  return { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE + 1 };
}

/** The page of rows fetched with messagePage: the extra row only tells whether more exist. */
export function cutPage<T>(rows: T[]): Page<T> {
  return toPage(rows, PAGE_SIZE);
}

/** `contact:<digits>` / `agent:<digits>` → a sender filter; anything else → undefined (ignored). */
export function parseFrom(from: string | undefined): SenderFilter | 'matches_nothing' | undefined {
  const m = from === undefined ? null : /^(contact|agent):(\d+)$/.exec(from);
  if (!m) return undefined;
  const id = BigInt(m[2] as string);
  // Of the right form, but no row can have such an id.
  if (id > INT64_MAX) return 'matches_nothing';
  return { type: m[1] === 'contact' ? 'Contact' : 'User', id: id.toString() };
}

/**
 * Applies the rules of interface §4.4 / contract §4.2 that do not depend on the engine.
 * Returns `null` when nothing can match (no words, no accessible inbox, impossible sender).
 * Throws the 90-day error when `since` is older than the window.
 */
export function buildMessageQuery(access: AccessContext, params: MessagesParams, nowMs: number): MessageQuery | null {
  const oldest = Math.floor(nowMs / 1000) - WINDOW_SECONDS;
  if (params.since !== undefined && params.since < oldest) throw new SearchError('window_exceeded', MESSAGES.windowExceeded);
  const words = splitWords(params.q);
  // Access first: an inbox_id the caller may not access is ignored, never widened.
  const narrowed = params.inbox_id !== undefined && access.inboxIds.includes(params.inbox_id);
  const inboxIds = narrowed ? [params.inbox_id as number] : access.inboxIds;
  const sender = parseFrom(params.from);
  if (words.length === 0 || inboxIds.length === 0 || sender === 'matches_nothing') return null;
  return {
    accountId: access.accountId,
    inboxIds,
    everyInbox: access.role === 'administrator' && !narrowed && (params.page ?? 1) === 1,
    words,
    text: params.q,
    since: params.since ?? oldest,
    until: params.until,
    sender,
    ...messagePage(params.page),
  };
}
