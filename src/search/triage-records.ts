/**
 * Bodies of the triage list and the directory (contract §9.2, §9.4): REST bodies and MCP
 * structuredContent alike, and the tools' output schemas.
 */
import { z } from 'zod';
import { conversationRecordSchema } from './records.js';

const count = z.number().int().min(0);
const nullableString = z.string().nullable();
const role = z.enum(['agent', 'administrator']);

/** The help desk's `{ data: { meta: {counts}, payload: [conversations] } }`. */
export const conversationListSchema = z.object({
  data: z.object({
    meta: z
      .object({
        mine_count: count.describe('Conversations assigned to you'),
        assigned_count: count.describe('Conversations assigned to anyone'),
        unassigned_count: count.describe('Conversations assigned to no one'),
        all_count: count.describe('Every conversation of the list'),
        counts_capped: z.literal(true).optional().describe('Present when a count stopped at 500: it means at least that many'),
      })
      .describe('Counts over the same filters except assignee_type, each at most 500'),
    payload: z.array(conversationRecordSchema).describe('Conversations in the asked order, at most 25'),
  }),
});

export const inboxEntrySchema = z.object({ id: z.number().int(), name: nullableString, channel_type: nullableString });
export const teamEntrySchema = z.object({ id: z.number().int(), name: nullableString });
export const agentEntrySchema = z.object({ id: z.number().int(), name: nullableString, email: nullableString, role });
export const labelEntrySchema = z.object({ title: nullableString, description: nullableString, color: nullableString });
/** A label on the REST `/labels` route carries its id too, as the help desk's does. */
export const labelRowSchema = labelEntrySchema.extend({ id: z.number().int() });

/** get_account's answer: who the caller is and what the ids of the account mean. */
export const accountDirectorySchema = z.object({
  account: z.object({
    id: z.number().int(),
    name: nullableString,
    message_search: z.boolean().describe('Whether search_messages works on this account'),
  }),
  me: z.object({ id: z.number().int(), name: nullableString, role }),
  inboxes: z.array(inboxEntrySchema).describe('The inboxes you may see (inbox_id of list_conversations)'),
  teams: z.array(teamEntrySchema).describe('team_id of list_conversations'),
  agents: z.array(agentEntrySchema),
  labels: z.array(labelEntrySchema).describe('labels of list_conversations (by title)'),
  truncated: z
    .object({ inboxes: z.boolean(), teams: z.boolean(), agents: z.boolean(), labels: z.boolean() })
    .describe('true for a list cut at 500 entries'),
});

/** `GET /api/v1/profile`: the caller and its accounts. */
export const profileSchema = z.object({
  payload: z.object({
    id: z.number().int(),
    name: nullableString,
    email: nullableString,
    accounts: z.array(z.object({ id: z.number().int(), name: nullableString, role })),
  }),
});

export type ConversationList = z.infer<typeof conversationListSchema>;
export type AccountDirectory = z.infer<typeof accountDirectorySchema>;
export type Profile = z.infer<typeof profileSchema>;
export type InboxEntry = z.infer<typeof inboxEntrySchema>;
export type TeamEntry = z.infer<typeof teamEntrySchema>;
export type AgentEntry = z.infer<typeof agentEntrySchema>;
export type LabelRow = z.infer<typeof labelRowSchema>;

/** A REST directory route's body: `{ payload: [entries] }`. */
export interface DirectoryList {
  payload: InboxEntry[] | TeamEntry[] | AgentEntry[] | LabelRow[];
}
