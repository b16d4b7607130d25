/** Contact search: case-insensitive literal substring of name, email, phone number or identifier. */
import { SqlParams, type SqlQuery } from '../db/db.js';
import type { AccessContext } from '../auth/access.js';
import { toPage, type Page, type SearchContext } from './context.js';
import { PAGE_SIZE, type ContactsParams } from './params.js';
import type { ContactRecord } from './records.js';
import { epoch, pageClause, timeBounds } from './sql.js';
import { substringMatch } from './text.js';

export interface ContactRow {
  id: number;
  name: string | null;
  email: string | null;
  phone_number: string | null;
  identifier: string | null;
  additional_attributes: unknown;
  created_at: number | null;
  last_activity_at: number | null;
}

export const CONTACT_COLUMNS = ['name', 'email', 'phone_number', 'identifier'] as const;

export function buildContactsQuery(access: Pick<AccessContext, 'accountId'>, params: ContactsParams): SqlQuery {
  const p = new SqlParams();
  const where = [
    `c.account_id = ${p.add(access.accountId)}::bigint`,
    substringMatch(
      CONTACT_COLUMNS.map((col) => `c.${col}`),
      params.q,
      p,
    ),
    ...timeBounds('c.last_activity_at', params.since, params.until, p),
  ];
  const text = `
    SELECT c.id, c.name, c.email, c.phone_number, c.identifier, c.additional_attributes,
           ${epoch('c.created_at')} AS created_at, ${epoch('c.last_activity_at')} AS last_activity_at
    FROM contacts c
    WHERE ${where.join('\n      AND ')}
    ORDER BY c.last_activity_at DESC NULLS LAST, c.id DESC
    ${pageClause(params.page ?? 1, PAGE_SIZE, p)}`;
  return { text, values: p.values };
}

/** A JSON object, or `{}` for null, arrays and scalars. */
export function toJsonObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function toContactRecord(row: ContactRow): ContactRecord {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone_number: row.phone_number,
    identifier: row.identifier,
    additional_attributes: toJsonObject(row.additional_attributes),
    created_at: row.created_at,
    last_activity_at: row.last_activity_at,
  };
}

export async function searchContacts(ctx: SearchContext, params: ContactsParams): Promise<Page<ContactRecord>> {
  const rows = await ctx.db.query<ContactRow>(buildContactsQuery(ctx.access, params), 'search_contacts');
  return toPage(rows.map(toContactRecord));
}
