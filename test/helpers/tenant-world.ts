/**
 * A multi-tenant help desk for isolation properties (the world of test/isolation.test.ts, plus
 * articles and an account without `advanced_search`): several accounts sharing names and words,
 * users in several accounts with different roles, agents with some or no inboxes. expectedIds
 * says, from the data in memory, what a caller may see for a query, in the contract's order:
 * the access rules here, the matching and order in the shared oracle (oracle.ts).
 */
import fc from 'fast-check';
import { DAY, type Fixture } from './fixtures.js';
import {
  expectArticles,
  expectContactConversations,
  expectContacts,
  expectConversations,
  expectMessages,
  expectTranscript,
} from './oracle.js';

export const TENANT_NAMES = ['Ana Lee', 'Bo Chen', 'Cy Diaz', 'Ana Chen', 'Lee Bo', 'Dee Ana'];
export const TENANT_WORDS = ['refund', 'order', 'ship', 'shipping', 'invoice', 'late', 'broken', 'reorder'];
/** Queries that hit names, emails, display ids, message and article words, and nothing. */
export const TENANT_QUERIES = [
  ...TENANT_NAMES.flatMap((n) => n.split(' ')),
  ...TENANT_WORDS,
  ...['a', 'e', '1', '10', 'acct', 'ana lee', 'ship ref', 'guide', 'zzz', 'ord ship'],
];

export type Op = 'contacts' | 'conversations' | 'messages' | 'articles';

export interface Membership {
  user: number;
  account: number;
  admin: boolean;
  token: string;
}

export interface TenantWorld {
  now: number;
  accounts: number[];
  /** Accounts without `advanced_search`: message search is refused, search_all has no messages. */
  noMessageSearch: Set<number>;
  memberships: Membership[];
  inboxes: Array<{ id: number; account: number }>;
  inboxMembers: Set<string>;
  contacts: Array<{ id: number; account: number; name: string; email: string; last: number }>;
  conversations: Array<{ id: number; account: number; inbox: number; contact: number; display: number; created: number }>;
  messages: Array<{
    id: number;
    account: number;
    inbox: number;
    conversation: number;
    content: string;
    type: number;
    created: number;
  }>;
  articles: Array<{ id: number; account: number; title: string; content: string; updated: number }>;
}

/** Builds the world deterministically from `seed` (five accounts, the last without advanced_search). */
export async function buildTenantWorld(fx: Fixture, seed: number): Promise<TenantWorld> {
  const now = Math.floor(Date.now() / 1000);
  const w: TenantWorld = {
    now,
    accounts: [],
    noMessageSearch: new Set(),
    memberships: [],
    inboxes: [],
    inboxMembers: new Set(),
    contacts: [],
    conversations: [],
    messages: [],
    articles: [],
  };
  const rnd = fc.sample(fc.integer({ min: 0, max: 1_000_000 }), { seed, numRuns: 2000 });
  let k = 0;
  const next = () => rnd[k++ % rnd.length]!;
  const pick = <T>(xs: readonly T[]): T => xs[next() % xs.length]!;
  const users = [];
  for (let u = 0; u < 8; u++) users.push(await fx.user());
  for (let a = 0; a < 5; a++) {
    const advancedSearch = a !== 4;
    const account = await fx.account({ advancedSearch, name: `Tenant ${a}` });
    w.accounts.push(account);
    if (!advancedSearch) w.noMessageSearch.add(account);
    const inboxes = [];
    for (let i = 0; i < 3; i++) {
      const id = await fx.inbox(account);
      inboxes.push(id);
      w.inboxes.push({ id, account });
    }
    for (const [n, user] of users.entries()) {
      if ((n + a) % 3 === 0) continue;
      const admin = (n + a) % 4 === 0;
      await fx.member(account, user, admin ? 'administrator' : 'agent');
      w.memberships.push({ user, account, admin, token: await fx.token(user) });
      if (!admin)
        for (const inbox of inboxes)
          if ((inbox + n) % 2 === 0) {
            await fx.inboxMember(inbox, user);
            w.inboxMembers.add(`${inbox}:${user}`);
          }
    }
    for (let c = 0; c < 8; c++) {
      const name = pick(TENANT_NAMES);
      const last = now - (1 + (next() % 60)) * DAY;
      const email = `${name.split(' ')[0]!.toLowerCase()}${c}@acct${a}.test`;
      const id = await fx.contact(account, { name, email, last_activity_at: last });
      w.contacts.push({ id, account, name, email, last });
    }
    const accountContacts = w.contacts.filter((c) => c.account === account);
    for (let v = 0; v < 10; v++) {
      const inbox = pick(inboxes);
      const contact = pick(accountContacts).id;
      const created = now - (1 + v) * DAY;
      const id = await fx.conversation(account, inbox, { contact_id: contact, created_at: created, last_activity_at: created });
      w.conversations.push({ id, account, inbox, contact, display: v + 1, created });
      for (let m = 0; m < 3; m++) {
        const content = `${pick(TENANT_WORDS)} ${pick(TENANT_WORDS)} ${pick(TENANT_NAMES)}`;
        const type = pick([0, 0, 1, 1, 2]);
        const at = created + m * 60;
        const mid = await fx.message(id, { content, message_type: type, created_at: at });
        w.messages.push({ id: mid, account, inbox, conversation: id, content, type, created: at });
      }
    }
    const portal = await fx.portal(account);
    for (let r = 0; r < 6; r++) {
      const title = `${pick(TENANT_WORDS)} guide ${pick(TENANT_NAMES)}`;
      const content = `${pick(TENANT_WORDS)} ${pick(TENANT_WORDS)} steps`;
      const updated = now - (1 + (next() % 30)) * DAY;
      const id = await fx.article(account, portal, { title, content, updated_at: updated });
      w.articles.push({ id, account, title, content, updated });
    }
  }
  return w;
}

/** Inboxes whose conversations and messages a caller may see (contract §2.4). */
export function accessibleInboxes(w: TenantWorld, caller: Membership): Set<number> {
  return new Set(
    w.inboxes
      .filter((i) => i.account === caller.account && (caller.admin || w.inboxMembers.has(`${i.id}:${caller.user}`)))
      .map((i) => i.id),
  );
}

/** Every row `caller` may see that matches `q`, in the contract's order (before paging): the shared oracle on what access leaves. */
export function expectedIds(w: TenantWorld, op: Op, caller: Membership, q: string): number[] {
  const inboxes = accessibleInboxes(w, caller);
  const contactTexts = (id: number) => {
    const c = w.contacts.find((x) => x.id === id)!;
    return [c.name, c.email];
  };
  switch (op) {
    case 'contacts':
      return expectContacts(
        w.contacts.filter((c) => c.account === caller.account).map((c) => ({ id: c.id, texts: [c.name, c.email], last: c.last })),
        q,
      );
    case 'conversations':
      return expectConversations(
        w.conversations
          .filter((v) => v.account === caller.account && inboxes.has(v.inbox))
          .map((v) => ({
            id: v.id,
            display: v.display,
            contactTexts: contactTexts(v.contact),
            created: v.created,
            last: v.created,
          })),
        q,
      );
    case 'messages':
      return expectMessages(
        w.messages.filter((m) => m.account === caller.account && inboxes.has(m.inbox) && m.type < 2),
        q,
        { since: w.now - 90 * DAY },
      );
    case 'articles':
      return expectArticles(
        w.articles.filter((a) => a.account === caller.account),
        q,
      );
  }
}

// ---------------------------------------------------------------------------------------------
// Reads (issue 14): what get_conversation, get_contact and get_article may show a caller.
// ---------------------------------------------------------------------------------------------

export type ReadTool = 'get_conversation' | 'get_contact' | 'get_article';

/** A read a caller may try: a record of any account, named the way the tool takes it. */
export interface ReadTarget {
  tool: ReadTool;
  args: { id?: number; display_id?: number };
}

/** Every read target of the world: each conversation by id and by display id, each contact, each article. */
export function readTargets(w: TenantWorld): ReadTarget[] {
  return [
    ...w.conversations.flatMap((v): ReadTarget[] => [
      { tool: 'get_conversation', args: { id: v.id } },
      { tool: 'get_conversation', args: { display_id: v.display } },
    ]),
    { tool: 'get_conversation', args: { display_id: 999 } },
    ...w.contacts.map((c): ReadTarget => ({ tool: 'get_contact', args: { id: c.id } })),
    ...w.articles.map((a): ReadTarget => ({ tool: 'get_article', args: { id: a.id } })),
  ];
}

/**
 * What a read shows `caller`, or undefined for "not found": the conversation's message ids
 * (activity left out, oldest first), the contact's visible conversation ids (most recent activity
 * first, first page), or the article's id.
 */
export function expectedRead(w: TenantWorld, caller: Membership, target: ReadTarget): { id: number; rows: number[] } | undefined {
  const inboxes = accessibleInboxes(w, caller);
  const { id, display_id } = target.args;
  switch (target.tool) {
    case 'get_conversation': {
      const v = w.conversations.find(
        (x) => x.account === caller.account && (id !== undefined ? x.id === id : x.display === display_id),
      );
      if (!v || !inboxes.has(v.inbox)) return undefined;
      const transcript = expectTranscript(w.messages.filter((m) => m.conversation === v.id && m.type !== 2));
      return { id: v.id, rows: 'rows' in transcript ? transcript.rows : [] };
    }
    case 'get_contact': {
      const c = w.contacts.find((x) => x.id === id && x.account === caller.account);
      if (!c) return undefined;
      const visible = w.conversations.filter((v) => v.contact === c.id && v.account === caller.account && inboxes.has(v.inbox));
      // The fixture's conversations had no activity after they were created.
      return { id: c.id, rows: expectContactConversations(visible.map((v) => ({ id: v.id, last: v.created }))) };
    }
    case 'get_article': {
      const a = w.articles.find((x) => x.id === id && x.account === caller.account);
      return a && { id: a.id, rows: [] };
    }
  }
}

export const NOT_FOUND: Record<ReadTool, string> = {
  get_conversation: 'Conversation not found',
  get_contact: 'Contact not found',
  get_article: 'Article not found',
};
