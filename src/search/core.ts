/**
 * The core as the surfaces use it: authenticate → account access → run a validated operation.
 * Surfaces parse parameters with params.ts and map SearchError in one place each.
 */
import { authenticate, resolveAccess, type Caller } from '../auth/access.js';
import type { Db } from '../db/db.js';
import type { Logger } from '../logger.js';
import type { SearchContext } from './context.js';
import type { MessageEngines } from './messages.js';
import type { Operation, ParamsOf } from './params.js';
import { runSearch, type SearchResult } from './service.js';

/** The dependencies every surface shares. */
export interface SearchDeps {
  db: Db;
  engines: MessageEngines;
  logger: Logger;
  now: () => number;
}

/** Resolves a token to a caller (401 errors for missing, unknown and bot tokens). */
export function authenticateToken(deps: SearchDeps, token: string | undefined): Promise<Caller> {
  return authenticate(deps.db, token);
}

/** Builds the context of one request: the caller's access to one account. */
export async function openContext(
  deps: SearchDeps,
  caller: Caller,
  accountId: number,
  logger = deps.logger,
): Promise<SearchContext> {
  const access = await resolveAccess(deps.db, caller, accountId);
  return { db: deps.db, access, logger, now: deps.now };
}

/** Runs an operation for a caller on an account. */
export async function searchAs<O extends Operation>(
  deps: SearchDeps,
  caller: Caller,
  accountId: number,
  op: O,
  params: ParamsOf<O>,
  logger = deps.logger,
): Promise<SearchResult> {
  const ctx = await openContext(deps, caller, accountId, logger);
  return runSearch(ctx, deps.engines, op, params);
}
