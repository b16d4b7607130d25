/**
 * The caller checks of the core: token → caller, caller → access to one account, and opening a
 * session for a token. The request pipeline (pipeline.ts) runs them in order; kept apart from it
 * so a start that only checks the caller (stdio) does not load the search modules.
 *
 * With `accessCache` set (the HTTP and stdio surfaces set it, see withAccessCache), accepted
 * caller checks are reused for at most its TTL; refusals and failures are always checked anew.
 */
import { authenticate, resolveAccess, resolveTokenAccess, type AccessContext, type Caller } from '../auth/access.js';
import { createAccessCache, type AccessCache } from '../auth/cache.js';
import type { Db } from '../db/db.js';
import { SearchError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { SearchContext } from './context.js';
import type { MessageEngines } from './messages/index.js';
import type { PlanOptions } from './plan/strategy.js';

/** The dependencies every surface shares. */
export interface SearchDeps {
  db: Db;
  engines: MessageEngines;
  logger: Logger;
  now: () => number;
  /** The help desk's FRONTEND_URL (SEARCHDESK_APP_URL, no trailing slash): records then carry `url`. */
  appUrl?: string;
  /** Short-lived memo of accepted caller checks; absent = every call asks Postgres. */
  accessCache?: AccessCache;
  /** Forced and disabled strategies and knobs of the search plans: tests and the bench only. */
  plan?: PlanOptions;
}

/** `deps` with an access cache (a new one unless it already has one). */
export function withAccessCache(deps: SearchDeps): SearchDeps {
  return deps.accessCache ? deps : { ...deps, accessCache: createAccessCache() };
}

/** Shared, so a cached access cannot be changed by whoever holds it. */
function freezeAccess(access: AccessContext): AccessContext {
  Object.freeze(access.inboxIds);
  Object.freeze(access.flags);
  return Object.freeze(access);
}

/** Resolves a token to a caller (401 errors for missing, unknown and bot tokens). */
export async function authenticateToken(deps: SearchDeps, token: string | undefined): Promise<Caller> {
  const cache = deps.accessCache;
  const hit = cache && token !== undefined ? cache.caller(token) : undefined;
  if (hit) return hit;
  const caller = await authenticate(deps.db, token);
  cache?.rememberCaller(token as string, caller);
  return caller;
}

async function accessOf(deps: SearchDeps, caller: Caller, accountId: number): Promise<AccessContext> {
  const cache = deps.accessCache;
  const hit = cache?.access(caller, accountId);
  if (hit) return hit;
  const access = await resolveAccess(deps.db, caller, accountId);
  if (!cache) return access;
  cache.rememberAccess(caller, freezeAccess(access));
  return access;
}

/** Builds the context of one request: the caller's access to one account. */
export async function openContext(
  deps: SearchDeps,
  caller: Caller,
  accountId: number,
  logger = deps.logger,
): Promise<SearchContext> {
  const access = await accessOf(deps, caller, accountId);
  return { db: deps.db, access, logger, now: deps.now, appUrl: deps.appUrl, plan: deps.plan };
}

/**
 * Token and account at once (REST): one statement when nothing is cached, none when both are.
 * Errors come in the contract's order: token (401) → account (404, membership, suspension).
 * `onCaller` hears who the caller is as soon as the token is accepted, even when the account
 * check then refuses (for the request's log line).
 */
export async function openContextForToken(
  deps: SearchDeps,
  token: string | undefined,
  accountId: number,
  logger = deps.logger,
  onCaller?: (caller: Caller) => void,
): Promise<{ caller: Caller; ctx: SearchContext }> {
  const cache = deps.accessCache;
  const known = cache && token !== undefined ? cache.caller(token) : undefined;
  if (known) {
    onCaller?.(known);
    return { caller: known, ctx: await openContext(deps, known, accountId, logger) };
  }
  const { caller, access } = await resolveTokenAccess(deps.db, token, accountId);
  onCaller?.(caller);
  cache?.rememberCaller(token as string, caller);
  const granted = access();
  cache?.rememberAccess(caller, freezeAccess(granted));
  return { caller, ctx: { db: deps.db, access: granted, logger, now: deps.now, appUrl: deps.appUrl, plan: deps.plan } };
}

/**
 * Opens a session for a token before any protocol is spoken (the stdio process at start, one
 * `POST /mcp`): a missing, unknown or bot token throws its 401 error. When Postgres does not
 * answer, the token cannot be checked yet: the session opens anyway (`caller` undefined), and as
 * every call checks the token again (the pipeline does, through the access cache), tools answer
 * "Search backend unavailable" until Postgres is back and then work, or refuse the token (contract §8).
 */
export async function openSession(deps: SearchDeps, token: string | undefined): Promise<{ caller: Caller | undefined }> {
  try {
    return { caller: await authenticateToken(deps, token) };
  } catch (err) {
    if (err instanceof SearchError && err.code === 'backend_unavailable') return { caller: undefined };
    throw err;
  }
}
