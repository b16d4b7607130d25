/**
 * The embedded database's demo help desk: two accounts (Acme Support with message search, Globex
 * Help without), agents with different inboxes, a few hundred contacts and conversations, about
 * 1500 messages over the last 120 days and a help center. Deterministic: the same seed gives the
 * same content every time; only the timestamps follow `now`, so the 90-day rules always show.
 */
import { generateConversation, type AccountFlavour } from './demo/conversations.js';
import { helpCenterRows } from './demo/articles.js';
import { ACME, GLOBEX, organisationRows } from './demo/org.js';
import { generateContacts, type DemoContact } from './demo/people.js';
import { numberConversations } from './demo/plan.js';
import { Random } from './demo/random.js';
import type { DemoRow, DemoTables } from './demo/rows.js';
import { demoInfo, type DemoInfo } from './demo-info.js';
import { STORY_CONTACTS, storyConversations } from './demo/stories.js';
import { addTriage } from './demo/triage.js';

export { DEMO_COLUMNS, type DemoRow, type DemoTable, type DemoTables } from './demo/rows.js';
export { demoInfo, type DemoInfo } from './demo-info.js';

/** Bumped whenever the demo content changes; recorded in the database with the creation time. */
export const DEMO_VERSION = 2;
const SEED = 20_240_917;
const DAY = 86_400;

export interface DemoData {
  tables: DemoTables;
  info: DemoInfo;
}

const ACME_FLAVOUR: AccountFlavour = {
  accountId: ACME,
  brand: 'Acme',
  products: [
    'Acme Smart Kettle',
    'Acme Espresso Grinder',
    'Acme Robot Vacuum',
    'Acme Air Purifier',
    'Acme Blender Pro',
    'Acme Wireless Earbuds',
    'Acme Fitness Tracker',
  ],
  orderNumber: (r) => `#A-${r.digits(5)}`,
  scripts: [
    'shipping_delay',
    'damaged_refund',
    'password_reset',
    'invoice_copy',
    'double_charge',
    'change_address',
    'cancel_subscription',
    'app_crash',
    'discount_code',
    'account_deletion',
    'two_factor',
    'wrong_item',
    'wholesale',
    'card_declined',
    'warranty',
  ],
  defaultTeam: null,
};

const GLOBEX_FLAVOUR: AccountFlavour = {
  accountId: GLOBEX,
  brand: 'Globex',
  products: ['Globex Standing Desk', 'Globex Ergo Chair', 'Globex Monitor Arm', 'Globex Desk Lamp'],
  orderNumber: (r) => `GX-${r.digits(6)}`,
  scripts: [
    'shipping_delay',
    'damaged_refund',
    'password_reset',
    'invoice_copy',
    'double_charge',
    'change_address',
    'wrong_item',
    'wholesale',
    'warranty',
  ],
  defaultTeam: 'care',
};

const COUNTS = { acmeContacts: 240, globexContacts: 60, acmeConversations: 285, globexConversations: 60 } as const;

/** Contact rows: activity follows their conversations; contacts who never wrote get a spread or null. */
function contactRows(
  r: Random,
  contacts: readonly DemoContact[],
  times: Map<number, { first: number; last: number }>,
  now: number,
): DemoRow[] {
  return contacts.map((c) => {
    const seen = times.get(c.id);
    const created = seen ? seen.first - r.int(0, 60) * DAY : now - r.int(30, 400) * DAY;
    const lastActivity = seen ? seen.last : r.chance(0.35) ? null : Math.max(created, now - r.int(1, 200) * DAY);
    return {
      id: c.id,
      account_id: c.accountId,
      name: c.name,
      email: c.email,
      phone_number: c.phone,
      identifier: c.identifier,
      additional_attributes: c.attributes,
      created_at: created,
      updated_at: lastActivity ?? created,
      last_activity_at: lastActivity,
    };
  });
}

/** Builds every demo row for a database created at `nowMs` (milliseconds, like Date.now()). */
export function buildDemoData(nowMs: number): DemoData {
  const now = Math.floor(nowMs / 1000);
  const r = new Random(SEED);
  const taken = new Set(STORY_CONTACTS.flatMap((c) => (c.email ? [c.email] : [])));
  let nextId = STORY_CONTACTS.length + 1;
  const acme = generateContacts(r, ACME, nextId, COUNTS.acmeContacts, (g) => `cus_${g.digits(8)}`, taken);
  nextId += acme.length;
  const globex = generateContacts(r, GLOBEX, nextId, COUNTS.globexContacts, (g) => `gx-${g.digits(6)}`, taken);
  const contacts = [...STORY_CONTACTS, ...acme, ...globex];

  const plans = [
    ...storyConversations(now),
    ...Array.from({ length: COUNTS.acmeConversations }, () => generateConversation(r, ACME_FLAVOUR, acme, now)),
    ...Array.from({ length: COUNTS.globexConversations }, () => generateConversation(r, GLOBEX_FLAVOUR, globex, now)),
  ];
  const { conversations, messages, contactTimes, topics } = numberConversations(plans);
  return {
    tables: {
      ...organisationRows(now),
      contacts: contactRows(r, contacts, contactTimes, now),
      conversations,
      messages,
      ...helpCenterRows(now),
      // Last: it draws from its own seed and reads the finished rows.
      ...addTriage(conversations, messages, topics, now),
    },
    info: demoInfo(),
  };
}
