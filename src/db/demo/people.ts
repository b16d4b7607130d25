/**
 * Demo contacts: believable names, reserved example domains for e-mail (RFC 2606) and fictional
 * phone ranges (NANP 555-01xx, Ofcom 07700 900xxx, ACMA 0491 570xxx), so no real person is named.
 */
import type { Random } from './random.js';

export interface DemoContact {
  id: number;
  accountId: number;
  name: string;
  firstName: string;
  email: string | null;
  phone: string | null;
  identifier: string | null;
  attributes: Record<string, string>;
}

const FIRST_NAMES = (
  'James Sofia Liam Emma Noah Aisha Lucas Mia Ethan Chloe Mateo Hannah Oliver Zara Daniel Grace Arjun ' +
  'Isabella Kenji Amelia Samuel Fatima Leo Charlotte Diego Ava Hugo Freya Omar Ella Ravi Julia Felix ' +
  'Nora Marcus Ingrid Tariq Lucy Jonas Maria Ben Yuki Connor Elena Kwame Sara Adam Leila Patrick Anna ' +
  'Mohammed Clara Ryan Priya Victor Emily Andre Hana'
).split(' ');

const LAST_NAMES = (
  'Smith Garcia Johnson Müller Nguyen Brown Kowalski Silva Williams Khan Jones Rossi Taylor Dubois ' +
  'Anderson Kim Martin Haddad Thompson Novak White Sato Harris Jensen Clark Costa Lewis Schneider ' +
  "Walker Ahmed Hall Moreau Young Ivanova King Ferreira Wright Okafor Lopez Larsen Hill O'Brien Scott " +
  'Yamamoto Green Fernández Baker Chen Adams Popescu Nelson Reyes Carter Lindberg Mitchell Das Roberts ' +
  'Weber Campbell Mensah'
).split(' ');

type Phone = (r: Random) => string;
const nanp =
  (area: string): Phone =>
  (r) =>
    `+1${area}55501${String(r.int(0, 99)).padStart(2, '0')}`;
const uk: Phone = (r) => `+447700900${String(r.int(0, 999)).padStart(3, '0')}`;
const au: Phone = (r) => `+61491570${String(r.int(6, 159)).padStart(3, '0')}`;

/** City, country, and how to make a phone number there (none: the contact never gave one). */
const PLACES: ReadonlyArray<readonly [string, string, Phone | null]> = [
  ['New York', 'United States', nanp('212')],
  ['Chicago', 'United States', nanp('312')],
  ['San Francisco', 'United States', nanp('415')],
  ['Austin', 'United States', nanp('512')],
  ['Boston', 'United States', nanp('617')],
  ['Seattle', 'United States', nanp('206')],
  ['Denver', 'United States', nanp('303')],
  ['Portland', 'United States', nanp('503')],
  ['Toronto', 'Canada', nanp('416')],
  ['Vancouver', 'Canada', nanp('604')],
  ['London', 'United Kingdom', uk],
  ['Manchester', 'United Kingdom', uk],
  ['Leeds', 'United Kingdom', uk],
  ['Edinburgh', 'United Kingdom', uk],
  ['Sydney', 'Australia', au],
  ['Melbourne', 'Australia', au],
  ['Berlin', 'Germany', null],
  ['Paris', 'France', null],
  ['Madrid', 'Spain', null],
  ['Amsterdam', 'Netherlands', null],
  ['Bangalore', 'India', null],
  ['São Paulo', 'Brazil', null],
  ['Stockholm', 'Sweden', null],
];

const COMPANIES = (
  'Northwind Traders|Bluebird Bakery|Summit Outdoor Co.|Pixel & Pine Studio|Harbor Dental|' +
  'Brightside Coffee|Greenleaf Landscaping|Copperline Media|Maple & Oak Interiors|Redwood Analytics|' +
  'Lighthouse Realty|Cedar Lane Café|Fjord Logistics|Sunrise Yoga'
).split('|');

const MAIL_DOMAINS = ['example.com', 'example.net', 'example.org', 'mail.example'] as const;
const VISITOR_WORDS = ['crimson', 'misty', 'silent', 'autumn', 'bold', 'quiet', 'sparkling', 'wild'] as const;
const VISITOR_NOUNS = ['meadow', 'river', 'sun', 'forest', 'frost', 'lake', 'breeze', 'field'] as const;

/** Lower-case ASCII for an e-mail local part: "Müller" → "muller", "O'Brien" → "obrien". */
function mailPart(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
}

function slug(s: string): string {
  return mailPart(s.replace(/&/g, 'and').replace(/\s+/g, ''));
}

/** `count` contacts of one account with ids from `firstId`; `taken` keeps e-mails unique per account. */
export function generateContacts(
  r: Random,
  accountId: number,
  firstId: number,
  count: number,
  identifier: (r: Random) => string,
  taken: Set<string> = new Set(),
): DemoContact[] {
  const contacts: DemoContact[] = [];
  for (let i = 0; i < count; i++) {
    const id = firstId + i;
    if (r.chance(0.05)) {
      // An anonymous website visitor: the widget names them, nothing else is known yet.
      const name = `${r.pick(VISITOR_WORDS)}-${r.pick(VISITOR_NOUNS)}-${r.digits(4)}`;
      contacts.push({ id, accountId, name, firstName: 'there', email: null, phone: null, identifier: null, attributes: {} });
      continue;
    }
    const first = r.pick(FIRST_NAMES);
    const last = r.pick(LAST_NAMES);
    const [city, country, phone] = r.pick(PLACES);
    const company = r.chance(0.3) ? r.pick(COMPANIES) : null;
    const hasPhone = phone !== null && r.chance(0.7);
    // Contacts who only ever wrote on WhatsApp have a phone number but no e-mail.
    const hasEmail = !hasPhone || r.chance(0.8);
    let email: string | null = null;
    if (hasEmail) {
      const f = mailPart(first);
      const l = mailPart(last);
      const local = r.pick([`${f}.${l}`, `${f}${l}${r.int(1, 99)}`, `${f[0]}.${l}`, `${f}_${l}`, `${f}.${l}`]);
      const domain = company !== null && r.chance(0.7) ? `${slug(company)}.example` : r.pick(MAIL_DOMAINS);
      email = `${local}@${domain}`;
      for (let n = 2; taken.has(email); n++) email = `${local}${n}@${domain}`;
      taken.add(email);
    }
    const attributes: Record<string, string> = r.chance(0.85) ? { city, country } : {};
    if (company !== null) attributes.company_name = company;
    contacts.push({
      id,
      accountId,
      name: `${first} ${last}`,
      firstName: first,
      email,
      phone: hasPhone && phone ? phone(r) : null,
      identifier: r.chance(0.4) ? identifier(r) : null,
      attributes,
    });
  }
  return contacts;
}
