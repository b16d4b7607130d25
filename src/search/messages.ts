/**
 * Message search: the flag gate, the 90-day window, access before filters, an engine for the ids
 * (falling back to Postgres when a search engine fails) and records read from Postgres.
 */
import { SqlParams } from '../db/db.js';
import { toPage, type Page, type SearchContext } from './context.js';
import type { MessageEngine } from './engines/engine.js';
import { messageFilterClauses } from './engines/postgres.js';
import { MESSAGES, SearchError } from '../errors.js';
import { reportEngineFallback } from '../events.js';
import { MESSAGE_COLUMNS, MESSAGE_JOINS, toMessageRecord, type MessageRow } from './message-records.js';
import { buildMessageQuery, type MessageQuery } from './message-query.js';
import type { MessagesParams } from './params.js';
import type { MessageRecord } from './records.js';

/** Message engines of a deployment: the configured one, and Postgres to fall back on. */
export interface MessageEngines {
  primary: MessageEngine;
  postgres: MessageEngine;
  /** `flag`: the account needs advanced_search; `all`: every account may search messages. */
  gate: 'flag' | 'all';
}

/** The engine that answered: an engine name, or `postgres-fallback`. */
/** `_meta.engine`: the answering engine's label, or `postgres-fallback`. */
export type EngineLabel = string;

export interface MessagePage extends Page<MessageRecord> {
  engine: EngineLabel;
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
  if (primary === engines.postgres) return { ids: await primary.findIds(query), engine: primary.label };
  try {
    return { ids: await primary.findIds(query), engine: primary.label };
  } catch (err) {
    reportEngineFallback(primary.name, err);
    ctx.logger.warn(
      { event: 'engine_fallback', engine: primary.name, reason: (err as Error).name, message: (err as Error).message },
      `${primary.name} failed; answering from Postgres`,
    );
    return { ids: await engines.postgres.findIds(query), engine: 'postgres-fallback' };
  }
}

/**
 * Reads the records of `ids` from Postgres in the engine's order. Every filter except the words
 * is applied again, so a message deleted, moved or re-typed since indexing is never returned.
 */
async function loadMessages(ctx: SearchContext, query: MessageQuery, ids: number[]): Promise<MessageRecord[]> {
  if (ids.length === 0) return [];
  const p = new SqlParams();
  const where = [`m.id = ANY(${p.add(ids)}::bigint[])`, ...messageFilterClauses(query, p)];
  const rows = await ctx.db.query<MessageRow>(
    { text: `SELECT ${MESSAGE_COLUMNS} FROM messages m ${MESSAGE_JOINS} WHERE ${where.join(' AND ')}`, values: p.values },
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
  const { ids, engine } = await findIds(ctx, engines, query);
  const hasMore = ids.length > query.limit - 1;
  const records = await loadMessages(ctx, query, ids.slice(0, query.limit - 1));
  return { ...toPage(records), hasMore, engine };
}
