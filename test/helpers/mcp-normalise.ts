/**
 * MCP and REST differ in two ways only (contract §1, §10): MCP writes timestamps as ISO 8601 UTC
 * strings where REST writes Unix seconds, and MCP adds `meta` (paging, notices, now). Parity is
 * checked on what remains once both are normalised: ISO times read back as seconds (by
 * Date.parse, not by the server's own converter), MCP's meta keys removed.
 */
import { OPAQUE_FIELDS, TIMESTAMP_FIELDS } from '../../src/mcp/iso-times.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** The keys MCP adds to a result's `meta` (a transcript keeps its own `conversation` and `has_more`). */
const MCP_META_KEYS = ['page', 'per_page', 'has_more', 'next', 'truncated', 'engine', 'now', 'notices'];

/** Every ISO 8601 timestamp field read back as Unix seconds; fails on a timestamp in any other form. */
export function isoToSeconds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(isoToSeconds);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => {
      if (OPAQUE_FIELDS.has(key)) return [key, field];
      if (!TIMESTAMP_FIELDS.has(key) || field === null) return [key, isoToSeconds(field)];
      if (typeof field !== 'string' || !ISO_UTC.test(field)) throw new Error(`${key} is not ISO 8601 UTC: ${String(field)}`);
      return [key, Date.parse(field) / 1000];
    }),
  );
}

/** An MCP structuredContent as REST would write it: seconds for times, no MCP-only meta. */
export function asRestBody(structured: unknown): Record<string, unknown> {
  const { meta, ...rest } = isoToSeconds(structured) as Record<string, unknown>;
  if (meta === null || typeof meta !== 'object' || !('conversation' in meta)) return rest;
  const own = Object.fromEntries(Object.entries(meta).filter(([key]) => key === 'has_more' || !MCP_META_KEYS.includes(key)));
  return { meta: own, ...rest };
}
