/**
 * The demo organisation: two accounts, their inboxes, teams, users, memberships and tokens.
 * Ids are fixed so the tokens and account ids printed at start never change.
 */
import { FEATURE_BITS } from '../../auth/access.js';
import type { DemoRow } from './rows.js';

export const ACME = 1;
export const GLOBEX = 2;

export interface DemoInbox {
  id: number;
  accountId: number;
  name: string;
  channelType: 'Channel::WebWidget' | 'Channel::Email' | 'Channel::Whatsapp' | 'Channel::Api';
  /** Relative share of the account's conversations. */
  weight: number;
}

export const INBOXES: readonly DemoInbox[] = [
  { id: 1, accountId: ACME, name: 'Website Chat', channelType: 'Channel::WebWidget', weight: 4 },
  { id: 2, accountId: ACME, name: 'Support Email', channelType: 'Channel::Email', weight: 4 },
  { id: 3, accountId: ACME, name: 'WhatsApp', channelType: 'Channel::Whatsapp', weight: 3 },
  { id: 4, accountId: ACME, name: 'Mobile App', channelType: 'Channel::Api', weight: 2 },
  { id: 5, accountId: GLOBEX, name: 'Globex Website', channelType: 'Channel::WebWidget', weight: 1 },
  { id: 6, accountId: GLOBEX, name: 'Globex Email', channelType: 'Channel::Email', weight: 1 },
];

export type TeamKey = 'billing' | 'technical' | 'shipping' | 'care';

export const TEAMS: ReadonlyArray<{ id: number; accountId: number; key: TeamKey; name: string }> = [
  { id: 1, accountId: ACME, key: 'billing', name: 'Billing' },
  { id: 2, accountId: ACME, key: 'technical', name: 'Technical Support' },
  { id: 3, accountId: ACME, key: 'shipping', name: 'Shipping & Returns' },
  { id: 4, accountId: GLOBEX, key: 'care', name: 'Customer Care' },
];

export interface DemoUser {
  id: number;
  name: string;
  displayName: string | null;
  email: string;
  accountId: number;
  role: 'administrator' | 'agent';
  /** Inbox memberships (an administrator sees every inbox of the account anyway). */
  inboxIds: number[];
  /** Demo access token; users without one only appear as assignees and senders. */
  token: string | null;
}

export const USERS: readonly DemoUser[] = [
  {
    id: 1,
    name: 'Maya Patel',
    displayName: 'Maya',
    email: 'maya.patel@acme.example',
    accountId: ACME,
    role: 'administrator',
    inboxIds: [1, 2, 3, 4],
    token: 'demo-admin-token',
  },
  {
    id: 2,
    name: 'Tom Becker',
    displayName: null,
    email: 'tom.becker@acme.example',
    accountId: ACME,
    role: 'agent',
    inboxIds: [1, 2],
    token: 'demo-agent-token',
  },
  {
    id: 3,
    name: 'Lena Fischer',
    displayName: null,
    email: 'lena.fischer@acme.example',
    accountId: ACME,
    role: 'agent',
    inboxIds: [2, 3],
    token: 'demo-agent2-token',
  },
  {
    id: 4,
    name: 'Samuel Okafor',
    displayName: 'Sam',
    email: 'sam.okafor@acme.example',
    accountId: ACME,
    role: 'agent',
    inboxIds: [1, 4],
    token: null,
  },
  {
    id: 5,
    name: 'Nina Alvarez',
    displayName: null,
    email: 'nina.alvarez@globex.example',
    accountId: GLOBEX,
    role: 'administrator',
    inboxIds: [5, 6],
    token: 'demo-globex-token',
  },
  {
    id: 6,
    name: 'Oscar Lindqvist',
    displayName: null,
    email: 'oscar.lindqvist@globex.example',
    accountId: GLOBEX,
    role: 'agent',
    inboxIds: [5, 6],
    token: null,
  },
];

/** The AgentBot answering first in the Mobile App inbox; its token must be refused (bots may not search). */
export const BOT = { id: 1, token: 'demo-bot-token' } as const;

export function userById(id: number): DemoUser {
  const user = USERS.find((u) => u.id === id);
  if (!user) throw new Error(`no demo user ${id}`);
  return user;
}

/** Users who may be assigned a conversation of `inboxId`: its members and the account's administrators. */
export function assigneesOf(inbox: DemoInbox): DemoUser[] {
  return USERS.filter((u) => u.accountId === inbox.accountId && (u.role === 'administrator' || u.inboxIds.includes(inbox.id)));
}

export function teamId(accountId: number, key: TeamKey): number | null {
  return TEAMS.find((t) => t.accountId === accountId && t.key === key)?.id ?? null;
}

/** Rows of the organisation tables, created a year before `now` (Unix seconds). */
export function organisationRows(
  now: number,
): Record<'accounts' | 'users' | 'account_users' | 'access_tokens' | 'inboxes' | 'inbox_members' | 'teams', DemoRow[]> {
  const created = now - 365 * 86_400;
  const stamp = { created_at: created, updated_at: created };
  const members = USERS.filter((u) => u.role === 'agent').flatMap((u) => u.inboxIds.map((inboxId) => ({ u, inboxId })));
  return {
    accounts: [
      {
        id: ACME,
        name: 'Acme Support',
        status: 0,
        feature_flags: (FEATURE_BITS.advancedSearch | FEATURE_BITS.searchWithGin).toString(),
        ...stamp,
      },
      { id: GLOBEX, name: 'Globex Help', status: 0, feature_flags: '0', ...stamp },
    ],
    users: USERS.map((u) => ({ id: u.id, name: u.name, display_name: u.displayName, email: u.email, ...stamp })),
    account_users: USERS.map((u) => ({
      id: u.id,
      account_id: u.accountId,
      user_id: u.id,
      role: u.role === 'administrator' ? 1 : 0,
      ...stamp,
    })),
    access_tokens: [
      ...USERS.flatMap((u) => (u.token === null ? [] : [{ owner_type: 'User', owner_id: u.id, token: u.token }])),
      { owner_type: 'AgentBot', owner_id: BOT.id, token: BOT.token },
    ].map((t, i) => ({ id: i + 1, ...t, ...stamp })),
    inboxes: INBOXES.map((i) => ({ id: i.id, account_id: i.accountId, name: i.name, channel_type: i.channelType, ...stamp })),
    inbox_members: members.map(({ u, inboxId }, i) => ({ id: i + 1, user_id: u.id, inbox_id: inboxId, ...stamp })),
    teams: TEAMS.map((t) => ({ id: t.id, account_id: t.accountId, name: t.name, ...stamp })),
  };
}
