/**
 * The names of a conversation's state columns, by the help desk's integers. Apart from the zod
 * schemas (records.ts) so the modules loaded at start (message records, the Postgres engine) stay
 * free of zod.
 */

/** `conversations.status` 0 … 3. */
export const CONVERSATION_STATUSES = ['open', 'resolved', 'pending', 'snoozed'] as const;
/** `conversations.priority` 0 … 3. */
export const CONVERSATION_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;

/** A json object column as a record field: `{}` for null or anything that is not an object. */
export function jsonObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
