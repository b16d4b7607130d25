/**
 * One request through the core, as both surfaces run it: token → account → access → parameters →
 * search or read → log facts. The surfaces only extract their inputs (a token, where the account
 * is named, a parameter parser) and map the outcome (REST body and status, MCP tool result).
 *
 * The order of the checks is decided here, by where the account is named:
 * - in the path (REST): token (401) → account (404, membership, suspension) → parameters (422) →
 *   run, the help desk's order;
 * - among the arguments (MCP `account_id`): parameters first (every problem in one message, so a
 *   model fixes them in one round trip) → token → account (the argument, else the configured
 *   default, else the caller's only account) → access → run.
 * The token and the account's access are resolved in one statement when the account is known
 * up front, none when the access cache knows both.
 */
import { listAccounts, type Caller } from '../auth/access.js';
import type { Logger } from '../logger.js';
import { MESSAGES, SearchError, toSearchError } from '../errors.js';
import { authenticateToken, openContext, openContextForToken, type SearchDeps } from './core.js';
import type { SearchContext } from './context.js';
import { readParamsSchemas, type Operation, type ParamsOf, type ReadOperation, type ReadParamsOf } from './params.js';
import { runRead, type ReadResult } from './read/index.js';
import { getProfile } from './directory.js';
import { triageParamsSchemas, type TriageOperation, type TriageParamsOf } from './list-params.js';
import { runTriage, type TriageResult } from './triage.js';
import type { Profile } from './triage-records.js';
import type { Payload } from './records.js';
import { runSearch, type SearchResult } from './service.js';

export type AnyOperation = Operation | ReadOperation | TriageOperation;
export type ParamsFor<O extends AnyOperation> = O extends ReadOperation
  ? ReadParamsOf<O>
  : O extends TriageOperation
    ? TriageParamsOf<O>
    : O extends Operation
      ? ParamsOf<O>
      : never;
export type ResultOf<O extends AnyOperation> = O extends ReadOperation
  ? ReadResult
  : O extends TriageOperation
    ? TriageResult
    : SearchResult;

/**
 * Where the request names its account:
 * - a number: the path's account id (REST); one that is not a positive integer (a malformed
 *   segment, given as NaN) is an unknown account, reported after the token;
 * - `{ argument }`: the `account_id` argument the parameters carry (MCP), else `fallback`
 *   (SEARCHDESK_ACCOUNT_ID), else the caller's only account.
 */
export type AccountSource = number | { argument: true; fallback: number | undefined };

export interface PipelineRequest<O extends AnyOperation> {
  /** The caller's token as the surface received it (header, environment); never logged. */
  token: string | undefined;
  account: AccountSource;
  operation: O;
  /**
   * The surface's parameter parser (REST query string, MCP arguments): returns validated
   * parameters (with `account_id` when the account is an argument) or throws `invalid_params`.
   * Called when the order above says so.
   */
  params: () => ParamsFor<O> & { account_id?: number };
  /** The request's logger (request id, route or tool); `deps.logger` when absent. */
  logger?: Logger;
  /**
   * Whether the notices may cost statements (the word checks of an empty search); default true.
   * A surface that shows no notices (REST) turns them off: its result is the same, only cheaper.
   */
  checks?: boolean;
}

/** What the request's one log line says about it, even when a check refused it; never a token. */
export interface LogFacts {
  user?: number;
  account?: number;
  /** Rows per payload key (searches). */
  counts?: Record<string, number>;
  engine?: string;
}

export type Outcome<O extends AnyOperation> = { facts: LogFacts } & (
  { result: ResultOf<O>; error?: undefined } | { result?: undefined; error: SearchError }
);

export const isReadOperation = (op: AnyOperation): op is ReadOperation => Object.hasOwn(readParamsSchemas, op);
export const isTriageOperation = (op: AnyOperation): op is TriageOperation => Object.hasOwn(triageParamsSchemas, op);

/**
 * Runs one request. Never throws: a refusal or failure comes back as `error` (a SearchError;
 * unexpected errors become `internal`, their cause kept for the surface's log), with the facts
 * learnt before it.
 */
export async function handle<O extends AnyOperation>(deps: SearchDeps, req: PipelineRequest<O>): Promise<Outcome<O>> {
  const facts: LogFacts = {};
  try {
    const { ctx, params } = await admit(deps, req, facts);
    return { facts, result: await run(ctx, deps, req.operation, params, facts, req.checks ?? true) };
  } catch (err) {
    return { facts, error: toSearchError(err) };
  }
}

/** The checks, in the order of the file comment; returns the access context and the parameters. */
async function admit<O extends AnyOperation>(
  deps: SearchDeps,
  req: PipelineRequest<O>,
  facts: LogFacts,
): Promise<{ ctx: SearchContext; params: ParamsFor<O> }> {
  const logger = req.logger ?? deps.logger;
  const heard = (caller: Caller) => void (facts.user = caller.userId);
  if (typeof req.account === 'number') {
    if (isAccountId(req.account)) facts.account = req.account;
    const { ctx } = await openContextForToken(deps, req.token, req.account, logger, heard);
    return { ctx, params: req.params() };
  }
  const { account_id: given, ...params } = req.params() as ParamsFor<O> & { account_id?: number };
  const named = given ?? req.account.fallback;
  if (named !== undefined) {
    facts.account = named;
    const { ctx } = await openContextForToken(deps, req.token, named, logger, heard);
    return { ctx, params: params as ParamsFor<O> };
  }
  const caller = await authenticateToken(deps, req.token);
  heard(caller);
  facts.account = await onlyAccount(deps, caller);
  return { ctx: await openContext(deps, caller, facts.account, logger), params: params as ParamsFor<O> };
}

const isAccountId = (id: number) => Number.isSafeInteger(id) && id > 0;

/** The caller's only account; otherwise an error that lists its accounts (id and name) so a model can pick one. */
async function onlyAccount(deps: SearchDeps, caller: Caller): Promise<number> {
  const accounts = await listAccounts(deps.db, caller);
  if (accounts.length === 1) return (accounts[0] as { id: number }).id;
  if (accounts.length === 0) throw new SearchError('not_account_member', MESSAGES.notMember);
  const named = accounts.map((a) => `${a.id} (${a.name ?? 'no name'})`).join(', ');
  throw new SearchError('account_required', `account_id is required: you belong to accounts ${named}`);
}

function countRows(payload: Payload): Record<string, number> {
  return Object.fromEntries(Object.entries(payload).map(([key, rows]) => [key, (rows as unknown[]).length]));
}

async function run<O extends AnyOperation>(
  ctx: SearchContext,
  deps: SearchDeps,
  op: O,
  params: ParamsFor<O>,
  facts: LogFacts,
  checks: boolean,
): Promise<ResultOf<O>> {
  if (isReadOperation(op)) {
    const result = await runRead(ctx, op, params as ReadParamsOf<typeof op>);
    facts.engine = result.meta.engine;
    return result as ResultOf<O>;
  }
  if (isTriageOperation(op)) {
    const result = await runTriage(ctx, deps.engines, op, params as TriageParamsOf<typeof op>);
    facts.engine = result.meta.engine;
    return result as ResultOf<O>;
  }
  const result = await runSearch(ctx, deps.engines, op, params as ParamsOf<Operation>, { checks });
  facts.counts = countRows(result.payload);
  facts.engine = result.meta.engine;
  return result as ResultOf<O>;
}

/**
 * `GET /api/v1/profile`: the caller and its accounts, for a token alone (no account to check).
 * Never throws, like handle().
 */
export async function handleProfile(
  deps: SearchDeps,
  token: string | undefined,
): Promise<{ facts: LogFacts } & ({ result: Profile; error?: undefined } | { result?: undefined; error: SearchError })> {
  const facts: LogFacts = {};
  try {
    const caller = await authenticateToken(deps, token);
    facts.user = caller.userId;
    return { facts, result: await getProfile(deps.db, caller) };
  } catch (err) {
    return { facts, error: toSearchError(err) };
  }
}
