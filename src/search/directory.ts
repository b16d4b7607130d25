/**
 * The account directory (contract §9.4): who the caller is, its accounts, and the inboxes (only
 * those it may see), teams, agents and labels of one account with their ids. Each list is one
 * subquery of one statement, so get_account is one round trip.
 */
import { SqlParams, type SqlQuery } from '../db/db.js';
import type { AccessContext, Caller } from '../auth/access.js';
import type { Db } from '../db/db.js';
import type { SearchContext } from './context.js';
import type { AccountDirectory, AgentEntry, InboxEntry, LabelRow, Profile, TeamEntry } from './triage-records.js';

/** Most entries of each list get_account returns; past it the list is cut and says so. */
export const DIRECTORY_CAP = 500;

export type DirectoryKind = 'inboxes' | 'teams' | 'agents' | 'labels';

/** A user's name as the help desk shows it: the display name when set. */
const USER_NAME = "coalesce(nullif(u.display_name, ''), u.name)";
const ROLE = "CASE WHEN au.role = 1 THEN 'administrator' ELSE 'agent' END";

/** The SELECT of one list (json objects, in id order; labels by title), `limit` rows at most. */
function listSql(kind: DirectoryKind, account: string, inboxes: () => string, limit: string): string {
  switch (kind) {
    case 'inboxes':
      return `SELECT json_build_object('id', i.id, 'name', i.name, 'channel_type', i.channel_type) AS e FROM inboxes i
              WHERE i.account_id = ${account}::bigint AND i.id = ANY(${inboxes()}::bigint[]) ORDER BY i.id LIMIT ${limit}`;
    case 'teams':
      return `SELECT json_build_object('id', t.id, 'name', t.name) AS e FROM teams t
              WHERE t.account_id = ${account}::bigint ORDER BY t.id LIMIT ${limit}`;
    case 'agents':
      return `SELECT json_build_object('id', u.id, 'name', ${USER_NAME}, 'email', u.email, 'role', ${ROLE}) AS e
              FROM account_users au JOIN users u ON u.id = au.user_id
              WHERE au.account_id = ${account}::bigint ORDER BY u.id LIMIT ${limit}`;
    case 'labels':
      return `SELECT json_build_object('id', l.id, 'title', l.title, 'description', l.description, 'color', l.color) AS e
              FROM labels l WHERE l.account_id = ${account}::bigint ORDER BY l.title, l.id LIMIT ${limit}`;
  }
}

const KINDS: readonly DirectoryKind[] = ['inboxes', 'teams', 'agents', 'labels'];

/**
 * One statement for the directory of the caller's account: the account's name, the caller's
 * name, and each of `kinds` as a json array of at most `cap` + 1 entries (the extra one tells a
 * cut list); `cap` undefined = every entry. Its plan is the same whatever the account (each list
 * read by its account's index), so it is planned once per connection.
 */
export function buildDirectoryQuery(
  access: Pick<AccessContext, 'accountId' | 'userId' | 'inboxIds'>,
  kinds: readonly DirectoryKind[],
  cap: number | undefined,
): SqlQuery {
  const p = new SqlParams();
  const account = p.add(access.accountId);
  // Added where used: a placeholder no statement mentions has no type Postgres can infer.
  const inboxes = () => p.add(access.inboxIds);
  const limit = cap === undefined ? 'ALL' : p.add(cap + 1);
  const lists = kinds.map(
    (kind) => `(SELECT coalesce(json_agg(x.e), '[]'::json) FROM (${listSql(kind, account, inboxes, limit)}) x) AS ${kind}`,
  );
  const text = `
    SELECT a.name AS account_name,
           (SELECT ${USER_NAME} FROM users u WHERE u.id = ${p.add(access.userId)}::bigint) AS user_name
           ${lists.map((l) => `, ${l}`).join('')}
    FROM accounts a WHERE a.id = ${account}::bigint`;
  return { text, values: p.values, planOnce: true };
}

interface DirectoryRow {
  account_name: string | null;
  user_name: string | null;
  inboxes?: InboxEntry[];
  teams?: TeamEntry[];
  agents?: AgentEntry[];
  labels?: LabelRow[];
}

async function readDirectory(ctx: SearchContext, kinds: readonly DirectoryKind[], cap?: number): Promise<DirectoryRow> {
  const [row] = await ctx.db.query<DirectoryRow>(buildDirectoryQuery(ctx.access, kinds, cap), 'directory');
  return row ?? { account_name: null, user_name: null };
}

/** get_account: the account, the caller and the four lists, each cut at DIRECTORY_CAP with a flag. */
export async function getAccountDirectory(
  ctx: SearchContext,
  messageSearch: boolean,
): Promise<{ body: AccountDirectory; notices: string[] }> {
  const row = await readDirectory(ctx, KINDS, DIRECTORY_CAP);
  const cut = <T>(list: T[] | undefined) => ({
    items: (list ?? []).slice(0, DIRECTORY_CAP),
    more: (list ?? []).length > DIRECTORY_CAP,
  });
  const [inboxes, teams, agents, labels] = [cut(row.inboxes), cut(row.teams), cut(row.agents), cut(row.labels)];
  const truncated = { inboxes: inboxes.more, teams: teams.more, agents: agents.more, labels: labels.more };
  const notices = Object.entries(truncated)
    .filter(([, more]) => more)
    .map(([kind]) => `Only the first ${DIRECTORY_CAP} ${kind} of this account are listed.`);
  const { accountId, userId, role } = ctx.access;
  return {
    body: {
      account: { id: accountId, name: row.account_name, message_search: messageSearch },
      me: { id: userId, name: row.user_name, role },
      inboxes: inboxes.items,
      teams: teams.items,
      agents: agents.items,
      labels: labels.items.map(({ title, description, color }) => ({ title, description, color })),
      truncated,
    },
    notices,
  };
}

/** One whole list of a REST directory route (`/inboxes`, `/teams`, `/agents`, `/labels`). */
export async function getDirectoryList(ctx: SearchContext, kind: DirectoryKind): Promise<{ payload: unknown[] }> {
  const row = await readDirectory(ctx, [kind]);
  return { payload: row[kind] ?? [] };
}

/** `GET /api/v1/profile`: the caller and its accounts (id order), with its role in each. */
export async function getProfile(db: Db, caller: Caller): Promise<Profile> {
  const [row] = await db.query<Profile['payload']>(
    {
      text: `
        SELECT u.id, ${USER_NAME} AS name, u.email,
               (SELECT coalesce(json_agg(json_build_object('id', a.id, 'name', a.name, 'role', ${ROLE}) ORDER BY a.id), '[]'::json)
                FROM account_users au JOIN accounts a ON a.id = au.account_id WHERE au.user_id = u.id) AS accounts
        FROM users u WHERE u.id = $1::bigint`,
      values: [caller.userId],
      planOnce: true,
    },
    'profile',
  );
  return { payload: row ?? { id: caller.userId, name: null, email: null, accounts: [] } };
}
