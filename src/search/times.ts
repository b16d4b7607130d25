/**
 * Time bounds as callers write them (contract §10): Unix seconds, or ISO 8601 — a date-time with
 * `Z` or an offset, or a date `YYYY-MM-DD` (a whole UTC day: as `since` its first second, as
 * `until` its last). Both surfaces accept both forms; the core only ever sees Unix seconds.
 */
import { z } from 'zod';

/** 9999-12-31T23:59:59Z: larger values cannot be a timestamp in Postgres. */
export const MAX_UNIX_SECONDS = 253_402_300_799;

export type TimeBound = 'since' | 'until';

/** The one error of a time bound, naming both forms. */
export const timeMessage = (name: TimeBound) =>
  `${name} must be a Unix timestamp in seconds or an ISO 8601 date or date-time (e.g. 2026-11-28 or 2026-11-28T09:00:00Z)`;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** A space may stand for the offset's `+`: an unescaped `+` in a query string reads as a space. */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+\- ])(\d{2}):?(\d{2}))$/;

/** Milliseconds of a UTC calendar moment, or undefined when a field is out of its range (2026-02-30, 24:00). */
function utcMillis(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number | undefined {
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  const same =
    back.getUTCFullYear() === y &&
    back.getUTCMonth() === mo - 1 &&
    back.getUTCDate() === d &&
    back.getUTCHours() === h &&
    back.getUTCMinutes() === mi &&
    back.getUTCSeconds() === s;
  return same && y >= 0 ? ms : undefined;
}

/**
 * The Unix seconds an ISO 8601 text stands for as the bound `name`, or undefined when it is not
 * one of the accepted forms. A fraction of a second rounds inwards: `since` up, `until` down.
 */
export function isoToUnixSeconds(text: string, name: TimeBound): number | undefined {
  const s = text.trim();
  const date = DATE.exec(s);
  if (date) {
    const start = utcMillis(Number(date[1]), Number(date[2]), Number(date[3]));
    if (start === undefined) return undefined;
    return start / 1000 + (name === 'until' ? 86_399 : 0);
  }
  const m = DATE_TIME.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec, frac, zulu, sign, oh, om] = m;
  const local = utcMillis(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(sec ?? 0));
  if (local === undefined || Number(oh ?? 0) > 23 || Number(om ?? 0) > 59) return undefined;
  const offsetSeconds = zulu ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60);
  const seconds = local / 1000 - offsetSeconds;
  const fractional = frac !== undefined && Number(frac) > 0;
  return fractional && name === 'since' ? seconds + 1 : seconds;
}

/** A bound's value as Unix seconds, or undefined when it is neither form or out of range. */
export function toUnixSeconds(value: unknown, name: TimeBound): number | undefined {
  const seconds =
    typeof value === 'number'
      ? Number.isInteger(value)
        ? value
        : undefined
      : typeof value === 'string'
        ? isoToUnixSeconds(value, name)
        : undefined;
  return seconds !== undefined && seconds >= 0 && seconds <= MAX_UNIX_SECONDS ? seconds : undefined;
}

/**
 * The zod schema of `since`/`until`: an integer or an ISO 8601 text in, Unix seconds out. Its
 * JSON Schema (MCP input) shows both forms.
 */
export function timeBoundSchema(name: TimeBound, description: string) {
  const message = timeMessage(name);
  const error = { error: message };
  const seconds = z.number(error).int(error).min(0, error).max(MAX_UNIX_SECONDS, error);
  return z
    .union([seconds, z.string(error)], error)
    .transform((value, ctx) => {
      const unix = toUnixSeconds(value, name);
      if (unix === undefined) {
        ctx.issues.push({ code: 'custom', message, input: value });
        return z.NEVER;
      }
      return unix;
    })
    .optional()
    .describe(description);
}
