/**
 * Which account a tool call searches (contract §2, last paragraph): the `account_id` argument,
 * else the configured default, else the caller's only account; otherwise a tool error that lists
 * the caller's accounts so the model can pick one.
 */
import { listAccountIds, type Caller } from '../auth/access.js';
import type { SearchDeps } from '../search/core.js';
import { MESSAGES, SearchError } from '../errors.js';

/** Resolves the account of a call whose `account_id` was omitted. */
export async function resolveAccountId(
  deps: SearchDeps,
  caller: Caller,
  given: number | undefined,
  defaultAccountId: number | undefined,
): Promise<number> {
  if (given !== undefined) return given;
  if (defaultAccountId !== undefined) return defaultAccountId;
  const ids = await listAccountIds(deps.db, caller);
  if (ids.length === 1) return ids[0] as number;
  if (ids.length === 0) throw new SearchError('not_account_member', MESSAGES.notMember);
  throw new SearchError('account_required', `account_id is required: you belong to accounts ${ids.join(', ')}`);
}
