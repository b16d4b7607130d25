/** Contact search: case-insensitive literal substring of name, email, phone number or identifier. */
import { SqlParams, type SqlQuery } from '../db/db.js';
import type { AccessContext } from '../auth/access.js';
import { toPage, type Page, type SearchContext } from './context.js';
import { PAGE_SIZE, type ContactsParams } from './params.js';
import type { ContactRecord } from './records.js';
import { epoch, pageClause, timeBounds, windowCanHold } from './sql.js';
import { hasTrigram, substringMatch } from './text.js';

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

/** How the matching contacts are found; every strategy returns the same rows in the same order. */
export type ContactStrategy =
  /** Walk the account's contacts in result order with the match as a filter. */
  | 'walk'
  /** Only the newest CONTACT_WINDOW contacts (within since/until): exact when they hold the whole page. */
  | 'window'
  /** Every match through the trigram index (the help desk's four-column one, or one per column), then order. */
  | 'trigram';

/** Rows of the newest-first window tried before the trigram index. */
export const CONTACT_WINDOW = 1_000;

const COLUMNS = `c.id, c.name, c.email, c.phone_number, c.identifier, c.additional_attributes,
           ${epoch('c.created_at')} AS created_at, ${epoch('c.last_activity_at')} AS last_activity_at`;
const ORDER = 'ORDER BY c.last_activity_at DESC NULLS LAST, c.id DESC';
/** What the outer select reads from a derived table (a production row has many more columns). */
const RAW_COLUMNS =
  'c.id, c.name, c.email, c.phone_number, c.identifier, c.additional_attributes, c.created_at, c.last_activity_at';

export function buildContactsQuery(
  access: Pick<AccessContext, 'accountId'>,
  params: ContactsParams,
  strategy: ContactStrategy = 'walk',
): SqlQuery {
  const p = new SqlParams();
  const scope = [
    `c.account_id = ${p.add(access.accountId)}::bigint`,
    ...timeBounds('c.last_activity_at', params.since, params.until, p),
  ];
  const match = substringMatch(
    CONTACT_COLUMNS.map((col) => `c.${col}`),
    params.q,
    p,
  );
  const page = pageClause(params.page ?? 1, PAGE_SIZE, p);
  let text: string;
  if (strategy === 'window') {
    // The inner ORDER BY … LIMIT walks (account_id, last_activity_at) and stops after the window.
    text = `
    SELECT ${COLUMNS}
    FROM (SELECT ${RAW_COLUMNS} FROM contacts c WHERE ${scope.join(' AND ')} ${ORDER} LIMIT ${p.add(CONTACT_WINDOW)}) c
    WHERE ${match}
    ${ORDER}
    ${page}`;
  } else if (strategy === 'trigram') {
    // No ORDER BY inside the materialised CTE: an ordered walk cannot be chosen there, so the
    // trigram index finds the matches (a bitmap). Only their ids and sort key are kept; the
    // page's rows are read again by primary key.
    text = `
    WITH matched AS MATERIALIZED (
      SELECT c.id, c.last_activity_at FROM contacts c WHERE ${[...scope, match].join(' AND ')}
    ),
    hits AS (SELECT c.id, c.last_activity_at FROM matched c ${ORDER} ${page})
    SELECT ${COLUMNS}
    FROM hits h JOIN contacts c ON c.id = h.id
    ${ORDER}`;
  } else {
    text = `
    SELECT ${COLUMNS}
    FROM contacts c
    WHERE ${[...scope, match].join('\n      AND ')}
    ${ORDER}
    ${page}`;
  }
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

/**
 * Rare terms go to the trigram index, common ones are found by walking the newest contacts:
 * the window is tried first (cheap, and exact when it holds the page plus one row); a term the
 * trigram index cannot narrow (fewer than three letters or digits in a row) walks in order.
 */
export async function searchContacts(ctx: SearchContext, params: ContactsParams): Promise<Page<ContactRecord>> {
  const run = (strategy: ContactStrategy) =>
    ctx.db.query<ContactRow>(buildContactsQuery(ctx.access, params, strategy), `search_contacts_${strategy}`);
  let rows: ContactRow[] | undefined;
  if (hasTrigram(params.q)) {
    if (windowCanHold(params.page ?? 1, CONTACT_WINDOW)) {
      const windowed = await run('window');
      if (windowed.length > PAGE_SIZE) rows = windowed;
    }
    rows ??= await run('trigram');
  } else {
    rows = await run('walk');
  }
  return toPage(rows.map(toContactRecord));
}
