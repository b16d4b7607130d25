/**
 * searchdesk's own message index format: what a document holds and how a `messages` row becomes
 * one. Words are split here with the same rule the search uses, so every engine agrees.
 */
import { messageTypeName, type MessageTypeName } from '../search/messages/records.js';
import { boundedWord } from '../search/messages/searchdesk.js';
import { splitWords } from '../search/text.js';

/** A `messages` row as the indexer reads it (only searchable types are read). */
export interface SourceMessageRow {
  id: number;
  account_id: number;
  inbox_id: number;
  conversation_id: number;
  content: string | null;
  message_type: number;
  private: boolean | null;
  sender_type: string | null;
  sender_id: number | null;
  /** Unix milliseconds. */
  created_at_ms: number;
  /** Unix microseconds: the stored value, which orders results (contract: `created_at DESC, id DESC`). */
  created_at_us: number;
  /** Unix milliseconds. */
  updated_at_ms: number;
}

export interface MessageDocument {
  id: number;
  account_id: number;
  inbox_id: number;
  conversation_id: number;
  message_type: MessageTypeName;
  private: boolean;
  sender_type: string | null;
  sender_id: number | null;
  /** Unix milliseconds, for the time filters. */
  created_at: number;
  /** Unix microseconds, the sort key: messages within one millisecond keep Postgres's order. */
  created_at_us: number;
  updated_at: number;
  /** Distinct folded words of the content, each cut to MAX_WORD_LENGTH; searched by prefix. */
  words: string[];
}

export function toMessageDocument(row: SourceMessageRow): MessageDocument {
  return {
    id: Number(row.id),
    account_id: Number(row.account_id),
    inbox_id: Number(row.inbox_id),
    conversation_id: Number(row.conversation_id),
    message_type: messageTypeName(row.message_type),
    private: row.private === true,
    sender_type: row.sender_type,
    sender_id: row.sender_id === null ? null : Number(row.sender_id),
    created_at: Number(row.created_at_ms),
    created_at_us: Number(row.created_at_us),
    updated_at: Number(row.updated_at_ms),
    words: [...new Set(splitWords(row.content ?? '').map(boundedWord))],
  };
}

/** Settings and mapping of the searchdesk message index; core analysis only (no plugins needed). */
export const MESSAGE_INDEX_BODY = {
  settings: {
    number_of_shards: 1,
    number_of_replicas: 0,
    refresh_interval: '1s',
    // Stored in result order: with track_total_hits off, a search stops after the page's rows in
    // each segment instead of collecting and sorting every match of a common word.
    'sort.field': ['created_at_us', 'id'],
    'sort.order': ['desc', 'desc'],
  },
  mappings: {
    dynamic: 'strict',
    properties: {
      id: { type: 'long' },
      account_id: { type: 'long' },
      inbox_id: { type: 'long' },
      conversation_id: { type: 'long' },
      message_type: { type: 'keyword' },
      private: { type: 'boolean' },
      sender_type: { type: 'keyword' },
      sender_id: { type: 'long' },
      created_at: { type: 'date', format: 'epoch_millis' },
      created_at_us: { type: 'long' },
      updated_at: { type: 'date', format: 'epoch_millis' },
      words: { type: 'keyword' },
    },
  },
} as const;
