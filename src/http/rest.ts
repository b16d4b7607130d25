/**
 * The REST surface: `GET /api/v1/accounts/{account_id}/search[/<resource>]` → `{ payload }`.
 * Order of checks, as in the help desk: token (401) → account (404/401) → parameters (422).
 */
import { authenticateToken, openContextForToken } from '../search/core.js';
import { MESSAGES, SearchError } from '../search/errors.js';
import { parseQueryParams, type Operation } from '../search/params.js';
import type { Payload } from '../search/records.js';
import { runSearch } from '../search/service.js';
import { headerValue, type Handler } from './context.js';
import { sendJson } from './respond.js';

const REST_PATH = /^\/api\/v1\/accounts\/([^/]+)\/search(?:\/(contacts|conversations|messages|articles))?$/;

export interface RestRoute {
  op: Operation;
  /** Route template for logs and metrics, e.g. `/api/v1/accounts/:account_id/search/messages`. */
  label: string;
  handler: Handler;
}

/** Matches a REST search path; the account segment is checked later (after authentication). */
export function matchRestRoute(pathname: string): RestRoute | undefined {
  const m = REST_PATH.exec(pathname);
  if (!m) return undefined;
  const op = (m[2] ?? 'all') as Operation;
  const segment = m[1] as string;
  return {
    op,
    label: `/api/v1/accounts/:account_id/search${m[2] ? `/${m[2]}` : ''}`,
    handler: (ctx) => handleSearch(ctx, op, segment),
  };
}

/** `{account_id}` must be a positive integer in canonical form; anything else is an unknown account. */
export function parseAccountSegment(segment: string): number {
  const id = /^[1-9]\d{0,15}$/.test(segment) ? Number(segment) : NaN;
  if (!Number.isSafeInteger(id)) throw new SearchError('account_not_found', MESSAGES.accountNotFound);
  return id;
}

function countRows(payload: Payload): Record<string, number> {
  return Object.fromEntries(Object.entries(payload).map(([key, rows]) => [key, (rows as unknown[]).length]));
}

async function handleSearch(ctx: Parameters<Handler>[0], op: Operation, segment: string): Promise<void> {
  const { app, req, res, url, log, facts } = ctx;
  const token = headerValue(req, 'api_access_token');
  let accountId: number;
  try {
    accountId = parseAccountSegment(segment);
  } catch (err) {
    // A malformed account is a 404, but only after the token (401 first, contract §2).
    facts.user = (await authenticateToken(app.deps, token)).userId;
    throw err;
  }
  facts.account = accountId;
  // Token and account in one statement (or none, when the surface's access cache knows both).
  const { ctx: searchCtx } = await openContextForToken(app.deps, token, accountId, log, (caller) => {
    facts.user = caller.userId;
  });
  const params = parseQueryParams(op, url.searchParams);
  const result = await runSearch(searchCtx, app.deps.engines, op, params);
  Object.assign(facts, { counts: countRows(result.payload), engine: result.meta.engine });
  sendJson(res, 200, { payload: result.payload });
}
