import type { SearchErrorCode } from '../errors.js';

/** The HTTP status the REST surface answers for each error code (the contract's table). */
export const ERROR_STATUS: Record<SearchErrorCode, number> = {
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
};
