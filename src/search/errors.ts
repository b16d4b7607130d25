/**
 * One typed error for everything a caller may be told. Each surface maps it by `code` in exactly
 * one place (MCP: toToolError, HTTP: the error handler); messages are caller-safe by construction.
 */

/** Every error code, with the HTTP status the REST surface answers. */
export const ERROR_STATUS = {
  missing_token: 401,
  invalid_token: 401,
  bot_token: 401,
  account_suspended: 401,
  not_account_member: 401,
  account_not_found: 404,
  account_required: 422,
  feature_disabled: 403,
  invalid_params: 422,
  window_exceeded: 422,
  backend_unavailable: 503,
  query_timeout: 503,
  internal: 500,
  not_found: 404,
} as const;

export type SearchErrorCode = keyof typeof ERROR_STATUS;

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

  get status(): number {
    return ERROR_STATUS[this.code];
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
