/**
 * The only writes searchdesk makes to Postgres, each by an explicit admin command:
 * `db setup` (our own schema, for standalone installs) and `db indexes` (the `searchdesk_`
 * indexes the index-backed variant and the indexer use, and the statistics function of the word
 * index). Search never assumes they exist.
 */
import type { Logger } from '../logger.js';
import { INDEX, STATISTICS_FUNCTIONS } from './catalog.js';
import type { Db } from './db.js';
import { messageWordsVector } from './message-words.js';
import { schemaSql } from './schema.js';

export interface SearchdeskIndex {
  name: string;
  table: string;
  /** What the index is for (shown by `db indexes` and in the README). */
  purpose: string;
  /** Everything after `ON`, e.g. `conversations USING gin (...)`. */
  definition: string;
}

/** The triage list's filter columns (team, priority, unattended) its two indexes carry beside their keys. */
const LIST_FILTER_COLUMNS = 'team_id, priority, first_reply_created_at, waiting_since';

/** Every index searchdesk may create; all names start with `searchdesk_`. */
export const SEARCHDESK_INDEXES: readonly SearchdeskIndex[] = [
  {
    name: INDEX.conversationsCreated,
    table: 'conversations',
    purpose: 'conversation results in created_at order without sorting the whole account',
    definition: 'conversations (account_id, created_at DESC, id DESC)',
  },
  {
    name: INDEX.conversationsStatusActivity,
    table: 'conversations',
    purpose:
      "the triage list (list_conversations) of one status, latest activity first, without sorting the status's conversations; its filters' columns included, so the walk to a page reads no row it drops",
    definition: `conversations (account_id, status, last_activity_at DESC, id DESC) INCLUDE (inbox_id, assignee_id, ${LIST_FILTER_COLUMNS})`,
  },
  {
    name: INDEX.conversationsActivity,
    table: 'conversations',
    purpose: 'the triage list of every status (status=all), latest activity first, without sorting the account',
    definition: 'conversations (account_id, last_activity_at DESC, id DESC)',
  },
  {
    name: INDEX.conversationsStatusPriority,
    table: 'conversations',
    purpose: 'the triage list of one status, most urgent first (sort_by=priority_desc), without sorting it',
    definition: 'conversations (account_id, status, priority DESC NULLS LAST, last_activity_at DESC, id DESC)',
  },
  {
    name: INDEX.conversationsInboxAssignee,
    table: 'conversations',
    purpose:
      "the triage list's capped counts and its page of a few inboxes: the help desk's conv_acid_inbid_stat_asgnid_idx with the id, the activity time and the filters' columns, so a count checks its filters (and probes a label) without reading the table",
    definition: `conversations (account_id, inbox_id, status, assignee_id) INCLUDE (id, last_activity_at, ${LIST_FILTER_COLUMNS})`,
  },
  {
    name: INDEX.conversationsDisplayIdTrgm,
    table: 'conversations',
    purpose: 'substring match on the display id (as text)',
    definition: 'conversations USING gin ((display_id::text) gin_trgm_ops)',
  },
  {
    name: INDEX.articlesTextTrgm,
    table: 'articles',
    purpose: 'word-prefix match on article title, description and content',
    definition: `articles USING gin ((coalesce(title, '') || ' ' || coalesce(description, '') || ' ' || coalesce(content, '')) gin_trgm_ops)`,
  },
  {
    name: INDEX.articlesTitleDescriptionTrgm,
    table: 'articles',
    purpose: 'every title or description match of a word common in contents, without reading every article',
    definition: `articles USING gin ((coalesce(title, '') || ' ' || coalesce(description, '')) gin_trgm_ops)`,
  },
  {
    name: INDEX.articlesTitleTrgm,
    table: 'articles',
    purpose: 'every title match of a word common in descriptions or contents, without reading their matches',
    definition: 'articles USING gin (title gin_trgm_ops)',
  },
  {
    name: INDEX.articlesUpdated,
    table: 'articles',
    purpose: 'article results whose titles fill the page, from the newest articles without sorting the account',
    definition: 'articles (account_id, updated_at DESC, id DESC)',
  },
  {
    name: INDEX.messagesUpdatedAt,
    table: 'messages',
    purpose: 'incremental index sync (`searchdesk index --follow`) by (updated_at, id)',
    definition: 'messages (updated_at, id)',
  },
  {
    name: INDEX.messagesSender,
    table: 'messages',
    purpose: "message search with `from`: the sender's messages newest first, not the account's",
    definition: 'messages (sender_id, sender_type, created_at DESC, id DESC)',
  },
  {
    name: INDEX.messagesInbox,
    table: 'messages',
    purpose: "message search in one inbox (`inbox_id`, or an agent of one inbox): its messages newest first, not the account's",
    definition: 'messages (inbox_id, created_at DESC, id DESC)',
  },
  {
    name: INDEX.messagesWords,
    table: 'messages',
    purpose: 'message search (Postgres engine): the messages where a word of ASCII letters and digits starts a word',
    definition: `messages USING gin (${messageWordsVector('content')})`,
  },
];

/** Creates searchdesk's own schema (idempotent). */
export async function setupSchema(db: Db): Promise<void> {
  await db.query({ text: schemaSql(), values: [] }, 'db_setup');
}

/** What `db indexes` did with one of its objects. */
export interface AdminResult {
  name: string;
  /** `skipped`: the role may not create it (a warning says why); searches do without it. */
  action: 'created' | 'exists' | 'skipped';
}

/**
 * Creates the searchdesk_ indexes CONCURRENTLY (no write lock on a live database), skipping
 * valid ones and rebuilding any left invalid by an interrupted earlier run, then the statistics
 * function of the word index (createStatisticsFunction). Safe to re-run.
 */
export async function createSearchIndexes(db: Db, logger: Logger): Promise<AdminResult[]> {
  const done: AdminResult[] = [];
  for (const index of SEARCHDESK_INDEXES) {
    const state = await db.query<{ valid: boolean }>(
      {
        text: `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
               WHERE c.relname = $1 AND pg_table_is_visible(c.oid)`,
        values: [index.name],
      },
      'db_index_state',
    );
    if (state[0]?.valid) {
      done.push({ name: index.name, action: 'exists' });
      continue;
    }
    if (state[0]) await db.query({ text: `DROP INDEX CONCURRENTLY IF EXISTS ${index.name}`, values: [] }, 'db_index_drop');
    const started = performance.now();
    await db.query(
      { text: `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${index.name} ON ${index.definition}`, values: [] },
      'db_index_create',
    );
    logger.info(
      { event: 'db_index_created', index: index.name, ms: Math.round(performance.now() - started) },
      `created ${index.name}`,
    );
    done.push({ name: index.name, action: 'created' });
  }
  done.push(await createStatisticsFunction(db, logger, INDEX.messagesWords));
  return done;
}

/**
 * `<schema>.<STATISTICS_FUNCTIONS[index]>()`: the most common lexemes of word index `index` and
 * the share of rows holding each, as pg_stats holds them, for a role that does not own the table
 * (Postgres shows an index's statistics to the owner only, and an index cannot be granted).
 * - It runs as the table's owner (SECURITY DEFINER, owned by the owner of `messages`: the least
 *   role that sees those statistics, even when a superuser runs `db indexes`; by the role running
 *   `db indexes` only where the owner may not have it, lacking CREATE on the schema), with a fixed
 *   search_path (pg_catalog, then pg_temp), no argument and no dynamic SQL: it can read nothing
 *   but that one row of pg_stats, the element statistics of that one index in the table's schema,
 *   and no object of a caller's can stand in for one it names.
 * - EXECUTE is revoked from PUBLIC: only a role granted it may call it (README's read-only role,
 *   which may read every content these statistics are made of).
 * Replaced when its definition or owner differs (its grants are kept); left alone when both are
 * the same. Skipped with a warning when the role may not create it: searches then do as before.
 */
async function createStatisticsFunction(db: Db, logger: Logger, index: string): Promise<AdminResult> {
  const fn = STATISTICS_FUNCTIONS[index]!;
  // The index lives in its table's schema; the quoting is Postgres's own. `owner`: who the
  // function should belong to (the table's owner where this role may give it to that role).
  const [place] = await db.query<{ schema: string; literal: string; owner: string }>(
    {
      text: `SELECT n.nspname AS schema, quote_literal(n.nspname) AS literal,
                    CASE WHEN pg_has_role(c.relowner, 'MEMBER') AND has_schema_privilege(c.relowner, n.oid, 'CREATE')
                         THEN pg_get_userbyid(c.relowner) ELSE current_user::text END AS owner
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1)`,
      values: ['messages'],
    },
    'db_statistics_function_schema',
  );
  if (!place) return { name: `${fn}()`, action: 'skipped' };
  const body = statisticsFunctionBody(place.literal, index);
  const [state] = await db.query<{ may_create: boolean; may_replace: boolean | null; same: boolean | null }>(
    {
      text: `SELECT has_schema_privilege(n.oid, 'CREATE') AS may_create,
                    (SELECT pg_has_role(p.proowner, 'USAGE') FROM pg_proc p WHERE p.oid = f.oid) AS may_replace,
                    (SELECT p.prosrc = $3 AND p.prosecdef AND p.proconfig = '{"search_path=pg_catalog, pg_temp"}'
                            AND p.proowner = to_regrole(quote_ident($4))
                       FROM pg_proc p WHERE p.oid = f.oid) AS same
             FROM pg_namespace n, LATERAL (SELECT to_regprocedure(format('%I.%I()', n.nspname, $2::text)) AS oid) f
             WHERE n.nspname = $1`,
      values: [place.schema, fn, body, place.owner],
    },
    'db_statistics_function_state',
  );
  const name = `${place.schema}.${fn}()`;
  if (state?.same) return { name, action: 'exists' };
  if (!state?.may_create || state.may_replace === false) {
    logger.warn(
      { event: 'db_statistics_function_skipped', function: name },
      `not allowed to create ${name}: a role that does not own messages plans message searches without the word index's statistics`,
    );
    return { name, action: 'skipped' };
  }
  const [ddl] = await db.query<{ create: string; revoke: string; give: string }>(
    {
      text: `SELECT format('CREATE OR REPLACE FUNCTION %I.%I() RETURNS TABLE (elems text[], freqs float8[])
                              LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS %L',
                           $1::text, $2::text, $3::text) AS create,
                    format('REVOKE ALL ON FUNCTION %I.%I() FROM PUBLIC', $1::text, $2::text) AS revoke,
                    format('ALTER FUNCTION %I.%I() OWNER TO %I', $1::text, $2::text, $4::text) AS give`,
      values: [place.schema, fn, body, place.owner],
    },
    'db_statistics_function_ddl',
  );
  await db.query({ text: ddl!.create, values: [] }, 'db_statistics_function_create');
  await db.query({ text: ddl!.revoke, values: [] }, 'db_statistics_function_revoke');
  await db.query({ text: ddl!.give, values: [] }, 'db_statistics_function_owner');
  logger.info({ event: 'db_statistics_function_created', function: name, owner: place.owner }, `created ${name}`);
  return { name, action: 'created' };
}

/** The statistics function's body: the element statistics of `index` in the schema `literal` quotes. */
function statisticsFunctionBody(literal: string, index: string): string {
  return (
    'SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs::float8[] FROM pg_catalog.pg_stats s ' +
    `WHERE s.schemaname = ${literal} AND s.tablename = '${index}' AND s.most_common_elems IS NOT NULL`
  );
}
