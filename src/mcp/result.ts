/**
 * The two shapes a tool call ends in: a result (structured content + the same JSON as text +
 * paging facts in `_meta`, and a short second text block saying how to read further when there
 * is more or something was shortened) or a tool error (`isError`, the caller-safe message as text).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';
import { toSearchError } from '../errors.js';
import { MAX_PAGE } from '../search/params.js';
import type { ReadResult } from '../search/read/index.js';
import type { PayloadKey } from '../search/records.js';
import type { SearchResult } from '../search/service.js';
import type { TriageResult } from '../search/triage.js';
import { fitBodyToBudget } from './budget.js';

/** `_meta` of a successful tool result (contract §6; reads: `page`/`per_page` only where they page). */
export interface ToolResultMeta {
  [key: string]: unknown;
  page?: number;
  per_page?: number;
  has_more?: Partial<Record<PayloadKey, boolean>> | Record<string, boolean>;
  engine: string;
  truncated?: true;
}

type ToolResult = CallToolResult & { _meta: ToolResultMeta };

/** Joins a list for a sentence: "a", "a and b", "a, b and c". */
function listWords(words: string[]): string {
  return words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

const shortenedLine = (n: number, fix: string) =>
  `${n} long text${n > 1 ? 's were' : ' was'} shortened to fit (ending in "…"): ${fix}.`;

/** What the model should do next after a search, in words (hosts rarely show `_meta` to the model). */
export function searchHint(meta: SearchResult['meta'], shortened: number): string | undefined {
  const more = Object.entries(meta.has_more)
    .filter(([, more]) => more)
    .map(([key]) => key);
  const lines: string[] = [];
  if (more.length > 0)
    lines.push(
      meta.page < MAX_PAGE
        ? `More ${listWords(more)}: call again with page=${meta.page + 1}.`
        : `More ${listWords(more)} exist beyond page ${MAX_PAGE}, the last one: narrow q or add filters.`,
    );
  if (shortened > 0) lines.push(shortenedLine(shortened, 'narrow q or add filters, or read a record whole with its get_ tool'));
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/** The same for a read: how to page a transcript or a contact's conversations. */
export function readHint(result: ReadResult, shortened: number): string | undefined {
  const lines: string[] = [];
  const { body, meta } = result;
  if ('meta' in body) {
    const transcript = body;
    const first = transcript.payload[0]?.id;
    const last = transcript.payload.at(-1)?.id;
    if (transcript.meta.has_more.before)
      lines.push(`Older messages: call again with before=${first ?? 'the id of the first message you have'}.`);
    if (transcript.meta.has_more.after)
      lines.push(`Newer messages: call again with after=${last ?? 'the id of the last message you have'}.`);
  } else if (meta.has_more?.conversations === true && (meta.page ?? 1) < MAX_PAGE) {
    lines.push(`More conversations of this contact: call again with page=${(meta.page ?? 1) + 1}.`);
  }
  if (shortened > 0) lines.push(shortenedLine(shortened, 'the rest does not fit in one result'));
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/** A result body shortened to the budget, as the JSON block, the hint block, structuredContent and `_meta`. */
function toResult(
  body: object,
  meta: ToolResultMeta,
  maxResultChars: number,
  hint: (shortened: number) => string | undefined,
): ToolResult {
  const fitted = fitBodyToBudget(body, maxResultChars);
  const next = hint(fitted.shortened);
  return {
    content: [{ type: 'text', text: fitted.text }, ...(next ? [{ type: 'text' as const, text: next }] : [])],
    structuredContent: fitted.body as Record<string, unknown>,
    _meta: fitted.truncated ? { ...meta, truncated: true } : meta,
  };
}

/** Builds the tool result of a search, shortened to the context budget when needed. */
export function toToolResult(result: SearchResult, maxResultChars: number): ToolResult {
  const { page, per_page, has_more, engine } = result.meta;
  return toResult({ payload: result.payload }, { page, per_page, has_more, engine }, maxResultChars, (n) =>
    searchHint(result.meta, n),
  );
}

/** Builds the tool result of a read (get_conversation, get_contact, get_article). */
export function toReadToolResult(result: ReadResult, maxResultChars: number): ToolResult {
  return toResult(result.body, { ...result.meta }, maxResultChars, (n) => readHint(result, n));
}

/** The same for the triage list and the directory: its notices first, then how to page. */
export function triageHint(result: TriageResult, shortened: number): string | undefined {
  const { meta } = result;
  const lines = [...meta.notices];
  const page = meta.page ?? 1;
  if (meta.has_more?.conversations === true)
    lines.push(
      page < MAX_PAGE
        ? `More conversations: call again with page=${page + 1}.`
        : `More conversations exist beyond page ${MAX_PAGE}, the last one: add filters.`,
    );
  if (shortened > 0) lines.push(shortenedLine(shortened, 'read a conversation whole with get_conversation'));
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/** Builds the tool result of list_conversations or get_account; the notices are in `_meta` too. */
export function toTriageToolResult(result: TriageResult, maxResultChars: number): ToolResult {
  return toResult(result.body, { ...result.meta }, maxResultChars, (n) => triageHint(result, n));
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
