/**
 * The REST surface: `GET /api/v1/accounts/{account_id}/search[/<resource>]` → `{ payload }`, and
 * the reads on the help desk's own paths (a conversation's messages, a contact, an article).
 * Order of checks, as in the help desk: token (401) → account (404/401) → parameters (422) → record (404).
 */
import { authenticateToken, openContextForToken } from '../search/core.js';
import { MESSAGES, SearchError } from '../errors.js';
import {
  parseQueryParams,
  parseWith,
  queryInput,
  readInputProblems,
  readParamsSchemas,
  type Operation,
  type ReadOperation,
  type ReadParamsOf,
} from '../search/params.js';
import { runRead } from '../search/read/index.js';
import type { Payload } from '../search/records.js';
import { runSearch } from '../search/service.js';
import type { Handler, RequestContext } from './context.js';
import { mcpToken } from './mcp.js';
import { sendJson } from './respond.js';

const REST_PATH = /^\/api\/v1\/accounts\/([^/]+)\/search(?:\/(contacts|conversations|messages|articles))?$/;

export interface RestRoute {
  op: Operation | ReadOperation;
  /** Route template for logs and metrics, e.g. `/api/v1/accounts/:account_id/search/messages`. */
  label: string;
  handler: Handler;
}

/** Matches a REST search path; the account segment is checked later (after authentication). */
export function matchRestRoute(pathname: string): RestRoute | undefined {
  const m = REST_PATH.exec(pathname);
  if (!m) return matchReadRoute(pathname);
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

/** `api_access_token`, else `Authorization: Bearer <token>` (the form the 401's WWW-Authenticate names). */
const requestToken = (ctx: RequestContext) => mcpToken(ctx);

/**
 * Token (401) → account (404/401), in one statement or none when the surface's access cache
 * knows both. A malformed account segment is a 404, but only after the token (contract §2).
 */
async function openRequestContext(ctx: RequestContext, segment: string) {
  const { app, log, facts } = ctx;
  const token = requestToken(ctx);
  let accountId: number;
  try {
    accountId = parseAccountSegment(segment);
  } catch (err) {
    facts.user = (await authenticateToken(app.deps, token)).userId;
    throw err;
  }
  facts.account = accountId;
  const { ctx: searchCtx } = await openContextForToken(app.deps, token, accountId, log, (caller) => {
    facts.user = caller.userId;
  });
  return searchCtx;
}

async function handleSearch(ctx: RequestContext, op: Operation, segment: string): Promise<void> {
  const { app, res, url, facts } = ctx;
  const searchCtx = await openRequestContext(ctx, segment);
  const params = parseQueryParams(op, url.searchParams);
  const result = await runSearch(searchCtx, app.deps.engines, op, params);
  Object.assign(facts, { counts: countRows(result.payload), engine: result.meta.engine });
  sendJson(res, 200, { payload: result.payload });
}

/** The reads, each on the help desk's path for it; `:id` is the record the route reads. */
const READ_ROUTES: ReadonlyArray<{
  op: ReadOperation;
  path: RegExp;
  label: string;
  /** The path parameter's name in the operation's parameters. */
  idKey: 'display_id' | 'id';
  notFound: string;
}> = [
  {
    op: 'get_conversation',
    path: /^\/api\/v1\/accounts\/([^/]+)\/conversations\/([^/]+)\/messages$/,
    label: '/api/v1/accounts/:account_id/conversations/:display_id/messages',
    idKey: 'display_id',
    notFound: MESSAGES.conversationNotFound,
  },
  {
    op: 'get_contact',
    path: /^\/api\/v1\/accounts\/([^/]+)\/contacts\/([^/]+)$/,
    label: '/api/v1/accounts/:account_id/contacts/:id',
    idKey: 'id',
    notFound: MESSAGES.contactNotFound,
  },
  {
    op: 'get_article',
    path: /^\/api\/v1\/accounts\/([^/]+)\/articles\/([^/]+)$/,
    label: '/api/v1/accounts/:account_id/articles/:id',
    idKey: 'id',
    notFound: MESSAGES.articleNotFound,
  },
];

function matchReadRoute(pathname: string): RestRoute | undefined {
  for (const route of READ_ROUTES) {
    const m = route.path.exec(pathname);
    if (!m) continue;
    const [, account, id] = m as unknown as [string, string, string];
    return { op: route.op, label: route.label, handler: (ctx) => handleRead(ctx, route, account, id) };
  }
  return undefined;
}

/** The record id of a path: a positive integer in canonical form; anything else names no record. */
function recordId(segment: string): number | undefined {
  const id = /^[1-9]\d{0,15}$/.test(segment) ? Number(segment) : NaN;
  return Number.isSafeInteger(id) ? id : undefined;
}

async function handleRead(
  ctx: RequestContext,
  route: (typeof READ_ROUTES)[number],
  accountSegment: string,
  idSegment: string,
): Promise<void> {
  const { res, url, facts } = ctx;
  const searchCtx = await openRequestContext(ctx, accountSegment);
  const schema = readParamsSchemas[route.op];
  // The path names the record; the query string may not (an `id` there is ignored like any unknown parameter).
  const keys = Object.keys(schema.shape).filter((k) => k !== 'id' && k !== 'display_id');
  const input = queryInput(schema, url.searchParams, keys);
  const id = recordId(idSegment);
  // Parameters (422) before the record (404): a path id that names no record stands in as 1 until then.
  const named = { ...input, [route.idKey]: id ?? 1 };
  const params = parseWith(schema, named, readInputProblems(route.op, named)) as ReadParamsOf<typeof route.op>;
  if (id === undefined) throw new SearchError('not_found', route.notFound);
  const result = await runRead(searchCtx, route.op, params);
  facts.engine = result.meta.engine;
  sendJson(res, 200, result.body);
}
