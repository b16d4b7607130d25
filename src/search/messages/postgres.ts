/** The Postgres message engine: trigram-assisted word-prefix matching on `messages.content`. */
import { INDEX, searchdeskIndexes } from '../../db/catalog.js';
import { SqlParams, type Db, type SqlQuery } from '../../db/db.js';
import { messageWordsVector, wordIndexQuery, wordIndexServes } from '../../db/message-words.js';
import { PAGE_SIZE } from '../context.js';
import {
  checkClause,
  ladderStep,
  limitClause,
  longerWindow,
  rowCount,
  shareWindow,
  tableRows,
  timeBounds,
  windowCanHold,
  windowCut,
  type WindowLimits,
} from '../sql.js';
import {
  estimateShare,
  lexemeStats,
  prefixShare,
  shareWithinAccount,
  tableStats,
  UNSEEN_SHARE,
  valuesShare,
  type LexemeStats,
  type TableStats,
} from '../statistics.js';
import {
  asciiLikePattern,
  foldedRegex,
  hasTrigram,
  likePrefilter,
  looksSpecific,
  patternTest,
  prefilterTrigrams,
} from '../text.js';
import { wordStartTest } from '../word-start.js';
import type { MessageEngine } from './engine.js';
import { buildFirstMatchQuery } from './first-match.js';
import type { MessageQuery } from './query.js';
import { MESSAGE_COLUMNS, searchableTypeClause, type MessageRow } from './records.js';

type MessageFilters = Omit<MessageQuery, 'words' | 'text' | 'offset' | 'limit'>;

/**
 * How a trigram read may use the account and the inboxes: `indexed`, as conditions the index on
 * (account_id, inbox_id) can serve, which the planner may intersect with the trigram index; or
 * `hidden`, every filter written as one check that no index serves (checkClause), and the trigram
 * index is the read's only way in, its candidates filtered on the table's rows. (Hidden as
 * `m.account_id + 0` and `m.inbox_id + 0` before, the filters were still weighed one by one:
 * 0.03–0.27 ms of the statement at M, up to 10 % of a short one.)
 */
export type ScopeIndex = 'indexed' | 'hidden';

/**
 * The account, over alias `m`: a parameter, or written in the text (rowCount) for a statement
 * planned once, whose one plan is then weighed for the account's own messages (anyAccount).
 */
function accountClause(query: MessageFilters, p: SqlParams, inText = false): string {
  return `m.account_id = ${inText ? rowCount(query.accountId) : p.add(query.accountId)}::bigint`;
}

/** The query's inboxes, over alias `m`. */
function inboxClause(query: MessageFilters, p: SqlParams): string {
  return `m.inbox_id = ANY(${p.add(query.inboxIds)}::bigint[])`;
}

/** The sender, when the query has one, over alias `m`. */
function senderClauses(query: MessageFilters, p: SqlParams): string[] {
  return query.sender ? [`m.sender_type = ${p.add(query.sender.type)}`, `m.sender_id = ${p.add(query.sender.id)}::bigint`] : [];
}

/**
 * The filters the index on (account_id, created_at, message_type) checks as it walks: the
 * account, the searchable types and the time bounds, over alias `m`.
 */
function messageScopeClauses(query: MessageFilters, p: SqlParams, accountInText = false): string[] {
  return [
    accountClause(query, p, accountInText),
    searchableTypeClause(),
    ...timeBounds('m.created_at', query.since, query.until, p),
  ];
}

/** The filters that narrow the scope: the inboxes and the sender, over alias `m`. */
function messageNarrowingClauses(query: MessageFilters, p: SqlParams): string[] {
  return [inboxClause(query, p), ...senderClauses(query, p)];
}

/**
 * Every filter of a MessageQuery except the words, over alias `m` (`hidden`: as one check, see
 * ScopeIndex). Shared with the record loader.
 */
export function messageFilterClauses(query: MessageFilters, p: SqlParams, scope: ScopeIndex = 'indexed'): string[] {
  const filters = [...messageScopeClauses(query, p), ...messageNarrowingClauses(query, p)];
  return scope === 'hidden' ? checkClause(filters) : filters;
}

/**
 * Each (folded) word must start a word of the content: the plain walk's test (words without a
 * trigram, which no index narrows). `ILIKE '%word%'` (likePrefilter) is implied by that and
 * cheap to reject with; the folded regular expression then decides, the same way for every
 * database locale. The trigram reads test the same two things apart: the ILIKE on the trigram
 * index's candidates, the word start on the page's rows only.
 */
function messageWordClauses(words: string[], p: SqlParams): string[] {
  return words.flatMap((w) => [`m.content ILIKE ${p.add(likePrefilter(w))}`, wordStartTest(w, p)(`(m.content || '')`)]);
}

/**
 * The same test for rows a walk reads in order, where no index is asked. The first test rejects
 * most rows: the C collation's ILIKE (asciiLikePattern: ASCII letters folded byte by byte, a
 * window of a common word at M ×1.24 against the folded regular expression, which was itself
 * three times faster than the locale's ILIKE: 50,000 messages at M, 353 ms against 101), or, for
 * a word it would not narrow, the folded regular expression (foldedRegex); the word-start one
 * decides. `content` is what the first one reads: `(m.content || '')` where a trigram index
 * (which serves `~` and ILIKE) must stay out of the plan. The first pattern is hidden from the
 * planner (patternTest): a walk's plan does not depend on its estimate, and on `m.content` the
 * planner would run it over the column's statistics, a hundred sampled texts (0.3 ms of a 2 ms
 * window statement at M).
 */
function walkWordClauses(words: string[], p: SqlParams, content = 'm.content'): string[] {
  return words.flatMap((w) => {
    const like = asciiLikePattern(w);
    const first = like
      ? `${content} COLLATE "C" ${patternTest('ILIKE', like.pattern, p, true)}`
      : `${content} ${patternTest('~', foldedRegex(w), p, true)}`;
    return [first, wordStartTest(w, p)(`(m.content || '')`)];
  });
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
  /**
   * The sender's messages newest first (searchdesk_messages_sender_created), every other filter
   * and the words tested on them: a walk as long as the sender's messages at most.
   */
  | 'sender'
  /** Every match through the trigram index on content, then order. */
  | 'trigram'
  /**
   * The trigram index's first `cap` candidates (every filter, each word's ILIKE prefilter), the
   * page's matches among them, and their count (`matched`): every match when fewer than `cap`
   * (exact), else the words are too common for this to be the page.
   */
  | 'capped';

/** Rows of the newest-first window tried before the trigram index: its matches tell how common the words are. */
export const MESSAGE_WINDOW = 3_000;

/**
 * The longest second window: about 100 ms of walking at scale L, past which the trigram index is
 * the bounded choice whatever the estimate.
 */
export const MESSAGE_WALK_CAP = 40_000;

/**
 * Rows of the first window for words that no message sampled by the statistics holds, on a page
 * past the capped read (MESSAGE_CAPPED): rare ones, which the trigram index answers, or a few
 * medium ones, whose matches in a small window still tell how far to walk.
 */
export const MESSAGE_SAMPLE_WINDOW = 600;

/**
 * Matches the trigram index reads for words no message sampled by the statistics holds: a rare
 * or medium word has fewer, and they are the whole answer (one statement, as the help desk's
 * own); a word with more is common enough for a window. At M, 1,000 matches cost about 3.5 ms.
 * The least cap: a large scope raises it (cappedReadCap).
 */
export const MESSAGE_CAPPED = 1_000;

/**
 * Rows of a window walk that cost about as much as one match of the capped read beyond its index
 * scan (the candidate's row visited and tested, wherever it lies in the table), in the scope of
 * every inbox. At L, `pletrath` as an administrator: 1,000 matches in 14 ms beyond the index scan,
 * against 65 ms for the 40,000 rows of the window that followed (1.6 µs a row).
 */
export const MESSAGE_MATCH_ROWS = 10;

/** Rows of a window that gave way read again to count what the trigram index would fetch. */
export const MESSAGE_SAMPLE_ROWS = 1_000;

/**
 * Messages of a query's account and inboxes (estimated from the statistics) up to which a
 * trigram read of few candidates (a code, a word no sampled message holds) may intersect the
 * trigram index with the index on (account_id, inbox_id): reading 20,000 of its entries costs
 * about 1 ms. Past it, the scope is hidden from the indexes (ScopeIndex) where the candidates
 * are surely few (a code), and for the capped read as fewCandidatesScope weighs it. The planner,
 * which cannot know how few the candidates are, intersected an agent's 10 inboxes of 50 at M
 * (99,436 entries, 4.5 ms) with the 72 candidates of a rare word, and at L read a million.
 */
export const MESSAGE_SCOPE_INDEX = 20_000;

/**
 * Entries of the scope's index worth one visit of a candidate's row in the capped read's
 * weighing (fewCandidatesScope): a visit costs about as much as 100 entries (5 µs against 45 ns
 * at M, warm), and the worst case of a hidden scope, a word held by many messages outside it, is
 * taken as eight times less likely than a rare word's few candidates (the usual word no sample
 * holds): 100 / 8. A judgment, not a measurement: at M an agent's 10 inboxes of 50 (91,600
 * messages estimated) are hidden with 12 and would not be with 16.
 */
export const MESSAGE_VISIT_ENTRIES = 12;

/**
 * The share of messages under which a word's start is looked up in searchdesk's word index rather
 * than the trigram index (indexedWord). The word index gathers every message whose word the word
 * starts, where the trigram index intersects the lists of the word's trigrams with those of a
 * rarer word: `ord` of `ORD-177111` (a start of `order`, in a quarter of the messages) at M took
 * 4.1 ms through the word index, 0.8 through the trigram index. A word the statistics' sampled
 * messages do not hold has a share of 0: a rare word at M, 1.6 → 0.7–1.05 ms.
 */
export const MESSAGE_WORD_INDEX_SHARE = 0.01;

/**
 * What a read through searchdesk's word index costs per message whose word the query's word
 * starts, in rows of a window walk: its posting gathered into the bitmap, then the message
 * visited, about 1 µs each against a window row's 1.25 µs (`permission` at L: 16,950 postings in
 * 20.6 ms, their heap rows in 16 ms; `keyboard` at M: a window of 13,585 rows in 17 ms).
 */
export const MESSAGE_WORD_INDEX_ROWS = 1.6;

/** The sizes the Postgres engine works with (tests lower them to reach every path on small data). */
export interface MessageLimits extends WindowLimits {
  /** Rows of the first window when the statistics never saw the words and the capped read cannot hold the page. */
  sample: number;
  /** Matches of the capped trigram read (see `capped`), at least: cappedReadCap raises it with the scope. */
  capped: number;
  /** Messages of the scope up to which a read of few candidates may use the scope's index (MESSAGE_SCOPE_INDEX). */
  scopeIndex: number;
}

export const MESSAGE_LIMITS: MessageLimits = {
  window: MESSAGE_WINDOW,
  walkCap: MESSAGE_WALK_CAP,
  room: 1.5,
  sample: MESSAGE_SAMPLE_WINDOW,
  capped: MESSAGE_CAPPED,
  scopeIndex: MESSAGE_SCOPE_INDEX,
};

/** Result order: newest first, ties by id (the order of every message engine). */
const NEWEST_FIRST = 'ORDER BY m.created_at DESC, m.id DESC';

/**
 * The columns of `messages` a record is made of (MESSAGE_COLUMNS reads them from alias m): what a
 * statement that walks the messages themselves returns when it reads records, so that they need
 * not be read again by id.
 */
const RECORD_SOURCE =
  'm.id, m.content, m.message_type, m.private, m.created_at, m.conversation_id, m.inbox_id, m.sender_type, m.sender_id, m.account_id';

/**
 * The rest of a window that gave way: up to `rows` messages in result order after its last match
 * (`after`, its id), of which the page still needs `query.limit - found` (`found`: the first
 * window's rows, all of the page's that it held). The walk starts at that message's place in the
 * index, not at the top: only the first window's rows after its last match are read again (a
 * longer window from the top read all of them again: `contact` as an administrator at L, a
 * window of 3,000 rows, then one of 12,000 that tested 4,949 rows, 9.8 + 14.9 ms).
 */
export interface MessageWindowRest {
  after: number;
  rows: number;
  found: number;
}

/**
 * Which messages a window walks newest first: the account's (index_messages_on_account_created_type,
 * the help desk's), or those of the query's one inbox (searchdesk_messages_inbox_created).
 */
export type MessageWalk = 'account' | 'inbox';

/**
 * The newest `window` messages of the walk (the account's, or its one inbox's; types, time
 * bounds), in result order, for a window, with every column of a record (the window's filters
 * read most of them); for the rest of a window, those after its last match. Cut after a whole
 * creation time when the page needs `needed` ≥ TIES_MIN_MATCHES matches (windowCut).
 */
function newestMessages(
  query: MessageQuery,
  window: number | MessageWindowRest,
  p: SqlParams,
  needed = 0,
  planOnce = false,
  walk: MessageWalk = 'account',
) {
  // The cut walks (account_id, created_at, message_type) backwards and stops after the window's
  // rows, whatever the inboxes and the sender: a filter that keeps few of the account's messages
  // (one sender) would otherwise walk the whole 90 days. One inbox is walked by its own index,
  // its time bounds the index's conditions, the account and the types checks of its rows: its
  // messages are all the walk reads (an inbox of 50 at L: `upgrade`, 1,175 rows and 4.1–4.6 ms,
  // where the account's walk read 32,902 rows and the trigram index took 22–34 ms).
  const rest = typeof window === 'number' ? undefined : window;
  const scope =
    walk === 'inbox'
      ? [
          `m.inbox_id = ${p.add(query.inboxIds[0])}::bigint`,
          ...checkClause([accountClause(query, p), searchableTypeClause()]),
          ...timeBounds('m.created_at', query.since, query.until, p),
        ]
      : messageScopeClauses(query, p, planOnce);
  const where = [...scope, ...(rest ? afterClauses(rest.after, p) : [])];
  const rows = p.add(rest ? rest.rows : window);
  // The index by inbox holds the whole result order (the time, then the id): the window ends
  // after exactly its rows, and its output is in result order, which the page's LIMIT then reads
  // as far as the page goes, with no sort at all.
  const { cut, ties } =
    walk === 'inbox'
      ? { cut: `ORDER BY m.created_at DESC, m.id DESC LIMIT ${rows}`, ties: false }
      : windowCut('m.created_at DESC', 'm.id DESC', rows, needed);
  return {
    text: `SELECT ${RECORD_SOURCE}
      FROM messages m WHERE ${where.join(' AND ')}
      ${cut}`,
    ties,
  };
}

/**
 * The messages after message `after` in result order (created_at DESC, id DESC), written so that
 * the index on (account_id, created_at, message_type) starts there: its time is read by primary
 * key in the statement (a record holds it in whole seconds only). A message deleted in between
 * leaves no time: no rows, and the trigram index answers.
 */
function afterClauses(after: number, p: SqlParams): string[] {
  const id = `${p.add(after)}::bigint`;
  const key = `(SELECT k.created_at FROM messages k WHERE k.id = ${id})`;
  return [`m.created_at <= ${key}`, `(m.created_at < ${key} OR m.id < ${id})`];
}

/** How a statement is written beyond its strategy. */
export interface MessageStatementOptions {
  /** `record`: the page's rows with every column of a record instead of their ids. */
  select?: 'id' | 'record';
  /** The trigram and capped reads: whether the scope's index may serve them (ScopeIndex). */
  scope?: ScopeIndex;
  /** A first window with its account as a parameter, planned for its values (SqlQuery.anyAccount). */
  accountAsParameter?: boolean;
  /** A window's filter tests the inboxes and the sender before the words (narrowingFirst). */
  narrowingFirst?: boolean;
  /** A window's walk: the account's messages, or its one inbox's (inboxWalk). */
  walk?: MessageWalk;
  /**
   * The trigram and capped reads: the words whose starts searchdesk's word index finds the
   * candidates by (indexedWord), instead of every word's ILIKE prefilter on the trigram index.
   */
  wordIndex?: readonly string[];
}

/**
 * The ids statement of one strategy; `window` is a window's rows (or the rest of one, after its
 * last match), or the capped read's cap.
 */
export function buildMessageIdsQuery(
  query: MessageQuery,
  strategy: MessageStrategy = 'walk',
  window: number | MessageWindowRest = MESSAGE_WINDOW,
  options: MessageStatementOptions = {},
): SqlQuery {
  const {
    select = 'id',
    scope = 'indexed',
    accountAsParameter = false,
    narrowingFirst = false,
    walk = 'account',
    wordIndex = [],
  } = options;
  const p = new SqlParams();
  const columns = select === 'record' ? RECORD_SOURCE : 'm.id';
  let text: string;
  let planOnce = false;
  let general: (() => SqlQuery) | undefined;
  if (strategy === 'window') {
    // The rest of a window continues the page: the first window held every match before it.
    const needed = typeof window === 'number' ? query.offset + query.limit : query.limit - window.found;
    // A first window of the first page is planned once (SqlQuery.planOnce): planning was 0.13 ms
    // of a common word's 0.6 ms window at M. Its plan is the walk of the account's newest messages
    // whatever the values: the account is written in the text (anyAccount), so the one plan is
    // weighed for its rows as a plan for the values would be; its page too (rowCount); the words
    // and the scope are checks the planner cannot weigh (checkClause, the pattern as a subquery);
    // the window's length stays a parameter, weighed as a tenth of the account's rows since the
    // time bound: every other way to them reads them all and sorts them, the time bound being a
    // condition of the walk's index. (The conversations window has no such bound, so its length
    // is in its text: windowPlannedOnce.) A plan test holds it to the walk (test/variants.test.ts).
    // The walk of one inbox is its index's whatever the values (the inbox and the time bounds are
    // its only conditions), so it is planned once with its account a parameter.
    planOnce = typeof window === 'number' && query.offset === 0 && !accountAsParameter;
    if (planOnce && walk === 'account')
      general = () => buildMessageIdsQuery(query, strategy, window, { ...options, accountAsParameter: true });
    const newest = newestMessages(query, window, p, needed, planOnce, walk);
    // The inboxes and the sender only check the window's rows (checkClause): 0.05 ms of a
    // 1.0–2.3 ms window of a common word at M. In the one clause of a window cut after a whole
    // time, the tests run in the order written: the words first, as most rows fail their first,
    // cheap pattern, unless the inboxes and the sender keep few rows (narrowingFirst). The walk
    // of one inbox reads only its messages: the sender is left to check.
    const narrowing = walk === 'inbox' ? senderClauses(query, p) : messageNarrowingClauses(query, p);
    const words = walkWordClauses(query.words, p);
    const filters =
      newest.ties || walk === 'inbox'
        ? checkClause(narrowingFirst ? [...narrowing, ...words] : [...words, ...narrowing])
        : [...checkClause(narrowing), ...words];
    const page = typeof window === 'number' ? limitClause(query.limit, query.offset, p, planOnce) : `LIMIT ${p.add(needed)}`;
    text = `
    SELECT ${columns} FROM (${newest.text}) m
    WHERE ${filters.join(' AND ')}
    ${NEWEST_FIRST}
    ${page}`;
  } else if (strategy === 'trigram' || strategy === 'capped') {
    const capped = strategy === 'capped';
    // With its scope hidden the read enters by the trigram index alone, and its patterns are
    // hidden from the planner: its plan is the same whatever its values, so it is planned once
    // (SqlQuery.planOnce) on the first page, its cap and page written in the text (rowCount).
    // An indexed scope asks the planner to weigh the scope's index from the account and inboxes.
    planOnce = scope === 'hidden' && query.offset === 0;
    const cap = (n: number) => (planOnce ? rowCount(n) : p.add(n));
    // The candidates: every filter and each word's ILIKE prefilter, which the trigram index
    // serves. No ORDER BY inside the materialised CTE: no ordered walk can be chosen there, so
    // the index finds them (a bitmap) and only they are sorted. The patterns are hidden from
    // the planner (patternTest): estimated from the statistics, a common word's many candidates
    // made a walk of (account_id, inbox_id) that stops at the cap look cheaper than the index,
    // a walk through every message of the account when the word is rarer than estimated. The
    // word-start test decides on the candidates in result order, only as far as the page goes:
    // run on every candidate it cost more than the index read (keyboard at M: 397 candidates,
    // 1.2 ms of a 7.7 ms statement).
    // From the word index, the words' starts as one tsquery, hidden from the planner as the
    // patterns are. The word-start expression then decides on every word, indexed or not.
    const starts = wordIndexQuery(wordIndex);
    const candidates = [
      ...messageFilterClauses(query, p, scope),
      ...(starts !== undefined
        ? [`${messageWordsVector('m.content')} @@ (SELECT ${p.add(starts)}::tsquery)`]
        : query.words.map((w) => `m.content ${patternTest('ILIKE', likePrefilter(w), p, true)}`)),
    ];
    const words = query.words.map((w) => wordStartTest(w, p)(`(m.content || '')`));
    const page = `
      SELECT ${select === 'record' ? RECORD_SOURCE : 'm.id, m.created_at'}
      FROM (SELECT c.id, c.created_at FROM matched c ORDER BY c.created_at DESC, c.id DESC) c
      JOIN LATERAL (SELECT * FROM messages m WHERE m.id = c.id LIMIT 1) m ON true
      WHERE ${words.join(' AND ')}
      ORDER BY c.created_at DESC, c.id DESC
      ${limitClause(query.limit, query.offset, p, planOnce)}`;
    // The capped read returns its count of candidates on every row, and one row without a
    // message when the page is empty: the count tells whether the cap cut the candidates short.
    text = `
    WITH matched AS MATERIALIZED (
      SELECT m.id, m.created_at FROM messages m
      WHERE ${candidates.join(' AND ')}
      ${capped ? `LIMIT ${cap(typeof window === 'number' ? window : window.rows)}` : ''}
    )
    ${
      capped
        ? `SELECT m.*, k.matched FROM (SELECT count(*)::int AS matched FROM matched) k
    LEFT JOIN LATERAL (${page}) m ON true
    ${NEWEST_FIRST}`
        : page
    }`;
  } else if (strategy === 'sender') {
    // The words on `content || ''`: no trigram index can serve them. The sender and the time
    // bounds are what searchdesk_messages_sender_created serves, in result order; the account,
    // the types and the inboxes only check the sender's rows (checkClause), so no other index is
    // a way in, and planning them apart was 0.1 ms of a 0.5–0.6 ms statement at M. Its one way
    // in is that index, whose order is the result's, whatever the values: on the first page it is
    // planned once (SqlQuery.planOnce), its page in the text (a rare word from a contact at M:
    // 0.39–0.41 ms planned per run, 0.21–0.23 planned once).
    planOnce = query.offset === 0;
    const words = walkWordClauses(query.words, p, "(m.content || '')");
    const filters = [
      ...checkClause([accountClause(query, p), searchableTypeClause(), inboxClause(query, p)]),
      ...timeBounds('m.created_at', query.since, query.until, p),
      ...senderClauses(query, p),
    ];
    text = `
    SELECT ${columns} FROM messages m
    WHERE ${[...filters, ...words].join('\n      AND ')}
    ${NEWEST_FIRST}
    ${limitClause(query.limit, query.offset, p, planOnce)}`;
  } else {
    const filters = messageFilterClauses(query, p);
    text = `
    SELECT ${columns} FROM messages m
    WHERE ${[...filters, ...messageWordClauses(query.words, p)].join('\n      AND ')}
    ${NEWEST_FIRST}
    ${limitClause(query.limit, query.offset, p)}`;
  }
  return { text, values: p.values, ...(planOnce && { planOnce }), ...(general && { anyAccount: general }) };
}

/**
 * What a window that gave way saw, for the choice of the next strategy: how many of its rows the
 * trigram index would fetch (rows holding every trigram of every word: across inboxes and
 * senders, and for a short word many times the matches) and the planner's estimate of the
 * table's rows. Read only when the window gave way: its rows are then in the buffer cache.
 */
export function buildWindowSampleQuery(query: MessageQuery, window: number, walk: MessageWalk = 'account'): SqlQuery {
  const p = new SqlParams();
  // The newest rows of the window stand for all of it (ILIKE costs about 1 µs a row and pattern).
  const newest = newestMessages(query, Math.min(window, MESSAGE_SAMPLE_ROWS), p, 0, false, walk).text;
  const trigrams = query.words.flatMap(prefilterTrigrams).map((t) => `m.content ILIKE ${p.add(t)}`);
  const fetched = trigrams.length > 0 ? `count(*) FILTER (WHERE ${trigrams.join(' AND ')})` : 'count(*)';
  return {
    text: `SELECT ${fetched}::float8 AS candidates, count(*)::float8 AS sampled, ${tableRows('messages')} AS table_rows
           FROM (${newest}) m`,
    values: p.values,
  };
}

/** The first statement of a search (firstMessageStep). */
export type FirstMessageStep =
  | { strategy: 'window'; window: number }
  /** `then`: the window when the cap is reached (see cappedWindow). */
  | { strategy: 'capped'; cap: number; then: number }
  /** `few`: a code, which a handful of messages hold (not a word too common for a window). */
  | { strategy: 'trigram'; few?: boolean };

/**
 * The share of the account's messages under which a window tests the inboxes and the sender
 * before the words. A row's word test (ILIKE then the word-start expression) costs about 0.4 µs,
 * the inbox test about 2.6 ns an inbox (ANY over the list; measured at M, alternating the two
 * orders of one window statement): an agent's 10 inboxes of 50 first, a common word's window
 * 0.74 → 0.51 ms; one inbox of 50 at L, 41.9 → 24.7 ms; the 50 inboxes of an administrator
 * first, 0.75 → 0.79 ms. Half keeps every list of up to a few dozen inboxes well on the
 * cheaper side.
 */
export const NARROWING_FIRST_SHARE = 0.5;

/** Whether a window tests the inboxes and the sender before the words (NARROWING_FIRST_SHARE). */
export function narrowingFirst(query: MessageQuery, stats: TableStats | undefined, walk: MessageWalk = 'account'): boolean {
  return stats !== undefined && walkShare(query, stats, walk) <= NARROWING_FIRST_SHARE;
}

/**
 * The share of the account's messages a query's inboxes and sender leave, from the statistics of
 * messages.account_id, inbox_id and sender_id (1 for a column without them).
 */
export function scopeShare(query: MessageQuery, stats: TableStats): number {
  const inboxes = withinAccount(query, stats, 'inbox_id', query.inboxIds);
  return query.sender ? inboxes * withinAccount(query, stats, 'sender_id', [query.sender.id]) : inboxes;
}

/**
 * The share of a window's walked rows the query's inboxes and sender leave: scopeShare for the
 * account's walk; the sender's share for the walk of one inbox, whose rows are all the inbox's.
 */
function walkShare(query: MessageQuery, stats: TableStats, walk: MessageWalk): number {
  if (walk === 'account') return scopeShare(query, stats);
  return query.sender ? withinAccount(query, stats, 'sender_id', [query.sender.id]) : 1;
}

/** The account's messages, estimated from the statistics (the whole table without them for account_id). */
function accountRows(query: MessageQuery, stats: TableStats): number {
  return stats.rows * (valuesShare(stats, 'account_id', [query.accountId]) ?? 1);
}

/** The query's messages over all time: the account's in its inboxes and sender (scopeShare). */
function scopeRows(query: MessageQuery, stats: TableStats): number {
  return accountRows(query, stats) * scopeShare(query, stats);
}

/** The share of the account's messages with one of `values` in `column` (1 without statistics). */
function withinAccount(query: MessageQuery, stats: TableStats, column: string, values: ReadonlyArray<number | string>): number {
  return shareWithinAccount(stats, query.accountId, column, values) ?? 1;
}

/**
 * How a trigram read of few candidates may use the scope: its index when the account's messages
 * in the query's inboxes are few enough to read (limits.scopeIndex); else hidden for a code. For
 * the capped read (`cap`), the scope is hidden when reading its index costs more than the worst
 * case of hiding it: a word in many messages, whose candidates the read visits until `cap` of
 * them are in the scope, cap ÷ (the scope's share of the table) visits; at M an agent's 10
 * inboxes of 50 (99,000 messages: hidden, a rare word 8.1 → 3.0 ms, a medium one 18 → 27), at
 * L one inbox (100,000 of 5 million: indexed, `checkout` 40 ms hidden 300). Hidden without
 * statistics.
 */
export function fewCandidatesScope(
  query: MessageQuery,
  stats: TableStats | undefined,
  limits: MessageLimits,
  cap?: number,
): ScopeIndex {
  if (!stats) return 'hidden';
  const rows = accountRows(query, stats) * withinAccount(query, stats, 'inbox_id', query.inboxIds);
  if (rows <= limits.scopeIndex) return 'indexed';
  if (cap === undefined) return 'hidden';
  // rows entries read, against cap × (table ÷ rows) visits.
  return rows * rows >= cap * stats.rows * MESSAGE_VISIT_ENTRIES ? 'hidden' : 'indexed';
}

/**
 * The first statement, from the statistics of messages (content, account, inbox, sender):
 * - a word shaped like a code or id: the trigram index (a handful of messages hold it);
 * - a word no sampled message holds: the capped trigram read (its cap: cappedReadCap), exact for
 *   a rare word; the small sample window when the page lies past the cap, or for a short word in
 *   so large a scope that it may well be in more messages than the cap (unseenMatches);
 * - words read through searchdesk's word index (`indexShare`: the share of the word it reads by,
 *   whose matches across the table are the candidates) that the statistics expect in fewer of the scope's messages
 *   than the cap, where reading all of them (MESSAGE_WORD_INDEX_ROWS) costs less than the walk
 *   the window should take: the capped read as well (`keyboard` at M, in 0.17 % of messages: a
 *   window of 13,585 rows took four times as long; `api` in one inbox at L, in 0.3 %: 14,600
 *   postings and an inbox of 184,000 messages, 57 ms, where the window took 12–17);
 * - otherwise a window long enough for the page at the estimated share of the walked messages
 *   (the account's, or its one inbox's: `walk`) holding the words in the query's inboxes and
 *   sender (at least `limits.window` rows: the walk stops at the page), or the trigram index when
 *   even that is past the longest walk, or in one inbox when its read costs less than the walk
 *   (through the word index: the word's matches across the table, MESSAGE_WORD_INDEX_ROWS each;
 *   `permission` in an inbox of 62,000 messages at L read 16,950 of them in 37 ms);
 * - no statistics: a window of `limits.window` rows.
 */
export function firstMessageStep(
  query: MessageQuery,
  stats: TableStats | undefined,
  limits: MessageLimits = MESSAGE_LIMITS,
  walk: MessageWalk = 'account',
  shares: ReadonlyArray<number | undefined> = wordShares(query, stats),
  indexShare?: number,
): FirstMessageStep {
  if (query.words.some(looksSpecific)) return { strategy: 'trigram', few: true };
  if (!stats || shares.length === 0 || shares.some((s) => s === undefined)) return { strategy: 'window', window: limits.window };
  const page = query.offset / PAGE_SIZE + 1;
  const wordShare = Math.min(...(shares as number[]));
  const cap = cappedReadCap(query, stats, limits);
  const capped = { strategy: 'capped', cap, then: cappedWindow(query, stats, limits, cap) } as const;
  if (wordShare === 0) {
    return windowCanHold(page, cap) && !(looseCandidates(query) && unseenMatches(query, stats) > limits.walkCap)
      ? capped
      : { strategy: 'window', window: limits.sample };
  }
  const { rows } = shareWindow(page, wordShare * walkShare(query, stats, walk), limits);
  // Through the word index a read visits the word's own matches, across the table: fewer in the
  // scope than the cap, and cheaper than the walk the window should take, and the capped read
  // answers in one statement.
  const indexRows = indexShare === undefined ? undefined : indexShare * stats.rows * MESSAGE_WORD_INDEX_ROWS;
  const fewMatches = wordShare * scopeRows(query, stats) < cap && windowCanHold(page, cap);
  if (indexRows !== undefined && fewMatches && (rows === undefined || indexRows < rows / limits.room)) return capped;
  if (rows === undefined || (walk === 'inbox' && rows > (indexRows ?? inboxIndexRows(query, stats, wordShare))))
    return { strategy: 'trigram' };
  return { strategy: 'window', window: Math.max(limits.window, rows) };
}

/**
 * Each word's estimated share of the messages, in the order of `query.words`; none without
 * statistics. With the lexeme statistics of searchdesk's word index (`lexemes`), a word it serves
 * gets the share of the common words it starts (prefixShare), which is what the search matches:
 * at L their estimates were within a third of the true share for every bench word held by more
 * than 1 in 1,000 messages, and 0 for every rarer one. Otherwise (estimateShare) the share of the
 * about one hundred sampled contents holding it anywhere, which cannot tell 1 in 100 from 1 in
 * 10,000: at L `tunabun`, in one sampled content, was given 0.95 % for 0.02 % (1,075 messages),
 * `letr` 1.9 % (in `pletrath`) for 0.06 %, `payment` 0.95 % for 5.3 %.
 */
export function wordShares(query: MessageQuery, stats: TableStats | undefined, lexemes?: LexemeStats): Array<number | undefined> {
  if (!stats) return [];
  return query.words.map((w) => (lexemes && wordIndexServes(w) ? prefixShare(lexemes, w) : estimateShare(stats, ['content'], w)));
}

/**
 * Entries of an index's bitmap that cost about as much as one row of a window walk: about 45 ns
 * against 1.5 µs (MESSAGE_VISIT_ENTRIES, MESSAGE_MATCH_ROWS).
 */
export const MESSAGE_ENTRY_ROWS = 30;

/**
 * What the trigram read of one inbox costs, in rows of a window walk: the inbox's entries in the
 * index on (account_id, inbox_id), which it intersects with the trigram index, and a visit of
 * each of the inbox's messages holding the words (`share` of them), each worth MESSAGE_MATCH_ROWS
 * rows. The window of the inbox (`room` times the rows the page should need, for a share the
 * statistics may well overestimate) is for a word common enough to fill the page within less:
 * `inbox` in one inbox of fifty at M (estimated in 0.96 % of messages, in 0.30 % of the inbox's:
 * a window of 2,657 rows against a read worth 2,500) read 3,000 rows, then the trigram index
 * answered (10 + 5–9 ms), where that read alone takes 4–5.
 */
function inboxIndexRows(query: MessageQuery, stats: TableStats, share: number): number {
  return scopeRows(query, stats) * (1 / MESSAGE_ENTRY_ROWS + share * MESSAGE_MATCH_ROWS);
}

/**
 * Whether the trigram index narrows the words' candidates by two trigrams or fewer (one word of up
 * to four letters, `rent`): such a string is in many words (`rental`, `current`, `parent`), and
 * most rows holding its trigrams do not hold it (`rent` at L: 37,486 candidates, 8,408 matches).
 */
export function looseCandidates(query: MessageQuery): boolean {
  return new Set(query.words.flatMap(prefilterTrigrams)).size <= 2;
}

/**
 * The most matches a word no sampled message holds may have in the query's scope, about: 1 in 100
 * of the account's messages in its inboxes and sender, over all time (the trigram index knows no
 * time). Where that is past the longest walk and the candidates are loose (looseCandidates), the
 * word may well be in many more messages than the capped read's cap, and a capped read that
 * reaches its cap has visited thousands of candidates scattered over a table larger than the
 * buffer cache before a window answers (`rent` as an admin at L: 23,000 rows in 20,000 heap
 * blocks, 190–230 ms, then a 30 ms window); the sample window then goes first, and its matches size
 * a longer window (none: the trigram index). A longer word keeps the capped read, which answers a
 * rare word at once (the sample window would add 2–4 ms to it at L), as does an agent's share of
 * the inboxes or any account up to 4 million messages.
 */
export function unseenMatches(query: MessageQuery, stats: TableStats): number {
  return UNSEEN_SHARE * scopeRows(query, stats);
}

/**
 * The capped read's cap: where visiting its matches would cost as much as the window that follows
 * when it reaches the cap (rent or buy: the matches are visited while that costs less than the
 * walk they could spare; a word past the cap pays both, about twice that window). A cap of C
 * matches costs about C × MESSAGE_MATCH_ROWS ÷ scope share rows of walking (a narrower scope
 * visits more candidates outside it per match), and the window after it need × room × scope
 * rows ÷ C (cappedWindow); they are equal at C = share × √(room × need × account rows ÷
 * MESSAGE_MATCH_ROWS). From `limits.capped` up to ten times it, on a ladder of eleven steps
 * (ladderStep: the cap is written in the statement's text, which is planned once):
 * an administrator at L (5 million messages) 3,175 (balanced at 3,464), where 1,000 made a word
 * of 1,134 matches (`pletrath`) read 1,000 of them, then walk a window of 40,000 rows (34 + 65 ms,
 * the help desk 34); 1,000 at M (500,000: balanced at 1,095); an agent's 10 inboxes of 50 at L,
 * or an account of 400,000 messages or fewer, keep 1,000.
 */
export function cappedReadCap(query: MessageQuery, stats: TableStats, limits: MessageLimits): number {
  const need = query.offset + query.limit;
  const balanced = scopeShare(query, stats) * Math.sqrt((limits.room * need * accountRows(query, stats)) / MESSAGE_MATCH_ROWS);
  return ladderStep(Math.min(10 * limits.capped, Math.max(limits.capped, balanced)), limits.capped);
}

/**
 * The window after a capped read that reached its cap: the words are in at least `cap` of the
 * query's messages (the account's in its inboxes and sender, estimated from the statistics), so
 * the page needs at most about need × scope ÷ cap of them, walked `room` times over, between the
 * least window and the longest walk (the walk stops at the page: a longer window costs only when
 * it gives way).
 */
export function cappedWindow(query: MessageQuery, stats: TableStats, limits: MessageLimits, cap: number): number {
  const need = query.offset + query.limit;
  const rows = Math.ceil((limits.room * need * scopeRows(query, stats)) / cap);
  return Math.min(limits.walkCap, Math.max(limits.window, rows));
}

/**
 * The word searchdesk's word index finds the candidates by (with its share), where the index
 * exists: of the words it serves (wordIndexServes) that the statistics find in fewer than
 * MESSAGE_WORD_INDEX_SHARE of the messages (`shares`: wordShares), the one they find in the
 * fewest, and the longest of those (a longer word starts fewer words). One word only: the index
 * reads a word start (a prefix) as every posting of every word it starts, however rare the words
 * beside it, so each word costs its own matches; the word-start expression tests the others on
 * the candidates. At L, `'file':* & 'paitricras':*` read 34,825 postings of `file…` for 2
 * candidates in 27 ms, `'paitricras':*` alone 262 candidates in 0.37 ms. None: the trigram index.
 */
function indexedWord(
  query: MessageQuery,
  shares: ReadonlyArray<number | undefined>,
): { word: string; share: number } | undefined {
  let best: { word: string; share: number } | undefined;
  query.words.forEach((word, i) => {
    const share = shares[i];
    if (share === undefined || share >= MESSAGE_WORD_INDEX_SHARE || !wordIndexServes(word)) return;
    if (!best || share < best.share || (share === best.share && word.length > best.word.length)) best = { word, share };
  });
  return best;
}

/** The statistics the engine plans with. */
const STATS_COLUMNS = ['content', 'account_id', 'inbox_id', 'sender_id'] as const;

/**
 * Words without a trigram walk in order: the trigram index cannot narrow them. Otherwise the
 * first statement follows the statistics (firstMessageStep): the trigram index for a code, the
 * capped trigram read for a word no sampled message holds, else a newest-first window (cheap, and
 * exact when it holds the page plus one row). When a window gives way, what it saw decides
 * between a longer window that continues it from its last match and the trigram index
 * (longerWindow: the walk still to take against the rows the index would fetch), and the
 * trigram index answers whatever is left.
 */
export function createPostgresEngine(db: Db, limits: MessageLimits = MESSAGE_LIMITS): MessageEngine {
  /**
   * Runs the plan; `read` runs one strategy's statement and returns its rows (ids alone, or rows
   * with their records; a capped read's rows carry the count of its candidates).
   */
  const plan = async <R extends { id: number | null; matched?: number }>(
    query: MessageQuery,
    read: (strategy: MessageStrategy, window?: number | MessageWindowRest, options?: MessageStatementOptions) => Promise<R[]>,
  ) => {
    const stats = await tableStats(db, 'messages', STATS_COLUMNS);
    const walk = await inboxWalk(query);
    // Each word's share, estimated once: the first step and the word index weigh them both.
    const wordsIndexed = (await searchdeskIndexes(db)).has(INDEX.messagesWords);
    const shares = wordShares(query, stats, wordsIndexed ? await lexemeStats(db, INDEX.messagesWords) : undefined);
    const indexed = wordsIndexed ? indexedWord(query, shares) : undefined;
    const wordIndex = indexed ? [indexed.word] : [];
    const first = query.words.some(hasTrigram) ? firstMessageStep(query, stats, limits, walk, shares, indexed?.share) : undefined;
    // A code's or a rare word's few candidates: from the trigram index alone, or with the
    // scope's index (fewCandidatesScope).
    const few = (cap?: number) => fewCandidatesScope(query, stats, limits, cap);
    // The capped read's page when it is the whole answer: fewer candidates than the cap, so every
    // match was among them. Its one row without a message (null id) stands for an empty page.
    const capped = async (cap: number) => {
      const rows = await read('capped', cap, { scope: few(cap), wordIndex });
      return Number(rows[0]?.matched) < cap ? rows.filter((row) => row.id !== null) : undefined;
    };
    const senderRows = await bySender(query, stats);
    if (senderRows !== undefined) {
      // A word no sampled message holds, from a sender with more messages than the capped read's
      // cap: the trigram index finds its few matches sooner (an agent's 2,500 messages at M walk
      // in 8 ms, the capped read of a rare word takes 1–2).
      const answer = first?.strategy === 'capped' && senderRows > limits.capped ? await capped(first.cap) : undefined;
      return answer ?? read('sender');
    }
    if (!first) return read('walk');
    // Through the word index the candidates are about the matches, a few thousand at most: the
    // scope's index is read only where it is small (fewCandidatesScope). Left to the planner, which
    // weighs a tsquery as a guess, an agent's 10 inboxes at L (a million entries, 37 ms) were
    // intersected with the 4,269 candidates of `crouveachea` (1 ms).
    const wide = wordIndex.length > 0 ? few() : 'indexed';
    if (first.strategy === 'trigram') return read('trigram', undefined, { scope: first.few ? few() : wide, wordIndex });
    let window: number;
    if (first.strategy === 'capped') {
      const answer = await capped(first.cap);
      if (answer) return answer;
      window = first.then;
    } else window = first.window;
    // A window is exact when it holds every row the page asks for (limit includes has_more's).
    if (windowCanHold(query.offset / PAGE_SIZE + 1, window)) {
      const narrowing = { narrowingFirst: narrowingFirst(query, stats, walk), walk };
      const rows = await read('window', window, narrowing);
      if (rows.length >= query.limit) return rows;
      const longer = await nextWindow(query, rows.length, window, stats, walk);
      if (longer !== undefined) {
        // Up to `longer` rows from the last match on (nextWindow asks only after a window that
        // held some of the page's rows: all the page's before its last one).
        const rest = { after: Number(rows[rows.length - 1]!.id), rows: longer, found: rows.length };
        const second = [...rows, ...(await read('window', rest, narrowing))];
        if (second.length >= query.limit) return second;
      }
    }
    return read('trigram', undefined, { scope: wide, wordIndex });
  };
  /**
   * Which messages a window walks: those of the query's one inbox (an `inbox_id`, or an agent of
   * one inbox) with searchdesk's index by inbox, else the account's.
   */
  const inboxWalk = async (query: MessageQuery): Promise<MessageWalk> =>
    query.inboxIds.length === 1 && (await searchdeskIndexes(db)).has(INDEX.messagesInbox) ? 'inbox' : 'account';
  /**
   * Whether to walk the sender's messages: with searchdesk's index by sender, unless the
   * statistics say the sender has more messages than the longest walk (a contact has a few, most
   * agents some thousands). Without it, a common word from one contact went to the trigram index
   * and read every message holding the word (2–3 s at L). Resolves with the sender's estimated
   * messages (0 when the statistics do not tell), undefined when the sender is not walked.
   */
  const bySender = async (query: MessageQuery, stats: TableStats | undefined) => {
    if (!query.sender || !(await searchdeskIndexes(db)).has(INDEX.messagesSender)) return undefined;
    const share = stats && valuesShare(stats, 'sender_id', [query.sender.id]);
    if (!stats || share === undefined) return 0;
    const rows = share * stats.rows;
    return rows <= limits.walkCap ? rows : undefined;
  };
  /**
   * The rows of the window that continues one of `window` rows that gave way holding `returned`
   * of the page (longerWindow), or undefined for the trigram index. The sample of its newest rows
   * (how many the index would fetch) is read only when it could decide: more candidates only make
   * the index dearer, so a longer window chosen with none is chosen whatever the sample counts,
   * and one too long for any count is refused (the table's rows from the statistics meanwhile).
   */
  const nextWindow = async (
    query: MessageQuery,
    returned: number,
    window: number,
    stats: TableStats | undefined,
    walk: MessageWalk,
  ) => {
    if (returned === 0) return undefined;
    const page = query.offset / PAGE_SIZE + 1;
    const sized = { ...limits, window };
    // The walk of one inbox against the trigram read of that inbox: a visit of each of its
    // messages holding the words, at the share the window saw, each worth MESSAGE_MATCH_ROWS rows.
    if (walk === 'inbox' && stats && stats.rows > 0)
      return longerWindow(page, returned, scopeRows(query, stats) * MESSAGE_MATCH_ROWS, sized, 0, true);
    if (stats && stats.rows > 0) {
      const least = longerWindow(page, returned, stats.rows, sized, 0, true);
      if (least !== undefined) return least;
      if (longerWindow(page, returned, stats.rows, sized, Infinity, true) === undefined) return undefined;
    }
    const [sample] = await db.query<{ candidates: number; sampled: number; table_rows: number | null }>(
      buildWindowSampleQuery(query, window, walk),
      'search_messages_pg_window_sample',
    );
    const candidates = sample && sample.sampled > 0 ? (sample.candidates * window) / sample.sampled : undefined;
    return longerWindow(page, returned, sample?.table_rows, sized, candidates, true);
  };
  return {
    name: 'postgres',
    label: 'postgres',
    findIds: async (query) => {
      const rows = await plan(query, (strategy, window, options) =>
        db.query<{ id: number | null; matched?: number }>(
          buildMessageIdsQuery(query, strategy, window, options),
          `search_messages_pg_${strategy}`,
        ),
      );
      return rows.map((r) => Number(r.id));
    },
    findRows: (query) =>
      plan(query, (strategy, window, options) =>
        db.query<MessageRow & { matched?: number }>(
          buildMessageRecordsQuery(query, strategy, window, options),
          `search_messages_pg_${strategy}`,
        ),
      ),
    firstMatch: async (query, forms) => {
      const p = new SqlParams();
      const [row] = await db.query<{ first: number | null }>(
        buildFirstMatchQuery(query, forms, p, messageFilterClauses(query, p, 'hidden')),
        'search_messages_pg_first_match',
      );
      return row?.first ?? undefined;
    },
    check: () => db.ping(),
    async close() {},
  };
}

/**
 * One strategy's statement returning the page as rows ready to be records: each statement reads
 * the page's messages themselves and returns their columns, and the record's expressions run
 * above the page's LIMIT, for the page's rows only (a window of a common word at M: 0.93 → 0.84 ms).
 * A capped read's rows carry `matched`, and its row without a message has a null id.
 */
export function buildMessageRecordsQuery(
  query: MessageQuery,
  strategy: MessageStrategy,
  window?: number | MessageWindowRest,
  options: Omit<MessageStatementOptions, 'select'> = {},
): SqlQuery {
  const page = buildMessageIdsQuery(query, strategy, window, { ...options, select: 'record' });
  return {
    text: `
    SELECT ${MESSAGE_COLUMNS}${strategy === 'capped' ? ', m.matched' : ''} FROM (${page.text}) m
    ${NEWEST_FIRST}`,
    values: page.values,
    ...(page.planOnce && { planOnce: true }),
    ...(page.anyAccount && {
      anyAccount: () => buildMessageRecordsQuery(query, strategy, window, { ...options, accountAsParameter: true }),
    }),
  };
}
