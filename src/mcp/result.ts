/**
 * The two shapes a tool call ends in: a result or a tool error (`isError`, the caller-safe
 * message as text).
 *
 * A result (contract §10) is one JSON object, the same as `structuredContent` and as the one text
 * block, since hosts pass the model one or the other: the body (`{payload}` of a search, the
 * reading tool's own body) with timestamps in ISO 8601, plus `meta` — paging (`page`,
 * `per_page`, `has_more`, `next`: the arguments of the next page), `truncated`, `engine`, `now`
 * and `notices` (sentences the model should read: the core's, then how to read further and what
 * the context budget cut). A body that already has a `meta` (get_conversation's transcript) gets
 * these keys added to it. `_meta` repeats the paging facts for programs.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import { toSearchError } from '../errors.js';
import { MAX_PAGE } from '../search/params.js';
import { fitBodyToBudget } from './budget.js';
import { isoTimes } from './iso-times.js';

/** The facts of a core result the surfaces report, whatever the operation (search, read, list). */
export interface ResultFacts {
  page?: number;
  per_page?: number;
  has_more?: Record<string, boolean | undefined>;
  engine?: string;
  /** Sentences of the core for the model (absent: none). */
  notices?: readonly string[];
}

/** `meta` of a tool result (contract §10); `page`/`per_page`/`has_more` only where the tool pages. */
export interface ToolMeta extends Omit<ResultFacts, 'notices'> {
  next: Record<string, unknown> | null;
  truncated: boolean;
  now: string;
  notices: string[];
}

/** `_meta` of a successful tool result: the paging facts, for programs. */
export interface ToolResultMeta extends Omit<ResultFacts, 'notices'> {
  [key: string]: unknown;
  truncated?: true;
}

type ToolResult = CallToolResult & { _meta: ToolResultMeta; structuredContent: Record<string, unknown> };

/** What the call knows beyond the core's result. */
export interface CallFacts {
  /** The tool's arguments as the caller gave them: `meta.next` is these with the page moved on. */
  args: Record<string, unknown>;
  /** The server's current time, ISO 8601 UTC. */
  now: string;
  maxResultChars: number;
}

/** Joins a list for a sentence: "a", "a and b", "a, b and c". */
function listWords(words: string[]): string {
  return words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

interface Further {
  next: Record<string, unknown> | null;
  notices: string[];
}

/** The next page of a paged result (searches, a contact's conversations): `page` + 1, never past the last. */
export function nextPage(facts: ResultFacts, args: Record<string, unknown>): Further {
  const more = Object.entries(facts.has_more ?? {})
    .filter(([, more]) => more === true)
    .map(([key]) => key);
  if (facts.page === undefined || more.length === 0) return { next: null, notices: [] };
  if (facts.page >= MAX_PAGE)
    return {
      next: null,
      notices: [`More ${listWords(more)} exist beyond page ${MAX_PAGE}, the last one: narrow q or add filters.`],
    };
  const page = facts.page + 1;
  return { next: { ...args, page }, notices: [`More ${listWords(more)}: call again with page=${page} (meta.next).`] };
}

interface Transcript {
  meta: { has_more: { before: boolean; after: boolean } };
  payload: Array<{ id: number }>;
}

/** A transcript pages by cursor (`has_more.before`/`after`); any other body (a list with its own `meta`) by `page`. */
const isTranscript = (body: object): body is Transcript => {
  const { meta, payload } = body as { meta?: { has_more?: { before?: unknown; after?: unknown } }; payload?: unknown };
  return Array.isArray(payload) && typeof meta?.has_more?.before === 'boolean' && typeof meta.has_more.after === 'boolean';
};

/** The next page of a transcript: on in the direction read (`after` when given, else older messages). */
export function nextMessages(body: Transcript, args: Record<string, unknown>): Further {
  const { before, after, ...rest } = args;
  void before;
  const first = body.payload[0]?.id;
  const last = body.payload.at(-1)?.id;
  const notices: string[] = [];
  if (body.meta.has_more.before && first !== undefined)
    notices.push(`Older messages: call again with before=${first}${after === undefined ? ' (meta.next)' : ''}.`);
  if (body.meta.has_more.after && last !== undefined)
    notices.push(`Newer messages: call again with after=${last}${after === undefined ? '' : ' (meta.next)'}.`);
  let next: Record<string, unknown> | null = null;
  if (after !== undefined) next = body.meta.has_more.after && last !== undefined ? { ...rest, after: last } : null;
  else next = body.meta.has_more.before && first !== undefined ? { ...rest, before: first } : null;
  return { next, notices };
}

/** What a budget cut shortened, in words, and how to read it whole, per tool (contract §10). */
interface BudgetAdvice {
  names: Record<string, string>;
  read: string;
}

const SEARCH_ADVICE: BudgetAdvice = {
  names: { content: 'message content', snippet: 'article snippet' },
  read: 'Read a conversation whole with get_conversation (display_id), an article with get_article (id), or narrow q.',
};
const BUDGET_ADVICE: Record<string, BudgetAdvice> = {
  get_conversation: {
    names: { content: 'message content' },
    read: 'These messages are longer than one result holds; the rest of their text cannot be shown.',
  },
  get_contact: {
    names: { content: 'latest message content' },
    read: 'Read a conversation whole with get_conversation (display_id).',
  },
  get_article: { names: { content: 'article content' }, read: 'The article is longer than one result holds.' },
};

/** The budget notice: how many texts were cut, which fields, and how to read them whole. */
export function budgetNotice(tool: string, fields: readonly string[], count: number): string {
  const advice = BUDGET_ADVICE[tool] ?? SEARCH_ADVICE;
  const names = listWords(fields.map((f) => advice.names[f] ?? f));
  const texts = count === 1 ? '1 long text was' : `${count} long texts were`;
  return `${texts} shortened to fit the result budget, ending in "…" (${names}). ${advice.read}`;
}

/** `body` with `meta` added, or merged into the body's own `meta` (a transcript's). */
function withMeta(body: object, meta: ToolMeta): Record<string, unknown> {
  const own = (body as { meta?: unknown }).meta;
  return { ...body, meta: own !== null && typeof own === 'object' ? { ...own, ...meta } : meta };
}

/**
 * The tool result of any operation: the body with ISO times and `meta`, shortened to the
 * context budget (meta included) when needed.
 */
export function toToolResult(tool: string, body: object, facts: ResultFacts, call: CallFacts): ToolResult {
  const { notices: core = [], engine, ...paging } = facts;
  // Which engine answered matters only where messages were searched; _meta always has it.
  const payload = (body as { payload?: unknown }).payload;
  const searchedMessages = typeof payload === 'object' && payload !== null && 'messages' in payload;
  const further = isTranscript(body) ? nextMessages(body, call.args) : nextPage(facts, call.args);
  const meta = (truncated: boolean, cut: string[]): ToolMeta => ({
    ...paging,
    ...(searchedMessages && { engine }),
    next: further.next,
    truncated,
    now: call.now,
    notices: [...core, ...further.notices, ...cut],
  });
  const iso = isoTimes(body);
  let fitted = fitBodyToBudget(withMeta(iso, meta(false, [])), call.maxResultChars);
  if (fitted.truncated) {
    // Fit with room for the longest budget notice, then write the notice of what was cut.
    const longest = budgetNotice(tool, ['content', 'snippet'], Number.MAX_SAFE_INTEGER);
    fitted = fitBodyToBudget(withMeta(iso, meta(true, [longest])), call.maxResultChars);
    const notices = (fitted.body.meta as ToolMeta).notices;
    notices[notices.length - 1] = budgetNotice(tool, fitted.fields, fitted.shortened);
    fitted.text = JSON.stringify(fitted.body);
  }
  return {
    content: [{ type: 'text', text: fitted.text }],
    structuredContent: fitted.body,
    _meta: { ...paging, engine, ...(fitted.truncated && { truncated: true as const }) },
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
