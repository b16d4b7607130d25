/**
 * Contact search: a literal substring of name, email, phone number or identifier, in order of last activity (none last), then
 * id. Its strategies (docs/plans.md#contacts): a window of the newest contacts and its rest, the trigram index, the plain walk.
 */
import { SqlParams, type SqlQuery } from '../db/db.js';
import type { AccessContext } from '../auth/access.js';
import { toPage, type Page, type SearchContext } from './context.js';
import { PAGE_SIZE, type ContactsParams } from './params.js';
import { COSTS, knob } from './plan/costs.js';
import { planStatement, runPlan } from './plan/executor.js';
import type { PlanOptions, Progress, Strategy } from './plan/strategy.js';
import {
  afterRow,
  ladderAbove,
  shareWindow,
  weighLongerWindow,
  windowCanHold,
  windowCut,
  type WindowLimits,
} from './plan/windows.js';
import type { ContactRecord } from './records.js';
import { checkClause, epoch, pageClause, rowCount, tableRows, timeBounds } from './sql.js';
import { estimateShare, sampledValuesHolding, tableStats, type TableStats } from './statistics.js';
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
  /** A window's estimate of the table's rows (reltuples; -1 before ANALYZE). */
  table_rows?: number;
}

export const CONTACT_COLUMNS = ['name', 'email', 'phone_number', 'identifier'] as const;
const COLUMN_REFS = CONTACT_COLUMNS.map((col) => `c.${col}`);

export type ContactStrategy = 'walk' | 'window' | 'trigram';

export interface ContactLimits extends WindowLimits {
  fetchCost: number;
}

/** The contacts knobs (costs.ts), a disabled one at its neutral value. */
export function contactLimits(o?: PlanOptions): ContactLimits {
  const [window, walkCap, room] = [knob('contacts.sampleWindow', o), knob('contacts.walkCap', o), knob('contacts.room', o)];
  return { window, walkCap, room, fetchCost: knob('contacts.fetchCost', o) };
}

export const CONTACT_LIMITS = contactLimits();
export const CONTACT_WINDOW = CONTACT_LIMITS.window;
export const CONTACT_WALK_CAP = CONTACT_LIMITS.walkCap;

const COLUMNS = `c.id, c.name, c.email, c.phone_number, c.identifier, c.additional_attributes,
           ${epoch('c.created_at')} AS created_at, ${epoch('c.last_activity_at')} AS last_activity_at`;
const ORDER = 'ORDER BY c.last_activity_at DESC NULLS LAST, c.id DESC';
/** What a window's outer select reads from its derived table (a production row has many more columns). */
const RAW_COLUMNS =
  'c.id, c.name, c.email, c.phone_number, c.identifier, c.additional_attributes, c.created_at, c.last_activity_at';

/** The rest of a window that gave way: up to `rows` contacts after its last match, the page still needing PAGE_SIZE + 1 - `found`. */
export interface ContactWindowRest {
  after: { id: number; lastActivityNull: boolean };
  rows: number;
  found: number;
}

/** What a contacts plan weighs; `sized`: the first window's rows as the statistics size it (firstContactWindow). */
interface ContactInput {
  access: Pick<AccessContext, 'accountId'>;
  params: ContactsParams;
  stats?: TableStats;
  limits: ContactLimits;
  options?: PlanOptions;
  sized: number;
}

/** A first page's window length planned once (on the ladder, up to the cap): its plan is the walk of the account's activity index. */
export function contactWindowPlannedOnce(params: ContactsParams, window: number, cap = CONTACT_WALK_CAP, least?: number) {
  return (params.page ?? 1) === 1 ? ladderAbove(window, cap, least) : undefined;
}

/** The first window's length planned once under the plan's knobs (contactWindowPlannedOnce). */
const plannedOnce = (input: ContactInput, rows: number) =>
  contactWindowPlannedOnce(input.params, rows, input.limits.walkCap, knob('windows.ladderLeast', input.options));

function scopeOf(input: ContactInput, p: SqlParams, inText = false): string[] {
  const { access, params } = input;
  const account = inText ? rowCount(access.accountId) : p.add(access.accountId);
  return [`c.account_id = ${account}::bigint`, ...timeBounds('c.last_activity_at', params.since, params.until, p)];
}

function walkStatement(input: ContactInput): SqlQuery {
  const p = new SqlParams();
  const where = [...scopeOf(input, p), substringMatch(COLUMN_REFS, input.params.q, p)];
  const text = `
    SELECT ${COLUMNS}
    FROM contacts c
    WHERE ${where.join('\n      AND ')}
    ${ORDER}
    ${pageClause(input.params.page ?? 1, PAGE_SIZE, p)}`;
  return { text, values: p.values };
}

/**
 * Every match by the trigram index (no ORDER BY in the materialised CTE: no ordered walk there), the page of their ids, its rows
 * by primary key. The patterns come from a subquery, so planning does not weigh them (that could only ever choose a scan).
 */
function trigramStatement(input: ContactInput): SqlQuery {
  const p = new SqlParams();
  const where = [...scopeOf(input, p), indexedSubstringMatch(COLUMN_REFS, input.params.q, p, true)];
  const page = pageClause(input.params.page ?? 1, PAGE_SIZE, p);
  const text = `
    WITH matched AS MATERIALIZED (
      SELECT c.id, c.last_activity_at FROM contacts c WHERE ${where.join(' AND ')}
    ),
    hits AS (SELECT c.id, c.last_activity_at FROM matched c ${ORDER} ${page})
    SELECT ${COLUMNS}
    FROM hits h JOIN contacts c ON c.id = h.id
    ${ORDER}`;
  return { text, values: p.values };
}

/**
 * A window or its rest: the walk of (account_id, last_activity_at) cut after its rows (windowCut), the match one test (rowMatch),
 * the table's row estimate for the next step. Contacts without a time are one time, last: a window cut after a whole time keeps
 * to those with one (still a prefix) and gives way short of the page; a rest after one without is cut after N rows.
 */
function windowStatement(input: ContactInput, window: number | ContactWindowRest, inText: boolean): SqlQuery {
  const { params } = input;
  const p = new SqlParams();
  const rest = typeof window === 'number' ? undefined : window;
  const page = params.page ?? 1;
  const needed = rest ? PAGE_SIZE + 1 - rest.found : page * PAGE_SIZE + 1;
  const scope = scopeOf(input, p, inText);
  const rows = rest ? p.add(rest.rows) : inText ? rowCount(window as number) : p.add(window);
  const tiesMin = knob('windows.tiesMinMatches', input.options);
  const undated = rest?.after.lastActivityNull ?? false;
  const cut = windowCut('c.last_activity_at DESC NULLS LAST', 'c.id DESC', rows, undated ? 0 : needed, tiesMin);
  const where = [...scope, ...(rest ? afterClauses(rest.after, p) : cut.ties ? ['c.last_activity_at IS NOT NULL'] : [])];
  const match = rowMatch(COLUMN_REFS, params.q, p);
  const limit = rest ? `LIMIT ${p.add(needed)}` : pageClause(page, PAGE_SIZE, p, inText);
  const text = `
    SELECT ${COLUMNS}, ${tableRows('contacts')} AS table_rows
    FROM (SELECT ${RAW_COLUMNS} FROM contacts c WHERE ${where.join(' AND ')} ${cut.cut}) c
    WHERE ${cut.ties ? checkClause([match])[0] : match}
    ${ORDER}
    ${limit}`;
  return { text, values: p.values };
}

/** The contacts after `after` in result order; after one with a time only those with one (the rest give way short of the page). */
function afterClauses(after: ContactWindowRest['after'], p: SqlParams): string[] {
  if (!after.lastActivityNull) return afterRow('c', 'contacts', 'last_activity_at', after.id, p);
  return ['c.last_activity_at IS NULL', `c.id < ${p.add(after.id)}::bigint`];
}

/** The statement of one strategy outside a plan (tests): a first window of `window` rows, or the rest of one. */
export function buildContactsQuery(
  access: Pick<AccessContext, 'accountId'>,
  params: ContactsParams,
  strategy: ContactStrategy = 'walk',
  window: number | ContactWindowRest = CONTACT_WINDOW,
): SqlQuery {
  const input: ContactInput = { access, params, limits: CONTACT_LIMITS, sized: typeof window === 'number' ? window : 0 };
  if (strategy === 'window' && typeof window !== 'number') return windowStatement(input, window, false);
  return planStatement(STRATEGIES[strategy], input, { found: [], tried: [], last: [] });
}

/**
 * Rows of the first window, 0 for the index first (docs/plans.md#contacts): `room` × need ÷ share when cheaper than the index's
 * share × rows × fetchCost, else the sample window (a rough share; the window's matches decide next). Without statistics, the
 * sample; a term no sampled value holds (or a share under `unseen` from one value): the index unless it could fetch past the cap.
 */
export function firstContactWindow(
  params: ContactsParams,
  stats: TableStats | undefined,
  limits: ContactLimits = CONTACT_LIMITS,
  unseen: number = COSTS['statistics.unseenShare'].value,
): number {
  const page = params.page ?? 1;
  if (looksSpecific(params.q)) return 0;
  const sample = windowCanHold(page, limits.window) ? limits.window : 0;
  const share = stats && estimateShare(stats, CONTACT_COLUMNS, params.q);
  if (share === undefined || stats === undefined) return sample;
  if (share < unseen && sampledValuesHolding(stats, CONTACT_COLUMNS, params.q) < 2) {
    return unseen * stats.rows * limits.fetchCost > limits.walkCap ? sample : 0;
  }
  const { rows, expected } = shareWindow(page, share, limits);
  if (rows === undefined || expected > share * stats.rows * limits.fetchCost) return sample;
  return Math.max(sample, rows);
}

type ContactStep = Strategy<ContactInput, ContactRow>;
type ContactProgress = Progress<ContactRow>;

/** The first window's rows: as sized, else (forced) the sample window. */
const firstRows = (input: ContactInput): number =>
  input.sized || (windowCanHold(input.params.page ?? 1, input.limits.window) ? input.limits.window : 0);

/**
 * The rest's cost (Infinity: not worth it) and the index's, after a first window that gave way with m matches. The walk grows
 * as 1 ÷ share, so its expected rows a match are window ÷ (m − 1), not window ÷ m (gamma posterior): one match never sends the
 * rest on a walk of any length. The index is weighed on all m.
 */
function weighRest(input: ContactInput, so: ContactProgress) {
  const rows = (input.stats?.rows ?? so.found[0]?.table_rows ?? 0) * input.limits.fetchCost;
  const [limits, page, m] = [{ ...input.limits, window: firstRows(input) }, input.params.page ?? 1, so.found.length];
  const w = rows > 0 && m > 1 ? weighLongerWindow(page, m - 1, rows, limits, (page - 1) * PAGE_SIZE + m, true) : undefined;
  const worth = w !== undefined && w.rows <= limits.walkCap && w.rows > limits.window;
  return { w, cost: worth ? w.cost : Infinity, fetched: w?.fetched ?? 0 };
}

function restOf(input: ContactInput, so: ContactProgress): ContactWindowRest {
  const last = so.found[so.found.length - 1]!;
  const rows = weighRest(input, so).w!.rows;
  return { after: { id: last.id, lastActivityNull: last.last_activity_at === null }, rows, found: so.found.length };
}

const WALK: ContactStep = {
  name: 'contacts.walk',
  label: 'search_contacts_walk',
  applies: () => true,
  cost: ({ params }) => (hasTrigram(params.q) ? Infinity : 0),
  statement: walkStatement,
  read: (rows) => ({ done: true, rows }),
};

const WINDOW: ContactStep = {
  name: 'contacts.window',
  label: 'search_contacts_window',
  applies: (input, so) =>
    hasTrigram(input.params.q) &&
    (so.tried.length === 0 ? firstRows(input) > 0 : so.tried.join() === 'contacts.window' && !!weighRest(input, so).w),
  cost: (input, so) => (so.tried.length > 0 ? weighRest(input, so).cost : input.sized || Infinity),
  caching: (input, so) => (so.tried.length === 0 && plannedOnce(input, firstRows(input)) !== undefined ? 'oncePerAccount' : 'no'),
  statement: (input, so, inText) => {
    if (so.tried.length > 0) return windowStatement(input, restOf(input, so), false);
    const rows = firstRows(input);
    return windowStatement(input, plannedOnce(input, rows) ?? rows, inText);
  },
  read: (rows, _input, so) => {
    const found = so.tried.length > 0 ? [...so.found, ...rows] : rows;
    return { done: found.length > PAGE_SIZE, rows: found };
  },
};

const TRIGRAM: ContactStep = {
  name: 'contacts.trigram',
  label: 'search_contacts_trigram',
  applies: ({ params }) => hasTrigram(params.q),
  cost: (input, so) => {
    if (so.tried.length > 0) return weighRest(input, so).fetched;
    if (input.sized > 0) return Infinity;
    const share = input.stats ? (estimateShare(input.stats, CONTACT_COLUMNS, input.params.q) ?? 1) : 1;
    return share * (input.stats?.rows ?? 0) * input.limits.fetchCost;
  },
  statement: trigramStatement,
  read: (rows) => ({ done: true, rows }),
};

const STRATEGIES: Record<ContactStrategy, ContactStep> = { walk: WALK, window: WINDOW, trigram: TRIGRAM };

/** The contacts plan, in fallback order: the plain statement (the walk) last. */
export const CONTACT_PLAN: readonly ContactStep[] = [WINDOW, TRIGRAM, WALK];

/** Searches contacts (CONTACT_PLAN); the statistics are read only for a term with a trigram. */
export async function searchContacts(ctx: SearchContext, params: ContactsParams): Promise<Page<ContactRecord>> {
  const limits = contactLimits(ctx.plan);
  const stats = hasTrigram(params.q) ? await tableStats(ctx.db, 'contacts', CONTACT_COLUMNS) : undefined;
  const unseen = knob('statistics.unseenShare', ctx.plan);
  const sized = hasTrigram(params.q) ? firstContactWindow(params, stats, limits, unseen) : 0;
  const input: ContactInput = { access: ctx.access, params, stats, limits, options: ctx.plan, sized };
  const rows = await runPlan(ctx, CONTACT_PLAN, input);
  return toPage(rows.map(toContactRecord));
}

/** The record; `additional_attributes` a JSON object, `{}` for null, arrays and scalars. */
export function toContactRecord(row: ContactRow): ContactRecord {
  const { id, name, email, phone_number, identifier, additional_attributes: a, created_at, last_activity_at } = row;
  const attributes = a !== null && typeof a === 'object' && !Array.isArray(a) ? (a as Record<string, unknown>) : {};
  return { id, name, email, phone_number, identifier, additional_attributes: attributes, created_at, last_activity_at };
}
