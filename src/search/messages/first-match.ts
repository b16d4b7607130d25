/**
 * The word checks of an empty message search (notices.ts), built for each engine: of a few forms
 * of one word (the word, then shorter forms), which is the first that some message matches on
 * its own, under every filter of the search. One statement (Postgres) or one request (the query
 * DSL) per word, whatever the number of forms, so the checks stay bounded by the word count.
 */
import type { SqlParams, SqlQuery } from '../../db/db.js';
import { rowCount, timeBounds } from '../sql.js';
import { likePrefilter } from '../text.js';
import { wordStartTest } from '../word-start.js';
import type { SearchHit } from './client.js';
import type { MessageQuery } from './query.js';
import { searchableTypeClause } from './records.js';

/**
 * Rows of the newest messages a check walks before it asks the trigram index: a common word is in
 * one of them, and the index's bitmap of its candidates (every message holding its trigrams) is
 * the slow part of a check. A word no window row holds goes to the index, where a rare one has
 * few candidates.
 */
export const FIRST_MATCH_WINDOW = 1_000;

/**
 * One statement: `first` is the index of the first form a message matches, or null. `check` is
 * every filter of the search as one check over alias `m` (messageFilterClauses, `hidden`), its
 * values already in `p`, shared by every existence check. Each form is looked for first among
 * the newest FIRST_MATCH_WINDOW messages of the account's window (a walk of its index by account
 * and time, the filters checking its rows), then through the trigram index alone (the filters
 * and the pattern hidden from the planner, as the trigram reads hide them): OR and CASE stop at
 * the first test that holds (each EXISTS is an initplan, run only when reached), so a common word
 * costs a short walk and a rare one a small bitmap. The test is the engine's own: the ILIKE
 * prefilter, then the word-start expression that decides.
 */
export function buildFirstMatchQuery(query: MessageQuery, forms: string[], p: SqlParams, check: string[]): SqlQuery {
  const scope = [
    `w.account_id = ${p.add(query.accountId)}::bigint`,
    searchableTypeClause('w'),
    ...timeBounds('w.created_at', query.since, query.until, p),
  ];
  const window = `(SELECT w.* FROM messages w WHERE ${scope.join(' AND ')} ORDER BY w.created_at DESC LIMIT ${rowCount(FIRST_MATCH_WINDOW)}) m`;
  const branches = forms.map((form, i) => {
    const like = p.add(likePrefilter(form));
    const word = wordStartTest(form, p)(`(m.content || '')`);
    const walked = `EXISTS (SELECT 1 FROM ${window} WHERE ${[...check, `m.content ILIKE ${like}`, word].join(' AND ')})`;
    const indexed = `EXISTS (SELECT 1 FROM messages m WHERE ${[...check, `m.content ILIKE (SELECT ${like}::text)`, word].join(' AND ')})`;
    return `WHEN ${walked} OR ${indexed} THEN ${i}`;
  });
  return { text: `SELECT CASE ${branches.join(' ')} END AS first`, values: p.values };
}

/**
 * One request in the query DSL both servers share: the search's filters, and each form's clause
 * as a constant score, the first form's the highest (powers of two), so the best hit's score
 * names the first form any message matches. One hit, no stored fields: only its score is read.
 */
export function buildFirstMatchSearch(filters: object[], clauses: object[]): Record<string, unknown> {
  const n = clauses.length;
  return {
    from: 0,
    size: 1,
    _source: false,
    stored_fields: '_none_',
    track_total_hits: false,
    query: {
      bool: {
        filter: filters,
        should: clauses.map((clause, i) => ({ constant_score: { filter: clause, boost: 2 ** (n - 1 - i) } })),
        minimum_should_match: 1,
      },
    },
    // A second key, or a server sorting by score alone leaves the sort values (the score) out of the hit.
    sort: [{ _score: { order: 'desc' } }, { _doc: { order: 'asc' } }],
  };
}

/** The form buildFirstMatchSearch's best hit names (its score's highest bit), or undefined without a hit. */
export function firstMatchOfHits(hits: SearchHit[], forms: number): number | undefined {
  const score = Number(hits[0]?.sort?.[0]);
  if (!(score >= 1)) return undefined;
  const first = forms - 1 - Math.floor(Math.log2(score + 0.5));
  return Math.min(Math.max(first, 0), forms - 1);
}
