/** The message strategies' statements, one builder each (docs/plans.md, Messages); `inText`: row counts in the text. */
import { SqlParams, type SqlQuery } from '../../../db/db.js';
import { messageWordsVector, wordIndexQuery } from '../../../db/message-words.js';
import { afterRow, windowCut } from '../../plan/windows.js';
import { checkClause, limitClause, rowCount, timeBounds } from '../../sql.js';
import { likePrefilter, patternTest } from '../../text.js';
import { wordStartTest } from '../../word-start.js';
import type { MessageQuery } from '../query.js';
import { MESSAGE_COLUMNS, searchableTypeClause } from '../records.js';
import * as c from './clauses.js';

export type Select = 'id' | 'record';
/** Which messages a window walks newest first: the account's, or its one inbox's. */
export type MessageWalk = 'account' | 'inbox';
/** The rest of a window that gave way: `rows` messages after its last match `after`; `found`: the page's rows it held. */
export type MessageWindowRest = { after: number; rows: number; found: number };
/** The newest `rows` messages or a window's rest; `narrowingFirst`: the inboxes and sender tested before the words. */
export type WindowShape = { rows: number | MessageWindowRest; walk?: MessageWalk; narrowingFirst?: boolean };
/** `cap`: the capped read, its candidates' count on every row; `wordIndex`: words read from the word index, not ILIKE. */
export type TrigramShape = { cap?: number; scope?: c.ScopeIndex; wordIndex?: readonly string[] };
const columnsOf = (select: Select) => (select === 'record' ? c.RECORD_SOURCE : 'm.id');

/** Every match newest first, the words a filter: the plain statement every strategy must equal. */
export function walkStatement(query: MessageQuery, select: Select = 'id'): SqlQuery {
  const p = new SqlParams();
  const filters = c.messageFilterClauses(query, p);
  const text = `
    SELECT ${columnsOf(select)} FROM messages m
    WHERE ${[...filters, ...c.plainWordClauses(query.words, p)].join('\n      AND ')}
    ${c.NEWEST_FIRST}
    ${limitClause(query.limit, query.offset, p)}`;
  return { text, values: p.values };
}

/** The sender's messages newest first by searchdesk's index, every other filter a check: one way in whatever the values. */
export function senderStatement(query: MessageQuery, select: Select = 'id', inText = false): SqlQuery {
  const p = new SqlParams();
  const words = c.walkWordClauses(query.words, p, "(m.content || '')");
  const filters = [
    ...checkClause([c.accountClause(query, p), searchableTypeClause(), c.inboxClause(query, p)]),
    ...timeBounds('m.created_at', query.since, query.until, p),
    ...c.senderClauses(query, p),
  ];
  const text = `
    SELECT ${columnsOf(select)} FROM messages m
    WHERE ${[...filters, ...words].join('\n      AND ')}
    ${c.NEWEST_FIRST}
    ${limitClause(query.limit, query.offset, p, inText)}`;
  return { text, values: p.values };
}

/** The walk's newest messages with a record's columns; the account's walk cut by windowCut, one inbox's in result order. */
function newestMessages(query: MessageQuery, shape: WindowShape, p: SqlParams, needed: number, inText: boolean) {
  const rest = typeof shape.rows === 'number' ? undefined : shape.rows;
  const scope =
    shape.walk === 'inbox'
      ? [
          `m.inbox_id = ${p.add(query.inboxIds[0])}::bigint`,
          ...checkClause([c.accountClause(query, p), searchableTypeClause()]),
          ...timeBounds('m.created_at', query.since, query.until, p),
        ]
      : c.scopeClauses(query, p, inText);
  const where = [...scope, ...(rest ? afterRow('m', 'messages', 'created_at', rest.after, p) : [])];
  const rows = p.add(rest ? rest.rows : shape.rows);
  const { cut, ties } =
    shape.walk === 'inbox'
      ? { cut: `ORDER BY m.created_at DESC, m.id DESC LIMIT ${rows}`, ties: false }
      : windowCut('m.created_at DESC', 'm.id DESC', rows, needed);
  return { text: `SELECT ${c.RECORD_SOURCE}\n      FROM messages m WHERE ${where.join(' AND ')}\n      ${cut}`, ties };
}

/** A window: the walk's newest messages, then the inboxes, the sender and the words as checks. */
export function windowStatement(query: MessageQuery, shape: WindowShape, select: Select = 'id', inText = false): SqlQuery {
  const p = new SqlParams();
  const first = typeof shape.rows === 'number';
  const needed = typeof shape.rows === 'number' ? query.offset + query.limit : query.limit - shape.rows.found;
  const inbox = shape.walk === 'inbox';
  const newest = newestMessages(query, shape, p, needed, inText);
  const narrowing = inbox ? c.senderClauses(query, p) : c.narrowingClauses(query, p);
  const words = c.walkWordClauses(query.words, p);
  // In one check the tests run in the order written: the cheap word pattern first, unless narrowingFirst.
  const filters =
    newest.ties || inbox
      ? checkClause(shape.narrowingFirst ? [...narrowing, ...words] : [...words, ...narrowing])
      : [...checkClause(narrowing), ...words];
  const page = first ? limitClause(query.limit, query.offset, p, inText) : `LIMIT ${p.add(needed)}`;
  const text = `
    SELECT ${columnsOf(select)} FROM (${newest.text}) m
    WHERE ${filters.join(' AND ')}
    ${c.NEWEST_FIRST}
    ${page}`;
  return { text, values: p.values };
}

/** The trigram read: the candidates in a materialised CTE, the word start tested on them in result order (capped: ≤ cap). */
export function trigramStatement(query: MessageQuery, shape: TrigramShape, select: Select = 'id', inText = false): SqlQuery {
  const { cap, scope = 'indexed', wordIndex = [] } = shape;
  const p = new SqlParams();
  const starts = wordIndexQuery(wordIndex);
  const candidates = [
    ...c.messageFilterClauses(query, p, scope),
    ...(starts !== undefined
      ? [`${messageWordsVector('m.content')} @@ (SELECT ${p.add(starts)}::tsquery)`]
      : query.words.map((w) => `m.content ${patternTest('ILIKE', likePrefilter(w), p, true)}`)),
  ];
  const words = query.words.map((w) => wordStartTest(w, p)(`(m.content || '')`));
  const page = `
      SELECT ${select === 'record' ? c.RECORD_SOURCE : 'm.id, m.created_at'}
      FROM (SELECT c.id, c.created_at FROM matched c ORDER BY c.created_at DESC, c.id DESC) c
      JOIN LATERAL (SELECT * FROM messages m WHERE m.id = c.id LIMIT 1) m ON true
      WHERE ${words.join(' AND ')}
      ORDER BY c.created_at DESC, c.id DESC
      ${limitClause(query.limit, query.offset, p, inText)}`;
  const limit = cap === undefined ? '' : `LIMIT ${inText ? rowCount(cap) : p.add(cap)}`;
  const text = `
    WITH matched AS MATERIALIZED (
      SELECT m.id, m.created_at FROM messages m
      WHERE ${candidates.join(' AND ')}
      ${limit}
    )
    ${
      cap === undefined
        ? page
        : `SELECT m.*, k.matched FROM (SELECT count(*)::int AS matched FROM matched) k
    LEFT JOIN LATERAL (${page}) m ON true
    ${c.NEWEST_FIRST}`
    }`;
  return { text, values: p.values };
}

/** A page built with `select: 'record'` as rows ready to be records; a capped read's keep `matched`. */
export function asRecords(page: SqlQuery, capped = false): SqlQuery {
  return {
    text: `
    SELECT ${MESSAGE_COLUMNS}${capped ? ', m.matched' : ''} FROM (${page.text}) m
    ${c.NEWEST_FIRST}`,
    values: page.values,
  };
}
