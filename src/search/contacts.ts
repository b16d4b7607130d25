/** Contact search: case-insensitive literal substring of name, email, phone number or identifier. */
import { SqlParams, type SqlQuery } from '../db/db.js';
import type { AccessContext } from '../auth/access.js';
import { toPage, type Page, type SearchContext } from './context.js';
import { PAGE_SIZE, type ContactsParams } from './params.js';
import type { ContactRecord } from './records.js';
import {
  checkClause,
  epoch,
  ladderAbove,
  longerWindow,
  pageClause,
  rowCount,
  shareWindow,
  tableRows,
  timeBounds,
  windowCanHold,
  windowCut,
  type WindowLimits,
} from './sql.js';
import { estimateShare, sampledValuesHolding, tableStats, UNSEEN_SHARE, type TableStats } from './statistics.js';
import { hasTrigram, indexedSubstringMatch, looksSpecific, rowMatch, substringMatch } from './text.js';

export interface ContactRow {
  id: number;
  name: string | null;
  email: string | null;
  phone_number: string | null;
  identifier: string | null;
  additional_attributes: unknown;
  created_at: number | null;
  last_activity_at: number | null;
  /** The window strategy's estimate of the contacts table's rows (pg_class.reltuples; -1 before ANALYZE). */
  table_rows?: number;
}

export const CONTACT_COLUMNS = ['name', 'email', 'phone_number', 'identifier'] as const;
const COLUMN_REFS = CONTACT_COLUMNS.map((col) => `c.${col}`);

/** How the matching contacts are found; every strategy returns the same rows in the same order. */
export type ContactStrategy =
  /** Walk the account's contacts in result order with the match as a filter. */
  | 'walk'
  /** Only the newest N contacts (within since/until): exact when they hold the whole page. */
  | 'window'
  /** Every match through the trigram index (the help desk's four-column one, or one per column), then order. */
  | 'trigram';

/**
 * Rows of the first window when the statistics cannot size it: its matches also tell how common
 * the term is. Small, since a term it does not settle pays for all of it before the next
 * statement: 250 rows settle any term in one contact of 16 or more, and a rarer one's matches
 * still show how far to walk.
 */
export const CONTACT_WINDOW = 250;

/** The longest window: past it, the trigram index is the bounded choice whatever the estimate. */
export const CONTACT_WALK_CAP = 20_000;

/** The sizes searchContacts works with (tests lower them to reach every path on small data). */
export interface ContactLimits extends WindowLimits {
  /**
   * What the trigram index pays for a row it fetches, against a row a window tests: the bitmap's
   * heap read and the recheck of four columns, and the posting lists of the term's trigrams
   * (common ones, such as those of a domain, are long), against one test of the columns joined.
   */
  fetchCost: number;
}

export const CONTACT_LIMITS: ContactLimits = { window: CONTACT_WINDOW, walkCap: CONTACT_WALK_CAP, room: 3, fetchCost: 4 };

const COLUMNS = `c.id, c.name, c.email, c.phone_number, c.identifier, c.additional_attributes,
           ${epoch('c.created_at')} AS created_at, ${epoch('c.last_activity_at')} AS last_activity_at`;
const ORDER = 'ORDER BY c.last_activity_at DESC NULLS LAST, c.id DESC';
/** What the outer select reads from a derived table (a production row has many more columns). */
const RAW_COLUMNS =
  'c.id, c.name, c.email, c.phone_number, c.identifier, c.additional_attributes, c.created_at, c.last_activity_at';

/**
 * The rows after a window that gave way: up to `rows` contacts in result order after its last
 * match `after` (its id, and whether its last_activity_at is null), of which the page still
 * needs `PAGE_SIZE + 1 - found` matches (`found`: the first window's rows, all of the page's
 * that it held). The walk starts at that contact's place in the index, not at the top: only the
 * first window's rows after its last match are read again (skipping the whole first window with
 * OFFSET read it again, 4.3 ms of a 12.6 ms search for `Mitchell` at L).
 */
export interface ContactWindowRest {
  after: { id: number; lastActivityNull: boolean };
  rows: number;
  found: number;
}

/**
 * The length of a first window of the first page when it is planned once (SqlQuery.planOnce),
 * else undefined. Its plan is the walk of index_contacts_on_account_id_and_last_activity_at
 * whatever the values, once the account and the length are in the text (the one plan is then
 * weighed for the account's contacts and that length, as a plan for the values is): the index
 * gives the result's order with the account and since/until as its conditions, and the match is
 * one test of the row no index serves. Planning was 1.3 ms of the window of `Mateo Williams` at
 * L, whose execution took 1.3 ms. The length is rounded up to the ladder (ladderAbove) up to the
 * longest walk; a later page's window and the rest of a window are planned for their values.
 */
export function contactWindowPlannedOnce(params: ContactsParams, window: number): number | undefined {
  return (params.page ?? 1) === 1 ? ladderAbove(window, CONTACT_WALK_CAP) : undefined;
}

export function buildContactsQuery(
  access: Pick<AccessContext, 'accountId'>,
  params: ContactsParams,
  strategy: ContactStrategy = 'walk',
  window: number | ContactWindowRest = CONTACT_WINDOW,
  accountAsParameter = false,
): SqlQuery {
  const p = new SqlParams();
  // A first window of the first page is planned once (contactWindowPlannedOnce), its account and
  // length in the text; the general statement (SqlQuery.anyAccount) has the account a parameter.
  const ladder = strategy === 'window' && typeof window === 'number' ? contactWindowPlannedOnce(params, window) : undefined;
  const planOnce = ladder !== undefined && !accountAsParameter;
  const scope = [
    `c.account_id = ${planOnce ? rowCount(access.accountId) : p.add(access.accountId)}::bigint`,
    ...timeBounds('c.last_activity_at', params.since, params.until, p),
  ];
  if (strategy === 'window') {
    const text = windowStatement(params, scope, ladder ?? window, p, planOnce);
    if (!planOnce) return { text, values: p.values };
    return {
      text,
      values: p.values,
      planOnce,
      anyAccount: () => buildContactsQuery(access, params, strategy, window, true),
    };
  }
  // The trigram strategy's patterns come from a subquery: planning then does not run them over
  // the columns' statistics (a third of a millisecond for four columns), an estimate that could
  // only ever choose a scan instead of the index.
  const match =
    strategy === 'trigram' ? indexedSubstringMatch(COLUMN_REFS, params.q, p, true) : substringMatch(COLUMN_REFS, params.q, p);
  const page = pageClause(params.page ?? 1, PAGE_SIZE, p);
  let text: string;
  if (strategy === 'trigram') {
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

/**
 * The window strategy: the inner walk reads (account_id, last_activity_at) in order and stops
 * after the window (or its rest), cut after a whole activity time when the page needs several
 * matches (windowCut); the outer LIMIT stops it sooner once the page is full. The match is one
 * test of the row's columns joined (rowMatch): a walk spends most of its time there. The table's
 * row estimate (a catalog read) rides along for the choice of the next strategy when the window
 * gives way.
 *
 * The contacts without an activity time are one time, last: a window cut after a whole time would
 * test every one of the account's (a bulk import can leave most of them so). Such a window keeps
 * to the contacts with a time, a prefix of the result order all the same; short of the page, it
 * gives way, as the rest of a window after a contact with a time does. The rest after one without
 * is cut after N rows.
 */
function windowStatement(
  params: ContactsParams,
  scope: string[],
  window: number | ContactWindowRest,
  p: SqlParams,
  planOnce = false,
) {
  const rest = typeof window === 'number' ? undefined : window;
  const page = params.page ?? 1;
  const needed = rest ? PAGE_SIZE + 1 - rest.found : page * PAGE_SIZE + 1;
  const undated = rest?.after.lastActivityNull ?? false;
  const { cut, ties } = windowCut(
    'c.last_activity_at DESC NULLS LAST',
    'c.id DESC',
    rest ? p.add(rest.rows) : planOnce ? rowCount(window as number) : p.add(window),
    undated ? 0 : needed,
  );
  const where = [...scope, ...(rest ? afterClauses(rest.after, p) : ties ? ['c.last_activity_at IS NOT NULL'] : [])];
  const match = rowMatch(COLUMN_REFS, params.q, p);
  const limit = rest ? `LIMIT ${p.add(needed)}` : pageClause(page, PAGE_SIZE, p, planOnce);
  return `
    SELECT ${COLUMNS}, ${tableRows('contacts')} AS table_rows
    FROM (SELECT ${RAW_COLUMNS} FROM contacts c WHERE ${where.join(' AND ')} ${cut}) c
    WHERE ${ties ? checkClause([match])[0] : match}
    ${ORDER}
    ${limit}`;
}

/**
 * The contacts after `after` in result order (last_activity_at DESC NULLS LAST, id DESC), written
 * so that the index on (account_id, last_activity_at DESC NULLS LAST) starts there: its key is
 * read by primary key in the statement (the record holds it in whole seconds only). After a
 * contact with a time, only contacts with a time are read: those without come after all of them,
 * and a rest that reaches them without filling the page gives way to the trigram index, which is
 * exact.
 */
function afterClauses(after: ContactWindowRest['after'], p: SqlParams): string[] {
  const id = `${p.add(after.id)}::bigint`;
  if (after.lastActivityNull) return ['c.last_activity_at IS NULL', `c.id < ${id}`];
  const key = `(SELECT k.last_activity_at FROM contacts k WHERE k.id = ${id})`;
  return [`c.last_activity_at <= ${key}`, `(c.last_activity_at < ${key} OR c.id < ${id})`];
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
 * The rows of the first window (0: the trigram index first). The statistics tell how common the
 * term is (estimateShare): the window fills the page after about need ÷ share rows, while the
 * index fetches about share × the table's rows, each dearer than a row the window tests
 * (fetchCost). When the window is the cheaper, it is `room` times its estimate, up to the cap.
 * When the index is, a first window of `window` rows still goes first: a share estimated from a
 * hundred sampled values is rough, and a window's matches are a sample of this account's newest
 * contacts, which then decides between a longer window and the index (longerWindow). So does a
 * search without statistics, and a term no sampled value holds where the index could fetch more
 * than the longest walk; a term that looks specific goes to the index.
 */
export function firstContactWindow(
  params: ContactsParams,
  stats: TableStats | undefined,
  limits: ContactLimits = CONTACT_LIMITS,
): number {
  const page = params.page ?? 1;
  if (looksSpecific(params.q)) return 0;
  const sample = windowCanHold(page, limits.window) ? limits.window : 0;
  const share = stats && estimateShare(stats, CONTACT_COLUMNS, params.q);
  if (share === undefined || stats === undefined) return sample;
  // A term no sampled value holds is in at most about 1 in 100 contacts: anywhere from one to
  // thousands in a large table. Where the index could then fetch more than the longest walk
  // reads, the sample window tells which (Mitchell at L, 5,912 contacts: the index 18.3 ms, a
  // window of 3,000 rows 6.7); else the index answers at once (a window of 250 rows at M costs
  // more than the index read of a rare fragment: 1.8 against 1.3 ms). So does a term whose
  // share is under that bound: one histogram value, or a rare common value, is a single sample
  // that cannot tell it from one the sample missed (at M: Wright, in one common email of
  // 0.02 %, is in 0.94 % of contacts, and a window of 250 rows and its rest of 1,157 took 4.8 ms,
  // the index 3.0; s.fernan, in one histogram value, 0.8 %, is in 1 of 5,889 rows, a window of
  // them 13.9 ms, the index 3.3). Held by several sampled values, a share under that bound is
  // weighed as it is: Taylor at M, in two common names and two emails, 0.83 %, is in 1.9 % of
  // contacts, and the index read of its 2,065 candidates took 4.7–7.4 ms, where the help desk's
  // walk found the page in 672 rows, 3.2 ms.
  if (share < UNSEEN_SHARE && sampledValuesHolding(stats, CONTACT_COLUMNS, params.q) < 2) {
    return UNSEEN_SHARE * stats.rows * limits.fetchCost > limits.walkCap ? sample : 0;
  }
  const { rows, expected } = shareWindow(page, share, limits);
  if (rows === undefined || expected > share * stats.rows * limits.fetchCost) return sample;
  return Math.max(sample, rows);
}

/**
 * A term without a trigram (fewer than three letters or digits in a row) walks in order: the
 * trigram index cannot narrow it. Any other term first reads a window of the newest contacts, as
 * long as the statistics say the page needs (firstContactWindow; none for a term they find rare),
 * exact when it holds the page plus one row; when it does not, what it saw decides between a
 * longer window that continues it and the trigram index (longerWindow), and the trigram index
 * answers whatever is left.
 */
export async function searchContacts(
  ctx: SearchContext,
  params: ContactsParams,
  limits: ContactLimits = CONTACT_LIMITS,
): Promise<Page<ContactRecord>> {
  const run = (strategy: ContactStrategy, window?: number | ContactWindowRest) =>
    ctx.db.query<ContactRow>(buildContactsQuery(ctx.access, params, strategy, window), `search_contacts_${strategy}`);
  const done = (rows: ContactRow[]) => toPage(rows.map(toContactRecord));
  if (!hasTrigram(params.q)) return done(await run('walk'));
  const stats = await tableStats(ctx.db, 'contacts', CONTACT_COLUMNS);
  const window = firstContactWindow(params, stats, limits);
  if (window > 0) {
    const page = params.page ?? 1;
    const first = await run('window', window);
    if (first.length > PAGE_SIZE) return done(first);
    // longerWindow asks for more only after a window that held some of the page's rows: all of
    // them, so the rest of the longer window adds its matches to those.
    // The index's rows are weighed at fetchCost each: as many table rows that much dearer.
    const rows = (stats?.rows ?? first[0]?.table_rows ?? 0) * limits.fetchCost;
    const longer = longerWindow(page, first.length, rows, { ...limits, window }, 0, true);
    if (longer !== undefined) {
      // Up to `longer` rows from the last match on: at least the rows past the first window
      // that a longer window would read, and the first window's after its last match.
      const last = first[first.length - 1]!;
      const rest = {
        after: { id: last.id, lastActivityNull: last.last_activity_at === null },
        rows: longer,
        found: first.length,
      };
      const second = [...first, ...(await run('window', rest))];
      if (second.length > PAGE_SIZE) return done(second);
    }
  }
  return done(await run('trigram'));
}
