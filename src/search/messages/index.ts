/**
 * Message search: the flag gate, the 90-day window, access before filters, an engine for the ids
 * (falling back to Postgres when a search engine fails) and records read from Postgres.
 *
 * The folder: query.ts decides every rule once (a MessageQuery), records.ts which messages are
 * searchable and how a row becomes a record, engine.ts the MessageEngine seam with postgres.ts,
 * searchdesk.ts (our index format) and searchkick.ts (the help desk's index), both sent through
 * one SearchClient (client.ts) implemented once per client (elasticsearch.ts, opensearch.ts) and
 * shared with the indexer.
 */
import { SqlParams } from '../../db/db.js';
import { MESSAGES, SearchError } from '../../errors.js';
import { reportEngineFallback } from '../../events.js';
import type { Page, SearchContext } from '../context.js';
import type { MessagesParams } from '../params.js';
import type { MessageRecord } from '../records.js';
import { checkClause } from '../sql.js';
import type { MessageEngine } from './engine.js';
import { messageFilterClauses } from './postgres/clauses.js';
import { buildMessageQuery, cutPage, type MessageQuery } from './query.js';
import { MESSAGE_COLUMNS, toMessageRecord, type MessageRow } from './records.js';

/** Message engines of a deployment: the configured one, and Postgres to fall back on. */
export interface MessageEngines {
  primary: MessageEngine;
  postgres: MessageEngine;
  /** `flag`: the account needs advanced_search; `all`: every account may search messages. */
  gate: 'flag' | 'all';
}

/** `_meta.engine`: the answering engine's label, or `postgres-fallback`. */
export type EngineLabel = string;

export interface MessagePage extends Page<MessageRecord> {
  engine: EngineLabel;
  /** What was searched; undefined when nothing could match (no word, no accessible inbox). */
  query?: MessageQuery;
}

export function messageSearchEnabled(ctx: SearchContext, engines: MessageEngines): boolean {
  return engines.gate === 'all' || ctx.access.flags.advancedSearch;
}

async function findIds(
  ctx: SearchContext,
  engines: MessageEngines,
  query: MessageQuery,
): Promise<{ ids: number[]; engine: EngineLabel }> {
  const { primary } = engines;
  if (primary === engines.postgres) return { ids: await primary.findIds(query, ctx), engine: primary.label };
  try {
    return { ids: await primary.findIds(query, ctx), engine: primary.label };
  } catch (err) {
    reportEngineFallback(primary.name, err);
    ctx.logger.warn(
      { event: 'engine_fallback', engine: primary.name, reason: (err as Error).name, message: (err as Error).message },
      `${primary.name} failed; answering from Postgres`,
    );
    return { ids: await engines.postgres.findIds(query, ctx), engine: 'postgres-fallback' };
  }
}

/**
 * Reads the records of `ids` from Postgres in the engine's order. Every filter except the words
 * is applied again, so a message deleted, moved or re-typed since indexing is never returned.
 */
export async function loadMessages(ctx: SearchContext, query: MessageQuery, ids: number[]): Promise<MessageRecord[]> {
  if (ids.length === 0) return [];
  const p = new SqlParams();
  // The ids are found by primary key whatever the filters say: the filters only check them
  // (checkClause). As separate clauses they cost 0.13 ms of a 0.75–0.83 ms read of 16 records
  // at M, prepared, alternating with this one. Its plan is then the same for any values, so it
  // is planned once (SqlQuery.planOnce): planning was 0.10–0.26 ms of a 0.35–0.83 ms read.
  const where = [`m.id = ANY(${p.add(ids)}::bigint[])`, ...checkClause(messageFilterClauses(query, p))];
  const rows = await ctx.db.query<MessageRow>(
    { text: `SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE ${where.join(' AND ')}`, values: p.values, planOnce: true },
    'load_messages',
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toMessageRecord(row)] : [];
  });
}

/** Searches messages; throws feature_disabled without the flag and window_exceeded for an old `since`. */
export async function searchMessages(ctx: SearchContext, engines: MessageEngines, params: MessagesParams): Promise<MessagePage> {
  if (!messageSearchEnabled(ctx, engines)) throw new SearchError('feature_disabled', MESSAGES.featureDisabled);
  const query = buildMessageQuery(ctx.access, params, ctx.now());
  if (!query) return { items: [], hasMore: false, engine: engines.primary.label };
  if (engines.primary.findRows) {
    // The engine reads Postgres itself: its rows are the records, read with the same filters.
    const page = cutPage(await engines.primary.findRows(query, ctx));
    return { items: page.items.map(toMessageRecord), hasMore: page.hasMore, engine: engines.primary.label, query };
  }
  const answer = await searchIds(ctx, engines, query);
  // The engine searched without the inbox filter (messageFilters) and a hit is in none of the
  // account's inboxes now (an inbox being deleted, or one created since the access was read): the
  // page is searched again with the inboxes, as it would have been without the shortcut.
  const { items, hasMore, engine } =
    query.everyInbox && answer.dropped ? await searchIds(ctx, engines, { ...query, everyInbox: false }) : answer;
  return { items, hasMore, engine, query };
}

/**
 * The engine's page of ids, then their records read from Postgres; `dropped`: some id had no
 * record (a message deleted, moved or re-typed since indexing). Without the inbox filter the
 * extra id that tells has_more is read too, so that it cannot be a message of no inbox.
 */
async function searchIds(
  ctx: SearchContext,
  engines: MessageEngines,
  query: MessageQuery,
): Promise<MessagePage & { dropped: boolean }> {
  const { ids, engine } = await findIds(ctx, engines, query);
  // has_more comes from the engine's ids: a row dropped on re-reading must not hide a next page.
  const page = cutPage(ids);
  const read = query.everyInbox ? ids : page.items;
  const records = await loadMessages(ctx, query, read);
  const items = records.slice(0, page.items.length);
  return { items, hasMore: page.hasMore, engine, dropped: records.length < read.length };
}
