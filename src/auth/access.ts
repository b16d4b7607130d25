/** token → user → account → role → accessible inboxes (contract §2). */
import type { Db } from '../db/db.js';
import { MESSAGES, SearchError } from '../errors.js';

/** Bit values of `accounts.feature_flags` (a bigint bitmask: test in SQL, never as a JS number). */
export const FEATURE_BITS = {
  searchWithGin: 2n ** 41n,
  advancedSearch: 2n ** 52n,
} as const;

export interface Caller {
  userId: number;
}

/** Everything a search needs to know about who asks, resolved once per request. */
export interface AccessContext {
  accountId: number;
  userId: number;
  role: 'agent' | 'administrator';
  /** Inboxes whose conversations and messages the caller may see. */
  inboxIds: number[];
  flags: { searchWithGin: boolean; advancedSearch: boolean };
}

/** Resolves an access token to its user; throws the contract's 401 errors. */
export async function authenticate(db: Db, token: string | undefined): Promise<Caller> {
  if (token === undefined || token.trim() === '') throw new SearchError('missing_token', MESSAGES.missingToken);
  const rows = await db.query<{ owner_type: string | null; owner_id: number | null }>(
    { text: 'SELECT owner_type, owner_id FROM access_tokens WHERE token = $1 LIMIT 1', values: [token], planOnce: true },
    'auth_token',
  );
  const row = rows[0];
  if (!row || row.owner_id === null) throw new SearchError('invalid_token', MESSAGES.invalidToken);
  if (row.owner_type !== 'User') throw new SearchError('bot_token', MESSAGES.botToken);
  return { userId: row.owner_id };
}

/** The accounts a user belongs to (id and name, for the "which account" error), ascending by id. */
export async function listAccounts(db: Db, caller: Caller): Promise<{ id: number; name: string | null }[]> {
  return db.query<{ id: number; name: string | null }>(
    {
      text: `SELECT au.account_id AS id, a.name FROM account_users au LEFT JOIN accounts a ON a.id = au.account_id
             WHERE au.user_id = $1::bigint ORDER BY au.account_id`,
      values: [caller.userId],
      planOnce: true,
    },
    'auth_accounts',
  );
}

interface AccountRow {
  status: number | null;
  role: number | null;
  is_member: boolean;
  search_with_gin: boolean;
  advanced_search: boolean;
  inbox_ids: number[] | null;
}

/*
 * Every statement here reads by keys (a token, an account, a user's memberships, an account's
 * inboxes): the same plan for any caller, planned once per connection (SqlQuery.planOnce).
 */

/** The caller's inboxes: every inbox of the account for an administrator, its memberships otherwise. */
const INBOX_IDS = (userId: string) => `
  CASE WHEN au.id IS NULL THEN NULL
       WHEN au.role = 1 THEN ARRAY(SELECT i.id FROM inboxes i WHERE i.account_id = a.id ORDER BY i.id)
       ELSE ARRAY(SELECT i.id FROM inboxes i
                  JOIN inbox_members im ON im.inbox_id = i.id AND im.user_id = ${userId}
                  WHERE i.account_id = a.id ORDER BY i.id)
  END AS inbox_ids`;

const ACCOUNT_COLUMNS = (userId: string) => `
  a.status, au.role, au.id IS NOT NULL AS is_member,
  (a.feature_flags & $3::bigint) <> 0 AS search_with_gin,
  (a.feature_flags & $4::bigint) <> 0 AS advanced_search,
  ${INBOX_IDS(userId)}`;

const FLAG_VALUES = [FEATURE_BITS.searchWithGin.toString(), FEATURE_BITS.advancedSearch.toString()];

function checkAccountId(accountId: number): void {
  if (!Number.isSafeInteger(accountId) || accountId <= 0) throw new SearchError('account_not_found', MESSAGES.accountNotFound);
}

/** The account checks in the contract's order; `row` undefined = no such account. */
function toAccess(row: AccountRow | undefined, caller: Caller, accountId: number): AccessContext {
  if (!row) throw new SearchError('account_not_found', MESSAGES.accountNotFound);
  if (!row.is_member) throw new SearchError('not_account_member', MESSAGES.notMember);
  if ((row.status ?? 0) !== 0) throw new SearchError('account_suspended', MESSAGES.accountSuspended);
  return {
    accountId,
    userId: caller.userId,
    role: row.role === 1 ? 'administrator' : 'agent',
    inboxIds: (row.inbox_ids ?? []).map(Number),
    flags: { searchWithGin: row.search_with_gin, advancedSearch: row.advanced_search },
  };
}

/**
 * Checks the account and the caller's membership, and lists the caller's inboxes in one query.
 * Membership is checked before suspension, so a non-member learns nothing about the account.
 */
export async function resolveAccess(db: Db, caller: Caller, accountId: number): Promise<AccessContext> {
  checkAccountId(accountId);
  const rows = await db.query<AccountRow>(
    {
      text: `
        SELECT ${ACCOUNT_COLUMNS('$2::bigint')}
        FROM accounts a
        LEFT JOIN account_users au ON au.account_id = a.id AND au.user_id = $2::bigint
        WHERE a.id = $1::bigint`,
      values: [accountId, caller.userId, ...FLAG_VALUES],
      planOnce: true,
    },
    'auth_account',
  );
  return toAccess(rows[0], caller, accountId);
}

interface TokenAccessRow extends AccountRow {
  owner_type: string | null;
  owner_id: number | null;
  account_exists: boolean;
}

/**
 * Token → user → account → role → inboxes in one statement (one round trip per REST call). The
 * checks keep the contract's order: the token's 401s are thrown here; the account's (404,
 * membership, suspension) by `access()`, so the caller is known even when the account refuses.
 */
export async function resolveTokenAccess(
  db: Db,
  token: string | undefined,
  accountId: number,
): Promise<{ caller: Caller; access: () => AccessContext }> {
  if (token === undefined || token.trim() === '') throw new SearchError('missing_token', MESSAGES.missingToken);
  if (!Number.isSafeInteger(accountId) || accountId <= 0) {
    const caller = await authenticate(db, token);
    return { caller, access: () => toAccess(undefined, caller, accountId) };
  }
  const rows = await db.query<TokenAccessRow>(
    {
      text: `
        SELECT t.owner_type, t.owner_id, a.id IS NOT NULL AS account_exists, ${ACCOUNT_COLUMNS('t.owner_id')}
        FROM (SELECT owner_type, owner_id FROM access_tokens WHERE token = $1 LIMIT 1) t
        LEFT JOIN accounts a ON a.id = $2::bigint
        LEFT JOIN account_users au ON au.account_id = a.id AND au.user_id = t.owner_id AND t.owner_type = 'User'`,
      values: [token, accountId, ...FLAG_VALUES],
      planOnce: true,
    },
    'auth_token_account',
  );
  const row = rows[0];
  if (!row || row.owner_id === null) throw new SearchError('invalid_token', MESSAGES.invalidToken);
  if (row.owner_type !== 'User') throw new SearchError('bot_token', MESSAGES.botToken);
  const caller: Caller = { userId: Number(row.owner_id) };
  return { caller, access: () => toAccess(row.account_exists ? row : undefined, caller, accountId) };
}
