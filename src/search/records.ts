/**
 * Record and envelope schemas (contract §5). They document the shapes, type the mappers, and are
 * the MCP tools' outputSchema, so a client can validate every result.
 */
import { z } from 'zod';
import { CONVERSATION_PRIORITIES, CONVERSATION_STATUSES } from './conversation-state.js';

const unixSeconds = z.number().int().describe('Unix time, whole seconds (UTC)');
const nullableString = z.string().nullable();

export { CONVERSATION_PRIORITIES, CONVERSATION_STATUSES };

const conversationStatusSchema = z.enum(CONVERSATION_STATUSES);

/** Present only when SEARCHDESK_APP_URL is set. */
const linkSchema = (what: string) => z.string().optional().describe(what);

export const contactRecordSchema = z.object({
  id: z.number().int().describe('Pass to get_contact to see the contact with its conversations'),
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
  conversation_display_id: z
    .number()
    .int()
    .nullable()
    .describe("The conversation's number: pass it to get_conversation as display_id to read the whole conversation"),
  inbox_id: z.number().int(),
  sender: messageSenderSchema,
  conversation_status: conversationStatusSchema
    .nullable()
    .describe("The status of the message's conversation now: whether it is still open"),
});

export const conversationRecordSchema = z.object({
  id: z.number().int(),
  display_id: z.number().int().describe('The number users see: pass it to get_conversation to read the messages'),
  account_id: z.number().int(),
  inbox_id: z.number().int(),
  status: conversationStatusSchema,
  priority: z.enum(CONVERSATION_PRIORITIES).nullable(),
  labels: z.array(z.string()).describe("The conversation's label titles, alphabetical"),
  created_at: unixSeconds.nullable(),
  last_activity_at: unixSeconds.nullable(),
  waiting_since: unixSeconds.nullable().describe('Since when the contact has been waiting for a reply'),
  snoozed_until: unixSeconds.nullable(),
  first_reply_created_at: unixSeconds.nullable().describe("The agents' first reply; null: not answered yet"),
  custom_attributes: z.record(z.string(), z.unknown()),
  url: linkSchema("The conversation in the help desk's agent app"),
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
  id: z.number().int().describe('Pass to get_article to read the whole article'),
  title: nullableString,
  slug: nullableString,
  portal_slug: nullableString,
  account_id: z.number().int(),
  category_name: nullableString,
  status: z.enum(['draft', 'published', 'archived']).nullable(),
  updated_at: unixSeconds.nullable(),
  locale: nullableString,
  description: nullableString,
  url: linkSchema("The article's public help-center page"),
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

// ---------------------------------------------------------------------------------------------
// Reading one record: the bodies of get_conversation, get_contact and get_article (REST body and
// MCP structuredContent alike).
// ---------------------------------------------------------------------------------------------

/** A message of a transcript: a message record whose type may also be `activity` or `template`. */
export const transcriptMessageSchema = messageRecordSchema.extend({
  message_type: z
    .enum(['incoming', 'outgoing', 'activity', 'template'])
    .describe(
      'incoming: from the contact; outgoing: to the contact (private: true is an internal note); activity: a status change',
    ),
});

/** `has_more` of a transcript page, keyed by the cursor that reads further. */
const transcriptHasMoreSchema = z
  .object({
    before: z.boolean().describe('Older messages exist: call again with before=<id of the first message of this page>'),
    after: z.boolean().describe('Newer messages exist: call again with after=<id of the last message of this page>'),
  })
  .describe('Whether more messages exist on either side of this page');

/** The help desk's `{ meta, payload: [messages] }`, with the conversation in `meta`. */
export const conversationTranscriptSchema = z.object({
  meta: z.object({
    conversation: conversationRecordSchema,
    has_more: transcriptHasMoreSchema,
  }),
  payload: z.array(transcriptMessageSchema).describe('Messages, oldest first, at most 50'),
});

export const contactDetailSchema = z.object({
  payload: z.object({
    contact: contactRecordSchema,
    conversations: z
      .array(conversationRecordSchema)
      .describe("The contact's conversations you may see, newest first, 15 per page"),
  }),
});

export const articleDetailRecordSchema = articleRecordSchema.omit({ snippet: true }).extend({
  portal_name: nullableString,
  content: z.string().describe('The whole article as plain text (HTML and Markdown removed)'),
});

export const articleDetailSchema = z.object({ payload: articleDetailRecordSchema });

export type TranscriptMessage = z.infer<typeof transcriptMessageSchema>;
export type ConversationTranscript = z.infer<typeof conversationTranscriptSchema>;
export type ContactDetail = z.infer<typeof contactDetailSchema>;
export type ArticleDetailRecord = z.infer<typeof articleDetailRecordSchema>;
export type ArticleDetail = z.infer<typeof articleDetailSchema>;
