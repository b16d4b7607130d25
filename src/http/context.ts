/** What every route handler receives for one request. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.js';
import type { Logger } from '../logger.js';
import type { Metrics } from './metrics.js';
import type { RateLimitTicket } from './rate-limit.js';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  app: App;
  metrics: Metrics;
  /** Child logger carrying the request id and route. */
  log: Logger;
  /** Facts for the request's one log line (account, counts, engine); never a token. */
  facts: Record<string, unknown>;
  /** The caller's token (requestToken): the one value the rate limit counts and authentication checks. */
  token: string | undefined;
  /** The request's standing with the rate limit; absent on the routes it never limits. */
  limit?: RateLimitTicket;
}

/** A route handler writes the response itself; errors it throws go to the one error handler. */
export type Handler = (ctx: RequestContext) => Promise<void>;

/** The value of a header given once; a repeated header counts as its first value. */
export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The caller's token, read once per request for both the rate limit and authentication (contract
 * §2): `api_access_token`, else `Authorization: Bearer <token>`. A header with nothing in it
 * (Node has already stripped the spaces around a value) is no token, so it never hides the other.
 */
export function requestToken(req: IncomingMessage): string | undefined {
  const direct = headerValue(req, 'api_access_token');
  if (direct !== undefined && direct.trim() !== '') return direct;
  return /^Bearer\s+(\S+)\s*$/i.exec(headerValue(req, 'authorization') ?? '')?.[1];
}
