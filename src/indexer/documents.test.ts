import { describe, expect, it } from 'vitest';
import { MAX_WORD_LENGTH } from '../search/messages/searchdesk.js';
import { toMessageDocument, type SourceMessageRow } from './documents.js';

const row: SourceMessageRow = {
  ...{ id: 1, account_id: 2, inbox_id: 3, conversation_id: 4, content: '', message_type: 0, private: false },
  ...{ sender_type: null, sender_id: null, created_at_ms: 1_700_000_000_123, created_at_us: 1_700_000_000_123_456 },
  updated_at_ms: 1_700_000_000_123,
};

describe('message document', () => {
  it('holds the first MAX_WORD_LENGTH characters of a longer word instead of leaving it out', () => {
    const dump = '0123456789abcdef'.repeat(250);
    const doc = toMessageDocument({ ...row, content: `dump ${dump} ${dump}x end` });
    expect(doc.words).toEqual(['dump', dump.slice(0, MAX_WORD_LENGTH), 'end']);
  });

  it('keeps the stored microseconds beside the milliseconds', () => {
    expect(toMessageDocument(row)).toMatchObject({ created_at: 1_700_000_000_123, created_at_us: 1_700_000_000_123_456 });
  });
});
