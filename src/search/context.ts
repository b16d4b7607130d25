/** What every search function receives: the database, who asks, and the clock. */
import type { AccessContext } from '../auth/access.js';
import type { Db } from '../db/db.js';
import type { Logger } from '../logger.js';
import type { PlanOptions } from './plan/strategy.js';

/**
 * Results per page, and the last page a search serves. Here rather than in params.ts so that what
 * runs at start (the Postgres message engine, the SQL helpers) does not load the parameter schemas.
 */
export const PAGE_SIZE = 15;
export const MAX_PAGE = 500;

export interface SearchContext {
  db: Db;
  access: AccessContext;
  logger: Logger;
  /** Current time in ms; injectable so the 90-day rules are testable. */
  now: () => number;
  /** The help desk's FRONTEND_URL: conversation and article records carry `url` (links.ts); unset = none. */
  appUrl?: string;
  /** Forced and disabled strategies and knobs (plan/strategy.ts): set by tests and the bench only. */
  plan?: PlanOptions;
}

/** One page of records and whether a next page exists (one extra row was fetched). */
export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

/** Cuts the extra row fetched for `has_more`. */
export function toPage<T>(rows: T[], pageSize = PAGE_SIZE): Page<T> {
  return { items: rows.slice(0, pageSize), hasMore: rows.length > pageSize };
}
