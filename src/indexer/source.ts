/** Reading messages out of Postgres for the index: full copies by id, changes by (updated_at, id). */
import { SqlParams, type Db, type SqlQuery } from '../db/db.js';
import { searchableTypeClause } from '../search/messages/records.js';
import type { SourceMessageRow } from './documents.js';
import type { Watermark } from './store.js';

const SOURCE_COLUMNS = `
  m.id, m.account_id, m.inbox_id, m.conversation_id, m.content, m.message_type, m.private,
  m.sender_type, m.sender_id,
  floor(extract(epoch FROM m.created_at) * 1000)::bigint AS created_at_ms,
  extract(epoch FROM date_trunc('second', m.created_at))::bigint * 1000000
    + extract(microseconds FROM m.created_at)::bigint % 1000000 AS created_at_us,
  floor(extract(epoch FROM m.updated_at) * 1000)::bigint AS updated_at_ms`;

const SEARCHABLE = searchableTypeClause();

/** Searchable messages with id > afterId, in id order (keyset pagination for the full build). */
export function buildSourceBatchQuery(opts: { afterId: number; limit: number; accountId?: number }): SqlQuery {
  const p = new SqlParams();
  const where = [`m.id > ${p.add(opts.afterId)}::bigint`, SEARCHABLE];
  if (opts.accountId !== undefined) where.push(`m.account_id = ${p.add(opts.accountId)}::bigint`);
  return {
    text: `SELECT ${SOURCE_COLUMNS} FROM messages m WHERE ${where.join(' AND ')} ORDER BY m.id LIMIT ${p.add(opts.limit)}`,
    values: p.values,
  };
}

export interface ChangedRow extends SourceMessageRow {
  /** updated_at as text with microseconds: the next watermark. */
  updated_at_text: string;
}

/** Every message (any type) changed after the watermark, in (updated_at, id) order. */
export function buildChangedBatchQuery(after: Watermark, limit: number): SqlQuery {
  const p = new SqlParams();
  return {
    text: `
      SELECT ${SOURCE_COLUMNS}, to_char(m.updated_at, 'YYYY-MM-DD"T"HH24:MI:SS.US') AS updated_at_text
      FROM messages m
      WHERE (m.updated_at, m.id) > (${p.add(after.updatedAt)}::timestamp, ${p.add(after.id)}::bigint)
      ORDER BY m.updated_at, m.id
      LIMIT ${p.add(limit)}`,
    values: p.values,
  };
}

/** Yields batches of searchable messages in id order. */
export async function* readSourceBatches(db: Db, opts: { afterId?: number; limit: number; accountId?: number }) {
  let afterId = opts.afterId ?? 0;
  for (;;) {
    const rows = await db.query<SourceMessageRow>(buildSourceBatchQuery({ ...opts, afterId }), 'index_source');
    if (rows.length === 0) return;
    yield rows;
    afterId = Number(rows[rows.length - 1]!.id);
    if (rows.length < opts.limit) return;
  }
}

/** The number of searchable messages (for progress). */
export async function countSearchable(db: Db, afterId = 0): Promise<number> {
  const rows = await db.query<{ n: number }>(
    { text: `SELECT count(*)::bigint AS n FROM messages m WHERE m.id > $1::bigint AND ${SEARCHABLE}`, values: [afterId] },
    'index_count',
  );
  return Number(rows[0]?.n ?? 0);
}

/** The database's current time as a watermark (changes after it are picked up by the next sync). */
export async function currentWatermark(db: Db): Promise<Watermark> {
  const rows = await db.query<{ now: string }>(
    { text: `SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS now`, values: [] },
    'index_now',
  );
  return { updatedAt: rows[0]!.now, id: 0 };
}

/** Of `ids`, those that are still searchable messages in Postgres. */
export async function existingSearchableIds(db: Db, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.query<{ id: number }>(
    { text: `SELECT m.id FROM messages m WHERE m.id = ANY($1::bigint[]) AND ${SEARCHABLE}`, values: [ids] },
    'index_reconcile',
  );
  return new Set(rows.map((r) => Number(r.id)));
}
