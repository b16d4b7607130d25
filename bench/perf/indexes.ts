/**
 * The message indexes the engine comparison needs, built from the bench database when missing:
 * searchdesk-format indexes with searchdesk's own indexer (runIndex + the Elasticsearch or
 * OpenSearch store), and a help-desk-format (Searchkick) index on OpenSearch built with the test
 * suite's stand-in for the help desk's index (test/helpers/searchkick.ts), fed in batches; and the
 * Postgres index layouts the runs measure with: the help desk's contact index (one trigram GIN over
 * four columns) or one per column, and searchdesk's own `searchdesk_` indexes.
 */
import pg from 'pg';
import { createSearchIndexes, SEARCHDESK_INDEXES } from '../../src/db/admin.js';
import { createPgDb } from '../../src/db/pg.js';
import type { Db } from '../../src/db/db.js';
import { createElasticsearchStore } from '../../src/indexer/elasticsearch.js';
import { runIndex } from '../../src/indexer/indexer.js';
import { createOpenSearchStore } from '../../src/indexer/opensearch.js';
import { createProgress } from '../../src/indexer/progress.js';
import type { IndexStore } from '../../src/indexer/store.js';
import { createLogger } from '../../src/logger.js';
import { createElasticsearchClient } from '../../src/search/messages/elasticsearch.js';
import { createOpenSearchClient } from '../../src/search/messages/opensearch.js';
import { createHelpdeskIndex, request, toHelpdeskDocument } from '../../test/helpers/searchkick.js';

export interface IndexStatus {
  alias: string;
  docs: number;
  /** Seconds spent building it in this run (0 when it existed). */
  builtSeconds: number;
}

/** Searchable (incoming/outgoing) messages of every account: what a complete index holds. */
export async function searchableCount(pool: pg.Pool): Promise<number> {
  const res = await pool.query<{ n: string }>('SELECT count(*) AS n FROM messages WHERE message_type IN (0, 1)');
  return Number(res.rows[0]?.n);
}

async function ensureSearchdesk(
  databaseUrl: string,
  store: IndexStore,
  alias: string,
  log: (s: string) => void,
): Promise<IndexStatus> {
  const target = await store.resolveAlias(alias);
  if (target.kind === 'alias') {
    return { alias, docs: await store.count(alias), builtSeconds: 0 };
  }
  log(`building ${store.engine} index ${alias} with searchdesk's indexer (runIndex)…`);
  const logger = createLogger('warn');
  const db = createPgDb({ url: databaseUrl, readOnly: true, statementTimeoutMs: 0, poolSize: 2, logger });
  try {
    const report = await runIndex({ db, store, alias, logger, progress: createProgress(process.stderr) });
    return { alias, docs: await store.count(alias), builtSeconds: report.seconds };
  } finally {
    await db.close();
  }
}

export async function ensureElasticsearchIndex(databaseUrl: string, url: string, alias: string, log: (s: string) => void) {
  const client = createElasticsearchClient(url, 300_000);
  try {
    return await ensureSearchdesk(databaseUrl, createElasticsearchStore(client), alias, log);
  } finally {
    await client.close();
  }
}

export async function ensureOpenSearchIndex(databaseUrl: string, url: string, alias: string, log: (s: string) => void) {
  const client = createOpenSearchClient(url, 300_000);
  try {
    return await ensureSearchdesk(databaseUrl, createOpenSearchStore(client), alias, log);
  } finally {
    await client.close();
  }
}

async function aliasDocs(url: string, alias: string): Promise<number | undefined> {
  const res = await fetch(`${url}/${alias}/_count`);
  if (!res.ok) return undefined;
  return ((await res.json()) as { count: number }).count;
}

/**
 * A help-desk-format index on OpenSearch, reachable at the stable alias `alias` (the helper names
 * its own alias at random). Reused when it holds every searchable message; rebuilt otherwise.
 */
export async function ensureSearchkickIndex(
  pool: pg.Pool,
  databaseUrl: string,
  url: string,
  alias: string,
  log: (s: string) => void,
): Promise<IndexStatus> {
  const expected = await searchableCount(pool);
  const existing = await aliasDocs(url, alias);
  if (existing === expected) return { alias, docs: existing, builtSeconds: 0 };
  if (existing !== undefined) {
    // Incomplete (an interrupted build): drop the indices behind the alias and start over.
    const indices = Object.keys((await request(url, 'GET', `/_alias/${alias}`)) as Record<string, unknown>);
    for (const index of indices) await request(url, 'DELETE', `/${index}`);
  }
  log(`building the help-desk-format (Searchkick) index ${alias} on OpenSearch (${expected.toLocaleString('en')} messages)…`);
  const started = performance.now();
  const logger = createLogger('warn');
  const db: Db = createPgDb({ url: databaseUrl, readOnly: true, statementTimeoutMs: 0, poolSize: 3, logger });
  try {
    const helpdesk = await createHelpdeskIndex(db, { url, client: 'opensearch', analysis: 'full' });
    await request(url, 'PUT', `/${helpdesk.index}/_settings`, { index: { refresh_interval: '-1' } });
    const progress = createProgress(process.stderr);
    progress.start(`indexing ${helpdesk.index}`, expected);
    const bounds = await pool.query<{ lo: string; hi: string }>('SELECT min(id) AS lo, max(id) AS hi FROM messages');
    const lo = Number(bounds.rows[0]?.lo);
    const hi = Number(bounds.rows[0]?.hi);
    const step = 4_000;
    let next = lo;
    // Two feeders: one reads Postgres while the other's bulk request is indexed.
    const feeder = async () => {
      for (;;) {
        const from = next;
        if (from > hi) return;
        next += step;
        const rows = await db.query<Parameters<typeof toHelpdeskDocument>[0]>({
          text: `SELECT m.id, m.account_id, m.inbox_id, m.conversation_id, c.display_id, m.content, m.message_type,
                        m.private, m.sender_type, m.sender_id,
                        floor(extract(epoch FROM m.created_at) * 1000)::bigint AS created_at_ms
                 FROM messages m JOIN conversations c ON c.id = m.conversation_id
                 WHERE m.message_type IN (0, 1) AND m.id >= $1 AND m.id < $2 ORDER BY m.id`,
          values: [from, from + step],
        });
        if (rows.length === 0) continue;
        const lines = rows.flatMap((r) => [{ index: { _index: helpdesk.index, _id: String(r.id) } }, toHelpdeskDocument(r)]);
        const res = (await request(url, 'POST', '/_bulk', lines)) as { errors: boolean; items: unknown[] };
        if (res.errors) throw new Error(`bulk failed: ${JSON.stringify(res.items.slice(0, 2))}`);
        progress.advance(rows.length);
      }
    };
    await Promise.all([feeder(), feeder()]);
    progress.finish();
    await request(url, 'PUT', `/${helpdesk.index}/_settings`, { index: { refresh_interval: '1s' } });
    await request(url, 'POST', `/${helpdesk.index}/_refresh`);
    await request(url, 'POST', '/_aliases', { actions: [{ add: { index: helpdesk.index, alias } }] });
    return { alias, docs: (await aliasDocs(url, alias)) ?? 0, builtSeconds: (performance.now() - started) / 1000 };
  } finally {
    await db.close();
  }
}

// ---------------------------------------------------------------- Postgres index layouts

/** The help desk's own contact index: ONE trigram GIN over the four searched columns. */
export const HELPDESK_CONTACTS_INDEX = 'index_contacts_on_name_email_phone_number_identifier';
const HELPDESK_CONTACTS_DEFINITION = `CREATE INDEX ${HELPDESK_CONTACTS_INDEX} ON contacts USING gin (name gin_trgm_ops, email gin_trgm_ops, phone_number gin_trgm_ops, identifier gin_trgm_ops)`;
const PER_COLUMN = ['name', 'email', 'phone_number', 'identifier'].map((col) => ({
  name: `sdbench_contacts_${col}_trgm`,
  create: `CREATE INDEX sdbench_contacts_${col}_trgm ON contacts USING gin (${col} gin_trgm_ops)`,
}));

/** How contacts are indexed for substring search. */
export type ContactLayout = 'combined' | 'per-column';

export interface IndexDef {
  name: string;
  definition: string;
}

/** Every trigram index on contacts (name and CREATE statement), to restore them after the run. */
export async function contactTrigramIndexes(pool: pg.Pool): Promise<IndexDef[]> {
  const res = await pool.query<{ name: string; definition: string }>(
    `SELECT indexname AS name, indexdef AS definition FROM pg_indexes
     WHERE schemaname = current_schema() AND tablename = 'contacts' AND indexdef LIKE '%gin_trgm_ops%' ORDER BY indexname`,
  );
  return res.rows;
}

/** A short description of the indexes, for the report. */
export function describeLayout(defs: IndexDef[]): string {
  if (defs.length === 0) return 'no trigram index on contacts';
  return defs
    .map((d) => `\`${d.name}\` (${/USING gin \((.*)\)$/.exec(d.definition)?.[1]?.replace(/ gin_trgm_ops/g, '') ?? d.definition})`)
    .join(', ');
}

/** A writable session (the bench's own pool is read-only). */
async function writable<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, options: '-c statement_timeout=0' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Makes `wanted` the contact trigram indexes, dropping every other one and creating what is missing. */
async function applyIndexes(databaseUrl: string, pool: pg.Pool, wanted: IndexDef[], log: (s: string) => void): Promise<number> {
  const started = performance.now();
  const present = await contactTrigramIndexes(pool);
  await writable(databaseUrl, async (client) => {
    for (const d of present)
      if (!wanted.some((w) => w.name === d.name)) {
        log(`dropping contact index ${d.name}…`);
        await client.query(`DROP INDEX IF EXISTS ${d.name}`);
      }
    for (const w of wanted)
      if (!present.some((d) => d.name === w.name)) {
        log(`creating contact index ${w.name}…`);
        await client.query(w.definition);
      }
  });
  return (performance.now() - started) / 1000;
}

/**
 * Sets the contact layout: `combined` = the help desk's one four-column index and nothing else,
 * `per-column` = one trigram index per column instead. Returns the seconds spent building.
 */
export function setContactLayout(databaseUrl: string, pool: pg.Pool, layout: ContactLayout, log: (s: string) => void) {
  const wanted =
    layout === 'combined'
      ? [{ name: HELPDESK_CONTACTS_INDEX, definition: HELPDESK_CONTACTS_DEFINITION }]
      : PER_COLUMN.map((c) => ({ name: c.name, definition: c.create }));
  return applyIndexes(databaseUrl, pool, wanted, log);
}

/** Puts back exactly the contact trigram indexes `original` lists. */
export function restoreContactIndexes(databaseUrl: string, pool: pg.Pool, original: IndexDef[], log: (s: string) => void) {
  return applyIndexes(databaseUrl, pool, original, log);
}

/**
 * searchdesk's own indexes (`searchdesk db indexes`: the core's createSearchIndexes), which the
 * index-backed variant is meant to run with; tables that got a new index are analysed, so the
 * planner has statistics for the indexed expressions.
 */
export async function ensureSearchdeskIndexes(databaseUrl: string): Promise<Array<{ name: string; action: string }>> {
  const logger = createLogger('warn');
  const db = createPgDb({ url: databaseUrl, readOnly: false, statementTimeoutMs: 0, poolSize: 1, logger });
  try {
    const done = await createSearchIndexes(db, logger);
    const tables = new Set(
      SEARCHDESK_INDEXES.filter((i) => done.some((d) => d.name === i.name && d.action === 'created')).map((i) => i.table),
    );
    for (const table of tables) await db.query({ text: `ANALYZE ${table}`, values: [] }, 'bench_analyze');
    return done;
  } finally {
    await db.close();
  }
}
