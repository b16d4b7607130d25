/**
 * Readable times at the MCP edge (contract §10): MCP results write every timestamp as ISO 8601
 * UTC (`2026-11-28T09:46:08Z`), REST and the core keep Unix seconds. Timestamps are found by
 * field name, wherever a record nests them; one list serves both the values (isoTimes) and the
 * output schemas (tool-schemas.ts swaps the same fields to `string`, `format: date-time`).
 */

/** Every timestamp field of the records, by the help desk's names (records that grow add theirs here). */
export const TIMESTAMP_FIELDS: ReadonlySet<string> = new Set([
  'created_at',
  'updated_at',
  'last_activity_at',
  'waiting_since',
  'snoozed_until',
  'first_reply_created_at',
]);

/** Free-form data of the help desk: never rewritten (a `created_at` key there is not ours). */
export const OPAQUE_FIELDS: ReadonlySet<string> = new Set(['additional_attributes', 'custom_attributes']);

/** Unix seconds as ISO 8601 UTC to the second: `2026-11-28T09:46:08Z`. */
export function isoTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The server's current time (`now()` in milliseconds) as ISO 8601 UTC to the second. */
export function isoNow(nowMillis: number): string {
  return isoTime(Math.floor(nowMillis / 1000));
}

/**
 * A copy of `value` with every timestamp field (a number) written as ISO 8601; everything else as
 * it is. Loops rather than Object.entries/fromEntries: a get_account of 500 agents is thousands of
 * small objects, and the pairs those build cost three times the copy itself.
 */
export function isoTimes<T>(value: T): T {
  if (Array.isArray(value)) {
    const items: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) items[i] = isoTimes(value[i] as unknown);
    return items as T;
  }
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    const out =
      TIMESTAMP_FIELDS.has(key) && typeof field === 'number' ? isoTime(field) : OPAQUE_FIELDS.has(key) ? field : isoTimes(field);
    // A `__proto__` key of the data stays an own key, never the copy's prototype.
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value: out, enumerable: true, writable: true, configurable: true });
    else copy[key] = out;
  }
  return copy as T;
}
