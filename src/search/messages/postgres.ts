/** The Postgres message engine: trigram-assisted word-prefix matching on `messages.content`. */
import { SqlParams, type Db } from '../../db/db.js';
import { timeBounds } from '../sql.js';
import { hasTrigram, likePrefilter, wordStartRegex } from '../text.js';
import type { MessageEngine } from './engine.js';
import type { MessageQuery } from './query.js';
import { searchableTypeClause } from './records.js';

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
 * expression then decides, the same way for every database locale.
 */
export function messageWordClauses(words: string[], p: SqlParams): string[] {
  return words.flatMap((w) => [`m.content ILIKE ${p.add(likePrefilter(w))}`, `m.content ~ ${p.add(wordStartRegex(w))}`]);
}

/** How the matching messages are found; every strategy returns the same ids in the same order. */
export type MessageStrategy =
  /** Walk the window's messages newest first with the words as a filter. */
  | 'walk'
  /**
   * Only the newest MESSAGE_WINDOW messages of the account (types, time bounds), then the inboxes,
   * the sender and the words: exact when they hold the page.
   */
  | 'window'
  /** Every match through the trigram index on content, then order. */
  | 'trigram';

/** Rows of the newest-first window tried before the trigram index. */
export const MESSAGE_WINDOW = 3_000;

export function buildMessageIdsQuery(query: MessageQuery, strategy: MessageStrategy = 'walk') {
  const p = new SqlParams();
  const order = 'ORDER BY m.created_at DESC, m.id DESC';
  let text: string;
  if (strategy === 'window') {
    // The inner ORDER BY … LIMIT walks (account_id, created_at, message_type) backwards and stops
    // after the window's rows, whatever the inboxes and the sender: a filter that keeps few of the
    // account's messages (one inbox, one sender) would otherwise walk the whole 90 days.
    const scope = messageScopeClauses(query, p);
    const rest = [...messageNarrowingClauses(query, p), ...messageWordClauses(query.words, p)];
    text = `
    SELECT m.id FROM (
      SELECT m.id, m.created_at, m.inbox_id, m.sender_type, m.sender_id, m.content
      FROM messages m WHERE ${scope.join(' AND ')} ${order} LIMIT ${p.add(MESSAGE_WINDOW)}
    ) m
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
 * The strategies a search tries, in order: the newest messages first (cheap, and exact for
 * common words), then the trigram index when some word has a trigram; else a walk in order.
 */
export function messagePlan(query: MessageQuery): MessageStrategy[] {
  if (!query.words.some(hasTrigram)) return ['walk'];
  return query.offset + query.limit <= MESSAGE_WINDOW ? ['window', 'trigram'] : ['trigram'];
}

export function createPostgresEngine(db: Db): MessageEngine {
  return {
    name: 'postgres',
    label: 'postgres',
    async findIds(query) {
      let rows: Array<{ id: number }> = [];
      for (const strategy of messagePlan(query)) {
        rows = await db.query<{ id: number }>(buildMessageIdsQuery(query, strategy), `search_messages_pg_${strategy}`);
        // A window is exact when it holds every row the page asks for (limit includes has_more's).
        if (strategy !== 'window' || rows.length >= query.limit) break;
      }
      return rows.map((r) => Number(r.id));
    },
    check: () => db.ping(),
    async close() {},
  };
}
