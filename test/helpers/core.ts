/** Drives the search core the way a surface does: token → account → validated params → result. */
import type { Db } from '../../src/db/db.js';
import { createPostgresEngine } from '../../src/search/messages/postgres.js';
import type { MessageEngine } from '../../src/search/messages/engine.js';
import { openContext, searchAs, type SearchDeps } from '../../src/search/core.js';
import type { MessageEngines } from '../../src/search/messages/index.js';
import {
  parseParams,
  parseWith,
  readInputProblems,
  readParamsSchemas,
  type Operation,
  type ReadOperation,
} from '../../src/search/params.js';
import { runRead, type ReadResult } from '../../src/search/read/index.js';
import type { SearchResult } from '../../src/search/service.js';
import { authenticate } from '../../src/auth/access.js';
import { silentLogger } from './db.js';

export function makeDeps(db: Db, opts: { primary?: MessageEngine; gate?: 'flag' | 'all'; now?: () => number } = {}): SearchDeps {
  const postgres = createPostgresEngine(db);
  const engines: MessageEngines = { primary: opts.primary ?? postgres, postgres, gate: opts.gate ?? 'flag' };
  return { db, engines, logger: silentLogger, now: opts.now ?? Date.now };
}

/** Authenticates `token`, then runs `op` on `accountId` with raw (unvalidated) params. */
export async function search(
  deps: SearchDeps,
  token: string | undefined,
  accountId: number,
  op: Operation,
  raw: Record<string, unknown>,
): Promise<SearchResult> {
  const caller = await authenticate(deps.db, token);
  return searchAs(deps, caller, accountId, op, parseParams(op, raw));
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
  const caller = await authenticate(deps.db, token);
  const ctx = await openContext(deps, caller, accountId);
  return runRead(ctx, op, parseWith(readParamsSchemas[op], raw, readInputProblems(op, raw)));
}
