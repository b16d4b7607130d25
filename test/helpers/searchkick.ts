/**
 * A stand-in for the help desk's own message index (spec helpdesk-index.md): a concrete index
 * `messages_<env>_<17-digit timestamp>` with Searchkick's settings and dynamic template, an alias
 * `messages_<env>` over it, and documents shaped like the help desk's `search_data`, built from the
 * rows Postgres holds. Written with plain HTTP, as the help desk (not searchdesk) owns this index.
 *
 * `analysis: 'full'` is Searchkick's analysis and needs the analysis-common module (OpenSearch, a
 * normal Elasticsearch). `analysis: 'core'` gives the three analyzers the query names with only core
 * components (standard tokenizer, lowercase), for the stripped Elasticsearch test server: enough to
 * exercise the request, filters and order with the Elasticsearch client, not the help desk's matching.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/db/db.js';
import { connectElasticsearch } from '../../src/search/messages/elasticsearch.js';
import { connectOpenSearch } from '../../src/search/messages/opensearch.js';
import { createSearchkickEngine } from '../../src/search/messages/searchkick.js';
import type { MessageEngine } from '../../src/search/messages/engine.js';

/** What only the help desk's index holds for a message (searchdesk's schema has no attachments or email subject). */
export interface HelpdeskExtras {
  /** One attachment per entry, with this transcript (null: an attachment without one). */
  transcripts?: Array<string | null>;
  subject?: string;
}

const shingle = { type: 'shingle', token_separator: '' };
const FULL_ANALYSIS = {
  analyzer: {
    searchkick_keyword: { type: 'custom', tokenizer: 'keyword', filter: ['lowercase'] },
    searchkick_index: {
      type: 'custom',
      char_filter: ['ampersand'],
      tokenizer: 'standard',
      filter: ['lowercase', 'asciifolding', 'searchkick_index_shingle', 'searchkick_stemmer'],
    },
    searchkick_search: {
      type: 'custom',
      char_filter: ['ampersand'],
      tokenizer: 'standard',
      filter: ['lowercase', 'asciifolding', 'searchkick_search_shingle', 'searchkick_stemmer'],
    },
    searchkick_search2: {
      type: 'custom',
      char_filter: ['ampersand'],
      tokenizer: 'standard',
      filter: ['lowercase', 'asciifolding', 'searchkick_stemmer'],
    },
    searchkick_autocomplete_search: { type: 'custom', tokenizer: 'keyword', filter: ['lowercase', 'asciifolding'] },
    searchkick_word_search: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'asciifolding'] },
    searchkick_suggest_index: {
      type: 'custom',
      tokenizer: 'standard',
      filter: ['lowercase', 'asciifolding', 'searchkick_suggest_shingle'],
    },
    searchkick_text_start_index: {
      type: 'custom',
      tokenizer: 'keyword',
      filter: ['lowercase', 'asciifolding', 'searchkick_edge_ngram'],
    },
    searchkick_text_middle_index: {
      type: 'custom',
      tokenizer: 'keyword',
      filter: ['lowercase', 'asciifolding', 'searchkick_ngram'],
    },
    searchkick_text_end_index: {
      type: 'custom',
      tokenizer: 'keyword',
      filter: ['lowercase', 'asciifolding', 'reverse', 'searchkick_edge_ngram', 'reverse'],
    },
    searchkick_word_start_index: {
      type: 'custom',
      tokenizer: 'standard',
      filter: ['lowercase', 'asciifolding', 'searchkick_edge_ngram'],
    },
    searchkick_word_middle_index: {
      type: 'custom',
      tokenizer: 'standard',
      filter: ['lowercase', 'asciifolding', 'searchkick_ngram'],
    },
    searchkick_word_end_index: {
      type: 'custom',
      tokenizer: 'standard',
      filter: ['lowercase', 'asciifolding', 'reverse', 'searchkick_edge_ngram', 'reverse'],
    },
  },
  filter: {
    searchkick_index_shingle: shingle,
    searchkick_search_shingle: { ...shingle, output_unigrams: false, output_unigrams_if_no_shingles: true },
    searchkick_suggest_shingle: { type: 'shingle', max_shingle_size: 5 },
    searchkick_edge_ngram: { type: 'edge_ngram', min_gram: 1, max_gram: 50 },
    searchkick_ngram: { type: 'ngram', min_gram: 1, max_gram: 50 },
    searchkick_stemmer: { type: 'snowball', language: 'English' },
  },
  char_filter: { ampersand: { type: 'mapping', mappings: ['&=> and '] } },
};

const core = { type: 'custom', tokenizer: 'standard', filter: ['lowercase'] };
const CORE_ANALYSIS = { analyzer: { searchkick_index: core, searchkick_search: core, searchkick_search2: core } };

/** Searchkick's mapping for a model without field options: every string is keyword + `analyzed` text. */
const MAPPINGS = {
  properties: {},
  dynamic_templates: [
    {
      string_template: {
        match: '*',
        match_mapping_type: 'string',
        mapping: {
          type: 'keyword',
          ignore_above: 30000,
          fields: { analyzed: { type: 'text', index: true, analyzer: 'searchkick_index' } },
        },
      },
    },
  ],
};

export interface HelpdeskIndex {
  /** `messages_<env>`, what the help desk (and searchdesk) queries. */
  alias: string;
  /** The concrete index behind the alias. */
  index: string;
  /** A searchkick-format engine on the alias. */
  engine(opts?: { timeoutMs?: number }): MessageEngine;
  /** Indexes every incoming/outgoing message of the database (again), with the given extras. */
  feed(extras?: Map<number, HelpdeskExtras>): Promise<void>;
  drop(): Promise<void>;
}

export async function request(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const ndjson = Array.isArray(body);
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': ndjson ? 'application/x-ndjson' : 'application/json' },
    body: body === undefined ? undefined : ndjson ? body.map((l) => JSON.stringify(l)).join('\n') + '\n' : JSON.stringify(body),
  });
  const json: unknown = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

interface HelpdeskRow {
  id: number;
  account_id: number;
  inbox_id: number;
  conversation_id: number;
  display_id: number;
  content: string | null;
  message_type: number;
  private: boolean | null;
  sender_type: string | null;
  sender_id: number | null;
  created_at_ms: number;
}

/** The help desk's `search_data` for one message (Messages::SearchDataPresenter). */
export function toHelpdeskDocument(row: HelpdeskRow, extras: HelpdeskExtras = {}) {
  return {
    content: row.content,
    attachments: extras.transcripts?.length ? extras.transcripts.map((t) => ({ transcribed_text: t })) : null,
    content_attributes: extras.subject ? { email: { subject: extras.subject } } : {},
    account_id: Number(row.account_id),
    inbox_id: Number(row.inbox_id),
    conversation_id: Number(row.conversation_id),
    message_type: row.message_type === 1 ? 'outgoing' : 'incoming',
    private: row.private === true,
    // Rails renders times as ISO 8601 UTC with milliseconds.
    created_at: new Date(Number(row.created_at_ms)).toISOString(),
    source_id: null,
    sender_id: row.sender_id === null ? null : Number(row.sender_id),
    sender_type: row.sender_type,
    additional_attributes: { campaign_id: null, automation_rule_id: null },
    conversation: { id: Number(row.display_id) },
  };
}

/** Creates the concrete index and its alias on the server at `url` (empty until `feed`). */
export async function createHelpdeskIndex(
  db: Db,
  opts: { url: string; client: 'elasticsearch' | 'opensearch'; analysis?: 'full' | 'core' },
): Promise<HelpdeskIndex> {
  const env = `sdtest${randomBytes(5).toString('hex')}`;
  const alias = `messages_${env}`;
  const index = `${alias}_${new Date().toISOString().replace(/\D/g, '').slice(0, 17)}`;
  const full = (opts.analysis ?? 'full') === 'full';
  await request(opts.url, 'PUT', `/${index}`, {
    settings: {
      number_of_shards: 1,
      number_of_replicas: 0,
      ...(full ? { index: { max_ngram_diff: 49, max_shingle_diff: 4 } } : {}),
      analysis: full ? FULL_ANALYSIS : CORE_ANALYSIS,
    },
    mappings: MAPPINGS,
  });
  await request(opts.url, 'POST', '/_aliases', { actions: [{ add: { index, alias } }] });
  return {
    alias,
    index,
    engine: (e = {}) =>
      createSearchkickEngine(
        (opts.client === 'opensearch' ? connectOpenSearch : connectElasticsearch)(opts.url, e.timeoutMs ?? 10_000),
        alias,
      ),
    async feed(extras = new Map()) {
      const rows = await db.query<HelpdeskRow>({
        text: `SELECT m.id, m.account_id, m.inbox_id, m.conversation_id, c.display_id, m.content, m.message_type,
                      m.private, m.sender_type, m.sender_id,
                      floor(extract(epoch FROM m.created_at) * 1000)::bigint AS created_at_ms
               FROM messages m JOIN conversations c ON c.id = m.conversation_id
               WHERE m.message_type IN (0, 1) ORDER BY m.id`,
        values: [],
      });
      if (rows.length === 0) return;
      const lines = rows.flatMap((r) => [
        { index: { _index: index, _id: String(r.id) } },
        toHelpdeskDocument(r, extras.get(Number(r.id))),
      ]);
      const res = (await request(opts.url, 'POST', '/_bulk?refresh=wait_for', lines)) as { errors: boolean; items: unknown[] };
      if (res.errors) throw new Error(`bulk failed: ${JSON.stringify(res.items.slice(0, 3))}`);
    },
    async drop() {
      await fetch(`${opts.url}/${index}`, { method: 'DELETE' });
    },
  };
}
