/**
 * Parameters of the five operations, validated once (contract §3) and shared by both surfaces.
 * The schemas are the single source of truth: the MCP input schemas are generated from them.
 */
import { z } from 'zod';
import { SearchError } from './errors.js';

export const PAGE_SIZE = 15;
export const MAX_PAGE = 500;
export const MAX_Q_LENGTH = 500;
/** 9999-12-31T23:59:59Z: larger values cannot be a timestamp in Postgres. */
const MAX_UNIX_SECONDS = 253_402_300_799;

/** Half of a UTF-16 surrogate pair: not text, and not representable in the database. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const PAGE_MESSAGE = `page must be an integer between 1 and ${MAX_PAGE}`;

const qSchema = z
  .string({ error: (iss) => (iss.input === undefined || iss.input === null ? 'q is required' : 'q must be a string') })
  .trim()
  .min(1, { error: 'q must not be blank' })
  .max(MAX_Q_LENGTH, { error: `q must be at most ${MAX_Q_LENGTH} characters` })
  .refine((s) => !s.includes('\u0000'), { error: 'q must not contain NUL characters' })
  .refine((s) => !LONE_SURROGATE.test(s), { error: 'q must be valid Unicode text' })
  .describe('Search text, 1–500 characters. Matched literally: % _ and \\ are ordinary characters.');

/** An integer schema whose every violation reports the same contract message. */
function integerSchema(message: string, min: number, max: number) {
  return z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message });
}

const pageSchema = integerSchema(PAGE_MESSAGE, 1, MAX_PAGE)
  .optional()
  .describe(`Page number, 1–${MAX_PAGE} (default 1). Each page holds at most ${PAGE_SIZE} results.`);

const timeSchema = (name: 'since' | 'until', description: string) =>
  integerSchema(`${name} must be an integer Unix timestamp (seconds)`, 0, MAX_UNIX_SECONDS).optional().describe(description);

const inboxIdSchema = integerSchema('inbox_id must be a positive integer', 1, Number.MAX_SAFE_INTEGER)
  .optional()
  .describe('Only messages of this inbox (ignored when you may not access that inbox).');

/** Never an error: anything not of the form contact:<digits> or agent:<digits> is ignored. */
const fromSchema = z
  .string()
  .optional()
  .catch(undefined)
  .describe('Sender filter: "contact:<id>" or "agent:<id>" (e.g. "contact:42"). Other values are ignored.');

export const contactsParamsSchema = z.strictObject({
  q: qSchema,
  page: pageSchema,
  since: timeSchema('since', 'Only contacts whose last activity is at or after this Unix time (seconds).'),
  until: timeSchema('until', 'Only contacts whose last activity is at or before this Unix time (seconds).'),
});

export const conversationsParamsSchema = z.strictObject({
  q: qSchema,
  page: pageSchema,
  since: timeSchema('since', 'Only conversations whose last activity is at or after this Unix time (seconds).'),
  until: timeSchema('until', 'Only conversations whose last activity is at or before this Unix time (seconds).'),
});

export const messagesParamsSchema = z.strictObject({
  q: qSchema,
  page: pageSchema,
  from: fromSchema,
  inbox_id: inboxIdSchema,
  since: timeSchema(
    'since',
    'Only messages created at or after this Unix time (seconds). Default and oldest allowed: 90 days ago.',
  ),
  until: timeSchema('until', 'Only messages created at or before this Unix time (seconds).'),
});

export const articlesParamsSchema = z.strictObject({
  q: qSchema,
  page: pageSchema,
});

export const allParamsSchema = z.strictObject({
  q: qSchema,
  page: pageSchema,
  since: timeSchema('since', 'Contacts and conversations only: last activity at or after this Unix time (seconds).'),
  until: timeSchema('until', 'Contacts and conversations only: last activity at or before this Unix time (seconds).'),
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

/** Validates already-typed input (MCP arguments): unknown keys are rejected. */
export function parseParams<O extends Operation>(op: O, input: unknown): ParamsOf<O> {
  const result = paramsSchemas[op].safeParse(input ?? {});
  if (result.success) return result.data as ParamsOf<O>;
  const issue = result.error.issues[0];
  const message =
    issue?.code === 'unrecognized_keys'
      ? `unknown argument${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`
      : (issue?.message ?? 'invalid parameters');
  throw new SearchError('invalid_params', message);
}

const INTEGER_KEYS = new Set(['page', 'since', 'until', 'inbox_id']);

/**
 * Validates REST query parameters: unknown ones are ignored, empty values count as absent,
 * integer parameters are read from their decimal text, and a repeated parameter is an error.
 */
export function parseQueryParams<O extends Operation>(op: O, query: URLSearchParams): ParamsOf<O> {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(paramsSchemas[op].shape)) {
    const all = query.getAll(key);
    if (all.length === 0) continue;
    if (all.length > 1) {
      // `from` is never an error; anything else given twice is ambiguous.
      if (key === 'from') continue;
      throw new SearchError('invalid_params', `${key} must be given once`);
    }
    const raw = all[0] as string;
    if (raw === '' && key !== 'q') continue;
    input[key] = INTEGER_KEYS.has(key) && /^\s*[+-]?\d+\s*$/.test(raw) ? Number(raw) : raw;
  }
  return parseParams(op, input);
}
