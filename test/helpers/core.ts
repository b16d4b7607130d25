/** Drives the search core the way a surface does: its pipeline (token → account → access → validated params → result). */
import type { Db } from '../../src/db/db.js';
import { createPostgresEngine } from '../../src/search/messages/postgres.js';
import type { MessageEngine } from '../../src/search/messages/engine.js';
import type { SearchDeps } from '../../src/search/core.js';
import type { MessageEngines } from '../../src/search/messages/index.js';
import {
  parseParams,
  parseWith,
  readInputProblems,
  readParamsSchemas,
  type Operation,
  type ReadOperation,
} from '../../src/search/params.js';
import { handle, type AnyOperation, type PipelineRequest, type ResultOf } from '../../src/search/pipeline.js';
import type { ReadResult } from '../../src/search/read/index.js';
import type { SearchResult } from '../../src/search/service.js';
import { silentLogger } from './db.js';

export function makeDeps(
  db: Db,
  opts: { primary?: MessageEngine; gate?: 'flag' | 'all'; now?: () => number; appUrl?: string } = {},
): SearchDeps {
  const postgres = createPostgresEngine(db);
  const engines: MessageEngines = { primary: opts.primary ?? postgres, postgres, gate: opts.gate ?? 'flag' };
  return {
    db,
    engines,
    logger: silentLogger,
    now: opts.now ?? Date.now,
    ...(opts.appUrl !== undefined && { appUrl: opts.appUrl }),
  };
}

/** Authenticates `token`, then runs `op` on `accountId` with raw (unvalidated) params. */
export async function search(
  deps: SearchDeps,
  token: string | undefined,
  accountId: number,
  op: Operation,
  raw: Record<string, unknown>,
): Promise<SearchResult> {
  return run(deps, { token, account: accountId, operation: op, params: () => parseParams(op, raw) });
}

/** One request through the core's pipeline (the account named like a REST path); throws its error. */
async function run<O extends AnyOperation>(deps: SearchDeps, request: PipelineRequest<O>): Promise<ResultOf<O>> {
  const outcome = await handle(deps, request);
  if (outcome.error) throw outcome.error;
  return outcome.result;
}

/** The ids of one payload key, in order. */
export function ids(result: SearchResult, key: 'contacts' | 'conversations' | 'messages' | 'articles'): number[] {
  return (result.payload[key] ?? []).map((r) => r.id);
}

/** Authenticates `token`, then runs read operation `op` on `accountId` with raw (unvalidated) params. */
export async function read(
  deps: SearchDeps,
  token: string | undefined,
  accountId: number,
  op: ReadOperation,
  raw: Record<string, unknown>,
): Promise<ReadResult> {
  return run(deps, {
    token,
    account: accountId,
    operation: op,
    params: () => parseWith(readParamsSchemas[op], raw, readInputProblems(op, raw)),
  });
}
