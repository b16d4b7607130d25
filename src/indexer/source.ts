/** Reading searchable messages out of Postgres for the index, in id batches. */
import { SqlParams, type Db, type SqlQuery } from '../db/db.js';
import { SEARCHABLE_MESSAGE_TYPES } from '../search/message-records.js';
import type { SourceMessageRow } from './documents.js';

export interface SourceBatchOptions {
  /** Only ids greater than this (keyset pagination). */
  afterId: number;
  limit: number;
  accountId?: number;
  /** Only messages updated at or after this Unix millisecond (incremental sync). */
  updatedSinceMs?: number;
}

export function buildSourceBatchQuery(opts: SourceBatchOptions): SqlQuery {
  const p = new SqlParams();
  const where = [`m.id > ${p.add(opts.afterId)}::bigint`, `m.message_type IN (${SEARCHABLE_MESSAGE_TYPES.join(', ')})`];
  if (opts.accountId !== undefined) where.push(`m.account_id = ${p.add(opts.accountId)}::bigint`);
  if (opts.updatedSinceMs !== undefined)
    where.push(`m.updated_at >= (to_timestamp(${p.add(opts.updatedSinceMs / 1000)}::double precision) AT TIME ZONE 'UTC')`);
  return {
    text: `
      SELECT m.id, m.account_id, m.inbox_id, m.conversation_id, m.content, m.message_type, m.private,
             m.sender_type, m.sender_id,
             floor(extract(epoch FROM m.created_at) * 1000)::bigint AS created_at_ms,
             floor(extract(epoch FROM m.updated_at) * 1000)::bigint AS updated_at_ms
      FROM messages m
      WHERE ${where.join(' AND ')}
      ORDER BY m.id
      LIMIT ${p.add(opts.limit)}`,
    values: p.values,
  };
}

/** Yields batches of searchable messages in id order. */
export async function* readSourceBatches(db: Db, opts: Omit<SourceBatchOptions, 'afterId'> & { afterId?: number }) {
  let afterId = opts.afterId ?? 0;
  for (;;) {
    const rows = await db.query<SourceMessageRow>(buildSourceBatchQuery({ ...opts, afterId }), 'index_source');
    if (rows.length === 0) return;
    yield rows;
    afterId = Number(rows[rows.length - 1]!.id);
    if (rows.length < opts.limit) return;
  }
}
