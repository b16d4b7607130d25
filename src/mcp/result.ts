/**
 * The two shapes a tool call ends in: a result (structured payload + the same JSON as text +
 * paging facts in `_meta`) or a tool error (`isError`, the caller-safe message as text).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';
import { toSearchError } from '../search/errors.js';
import type { PayloadKey } from '../search/records.js';
import type { SearchResult } from '../search/service.js';
import { fitToBudget } from './budget.js';

/** `_meta` of a successful tool result (contract §6). */
export interface ToolResultMeta {
  [key: string]: unknown;
  page: number;
  per_page: number;
  has_more: Partial<Record<PayloadKey, boolean>>;
  engine: string;
  truncated?: true;
}

/** Builds the tool result of a search, shortened to the context budget when needed. */
export function toToolResult(result: SearchResult, maxResultChars: number): CallToolResult & { _meta: ToolResultMeta } {
  const fitted = fitToBudget(result.payload, maxResultChars);
  const { page, per_page, has_more, engine } = result.meta;
  return {
    content: [{ type: 'text', text: fitted.text }],
    structuredContent: { payload: fitted.payload },
    _meta: { page, per_page, has_more, engine, ...(fitted.truncated ? { truncated: true as const } : {}) },
  };
}

/** A tool error with a caller-safe message. */
export function toolErrorText(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

/**
 * Maps anything thrown during a tool call to a tool error, by SearchError code. Unknown errors
 * become "Internal error"; their details go to the log only.
 */
export function toToolError(err: unknown, logger: Logger): CallToolResult {
  const error = toSearchError(err);
  if (error.code === 'internal') {
    logger.error({ event: 'tool_internal_error', err: error.cause ?? error }, 'tool call failed unexpectedly');
  }
  return toolErrorText(error.message);
}
