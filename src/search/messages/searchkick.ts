/**
 * The help desk's own message index (SEARCHDESK_INDEX_FORMAT=searchkick, spec helpdesk-index.md),
 * searched read-only with the help desk's matching: Searchkick's four `match` clauses per field
 * (one typo per word, accent folding, English stems, "&" = "and", every word in one field).
 * Every rule of the MessageQuery (account, accessible inboxes, types, window, sender, page) is
 * applied as a filter (the same filters as our own format, query-dsl.ts), and records are still
 * read from Postgres. The request is plain query DSL, sent through either SearchClient.
 */
import { hitId, type SearchClient, type SearchResponse } from './client.js';
import type { MessageEngine } from './engine.js';
import { buildFirstMatchSearch, firstMatchOfHits } from './first-match.js';
import { messageFilters } from './query-dsl.js';
import type { MessageQuery } from './query.js';

/** The fields the help desk searches, each with its `.analyzed` subfield. */
export const SEARCHKICK_FIELDS = ['content', 'attachments.transcribed_text', 'content_attributes.email.subject'] as const;

/** Printed by `searchdesk index` when SEARCHDESK_INDEX_FORMAT=searchkick (exit code 2). */
export const SEARCHKICK_INDEX_REFUSAL =
  "searchdesk index does not write the help desk's own index (SEARCHDESK_INDEX_FORMAT=searchkick): the help desk keeps it current itself";

/**
 * Most documents read to order one page exactly when a group of equal `created_at` crosses the page
 * edge (the default `index.max_result_window`). A larger group keeps the server's order.
 */
export const MAX_TIE_FETCH = 10_000;

type Query = Record<string, unknown>;

/**
 * The text given to the analyzers: `q` as typed, because that is what the help desk matches —
 * the standard tokenizer keeps "example.com", "don't" and "3.5" whole, while our words split them.
 */
export function searchkickText(query: MessageQuery): string {
  return query.text;
}

/** Searchkick's clauses for one field: both search analyzers, exact (boost 10) and with one typo (boost 1). */
function fieldClauses(field: string, text: string): Query[] {
  const exact = ['searchkick_search', 'searchkick_search2'].map((analyzer) => ({
    query: text,
    boost: 10,
    operator: 'and',
    analyzer,
  }));
  const fuzzy = exact.map((q) => ({
    ...q,
    boost: 1,
    fuzziness: 1,
    prefix_length: 0,
    max_expansions: 3,
    fuzzy_transpositions: true,
  }));
  return [...exact, ...fuzzy].map((q) => ({ match: { [`${field}.analyzed`]: q } }));
}

/** The best clause per field; a message matches when one field matches (every word in that field). */
export function buildSearchkickMatch(text: string): Query {
  return {
    bool: {
      should: SEARCHKICK_FIELDS.map((field) => ({ dis_max: { queries: fieldClauses(field, text) } })),
      minimum_should_match: 1,
    },
  };
}

/** The MessageQuery's filters on the help desk's fields (string enums, ISO dates). */
export function buildSearchkickFilters(query: MessageQuery): Query[] {
  // The help desk's index holds every message type: the type filter stays.
  return messageFilters(query, { time: 'iso', onlySearchable: false }) as Query[];
}

/** The full query; `extra` narrows it further (used to order ties exactly). */
export function buildSearchkickQuery(query: MessageQuery, extra: Query[] = []): Query {
  return { bool: { must: buildSearchkickMatch(searchkickText(query)), filter: [...buildSearchkickFilters(query), ...extra] } };
}

/**
 * Newest first, like the help desk. Its documents have no numeric id field and Elasticsearch 8+
 * refuses to sort on `_id` (which would also order "9" after "10"), so equal `created_at` values
 * (milliseconds) are put in `id DESC` order here, not by the server: see orderPage.
 */
const SORT = [{ created_at: { order: 'desc' } }];

export interface SearchkickRequest {
  from: number;
  size: number;
  query: Query;
  sort?: Query[];
  track_total_hits: boolean;
  _source: false;
}

/** The page request: rows `offset … offset+limit` plus one row either side, to see where equal-time groups end. */
export function buildSearchkickSearch(query: MessageQuery): SearchkickRequest {
  const before = query.offset > 0 ? 1 : 0;
  return {
    from: query.offset - before,
    size: query.limit + before + 1,
    _source: false,
    track_total_hits: false,
    query: buildSearchkickQuery(query),
    sort: SORT,
  };
}

/** A hit as the engine needs it: the message id and its `created_at` sort value (epoch ms). */
export interface TimedHit {
  id: number;
  createdAt: number;
}

const byTimeThenId = (a: TimedHit, b: TimedHit) => b.createdAt - a.createdAt || b.id - a.id;

/**
 * Splits the hits of buildSearchkickSearch into the page and says whether the page's first or last
 * `created_at` continues beyond the page (then which of the equal rows belong to it is the server's
 * arbitrary choice, and orderTiedPage must decide).
 */
export function readWindow(hits: TimedHit[], offset: number, limit: number): { page: TimedHit[]; tiedAtEdge: boolean } {
  const before = offset > 0 ? hits[0] : undefined;
  const page = hits.slice(before ? 1 : 0, (before ? 1 : 0) + limit);
  const after = hits[(before ? 1 : 0) + limit];
  const first = page[0];
  const last = page[page.length - 1];
  const tiedAtEdge =
    first !== undefined && last !== undefined && (before?.createdAt === first.createdAt || after?.createdAt === last.createdAt);
  return { page, tiedAtEdge };
}

/** Orders a page whose equal-time groups all lie inside it. */
export function orderPage(page: TimedHit[]): number[] {
  return [...page].sort(byTimeThenId).map((h) => h.id);
}

/**
 * The exact page when a group crosses an edge: `span` is every match with `created_at` between the
 * page's last and first value, `above` the number of matches newer than the first.
 */
export function orderTiedPage(span: TimedHit[], above: number, offset: number, limit: number): number[] {
  const start = Math.max(0, offset - above);
  return [...span]
    .sort(byTimeThenId)
    .slice(start, start + limit)
    .map((h) => h.id);
}

function toTimed(res: SearchResponse): { hits: TimedHit[]; total: number } {
  return { hits: res.hits.map((h) => ({ id: hitId(h), createdAt: Number(h.sort?.[0]) })), total: res.total };
}

/** Whether a mapping has the help desk's `content.analyzed` text field. */
export function hasAnalyzedContent(mappings: unknown): boolean {
  const content = (mappings as { properties?: { content?: { fields?: { analyzed?: { type?: string } } } } } | undefined)
    ?.properties?.content;
  return content?.fields?.analyzed?.type === 'text';
}

/** Ids of one page, in `created_at DESC, id DESC` order. */
async function findPageIds(client: SearchClient, index: string, query: MessageQuery): Promise<number[]> {
  const search = async (body: SearchkickRequest) => toTimed(await client.search(index, { ...body }));
  const { hits } = await search(buildSearchkickSearch(query));
  const { page, tiedAtEdge } = readWindow(hits, query.offset, query.limit);
  if (!tiedAtEdge) return orderPage(page);
  const newest = page[0]!.createdAt;
  const oldest = page[page.length - 1]!.createdAt;
  const between = { range: { created_at: { gte: oldest, lte: newest, format: 'epoch_millis' } } };
  const newer = { range: { created_at: { gt: newest, format: 'epoch_millis' } } };
  const [span, above] = await Promise.all([
    search({
      from: 0,
      size: MAX_TIE_FETCH,
      _source: false,
      track_total_hits: false,
      query: buildSearchkickQuery(query, [between]),
      sort: SORT,
    }),
    search({ from: 0, size: 0, _source: false, track_total_hits: true, query: buildSearchkickQuery(query, [newer]) }),
  ]);
  if (span.hits.length >= MAX_TIE_FETCH) return orderPage(page);
  return orderTiedPage(span.hits, above.total, query.offset, query.limit);
}

/**
 * An engine on the help desk's index `index` (the alias it queries, `messages_<RAILS_ENV>`),
 * through `client`, which it owns. `name` is the server kind; the format is the caller's to report.
 */
export function createSearchkickEngine(client: SearchClient, index: string): MessageEngine {
  return {
    name: client.kind,
    label: `${client.kind}+searchkick`,
    findIds: (query) => findPageIds(client, index, query),
    analyzed: true,
    async firstMatch(query, forms) {
      // Each form as the help desk matches text (its own analysis of it), under the same filters.
      const clauses = forms.map((w) => buildSearchkickMatch(w));
      const body = buildFirstMatchSearch(buildSearchkickFilters({ ...query, everyInbox: false }), clauses);
      return firstMatchOfHits((await client.search(index, body)).hits, forms.length);
    },
    async check() {
      if (!(await client.exists(index))) {
        throw new Error(`index ${index} not found — is advanced search enabled in the help desk?`);
      }
      const mappings = await client.mappings(index);
      if (mappings.length === 0 || !mappings.every(hasAnalyzedContent)) {
        throw new Error(`index ${index} does not look like the help desk's index (no content.analyzed field)`);
      }
    },
    close: () => client.close(),
  };
}
