/**
 * How much to generate, and where every account's rows go. Ids are assigned here, explicitly and
 * contiguously per account and table, so chunks can be inserted concurrently and still get the
 * same ids on every run.
 */
import { LABEL_TITLES } from './people.js';
import { MAX_ACCOUNTS } from './sql-random.js';

/** A labelled conversation carries up to three distinct labels, which needs at least this many. */
export const MIN_LABELS = 4;

/** Row counts of one account. */
export interface AccountCounts {
  contacts: number;
  conversations: number;
  messages: number;
  articles: number;
  inboxes: number;
  /** Agents besides the administrator. */
  agents: number;
  /** Inboxes every agent is a member of (the inboxes are split into inboxes / agentInboxes groups). */
  agentInboxes: number;
  teams: number;
  portals: number;
  categoriesPerPortal: number;
  /** Labels of the account (its `labels` rows; a prefix of LABEL_TITLES). */
  labels: number;
}

export interface ScaleSpec {
  /** The account searches are benchmarked in (account id 1). */
  large: AccountCounts;
  /** Each noise account (ids 2 …): the same names and words, other rows. */
  small: AccountCounts;
  smallAccounts: number;
  /**
   * The directory account, laid out after the noise accounts: many agents and inboxes and few
   * conversations, for get_account at the size the triage issue names (contract §9.4). Absent:
   * none. Added to an existing database by `npm run bench:data -- --only directory`.
   */
  directory?: AccountCounts;
  /** Conversations and messages spread over the last `days` days (contacts and articles over a year). */
  days: number;
}

export type ScaleName = 'S' | 'M' | 'L';

const L_LARGE: AccountCounts = {
  contacts: 1_000_000,
  conversations: 2_000_000,
  messages: 5_000_000,
  articles: 20_000,
  inboxes: 50,
  agents: 40,
  agentInboxes: 10,
  teams: 10,
  portals: 3,
  categoriesPerPortal: 10,
  labels: 40,
};

/** A few thousand rows per noise account, at every scale. */
const SMALL: AccountCounts = {
  contacts: 500,
  conversations: 1_000,
  messages: 2_500,
  articles: 40,
  inboxes: 3,
  agents: 6,
  agentInboxes: 1,
  teams: 2,
  portals: 1,
  categoriesPerPortal: 4,
  labels: 8,
};

/**
 * The directory account's counts: `agents` agents besides its administrator, each a member of 10
 * of its `inboxes` inboxes, and a few conversations (at L 500 agents with the administrator, the
 * most get_account lists, and 100 inboxes; at M 250 and 50).
 */
export function directoryCounts(agents: number, inboxes: number, conversations: number): AccountCounts {
  return {
    contacts: Math.max(1, conversations / 2),
    conversations,
    messages: conversations * 2,
    articles: 0,
    inboxes,
    agents,
    agentInboxes: 10,
    teams: 20,
    portals: 0,
    categoriesPerPortal: 0,
    labels: 40,
  };
}

/** The large account's table rows divided by `divisor`; its organisation (inboxes, agents) unchanged. */
export function divideLarge(large: AccountCounts, divisor: number): AccountCounts {
  const div = (n: number) => Math.max(1, Math.round(n / divisor));
  return {
    ...large,
    contacts: div(large.contacts),
    conversations: div(large.conversations),
    messages: div(large.messages),
    articles: div(large.articles),
  };
}

export const SCALES: Record<ScaleName, ScaleSpec> = {
  L: { large: L_LARGE, small: SMALL, smallAccounts: 20, directory: directoryCounts(499, 100, 2_000), days: 180 },
  M: { large: divideLarge(L_LARGE, 10), small: SMALL, smallAccounts: 20, directory: directoryCounts(249, 50, 1_000), days: 180 },
  // None at S, whose specs the tests shrink: their data stays as it was.
  S: { large: divideLarge(L_LARGE, 100), small: SMALL, smallAccounts: 20, days: 180 },
};

/** Throws on counts the generator cannot honour (with the reason). */
export function validateScale(spec: ScaleSpec): void {
  const fail = (msg: string) => {
    throw new Error(`invalid scale: ${msg}`);
  };
  // One index more for the directory account.
  if (!Number.isInteger(spec.smallAccounts) || spec.smallAccounts < 0 || spec.smallAccounts >= MAX_ACCOUNTS - 1)
    fail(`smallAccounts must be an integer in [0, ${MAX_ACCOUNTS - 1})`);
  if (!Number.isInteger(spec.days) || spec.days < 1 || spec.days > 3_650) fail('days must be an integer in [1, 3650]');
  const accounts: Array<[string, AccountCounts]> = [
    ['large', spec.large],
    ['small', spec.small],
  ];
  if (spec.directory) accounts.push(['directory', spec.directory]);
  for (const [which, c] of accounts) {
    for (const [key, value] of Object.entries(c)) {
      if (!Number.isSafeInteger(value) || value < 0 || value > 50_000_000)
        fail(`${which}.${key} must be an integer in [0, 50,000,000]`);
    }
    if (c.inboxes < 1 || c.agentInboxes < 1 || c.inboxes % c.agentInboxes !== 0)
      fail(`${which}: inboxes must be a positive multiple of agentInboxes`);
    if (c.agents < c.inboxes / c.agentInboxes)
      fail(`${which}: every inbox group needs an agent (agents ≥ inboxes / agentInboxes)`);
    if (c.conversations > 0 && c.contacts < 1) fail(`${which}: conversations need contacts`);
    if (c.messages > 0 && c.conversations < 1) fail(`${which}: messages need conversations`);
    if (c.articles > 0 && (c.portals < 1 || c.categoriesPerPortal < 1)) fail(`${which}: articles need portals and categories`);
    if (c.labels !== 0 && (c.labels < MIN_LABELS || c.labels > LABEL_TITLES.length))
      fail(`${which}: labels must be 0 or in [${MIN_LABELS}, ${LABEL_TITLES.length}]`);
  }
}

export const TABLES = [
  'accounts',
  'users',
  'account_users',
  'access_tokens',
  'inboxes',
  'inbox_members',
  'teams',
  'portals',
  'categories',
  'contacts',
  'conversations',
  'messages',
  'articles',
  'labels',
  'tags',
  'taggings',
] as const;
export type TableName = (typeof TABLES)[number];

/** One account: its counts and the first id of each of its row ranges (ids first … first + count − 1). */
export interface AccountPlan {
  /** 0 for the large account, 1 … for noise accounts, then the directory account. */
  index: number;
  accountId: number;
  large: boolean;
  /** The directory account (ScaleSpec.directory). */
  directory: boolean;
  counts: AccountCounts;
  first: {
    user: number;
    inbox: number;
    team: number;
    portal: number;
    category: number;
    label: number;
    contact: number;
    conversation: number;
    message: number;
    article: number;
  };
}

/** Users per account: the administrator, then the agents. */
export const usersOf = (c: AccountCounts) => 1 + c.agents;

/**
 * Lays the accounts out one after another in every table: the large account first, the directory
 * account last (so that adding it to a database generated without it takes ids past every other).
 */
export function planAccounts(spec: ScaleSpec): AccountPlan[] {
  const next = {
    user: 1,
    inbox: 1,
    team: 1,
    portal: 1,
    category: 1,
    label: 1,
    contact: 1,
    conversation: 1,
    message: 1,
    article: 1,
  };
  const plans: AccountPlan[] = [];
  const last = spec.smallAccounts + (spec.directory ? 1 : 0);
  for (let index = 0; index <= last; index++) {
    const directory = index > spec.smallAccounts;
    const counts = index === 0 ? spec.large : directory ? spec.directory! : spec.small;
    plans.push({ index, accountId: index + 1, large: index === 0, directory, counts, first: { ...next } });
    next.user += usersOf(counts);
    next.inbox += counts.inboxes;
    next.team += counts.teams;
    next.portal += counts.portals;
    next.category += counts.portals * counts.categoriesPerPortal;
    next.label += counts.labels;
    next.contact += counts.contacts;
    next.conversation += counts.conversations;
    next.message += counts.messages;
    next.article += counts.articles;
  }
  return plans;
}
