/**
 * The REST surface: `GET /api/v1/accounts/{account_id}/search[/<resource>]` → `{ payload }`, and
 * the reads on the help desk's own paths (a conversation's messages, a contact, an article).
 * The core's pipeline (src/search/pipeline.ts) runs each request in the help desk's order: token (401) →
 * account (404/401) → parameters (422) → record (404); this module extracts the inputs and writes the body.
 */
import { MESSAGES, SearchError } from '../errors.js';
import {
  parseQueryParams,
  parseWith,
  queryInput,
  readInputProblems,
  readParamsSchemas,
  type Operation,
  type ReadOperation,
} from '../search/params.js';
import { handle, handleProfile, type PipelineRequest, type ResultOf } from '../search/pipeline.js';
import { parseListQuery, type TriageOperation } from '../search/list-params.js';
import type { Handler, RequestContext } from './context.js';
import { sendJson } from './respond.js';

const REST_PATH = /^\/api\/v1\/accounts\/([^/]+)\/search(?:\/(contacts|conversations|messages|articles))?$/;

export interface RestRoute {
  op: Operation | ReadOperation | TriageOperation | 'profile';
  /** Route template for logs and metrics, e.g. `/api/v1/accounts/:account_id/search/messages`. */
  label: string;
  handler: Handler;
}

/** Matches a REST search path; the account segment is checked later (after authentication). */
export function matchRestRoute(pathname: string): RestRoute | undefined {
  const m = REST_PATH.exec(pathname);
  if (!m) return matchReadRoute(pathname) ?? matchTriageRoute(pathname);
  const op = (m[2] ?? 'all') as Operation;
  const segment = m[1] as string;
  return {
    op,
    label: `/api/v1/accounts/:account_id/search${m[2] ? `/${m[2]}` : ''}`,
    handler: (ctx) => handleSearch(ctx, op, segment),
  };
}

/**
 * The id a path segment names: a positive integer in canonical form; anything else names nothing
 * (an account segment then stands as NaN: the core answers "unknown account", after the token).
 */
function pathId(segment: string): number | undefined {
  const id = /^[1-9]\d{0,15}$/.test(segment) ? Number(segment) : NaN;
  return Number.isSafeInteger(id) ? id : undefined;
}

/**
 * Runs a request through the core's pipeline with the request's token (`api_access_token`, else
 * the `Authorization: Bearer` form the 401's WWW-Authenticate names); its facts go to the
 * request's log line, and whether the token named a user to the rate limit.
 */
async function runRequest<O extends Operation | ReadOperation | TriageOperation>(
  ctx: RequestContext,
  request: Omit<PipelineRequest<O>, 'token' | 'logger'>,
): Promise<ResultOf<O>> {
  // REST bodies carry no notices (the interface's format): no statement is spent on them.
  const outcome = await handle(ctx.app.deps, { ...request, token: ctx.token, logger: ctx.log, checks: false });
  Object.assign(ctx.facts, outcome.facts);
  ctx.limit?.settle(outcome.facts.user !== undefined, outcome.error);
  if (outcome.error) throw outcome.error;
  return outcome.result;
}

async function handleSearch(ctx: RequestContext, op: Operation, segment: string): Promise<void> {
  const result = await runRequest(ctx, {
    account: pathId(segment) ?? NaN,
    operation: op,
    params: () => parseQueryParams(op, ctx.url.searchParams),
  });
  sendJson(ctx.res, 200, { payload: result.payload });
}

/** The path parameter's name in a read's parameters. */
type IdKey = 'display_id' | 'id';

/** The query parameters of a read: the path names the record (an `id` there is ignored like any unknown parameter). */
const queryKeysOf = (op: ReadOperation) =>
  Object.keys(readParamsSchemas[op].shape).filter((k) => k !== 'id' && k !== 'display_id');

/** The reads, each on the help desk's path for it; `:id` is the record the route reads. */
const READ_ROUTES: ReadonlyArray<{
  op: ReadOperation;
  path: RegExp;
  label: string;
  idKey: IdKey;
  queryKeys: string[];
  notFound: string;
}> = [
  {
    op: 'get_conversation',
    queryKeys: queryKeysOf('get_conversation'),
    path: /^\/api\/v1\/accounts\/([^/]+)\/conversations\/([^/]+)\/messages$/,
    label: '/api/v1/accounts/:account_id/conversations/:display_id/messages',
    idKey: 'display_id',
    notFound: MESSAGES.conversationNotFound,
  },
  {
    op: 'get_contact',
    queryKeys: queryKeysOf('get_contact'),
    path: /^\/api\/v1\/accounts\/([^/]+)\/contacts\/([^/]+)$/,
    label: '/api/v1/accounts/:account_id/contacts/:id',
    idKey: 'id',
    notFound: MESSAGES.contactNotFound,
  },
  {
    op: 'get_article',
    queryKeys: queryKeysOf('get_article'),
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

async function handleRead(
  ctx: RequestContext,
  route: (typeof READ_ROUTES)[number],
  accountSegment: string,
  idSegment: string,
): Promise<void> {
  const result = await runRequest(ctx, {
    account: pathId(accountSegment) ?? NaN,
    operation: route.op,
    params: () => {
      const input = queryInput(readParamsSchemas[route.op], ctx.url.searchParams, route.queryKeys);
      const id = pathId(idSegment);
      // Parameters (422) before the record (404): a path id that names no record stands in as 1 until then.
      const named = { ...input, [route.idKey]: id ?? 1 };
      const params = parseWith(readParamsSchemas[route.op], named, readInputProblems(route.op, named));
      if (id === undefined) throw new SearchError('not_found', route.notFound);
      return params;
    },
  });
  sendJson(ctx.res, 200, result.body);
}

/** The help desk's list and directory paths: `/api/v1/accounts/:account_id/<name>`. */
const TRIAGE_PATH = /^\/api\/v1\/accounts\/([^/]+)\/(conversations|inboxes|teams|agents|labels)$/;

const TRIAGE_OPS: Record<string, TriageOperation> = {
  conversations: 'list_conversations',
  inboxes: 'list_inboxes',
  teams: 'list_teams',
  agents: 'list_agents',
  labels: 'list_labels',
};

function matchTriageRoute(pathname: string): RestRoute | undefined {
  if (pathname === '/api/v1/profile') return { op: 'profile', label: '/api/v1/profile', handler: handleProfileRoute };
  const m = TRIAGE_PATH.exec(pathname);
  if (!m) return undefined;
  const [, segment, name] = m as unknown as [string, string, string];
  const op = TRIAGE_OPS[name] as TriageOperation;
  return { op, label: `/api/v1/accounts/:account_id/${name}`, handler: (ctx) => handleTriage(ctx, op, segment) };
}

/** The list (`{ data: { meta, payload } }`) or one directory list (`{ payload }`); unknown query parameters are ignored. */
async function handleTriage(ctx: RequestContext, op: TriageOperation, segment: string): Promise<void> {
  const result = await runRequest(ctx, {
    account: pathId(segment) ?? NaN,
    operation: op,
    params: () => (op === 'list_conversations' ? parseListQuery(ctx.url.searchParams) : {}),
  });
  sendJson(ctx.res, 200, result.body);
}

async function handleProfileRoute(ctx: RequestContext): Promise<void> {
  const outcome = await handleProfile(ctx.app.deps, ctx.token);
  Object.assign(ctx.facts, outcome.facts);
  if (outcome.error) throw outcome.error;
  sendJson(ctx.res, 200, outcome.result);
}
