/**
 * The organisation tables (accounts, users, memberships, tokens, inboxes, teams, portals,
 * categories, labels, and the shared tags of the label titles): a few hundred rows, built in JS with a seeded PRNG and inserted with one
 * `INSERT … SELECT FROM unnest(…)` per table.
 *
 * Inbox membership is what access tests and benchmarks lean on: an account's inboxes form
 * inboxes / agentInboxes groups (inbox k is in group k mod groups), agent j (1-based) belongs to
 * group (j − 1) mod groups, and is a member of exactly that group's agentInboxes inboxes. The
 * administrator is a member of none (administrators see every inbox anyway).
 */
import { FEATURE_BITS } from '../../src/auth/access.js';
import { Random } from '../../src/db/demo/random.js';
import {
  asciiLower,
  CATEGORY_NAMES,
  CHANNELS,
  FIRST_NAMES,
  LABEL_COLORS,
  LABEL_TITLES,
  LAST_NAMES,
  PORTALS,
  REGIONS,
  TEAM_NAMES,
} from './people.js';
import { usersOf, type AccountPlan, type TableName } from './scale.js';

export const LARGE_ADMIN_TOKEN = 'bench-admin-token';
export const LARGE_AGENT_TOKEN = 'bench-agent-token';

/** The directory account's administrator and its first agent (a member of agentInboxes inboxes). */
export const DIRECTORY_ADMIN_TOKEN = 'bench-directory-admin-token';
export const DIRECTORY_AGENT_TOKEN = 'bench-directory-agent-token';

/** Every other user's token. */
export const userToken = (userId: number) => `bench-user-${userId}-token`;

type Value = string | number | boolean | null;
interface TableRows {
  table: TableName;
  /** Column name → Postgres element type of its unnest array. */
  columns: Record<string, string>;
  rows: Value[][];
  /** Whether the table has created_at/updated_at (`tags` has neither). */
  timestamps?: boolean;
}

/** Inbox groups of an account. */
export const inboxGroups = (plan: AccountPlan) => plan.counts.inboxes / plan.counts.agentInboxes;

/** Local (0-based) inbox indexes agent j (1-based) is a member of. */
export function agentInboxIndexes(plan: AccountPlan, agent: number): number[] {
  const groups = inboxGroups(plan);
  const group = (agent - 1) % groups;
  return Array.from({ length: plan.counts.agentInboxes }, (_, n) => group + n * groups);
}

/** The large account gets both search flags; noise accounts a mix, so flag checks meet both cases. */
function featureFlags(plan: AccountPlan): string {
  if (plan.large || plan.directory) return (FEATURE_BITS.advancedSearch | FEATURE_BITS.searchWithGin).toString();
  let flags = 0n;
  if (plan.index % 2 === 0) flags |= FEATURE_BITS.advancedSearch;
  if (plan.index % 3 === 0) flags |= FEATURE_BITS.searchWithGin;
  return flags.toString();
}

export const DIRECTORY_ACCOUNT_NAME = 'Bench Directory Co';

function accountName(plan: AccountPlan): string {
  if (plan.large) return 'Bench Large Co';
  return plan.directory ? DIRECTORY_ACCOUNT_NAME : `Bench Noise ${String(plan.index).padStart(2, '0')}`;
}

function accountDomain(plan: AccountPlan): string {
  if (plan.large) return 'bench-large.example';
  return plan.directory ? 'bench-directory.example' : `bench-noise-${plan.index}.example`;
}

function tokenOf(plan: AccountPlan, local: number, userId: number): string {
  if (plan.large && local <= 1) return local === 0 ? LARGE_ADMIN_TOKEN : LARGE_AGENT_TOKEN;
  if (plan.directory && local <= 1) return local === 0 ? DIRECTORY_ADMIN_TOKEN : DIRECTORY_AGENT_TOKEN;
  return userToken(userId);
}

/** The rows of every organisation table for all accounts. */
export function organisationRows(plans: readonly AccountPlan[], seed: number): TableRows[] {
  const t = (table: TableName, columns: Record<string, string>): TableRows => ({ table, columns, rows: [] });
  const accounts = t('accounts', { id: 'integer', name: 'varchar', status: 'integer', feature_flags: 'bigint' });
  const users = t('users', { id: 'integer', name: 'varchar', display_name: 'varchar', email: 'varchar' });
  const accountUsers = t('account_users', { id: 'bigint', account_id: 'bigint', user_id: 'bigint', role: 'integer' });
  const tokens = t('access_tokens', { id: 'bigint', owner_type: 'varchar', owner_id: 'bigint', token: 'varchar' });
  const inboxes = t('inboxes', { id: 'integer', account_id: 'integer', name: 'varchar', channel_type: 'varchar' });
  const members = t('inbox_members', { id: 'integer', user_id: 'integer', inbox_id: 'integer' });
  const teams = t('teams', { id: 'bigint', account_id: 'bigint', name: 'varchar' });
  const portals = t('portals', { id: 'bigint', account_id: 'integer', name: 'varchar', slug: 'varchar' });
  const categories = t('categories', { id: 'bigint', account_id: 'integer', portal_id: 'integer', name: 'varchar' });
  const labels = t('labels', {
    id: 'bigint',
    account_id: 'bigint',
    title: 'varchar',
    description: 'text',
    color: 'varchar',
    show_on_sidebar: 'boolean',
  });
  const tags = { ...t('tags', { id: 'integer', name: 'varchar', taggings_count: 'integer' }), timestamps: false };
  const labelCount = Math.max(...plans.map((p) => p.counts.labels));
  // Shared by every account (tag id = position in LABEL_TITLES + 1); taggings_count is set after the load.
  for (let i = 0; i < labelCount; i++) tags.rows.push([i + 1, LABEL_TITLES[i]!, 0]);

  for (const plan of plans) {
    const r = new Random((seed * 1_000_003 + plan.index * 7_919 + 17) >>> 0);
    const { counts, first, accountId } = plan;
    accounts.rows.push([accountId, accountName(plan), 0, featureFlags(plan)]);
    for (let local = 0; local < usersOf(counts); local++) {
      const id = first.user + local;
      const [f, l] = [r.pick(FIRST_NAMES), r.pick(LAST_NAMES)];
      const mailbox =
        local === 0
          ? 'admin'
          : (plan.large || plan.directory) && local === 1
            ? 'agent'
            : `${asciiLower(f)}.${asciiLower(l)}${local}`;
      users.rows.push([id, `${f} ${l}`, r.chance(0.7) ? f : null, `${mailbox}@${accountDomain(plan)}`]);
      accountUsers.rows.push([accountUsers.rows.length + 1, accountId, id, local === 0 ? 1 : 0]);
      tokens.rows.push([tokens.rows.length + 1, 'User', id, tokenOf(plan, local, id)]);
      if (local > 0) {
        for (const k of agentInboxIndexes(plan, local)) members.rows.push([members.rows.length + 1, id, first.inbox + k]);
      }
    }
    for (let k = 0; k < counts.inboxes; k++) {
      const [channelType, label] = CHANNELS[k % CHANNELS.length]!;
      const round = Math.floor(k / CHANNELS.length);
      const again = Math.floor(round / REGIONS.length);
      inboxes.rows.push([
        first.inbox + k,
        accountId,
        `${label} ${REGIONS[round % REGIONS.length]!}${again ? ` ${again + 1}` : ''}`,
        channelType,
      ]);
    }
    for (let k = 0; k < counts.teams; k++) teams.rows.push([first.team + k, accountId, TEAM_NAMES[k % TEAM_NAMES.length]!]);
    for (let p = 0; p < counts.portals; p++) {
      const [name, slug] = PORTALS[p % PORTALS.length]!;
      const suffix = (plan.large ? '' : `-noise-${plan.index}`) + (p >= PORTALS.length ? `-${p}` : '');
      portals.rows.push([first.portal + p, accountId, name, `${slug}${suffix}`]);
      for (let c = 0; c < counts.categoriesPerPortal; c++) {
        const id = first.category + p * counts.categoriesPerPortal + c;
        categories.rows.push([id, accountId, first.portal + p, CATEGORY_NAMES[(p * 5 + c) % CATEGORY_NAMES.length]!]);
      }
    }
    for (let i = 0; i < counts.labels; i++) {
      const title = LABEL_TITLES[i]!;
      const description = `Conversations about ${title.replace(/[-_]/g, ' ')}`;
      labels.rows.push([first.label + i, accountId, title, description, LABEL_COLORS[i % LABEL_COLORS.length]!, i < 10]);
    }
  }
  return [accounts, users, accountUsers, tokens, inboxes, members, teams, portals, categories, labels, tags];
}

/** Where each organisation table names the account of a row: its account_id, or its user's id. */
const OWNER: Partial<Record<TableName, { column: number; by: 'account' | 'user' }>> = {
  accounts: { column: 0, by: 'account' },
  users: { column: 0, by: 'user' },
  account_users: { column: 1, by: 'account' },
  access_tokens: { column: 2, by: 'user' },
  inboxes: { column: 1, by: 'account' },
  inbox_members: { column: 1, by: 'user' },
  teams: { column: 1, by: 'account' },
  portals: { column: 1, by: 'account' },
  categories: { column: 1, by: 'account' },
  labels: { column: 1, by: 'account' },
};

/**
 * The organisation rows of one account, as organisationRows lays them out for all of `plans`
 * (their ids included), without the shared tags.
 */
export function accountOrganisationRows(plans: readonly AccountPlan[], plan: AccountPlan, seed: number): TableRows[] {
  const users = [plan.first.user, plan.first.user + usersOf(plan.counts)];
  const mine = (owner: { column: number; by: 'account' | 'user' }, row: Value[]) => {
    const v = Number(row[owner.column]);
    return owner.by === 'account' ? v === plan.accountId : v >= users[0]! && v < users[1]!;
  };
  return organisationRows(plans, seed)
    .filter((t) => t.table !== 'tags')
    .map((t) => ({ ...t, rows: t.rows.filter((row) => mine(OWNER[t.table]!, row)) }));
}

/** One INSERT for a table's rows: each column travels as one typed array. */
export function buildUnnestInsert(t: TableRows, createdAt: string): { text: string; values: unknown[] } {
  const names = Object.keys(t.columns);
  const arrays = names.map((_, i) => t.rows.map((row) => row[i] ?? null));
  const unnest = names.map((name, i) => `$${i + 1}::${t.columns[name]!}[]`).join(', ');
  if (t.timestamps === false)
    return { text: `INSERT INTO ${t.table} (${names.join(', ')}) SELECT u.* FROM unnest(${unnest}) AS u`, values: arrays };
  const ts = `$${names.length + 1}::timestamp`;
  return {
    text: `INSERT INTO ${t.table} (${names.join(', ')}, created_at, updated_at) SELECT u.*, ${ts}, ${ts} FROM unnest(${unnest}) AS u`,
    values: [...arrays, createdAt],
  };
}
