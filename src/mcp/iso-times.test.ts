import { describe, expect, it } from 'vitest';
import { isoTimes } from './iso-times.js';

describe('isoTimes', () => {
  it('writes timestamp fields as ISO 8601 wherever records nest them, and copies the rest', () => {
    const body = {
      payload: [{ id: 1, created_at: 1_795_869_500, latest: { created_at: 0, content: 'hi' }, labels: ['a'] }],
      custom_attributes: { created_at: 5 },
      waiting_since: null,
    };
    const out = isoTimes(body);
    expect(out).toEqual({
      payload: [
        {
          id: 1,
          created_at: '2026-11-28T12:38:20Z',
          latest: { created_at: '1970-01-01T00:00:00Z', content: 'hi' },
          labels: ['a'],
        },
      ],
      custom_attributes: { created_at: 5 },
      waiting_since: null,
    });
    expect(body.payload[0]!.created_at).toBe(1_795_869_500);
  });

  it('keeps a `__proto__` key of the data as a key, never as the prototype', () => {
    const data = JSON.parse('{"name": "x", "__proto__": {"created_at": 0}}') as object;
    const out = isoTimes(data) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['name', '__proto__']);
    expect(JSON.stringify(out)).toBe('{"name":"x","__proto__":{"created_at":"1970-01-01T00:00:00Z"}}');
  });
});
