/**
 * The word checks of an empty message search (notices.ts), built for each engine: of a few forms
 * of one word (the word, then shorter forms), which is the first that some message matches on
 * its own, under every filter of the search. One statement (Postgres) or one request (the query
 * DSL) per word, whatever the number of forms, so the checks stay bounded by the word count.
 */
import type { SqlParams, SqlQuery } from '../../db/db.js';
import { likePrefilter, patternTest, wordStartRegex } from '../text.js';
import type { SearchHit } from './client.js';

/**
 * One statement: `first` is the index of the first form a message matches, or null. `filters`
 * are the search's filters over alias `m`, their values already in `p`: every existence check
 * shares them. CASE asks the checks in order and stops at the first that holds (each EXISTS is an
 * initplan, run only when its branch is reached), so a word that matches alone costs one check.
 * Each check is the engine's own test: the ILIKE prefilter (hidden from the planner, as the
 * trigram reads hide it) and the word-start expression that decides.
 */
export function buildFirstMatchQuery(forms: string[], p: SqlParams, filters: string[]): SqlQuery {
  const branches = forms.map((form, i) => {
    const test = [
      ...filters,
      `m.content ${patternTest('ILIKE', likePrefilter(form), p, true)}`,
      `(m.content || '') ~ ${p.add(wordStartRegex(form))}`,
    ];
    return `WHEN EXISTS (SELECT 1 FROM messages m WHERE ${test.join(' AND ')}) THEN ${i}`;
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
