/**
 * One typed error for everything a caller may be told, below every layer (db, auth, search and
 * the surfaces all import it from here). Each surface maps it by `code` in exactly one place
 * (MCP: toToolError, HTTP: `src/http/status.ts`); messages are caller-safe by construction.
 */

/** Every error code. What a surface answers for each is the surface's business. */
export const ERROR_CODES = [
  'missing_token',
  'invalid_token',
  'bot_token',
  'account_suspended',
  'not_account_member',
  'account_not_found',
  'account_required',
  'feature_disabled',
  'invalid_params',
  'window_exceeded',
  'backend_unavailable',
  'query_timeout',
  'internal',
  'not_found',
] as const;

export type SearchErrorCode = (typeof ERROR_CODES)[number];

/** Caller-safe error with a contract message. Never carries SQL, stack traces or tokens. */
export class SearchError extends Error {
  override name = 'SearchError';
  constructor(
    readonly code: SearchErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The contract's fixed messages, so no surface spells them on its own. */
export const MESSAGES = {
  missingToken: 'Missing api_access_token header',
  invalidToken: 'Invalid Access Token',
  botToken: 'Access to this endpoint is not authorized for bots',
  accountNotFound: 'Resource could not be found',
  accountSuspended: 'Account is suspended',
  notMember: 'You are not authorized to access this account',
  featureDisabled: 'Message search is not enabled for this account',
  windowExceeded: 'Search is limited to the last 90 days',
  backendUnavailable: 'Search backend unavailable',
  queryTimeout:
    'Search took too long and was stopped. Narrow it: a longer or more specific q, a since/until range, or (for messages) an inbox_id.',
  internal: 'Internal error',
  conversationNotFound: 'Conversation not found',
  contactNotFound: 'Contact not found',
  articleNotFound: 'Article not found',
} as const;

/** Turns anything thrown into a SearchError; unknown errors become `internal` (details stay in `cause`). */
export function toSearchError(err: unknown): SearchError {
  if (err instanceof SearchError) return err;
  return new SearchError('internal', MESSAGES.internal, { cause: err });
}
