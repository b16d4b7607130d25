/** What every route handler receives for one request. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.js';
import type { Logger } from '../logger.js';
import type { Metrics } from './metrics.js';

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
}

/** A route handler writes the response itself; errors it throws go to the one error handler. */
export type Handler = (ctx: RequestContext) => Promise<void>;

/** The value of a header given once; a repeated header counts as its first value. */
export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
