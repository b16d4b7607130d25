/**
 * The stdio session's token (contract §2): SEARCHDESK_ACCESS_TOKEN, checked before any protocol is
 * spoken (a missing, unknown or bot token refuses to start) and again on every call. Kept apart
 * from stdio.ts so serve can start the check before the MCP SDK is loaded.
 */
import type { App } from '../app.js';
import { ConfigError } from '../config.js';
import type { Logger } from '../logger.js';
import { openSession } from '../search/core.js';
import { MESSAGES, SearchError, toSearchError } from '../errors.js';
import type { DemoInfo } from '../db/demo-info.js';

const UNAUTHORIZED = new Set(['missing_token', 'invalid_token', 'bot_token']);

/**
 * Opens the stdio session: resolves to the token every tool call presents. A refused token stops
 * the start; a database that does not answer yet does not (see openSession).
 */
export async function startupToken(opts: { app: App; logger: Logger; defaultToken?: string | undefined }): Promise<string> {
  const { app, logger } = opts;
  const token = app.config.accessToken ?? opts.defaultToken;
  if (token === undefined) {
    throw new ConfigError("SEARCHDESK_ACCESS_TOKEN is not set: the stdio server needs a user's access token");
  }
  try {
    if (app.demo) {
      demoCaller(app.demo, token);
      return token;
    }
    const { caller } = await openSession(app.deps, token);
    if (!caller)
      logger.warn(
        { event: 'startup_auth_deferred' },
        'Postgres is not answering; the token will be checked on the first tool call',
      );
  } catch (err) {
    const error = toSearchError(err);
    if (UNAUTHORIZED.has(error.code)) throw new ConfigError(`SEARCHDESK_ACCESS_TOKEN is not accepted: ${error.message}`);
    throw err;
  }
  return token;
}

/**
 * On the embedded demo database the tokens are known without it (db/demo-info.ts): the start
 * refuses a token the demo does not have, or its bot's, while the database is still starting
 * (the handshake never waits for it). Every tool call checks the token in the database again.
 */
function demoCaller(demo: DemoInfo, token: string): void {
  if (token === demo.botToken) throw new SearchError('bot_token', MESSAGES.botToken);
  if (!demo.users.some((u) => u.token === token)) throw new SearchError('invalid_token', MESSAGES.invalidToken);
}
