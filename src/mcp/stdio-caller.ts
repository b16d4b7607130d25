/**
 * The stdio caller (contract §2): SEARCHDESK_ACCESS_TOKEN, checked before any protocol is spoken
 * (a missing, unknown or bot token refuses to start) and again on every call. Kept apart from
 * stdio.ts so serve can start the check before the MCP SDK is loaded.
 */
import type { App } from '../app.js';
import type { Caller } from '../auth/access.js';
import { ConfigError } from '../config.js';
import type { Logger } from '../logger.js';
import { authenticateToken } from '../search/core.js';
import { toSearchError } from '../errors.js';

const UNAUTHORIZED = new Set(['missing_token', 'invalid_token', 'bot_token']);

/**
 * Checks the configured token before any protocol is spoken. A database that does not answer yet
 * does not stop the start: tools answer "Search backend unavailable" until it is back.
 */
export async function startupCaller(opts: {
  app: App;
  logger: Logger;
  defaultCaller?: Caller | undefined;
}): Promise<() => Promise<Caller>> {
  const { app, logger, defaultCaller } = opts;
  const token = app.config.accessToken;
  if (token === undefined && defaultCaller) return () => Promise.resolve(defaultCaller);
  if (token === undefined) {
    throw new ConfigError("SEARCHDESK_ACCESS_TOKEN is not set: the stdio server needs a user's access token");
  }
  try {
    await authenticateToken(app.deps, token);
  } catch (err) {
    const error = toSearchError(err);
    if (UNAUTHORIZED.has(error.code)) throw new ConfigError(`SEARCHDESK_ACCESS_TOKEN is not accepted: ${error.message}`);
    if (error.code !== 'backend_unavailable') throw err;
    logger.warn(
      { event: 'startup_auth_deferred' },
      'Postgres is not answering; the token will be checked on the first tool call',
    );
  }
  return () => authenticateToken(app.deps, token);
}
