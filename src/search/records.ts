/**
 * Record and envelope schemas (contract §5). They document the shapes, type the mappers, and are
 * the MCP tools' outputSchema, so a client can validate every result.
 */
import { z } from 'zod';

const unixSeconds = z.number().int().describe('Unix time, whole seconds (UTC)');
const nullableString = z.string().nullable();

export const contactRecordSchema = z.object({
  id: z.number().int(),
  name: nullableString,
  email: nullableString,
  phone_number: nullableString,
  identifier: nullableString,
  additional_attributes: z.record(z.string(), z.unknown()),
  created_at: unixSeconds.nullable(),
  last_activity_at: unixSeconds.nullable(),
});

export const messageSenderSchema = z
  .object({
    id: z.number().int(),
    type: z.enum(['contact', 'user', 'agent_bot']),
    name: nullableString,
  })
  .nullable();

export const messageRecordSchema = z.object({
  id: z.number().int(),
  content: nullableString,
  message_type: z.enum(['incoming', 'outgoing']),
  private: z.boolean(),
  created_at: unixSeconds.nullable(),
  conversation_id: z.number().int(),
  conversation_display_id: z.number().int().nullable(),
  inbox_id: z.number().int(),
  sender: messageSenderSchema,
});

export const conversationRecordSchema = z.object({
  id: z.number().int(),
  display_id: z.number().int(),
  account_id: z.number().int(),
  inbox_id: z.number().int(),
  status: z.enum(['open', 'resolved', 'pending', 'snoozed']),
  created_at: unixSeconds.nullable(),
  last_activity_at: unixSeconds.nullable(),
  messages: z.array(messageRecordSchema).max(1).describe('The latest incoming or outgoing message, if any'),
  meta: z.object({
    sender: z
      .object({
        id: z.number().int(),
        name: nullableString,
        email: nullableString,
        phone_number: nullableString,
        identifier: nullableString,
        type: z.literal('contact'),
      })
      .nullable(),
    assignee: z.object({ id: z.number().int(), name: nullableString, email: nullableString, type: z.literal('user') }).nullable(),
    team: z.object({ id: z.number().int(), name: nullableString }).nullable(),
    inbox: z.object({ id: z.number().int(), name: nullableString, channel_type: nullableString }),
  }),
});

export const articleRecordSchema = z.object({
  id: z.number().int(),
  title: nullableString,
  slug: nullableString,
  portal_slug: nullableString,
  account_id: z.number().int(),
  category_name: nullableString,
  status: z.enum(['draft', 'published', 'archived']).nullable(),
  updated_at: unixSeconds.nullable(),
  locale: nullableString,
  description: nullableString,
  snippet: z.string().describe('Up to 300 characters of plain text around the first matched word'),
});

export type ContactRecord = z.infer<typeof contactRecordSchema>;
export type ConversationRecord = z.infer<typeof conversationRecordSchema>;
export type MessageRecord = z.infer<typeof messageRecordSchema>;
export type ArticleRecord = z.infer<typeof articleRecordSchema>;

/** Payload keys per operation, in the interface's order. */
export const PAYLOAD_KEYS = {
  all: ['contacts', 'conversations', 'messages', 'articles'],
  contacts: ['contacts'],
  conversations: ['conversations'],
  messages: ['messages'],
  articles: ['articles'],
} as const;

export type PayloadKey = 'contacts' | 'conversations' | 'messages' | 'articles';

const recordArrays = {
  contacts: z.array(contactRecordSchema),
  conversations: z.array(conversationRecordSchema),
  messages: z.array(messageRecordSchema),
  articles: z.array(articleRecordSchema),
};

/** `{ payload: { <keys> } }` with exactly the operation's keys. */
export const envelopeSchemas = {
  all: z.object({ payload: z.strictObject(recordArrays) }),
  contacts: z.object({ payload: z.strictObject({ contacts: recordArrays.contacts }) }),
  conversations: z.object({ payload: z.strictObject({ conversations: recordArrays.conversations }) }),
  messages: z.object({ payload: z.strictObject({ messages: recordArrays.messages }) }),
  articles: z.object({ payload: z.strictObject({ articles: recordArrays.articles }) }),
} as const;

export interface Payload {
  contacts?: ContactRecord[];
  conversations?: ConversationRecord[];
  messages?: MessageRecord[];
  articles?: ArticleRecord[];
}
