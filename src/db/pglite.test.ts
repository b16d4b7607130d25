import { describe, expect, it } from 'vitest';
import { buildInsert } from './pglite.js';

describe('buildInsert', () => {
  it('sends the rows as one JSON parameter and converts Unix seconds to UTC timestamps', () => {
    const q = buildInsert('teams', [{ id: 1, account_id: 1, name: 'Billing', created_at: 0, updated_at: 0 }]);
    expect(q.text).toBe(
      'INSERT INTO teams (id, account_id, name, created_at, updated_at) ' +
        "SELECT x.id, x.account_id, x.name, to_timestamp(x.created_at) AT TIME ZONE 'UTC', to_timestamp(x.updated_at) AT TIME ZONE 'UTC' " +
        'FROM jsonb_to_recordset($1::jsonb) AS x(id bigint, account_id bigint, name varchar, created_at double precision, updated_at double precision)',
    );
    expect(JSON.parse(q.values[0] as string)).toEqual([{ id: 1, account_id: 1, name: 'Billing', created_at: 0, updated_at: 0 }]);
  });

  it('refuses a column the table spec does not know', () => {
    expect(() => buildInsert('teams', [{ id: 1, colour: 'red' }])).toThrow(/unknown column colour/);
  });
});
