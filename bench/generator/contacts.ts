/**
 * Contacts, generated inside Postgres: names from common first/last names (popular names far more
 * often), e-mails derived from the name, E.164 phones of the contact's country, CRM identifiers,
 * and additional_attributes (city, country, company, plan). 5% are anonymous website visitors
 * ("misty-river-4821") with nothing else known. The skewed shape (skewed.ts) draws names from its
 * own few hundred, half of the draws on the head of each list, and makes every e-mail of an account
 * unique: each ends in the contact's local index.
 */
import type { SqlQuery } from '../../src/db/db.js';
import {
  asciiLower,
  COMPANIES,
  COMPANY_DOMAINS,
  CUSTOMER_PLANS,
  FIRST_NAMES,
  LAST_NAMES,
  MAIL_DOMAINS,
  PLACE_SLOTS,
  PLACES,
  VISITOR_ADJECTIVES,
  VISITOR_NOUNS,
} from './people.js';
import type { RowRandom } from './sql-random.js';
import { int } from './sql-random.js';
import { HEAD_NAMES, headOrUniform, SKEWED_FIRST_NAMES, SKEWED_LAST_NAMES } from './skewed.js';
import { ascendingSeconds, at, DAY_SECONDS, LONG_WINDOW_DAYS, Statement, type StatementContext } from './sql-build.js';

/** The name lists of a statement's shape, with their e-mail forms. */
function nameLists(st: Statement) {
  const skewed = st.ctx.shape === 'skewed';
  const first = skewed ? SKEWED_FIRST_NAMES : FIRST_NAMES;
  const last = skewed ? SKEWED_LAST_NAMES : LAST_NAMES;
  return { skewed, first, last, firstMail: MAIL_FORMS.get(first)!, lastMail: MAIL_FORMS.get(last)! };
}
const MAIL_FORMS = new Map(
  [FIRST_NAMES, LAST_NAMES, SKEWED_FIRST_NAMES, SKEWED_LAST_NAMES].map((names) => [names, names.map(asciiLower)]),
);

/** The 1-based index of a name in `n` names: popular names far more often (skewed: half on the head). */
function nameIndex(st: Statement, r: RowRandom, i: string, salt: number, n: number): string {
  return nameLists(st).skewed ? headOrUniform(r, i, salt, HEAD_NAMES, n) : `(1 + ${r.skewedBelow(i, salt, n)})`;
}
const PLACE_CITY = PLACES.map((p) => p.city);
const PLACE_COUNTRY = PLACES.map((p) => p.country);
const PLACE_ISO = PLACES.map((p) => p.countryCode);
const PLACE_CALLING = PLACES.map((p) => p.callingCode);
const PLACE_DIGITS = PLACES.map((p) => p.nationalDigits);

/** Whether contact `i` (local, 1-based) is an anonymous visitor, and its first name's index: shared with greetings. */
export function contactIdentity(st: Statement, r: RowRandom, i: string) {
  return { anonymous: `(${r.unit(i, 1)} < 0.05)`, firstName: nameIndex(st, r, i, 2, nameLists(st).first.length) };
}

/** The contact's first name as it greets ("there" for visitors). */
export function contactFirstName(st: Statement, r: RowRandom, i: string): string {
  const who = contactIdentity(st, r, i);
  return `CASE WHEN ${who.anonymous} THEN 'there' ELSE ${at(st.names(nameLists(st).first), who.firstName)} END`;
}

/** The local part of an e-mail: in the skewed shape each ends in the contact's index, so no two are equal. */
function emailLocal(st: Statement, r: RowRandom): string {
  const names = nameLists(st);
  const fm = at(st.names(names.firstMail), 'b.fn');
  const lm = at(st.names(names.lastMail), 'b.ln');
  if (names.skewed)
    return `CASE ${r.below('b.i', 20, 4)}
      WHEN 0 THEN ${fm} || '.' || ${lm} || '.' || b.i
      WHEN 1 THEN ${fm} || ${lm} || b.i
      WHEN 2 THEN left(${fm}, 1) || '.' || ${lm} || b.i
      ELSE ${fm} || '_' || ${lm} || b.i END`;
  return `CASE ${r.below('b.i', 20, 5)}
      WHEN 0 THEN ${fm} || '.' || ${lm}
      WHEN 1 THEN ${fm} || ${lm} || (10 + ${r.below('b.i', 21, 90)})
      WHEN 2 THEN left(${fm}, 1) || '.' || ${lm}
      WHEN 3 THEN ${fm} || '_' || ${lm}
      ELSE ${fm} || '.' || ${lm} || (1 + ${r.below('b.i', 22, 999)}) END`;
}

function emailExpr(st: Statement, r: RowRandom): string {
  const local = emailLocal(st, r);
  const domain = `CASE WHEN b.co > 0 AND ${r.unit('b.i', 23)} < 0.6 THEN ${at(st.names(COMPANY_DOMAINS), 'b.co')}
      ELSE ${at(st.names(MAIL_DOMAINS), r.zipf('b.i', 26, MAIL_DOMAINS.length))} END`;
  return `CASE WHEN b.anon OR ${r.unit('b.i', 25)} < 0.12 THEN NULL ELSE ${local} || '@' || ${domain} END`;
}

function phoneExpr(st: Statement, r: RowRandom): string {
  const calling = at(st.names(PLACE_CALLING), 'b.pl');
  const digits = `${st.ints(PLACE_DIGITS)}[b.pl]`;
  // A national number never starts with 0 here: 2–9, then the rest.
  const national = `(2 + ${r.below('b.i', 30, 8)})::text || left(${r.digits('b.i', 31, 10)}, ${digits} - 1)`;
  return `CASE WHEN b.anon OR ${r.unit('b.i', 32)} < 0.35 THEN NULL ELSE '+' || ${calling} || ${national} END`;
}

function identifierExpr(r: RowRandom): string {
  const u = r.unit('b.i', 40);
  return `CASE WHEN b.anon OR ${u} < 0.55 THEN NULL
      WHEN ${u} < 0.9 THEN 'crm-' || lpad(b.i::text, 7, '0')
      ELSE 'cus_' || left(md5(${r.hash('b.i', 41)}::text), 14) END`;
}

function attributesExpr(st: Statement, r: RowRandom): string {
  const field = (values: readonly string[]) => at(st.names(values), 'b.pl');
  const plan = `CASE WHEN ${r.unit('b.i', 51)} < 0.4 THEN ${at(st.names(CUSTOMER_PLANS), `1 + ${r.below('b.i', 52, CUSTOMER_PLANS.length)}`)} END`;
  return `CASE WHEN b.anon OR ${r.unit('b.i', 50)} < 0.15 THEN '{}'::jsonb ELSE jsonb_strip_nulls(jsonb_build_object(
      'city', ${field(PLACE_CITY)},
      'country', ${field(PLACE_COUNTRY)},
      'country_code', ${field(PLACE_ISO)},
      'company_name', CASE WHEN b.co > 0 THEN ${at(st.names(COMPANIES), 'b.co')} END,
      'plan', ${plan})) END`;
}

function nameExpr(st: Statement, r: RowRandom): string {
  const visitor = `${at(st.names(VISITOR_ADJECTIVES), `1 + ${r.below('b.i', 10, VISITOR_ADJECTIVES.length)}`)} || '-' ||
      ${at(st.names(VISITOR_NOUNS), `1 + ${r.below('b.i', 11, VISITOR_NOUNS.length)}`)} || '-' || (1000 + ${r.below('b.i', 12, 9000)})`;
  const { first, last } = nameLists(st);
  const person = `${at(st.names(first), 'b.fn')} || ' ' || ${at(st.names(last), 'b.ln')}`;
  return `CASE WHEN b.anon THEN ${visitor} ELSE ${person} END`;
}

/** Contacts with local indexes from … to (1-based) of one account. */
export function buildContactsInsert(ctx: StatementContext, from: number, to: number): SqlQuery {
  const st = new Statement(ctx);
  const r = st.random('contacts');
  const { plan } = ctx;
  const window = LONG_WINDOW_DAYS * DAY_SECONDS;
  const who = contactIdentity(st, r, 'i');
  const base = `SELECT i, ${who.anonymous} AS anon, ${who.firstName} AS fn,
        ${nameIndex(st, r, 'i', 14, nameLists(st).last.length)} AS ln,
        ${st.ints(PLACE_SLOTS)}[1 + ${r.below('i', 4, PLACE_SLOTS.length)}] AS pl,
        CASE WHEN ${r.unit('i', 5)} < 0.3 THEN 1 + ${r.below('i', 6, COMPANIES.length)} ELSE 0 END AS co,
        ${ascendingSeconds('i', plan.counts.contacts, window, r.unit('i', 7))} AS created_s
      FROM generate_series(${int(from)}, ${int(to)}) AS i OFFSET 0`;
  // Latest activity somewhere after creation, recent more likely; 6% never active.
  const active = `CASE WHEN ${r.unit('b.i', 60)} < 0.06 THEN NULL
      ELSE b.created_s + floor((${int(window)} - b.created_s) * (1 - ${r.unit('b.i', 61)} * ${r.unit('b.i', 62)}))::bigint END`;
  return st.done(`
    INSERT INTO contacts (id, account_id, name, email, phone_number, identifier, additional_attributes,
                          created_at, updated_at, last_activity_at)
    SELECT ${int(plan.first.contact - 1)} + x.i, ${int(plan.accountId)}, x.name, x.email, x.phone, x.identifier, x.attrs,
           ${st.timeIn(LONG_WINDOW_DAYS, 'x.created_s')}, ${st.timeIn(LONG_WINDOW_DAYS, 'coalesce(x.active_s, x.created_s)')},
           ${st.timeIn(LONG_WINDOW_DAYS, 'x.active_s')}
    FROM (
      SELECT b.i, b.created_s, ${nameExpr(st, r)} AS name, ${emailExpr(st, r)} AS email, ${phoneExpr(st, r)} AS phone,
             ${identifierExpr(r)} AS identifier, ${attributesExpr(st, r)} AS attrs, ${active} AS active_s
      FROM (${base}) AS b
    ) AS x`);
}
