/**
 * Parameters of the five operations, validated once (contract §3) and shared by both surfaces.
 * The schemas are the single source of truth: the MCP input schemas are generated from them.
 */
import { z } from 'zod';
import { SearchError } from '../errors.js';
import { MAX_PAGE, PAGE_SIZE } from './context.js';
import { timeBoundSchema } from './times.js';

export { MAX_PAGE, PAGE_SIZE };
export const MAX_Q_LENGTH = 500;
/** Half of a UTF-16 surrogate pair: not text, and not representable in the database. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const PAGE_MESSAGE = `page must be an integer between 1 and ${MAX_PAGE}`;

const qSchema = z
  .string({ error: (iss) => (iss.input === undefined || iss.input === null ? 'q is required' : 'q must be a string') })
  .trim()
  .min(1, { error: 'q must not be blank' })
  .max(MAX_Q_LENGTH, { error: `q must be at most ${MAX_Q_LENGTH} characters` })
  .refine((s) => !s.includes('\u0000'), { error: 'q must not contain NUL characters' })
  .refine((s) => !LONE_SURROGATE.test(s), { error: 'q must be valid Unicode text' })
  .describe('Matched literally.');

/** An integer schema whose every violation reports the same contract message. */
export function integerSchema(message: string, min: number, max: number) {
  return z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message });
}

const pageSchema = integerSchema(PAGE_MESSAGE, 1, MAX_PAGE).optional();

/** How a time bound may be written, for the model (contract §10). */
export const timeSchema = (name: 'since' | 'until', what: string) =>
  timeBoundSchema(
    name,
    name === 'since' ? `${what}, inclusive: Unix seconds or ISO 8601 (a date = its UTC day).` : `${what}, inclusive; as since.`,
  );

const inboxIdSchema = integerSchema('inbox_id must be a positive integer', 1, Number.MAX_SAFE_INTEGER)
  .optional()
  .describe('Only messages of this inbox.');

/** Never an error: anything not of the form contact:<digits> or agent:<digits> is ignored. */
const fromSchema = z
  .string()
  .optional()
  .catch(undefined)
  .describe('Sender filter: "contact:<id>" or "agent:<id>" (e.g. "contact:42"). Other values are ignored.');

export const contactsParamsSchema = z.strictObject({
  q: qSchema,
  page: pageSchema,
  since: timeSchema('since', 'From'),
  until: timeSchema('until', 'Until'),
});

export const conversationsParamsSchema = z.strictObject({
  q: qSchema,
  page: pageSchema,
  since: timeSchema('since', 'From'),
  until: timeSchema('until', 'Until'),
});

export const messagesParamsSchema = z.strictObject({
  q: qSchema,
  page: pageSchema,
  from: fromSchema,
  inbox_id: inboxIdSchema,
  since: timeSchema('since', 'From'),
  until: timeSchema('until', 'Until'),
});

export const articlesParamsSchema = z.strictObject({
  q: qSchema,
  page: pageSchema,
});

export const allParamsSchema = z.strictObject({
  q: qSchema,
  page: pageSchema,
  since: timeSchema('since', 'From'),
  until: timeSchema('until', 'Until'),
});

export const paramsSchemas = {
  all: allParamsSchema,
  contacts: contactsParamsSchema,
  conversations: conversationsParamsSchema,
  messages: messagesParamsSchema,
  articles: articlesParamsSchema,
} as const;

export type Operation = keyof typeof paramsSchemas;
export const OPERATIONS = Object.keys(paramsSchemas) as Operation[];

export type ContactsParams = z.infer<typeof contactsParamsSchema>;
export type ConversationsParams = z.infer<typeof conversationsParamsSchema>;
export type MessagesParams = z.infer<typeof messagesParamsSchema>;
export type ArticlesParams = z.infer<typeof articlesParamsSchema>;
export type AllParams = z.infer<typeof allParamsSchema>;
export type ParamsOf<O extends Operation> = z.infer<(typeof paramsSchemas)[O]>;

// ---------------------------------------------------------------------------------------------
// Reading one record (get_conversation, get_contact, get_article): no q, no 90-day window.
// ---------------------------------------------------------------------------------------------

/** Messages per page of a conversation transcript. */
export const TRANSCRIPT_PAGE_SIZE = 50;
/** Conversations per page of a contact. */
export const CONTACT_CONVERSATIONS_PAGE_SIZE = PAGE_SIZE;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** A positive integer id; `required` adds "<name> is required" for a missing value. */
function idSchema(name: string, what: string) {
  const message = `${name} must be a positive integer`;
  return z
    .number({ error: (iss) => (iss.input === undefined ? `${name} is required` : message) })
    .int({ error: message })
    .min(1, { error: message })
    .max(Number.MAX_SAFE_INTEGER, { error: message })
    .describe(what);
}

const cursorSchema = (name: 'before' | 'after', what: string) => idSchema(name, what).optional();

export const getConversationParamsSchema = z.strictObject({
  display_id: idSchema('display_id', 'The number users see (conversation_display_id). This or id.').optional(),
  id: idSchema('id', 'conversation_id. This or display_id.').optional(),
  before: cursorSchema('before', `Message id: the ${TRANSCRIPT_PAGE_SIZE} older ones.`),
  after: cursorSchema('after', `Message id: the ${TRANSCRIPT_PAGE_SIZE} newer ones.`),
  include_activity: z
    .boolean({ error: 'include_activity must be true or false' })
    .optional()
    .describe('Also return activity messages (status changes, assignments).'),
});

/**
 * What no single field of get_conversation shows (which conversation, which cursor), judged on
 * the raw input so it is reported together with the fields' own problems, whatever they are.
 */
export function readInputProblems(op: string, input: unknown): string[] {
  if (op !== 'get_conversation' || !isRecord(input)) return [];
  const given = (key: string) => input[key] !== undefined;
  const problems: string[] = [];
  if (!given('display_id') && !given('id')) problems.push('display_id or id is required');
  if (given('display_id') && given('id')) problems.push('give display_id or id, not both');
  if (given('before') && given('after')) problems.push('give before or after, not both');
  return problems;
}

export const getContactParamsSchema = z.strictObject({
  id: idSchema('id', 'The contact id (meta.sender.id of a conversation).'),
  page: integerSchema(PAGE_MESSAGE, 1, MAX_PAGE)
    .optional()
    .describe(`Page of the contact's conversations, ${CONTACT_CONVERSATIONS_PAGE_SIZE} each.`),
});

export const getArticleParamsSchema = z.strictObject({
  id: idSchema('id', 'The article id.'),
});

export const readParamsSchemas = {
  get_conversation: getConversationParamsSchema,
  get_contact: getContactParamsSchema,
  get_article: getArticleParamsSchema,
} as const;

export type ReadOperation = keyof typeof readParamsSchemas;
export type ReadParamsOf<O extends ReadOperation> = z.infer<(typeof readParamsSchemas)[O]>;
export type GetConversationParams = z.infer<typeof getConversationParamsSchema>;
export type GetContactParams = z.infer<typeof getContactParamsSchema>;
export type GetArticleParams = z.infer<typeof getArticleParamsSchema>;

/**
 * Every problem of an input in one message (a model fixes them all in one round trip):
 * the issues' messages in order, duplicates dropped, joined with "; ".
 */
export function issuesMessage(issues: readonly z.core.$ZodIssue[]): string {
  // A value of the wrong type has that one problem (zod may still run length checks on an array).
  const wrongType = new Set(issues.filter((i) => i.code === 'invalid_type').map((i) => i.path.join('.')));
  const relevant = issues.filter((i) => i.code === 'invalid_type' || !wrongType.has(i.path.join('.')) || i.path.length === 0);
  const messages = relevant.map((issue) =>
    issue.code === 'unrecognized_keys'
      ? `unknown argument${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`
      : issue.message,
  );
  return [...new Set(messages)].join('; ') || 'invalid parameters';
}

/**
 * Validates already-typed input against `schema`; every problem — the schema's and `more`
 * (see readInputProblems) — is reported in one SearchError.
 */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, more: string[] = []): z.infer<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success && more.length === 0) return result.data;
  const messages = [...(result.success ? [] : [issuesMessage(result.error.issues)]), ...more];
  throw new SearchError('invalid_params', messages.join('; '));
}

/** Validates already-typed input (MCP arguments): unknown keys are rejected. */
export function parseParams<O extends Operation>(op: O, input: unknown): ParamsOf<O> {
  return parseWith(paramsSchemas[op], input) as ParamsOf<O>;
}

/** Parameters whose value is an integer: REST reads them from decimal text, MCP accepts them as numeric strings too. */
export const INTEGER_KEYS: ReadonlySet<string> = new Set([
  'page',
  'since',
  'until',
  'inbox_id',
  'team_id',
  'account_id',
  'display_id',
  'id',
  'before',
  'after',
]);
const BOOLEAN_KEYS: ReadonlySet<string> = new Set(['include_activity']);
const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;

/**
 * Tool arguments with integers sent as decimal text (`"page": "2"`) turned into numbers, as REST
 * reads them; anything else is left for the schema to judge.
 */
export function coerceNumericStrings(args: Record<string, unknown>): Record<string, unknown> {
  // fromEntries defines own keys: a `__proto__` argument stays an (unknown) argument, never a prototype.
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => [
      key,
      INTEGER_KEYS.has(key) && typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : value,
    ]),
  );
}

/** A REST boolean: true/false or 1/0; anything else is left for the schema to refuse. */
function restBoolean(raw: string): unknown {
  const v = raw.trim().toLowerCase();
  return v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : raw;
}

/**
 * Reads REST query parameters for the keys of `schema`: unknown ones are ignored, empty values
 * count as absent, integers are read from their decimal text, and a repeated parameter is an error.
 */
export function queryInput(
  schema: z.ZodObject,
  query: URLSearchParams,
  keys = Object.keys(schema.shape),
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const repeated: string[] = [];
  for (const key of keys) {
    const all = query.getAll(key);
    if (all.length === 0) continue;
    if (all.length > 1) {
      // `from` is never an error; anything else given twice is ambiguous.
      if (key !== 'from') repeated.push(`${key} must be given once`);
      continue;
    }
    const raw = all[0] as string;
    if (raw === '' && key !== 'q') continue;
    if (BOOLEAN_KEYS.has(key)) input[key] = restBoolean(raw);
    else input[key] = INTEGER_KEYS.has(key) && INTEGER_TEXT.test(raw) ? Number(raw) : raw;
  }
  if (repeated.length > 0) throw new SearchError('invalid_params', repeated.join('; '));
  return input;
}

/**
 * Validates REST query parameters: unknown ones are ignored, empty values count as absent,
 * integer parameters are read from their decimal text, and a repeated parameter is an error.
 */
export function parseQueryParams<O extends Operation>(op: O, query: URLSearchParams): ParamsOf<O> {
  return parseParams(op, queryInput(paramsSchemas[op], query));
}
