/**
 * Parameters of the triage list and the directory (contract §9.2, §9.4), validated once and
 * shared by both surfaces like the search and read parameters of params.ts.
 */
import { z } from 'zod';
import { integerSchema, MAX_PAGE, PAGE_MESSAGE, parseWith, queryInput, timeSchema } from './params.js';

/** Conversations per page of the list: the help desk's page size for this route. */
export const LIST_PAGE_SIZE = 25;
/** Most label titles one list call may name, and most labels a notice names. */
export const MAX_LABELS = 20;
/** Longest label title accepted (the help desk's `labels.title` is a varchar). */
const MAX_LABEL_LENGTH = 255;

export const LIST_STATUSES = ['open', 'resolved', 'pending', 'snoozed', 'all'] as const;
export const ASSIGNEE_TYPES = ['all', 'me', 'unassigned', 'assigned'] as const;
export const PRIORITIES = ['urgent', 'high', 'medium', 'low', 'none'] as const;
export const CONVERSATION_TYPES = ['unattended'] as const;
export const SORT_ORDERS = [
  'last_activity_at_desc',
  'created_at_desc',
  'created_at_asc',
  'priority_desc',
  'waiting_since_asc',
] as const;

/** An enum whose every violation names the allowed values (contract §9.2). */
function enumSchema<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  const message = `${name} must be one of ${values.join(', ')}`;
  return z.enum(values, { error: message });
}

/** Half of a UTF-16 surrogate pair: not text, and not representable in the database. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const positiveId = (name: string) => integerSchema(`${name} must be a positive integer`, 1, Number.MAX_SAFE_INTEGER);

const labelSchema = z
  .string({ error: 'labels must be label titles (strings)' })
  .trim()
  .min(1, { error: 'labels must not contain an empty title' })
  .max(MAX_LABEL_LENGTH, { error: `labels must be titles of at most ${MAX_LABEL_LENGTH} characters` })
  // Text Postgres cannot hold is no title of any label.
  .refine((s) => !s.includes('\u0000') && !LONE_SURROGATE.test(s), { error: 'labels must be valid text without NUL characters' });

export const listConversationsParamsSchema = z.strictObject({
  status: enumSchema('status', LIST_STATUSES).optional().describe('Default open.'),
  assignee_type: enumSchema('assignee_type', ASSIGNEE_TYPES).optional().describe('Default all; me = assigned to you.'),
  inbox_id: positiveId('inbox_id').optional().describe('Ids: get_account.'),
  team_id: positiveId('team_id').optional().describe('Ids: get_account.'),
  labels: z
    .array(labelSchema, { error: 'labels must be a list of label titles' })
    .min(1, { error: 'labels must name at least one label' })
    .max(MAX_LABELS, { error: `labels may name at most ${MAX_LABELS} labels` })
    .optional()
    .describe('Any of these titles (get_account).'),
  priority: enumSchema('priority', PRIORITIES).optional().describe('none = no priority.'),
  conversation_type: enumSchema('conversation_type', CONVERSATION_TYPES)
    .optional()
    .describe('No first reply yet, or waiting for a reply.'),
  sort_by: enumSchema('sort_by', SORT_ORDERS)
    .optional()
    .describe('Default last_activity_at_desc; waiting_since_asc = longest waiting first. No priority, not waiting: last.'),
  since: timeSchema('since', 'Last activity from'),
  until: timeSchema('until', 'Last activity until'),
  page: integerSchema(PAGE_MESSAGE, 1, MAX_PAGE).optional().describe(`Default 1; ${LIST_PAGE_SIZE} a page.`),
});

/** get_account and the directory routes take no parameter but the account. */
export const directoryParamsSchema = z.strictObject({});

export const triageParamsSchemas = {
  list_conversations: listConversationsParamsSchema,
  get_account: directoryParamsSchema,
  list_inboxes: directoryParamsSchema,
  list_teams: directoryParamsSchema,
  list_agents: directoryParamsSchema,
  list_labels: directoryParamsSchema,
} as const;

export type TriageOperation = keyof typeof triageParamsSchemas;
export type TriageParamsOf<O extends TriageOperation> = z.infer<(typeof triageParamsSchemas)[O]>;
export type ListConversationsParams = z.infer<typeof listConversationsParamsSchema>;

/**
 * The REST query string of the list: the help desk sends `labels[]=a&labels[]=b`; `labels=a,b`
 * (and a repeated `labels=`) is read the same way, since a label title holds no comma (the help
 * desk allows letters, digits, `-` and `_`). Every other key as the search routes read them.
 */
export function parseListQuery(query: URLSearchParams): ListConversationsParams {
  const keys = Object.keys(listConversationsParamsSchema.shape).filter((k) => k !== 'labels');
  const input = queryInput(listConversationsParamsSchema, query, keys);
  const labels = [...query.getAll('labels[]'), ...query.getAll('labels').flatMap((v) => v.split(','))]
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (labels.length > 0) input.labels = labels;
  return parseWith(listConversationsParamsSchema, input);
}
