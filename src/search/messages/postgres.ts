/** The Postgres message engine: trigram-assisted word-prefix matching on `messages.content`. */
import { SqlParams, type Db, type SqlQuery } from '../../db/db.js';
import { PAGE_SIZE } from '../context.js';
import { longerWindow, tableRows, timeBounds, windowCanHold, type WindowLimits } from '../sql.js';
import { estimateShare, tableStats, type TableStats } from '../statistics.js';
import { foldedRegex, hasTrigram, likePrefilter, looksSpecific, prefilterTrigrams, wordStartRegex } from '../text.js';
import type { MessageEngine } from './engine.js';
import type { MessageQuery } from './query.js';
import { MESSAGE_COLUMNS, MESSAGE_PROBES, searchableTypeClause, type MessageRow } from './records.js';

type MessageFilters = Omit<MessageQuery, 'words' | 'text' | 'offset' | 'limit'>;

/**
 * The filters the index on (account_id, created_at, message_type) checks as it walks: the
 * account, the searchable types and the time bounds, over alias `m`.
 */
function messageScopeClauses(query: MessageFilters, p: SqlParams): string[] {
  return [
    `m.account_id = ${p.add(query.accountId)}::bigint`,
    searchableTypeClause(),
    ...timeBounds('m.created_at', query.since, query.until, p),
  ];
}

/** The filters that narrow the scope: the inboxes and the sender, over alias `m`. */
function messageNarrowingClauses(query: MessageFilters, p: SqlParams): string[] {
  const clauses = [`m.inbox_id = ANY(${p.add(query.inboxIds)}::bigint[])`];
  if (query.sender) {
    clauses.push(`m.sender_type = ${p.add(query.sender.type)}`, `m.sender_id = ${p.add(query.sender.id)}::bigint`);
  }
  return clauses;
}

/** Every filter of a MessageQuery except the words, over alias `m`. Shared with the record loader. */
export function messageFilterClauses(query: MessageFilters, p: SqlParams): string[] {
  return [...messageScopeClauses(query, p), ...messageNarrowingClauses(query, p)];
}

/**
 * Each (folded) word must start a word of the content. `ILIKE '%word%'` (likePrefilter) is implied
 * by that and lets the trigram index on messages.content narrow the rows; the folded regular
 * expression then decides, the same way for every database locale. It is written on
 * `content || ''` (the same text, NULL for NULL) so that it stays out of the index condition:
 * pg_trgm cannot use its word-start class, so there it narrows nothing and doubles the index
 * scan (viomoux at L: 281 rows either way, 11-14 ms against 6.8 ms), and its row estimate of 1
 * would mislead the planner.
 */
export function messageWordClauses(words: string[], p: SqlParams): string[] {
  return words.flatMap((w) => [`m.content ILIKE ${p.add(likePrefilter(w))}`, `(m.content || '') ~ ${p.add(wordStartRegex(w))}`]);
}

/**
 * The same test for rows a window has already read, where no index is asked: the folded
 * regular expression (foldedRegex) rejects a row three times faster than ILIKE (which lower-cases
 * the whole content first: 50,000 messages at M, 353 ms against 101), and the word-start one
 * decides.
 */
function windowWordClauses(words: string[], p: SqlParams): string[] {
  return words.flatMap((w) => [`m.content ~ ${p.add(foldedRegex(w))}`, `(m.content || '') ~ ${p.add(wordStartRegex(w))}`]);
}

/** How the matching messages are found; every strategy returns the same ids in the same order. */
export type MessageStrategy =
  /** Walk the window's messages newest first with the words as a filter. */
  | 'walk'
  /**
   * Only the newest N messages of the account (types, time bounds), then the inboxes,
   * the sender and the words: exact when they hold the page.
   */
  | 'window'
  /** Every match through the trigram index on content, then order. */
  | 'trigram';

/** Rows of the newest-first window tried before the trigram index: its matches tell how common the words are. */
export const MESSAGE_WINDOW = 3_000;

/**
 * The longest second window: about 100 ms of walking at scale L, past which the trigram index is
 * the bounded choice whatever the estimate.
 */
export const MESSAGE_WALK_CAP = 40_000;

/**
 * Rows of the first window for words that no message sampled by the statistics holds: rare ones,
 * which the trigram index answers, or a few medium ones, whose matches in a small window still
 * tell how far to walk. 3,000 rows cost such a word 7 ms at M before the index's 3.
 */
export const MESSAGE_SAMPLE_WINDOW = 600;

/** The sizes the Postgres engine works with (tests lower them to reach every path on small data). */
export interface MessageLimits extends WindowLimits {
  /** Rows of the first window when the statistics never saw the words. */
  sample: number;
}

export const MESSAGE_LIMITS: MessageLimits = {
  window: MESSAGE_WINDOW,
  walkCap: MESSAGE_WALK_CAP,
  room: 1.5,
  sample: MESSAGE_SAMPLE_WINDOW,
};

/** The account's newest `window` messages (types, time bounds), in result order, for a window. */
function newestMessages(query: MessageQuery, window: number, p: SqlParams): string {
  // ORDER BY … LIMIT walks (account_id, created_at, message_type) backwards and stops after the
  // window's rows, whatever the inboxes and the sender: a filter that keeps few of the account's
  // messages (one inbox, one sender) would otherwise walk the whole 90 days.
  return `SELECT m.id, m.created_at, m.inbox_id, m.sender_type, m.sender_id, m.content
      FROM messages m WHERE ${messageScopeClauses(query, p).join(' AND ')}
      ORDER BY m.created_at DESC, m.id DESC LIMIT ${p.add(window)}`;
}

export function buildMessageIdsQuery(query: MessageQuery, strategy: MessageStrategy = 'walk', window = MESSAGE_WINDOW): SqlQuery {
  const p = new SqlParams();
  const order = 'ORDER BY m.created_at DESC, m.id DESC';
  let text: string;
  if (strategy === 'window') {
    const newest = newestMessages(query, window, p);
    const rest = [...messageNarrowingClauses(query, p), ...windowWordClauses(query.words, p)];
    text = `
    SELECT m.id FROM (${newest}) m
    WHERE ${rest.join(' AND ')}
    ${order}
    LIMIT ${p.add(query.limit)} OFFSET ${p.add(query.offset)}`;
  } else if (strategy === 'trigram') {
    const filters = messageFilterClauses(query, p);
    // No ORDER BY inside the materialised CTE: no ordered walk can be chosen there, so the
    // trigram index finds the matches (a bitmap) and only they are sorted.
    text = `
    WITH matched AS MATERIALIZED (
      SELECT m.id, m.created_at FROM messages m
      WHERE ${[...filters, ...messageWordClauses(query.words, p)].join(' AND ')}
    )
    SELECT m.id FROM matched m
    ${order}
    LIMIT ${p.add(query.limit)} OFFSET ${p.add(query.offset)}`;
  } else {
    const filters = messageFilterClauses(query, p);
    text = `
    SELECT m.id FROM messages m
    WHERE ${[...filters, ...messageWordClauses(query.words, p)].join('\n      AND ')}
    ${order}
    LIMIT ${p.add(query.limit)} OFFSET ${p.add(query.offset)}`;
  }
  return { text, values: p.values };
}

/**
 * What a window that gave way saw, for the choice of the next strategy: how many of its rows the
 * trigram index would fetch (rows holding every trigram of every word: across inboxes and
 * senders, and for a short word many times the matches) and the planner's estimate of the
 * table's rows. Read only when the window gave way: its rows are then in the buffer cache.
 */
export function buildWindowSampleQuery(query: MessageQuery, window: number): SqlQuery {
  const p = new SqlParams();
  const newest = newestMessages(query, window, p);
  const trigrams = query.words.flatMap(prefilterTrigrams).map((t) => `m.content ILIKE ${p.add(t)}`);
  const fetched = trigrams.length > 0 ? `count(*) FILTER (WHERE ${trigrams.join(' AND ')})` : 'count(*)';
  return {
    text: `SELECT ${fetched}::float8 AS candidates, ${tableRows('messages')} AS table_rows FROM (${newest}) m`,
    values: p.values,
  };
}

/**
 * Rows of the first window: `sample` when some word is in no message the statistics sampled
 * (messages.content's common values and histogram), else `window`.
 */
export function firstMessageWindow(
  words: string[],
  stats: TableStats | undefined,
  limits: MessageLimits = MESSAGE_LIMITS,
): number {
  if (stats === undefined) return limits.window;
  const unseen = words.some((w) => estimateShare(stats, ['content'], w) === 0);
  return unseen ? limits.sample : limits.window;
}

/**
 * Words without a trigram walk in order: the trigram index cannot narrow them. A word shaped like
 * a code or an id (looksSpecific) goes to the trigram index at once. Otherwise the
 * newest messages first (a window: cheap, and exact when it holds the page plus one row; a small
 * one for words the statistics never saw); when that gives way, what it saw decides between a
 * longer window and the trigram index (longerWindow: the walk it would take against the rows the
 * index would fetch), and the trigram index answers whatever is left.
 */
export function createPostgresEngine(db: Db, limits: MessageLimits = MESSAGE_LIMITS): MessageEngine {
  /**
   * Runs the plan; `read` runs one strategy's statement and returns its rows (ids alone, or rows
   * with their records).
   */
  const plan = async <R>(query: MessageQuery, read: (strategy: MessageStrategy, window?: number) => Promise<R[]>) => {
    if (!query.words.some(hasTrigram)) return read('walk');
    // A word shaped like an order or ticket code is in a handful of messages: the index answers.
    const window = query.words.some(looksSpecific)
      ? 0
      : firstMessageWindow(query.words, await tableStats(db, 'messages', ['content']), limits);
    // A window is exact when it holds every row the page asks for (limit includes has_more's).
    if (windowCanHold(query.offset / PAGE_SIZE + 1, window)) {
      const first = await read('window', window);
      if (first.length >= query.limit) return first;
      const longer = await nextWindow(query, first.length, window);
      if (longer !== undefined) {
        const second = await read('window', longer);
        if (second.length >= query.limit) return second;
      }
    }
    return read('trigram');
  };
  const nextWindow = async (query: MessageQuery, returned: number, window: number) => {
    if (returned === 0) return undefined;
    const [sample] = await db.query<{ candidates: number; table_rows: number | null }>(
      buildWindowSampleQuery(query, window),
      'search_messages_pg_window_sample',
    );
    const page = query.offset / PAGE_SIZE + 1;
    return longerWindow(page, returned, sample?.table_rows, { ...limits, window }, sample?.candidates);
  };
  return {
    name: 'postgres',
    label: 'postgres',
    findIds: (query) =>
      plan(query, async (strategy, window) => {
        const q = buildMessageIdsQuery(query, strategy, window);
        return (await db.query<{ id: number }>(q, `search_messages_pg_${strategy}`)).map((r) => Number(r.id));
      }),
    findRows: (query) =>
      plan(query, (strategy, window) =>
        db.query<MessageRow>(withRecords(buildMessageIdsQuery(query, strategy, window)), `search_messages_pg_${strategy}`),
      ),
    check: () => db.ping(),
    async close() {},
  };
}

/**
 * An ids statement's page read as rows ready to be records, in the same statement: each message
 * and its sender by primary key, in the page's order.
 */
export function withRecords(ids: SqlQuery): SqlQuery {
  return {
    text: `
    SELECT ${MESSAGE_COLUMNS}
    FROM (${ids.text}) page
    JOIN LATERAL (SELECT * FROM messages m WHERE m.id = page.id LIMIT 1) m ON true
    ${MESSAGE_PROBES}
    ORDER BY m.created_at DESC, m.id DESC`,
    values: ids.values,
  };
}
