import { describe, expect, it } from 'vitest';
import { isoToUnixSeconds, toUnixSeconds } from './times.js';

const at = (iso: string) => Date.parse(iso) / 1000;

describe('time bounds in ISO 8601 (contract §10)', () => {
  it('reads a date as a whole UTC day: since its first second, until its last', () => {
    expect(isoToUnixSeconds('2026-11-28', 'since')).toBe(at('2026-11-28T00:00:00Z'));
    expect(isoToUnixSeconds('2026-11-28', 'until')).toBe(at('2026-11-28T23:59:59Z'));
  });

  it('reads a date-time with Z or an offset', () => {
    expect(isoToUnixSeconds('2026-11-28T09:46:08Z', 'since')).toBe(at('2026-11-28T09:46:08Z'));
    expect(isoToUnixSeconds('2026-11-28T10:46:08+01:00', 'until')).toBe(at('2026-11-28T09:46:08Z'));
    expect(isoToUnixSeconds('2026-11-28T04:46-05:00', 'since')).toBe(at('2026-11-28T09:46:00Z'));
    // An unescaped + in a query string arrives as a space.
    expect(isoToUnixSeconds('2026-11-28T10:46:08 01:00', 'since')).toBe(at('2026-11-28T09:46:08Z'));
  });

  it('rounds a fraction of a second inwards', () => {
    expect(isoToUnixSeconds('2026-11-28T09:46:08.5Z', 'since')).toBe(at('2026-11-28T09:46:09Z'));
    expect(isoToUnixSeconds('2026-11-28T09:46:08.5Z', 'until')).toBe(at('2026-11-28T09:46:08Z'));
  });

  it.each(['2026-11-28T09:46:08', '2026-02-30', '2026-11-28T24:00:00Z', 'yesterday', '28/11/2026', '2026-11', ''])(
    'refuses %j',
    (text) => {
      expect(isoToUnixSeconds(text, 'since')).toBeUndefined();
    },
  );

  it('keeps Unix seconds as they are, within 0 … 9999-12-31', () => {
    expect(toUnixSeconds(1_700_000_000, 'since')).toBe(1_700_000_000);
    expect(toUnixSeconds(-1, 'since')).toBeUndefined();
    expect(toUnixSeconds(1.5, 'until')).toBeUndefined();
    expect(toUnixSeconds('1969-12-31', 'since')).toBeUndefined();
    expect(toUnixSeconds('9999-12-31', 'until')).toBe(253_402_300_799);
  });
});
