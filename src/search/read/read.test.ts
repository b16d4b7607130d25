/** The read builders and mappers as pure functions: placeholders only, walking order, pages, plain text. */
import { describe, expect, it } from 'vitest';
import type { MessageRow } from '../messages/records.js';
import { toArticleText } from './article.js';
import { buildContactConversationsQuery, buildContactQuery } from './contact.js';
import { buildConversationLookupQuery, buildTranscriptQuery, toTranscript, type ConversationLookupRow } from './conversation.js';

const access = { accountId: 987_654, inboxIds: [876_543] };

/** No caller value appears in the SQL text: each is a `$n` with its value in `values`. */
function expectPlaceholders(q: { text: string; values: unknown[] }, ...callerValues: number[]) {
  for (const v of callerValues) {
    expect(q.text).not.toContain(String(v));
    expect(q.values.flat()).toContain(v);
  }
  expect(q.text.match(/\$(\d+)/g)?.every((m) => Number(m.slice(1)) <= q.values.length)).toBe(true);
}

describe('SQL builders', () => {
  it('keep every caller value in a placeholder', () => {
    expectPlaceholders(
      buildConversationLookupQuery(access, { display_id: 765_432, before: 654_321 }),
      987_654,
      876_543,
      765_432,
      654_321,
    );
    expectPlaceholders(
      buildConversationLookupQuery(access, { id: 765_431, after: 654_320, include_activity: true }),
      987_654,
      765_431,
      654_320,
    );
    expectPlaceholders(
      buildTranscriptQuery({ id: 543_210, account_id: 987_654 }, { id: 543_210, before: 432_109 }),
      543_210,
      432_109,
    );
    expectPlaceholders(buildContactQuery(access, { id: 321_098 }), 987_654, 321_098);
    expectPlaceholders(buildContactConversationsQuery(access, { id: 321_098, page: 3 }), 987_654, 876_543, 321_098);
  });

  it('walk back from the newest (or a before cursor) and forward from an after cursor, one row past the page', () => {
    expect(buildTranscriptQuery({ id: 1, account_id: 2 }, { id: 1 }).text).toMatch(/ORDER BY m.created_at DESC, m.id DESC/);
    expect(buildTranscriptQuery({ id: 1, account_id: 2 }, { id: 1, before: 5 }).text).toMatch(/\(m.created_at, m.id\) < /);
    const forward = buildTranscriptQuery({ id: 1, account_id: 2 }, { id: 1, after: 5 });
    expect(forward.text).toMatch(/\(m.created_at, m.id\) > [\s\S]*ORDER BY m.created_at ASC, m.id ASC/);
    // Planned once (SqlQuery.planOnce): the page's size is in the text, one row past the page.
    expect(forward.planOnce).toBe(true);
    expect(forward.text).toMatch(/LIMIT 51\s*$/);
    expect(forward.values).toContainEqual([0, 1, 3]);
    expect(buildTranscriptQuery({ id: 1, account_id: 2 }, { id: 1, include_activity: true }).values).toContainEqual([0, 1, 2, 3]);
  });
});

describe('toTranscript', () => {
  const lookup = {
    id: 1,
    display_id: 7,
    account_id: 2,
    inbox_id: 3,
    status: 1,
    created_at: 10,
    last_activity_at: 20,
    contact_id: null,
    contact_name: null,
    contact_email: null,
    contact_phone_number: null,
    contact_identifier: null,
    priority: 3,
    labels: ['billing', 'vip'],
    waiting_since: 15,
    snoozed_until: null,
    first_reply_created_at: null,
    custom_attributes: { plan: 'pro' },
    assignee: null,
    team: null,
    inbox: { name: 'Chat', channel_type: null },
    latest_message: null,
    cursor_found: true,
    beyond_cursor: true,
  } satisfies ConversationLookupRow;
  const row = (id: number, type = 0): MessageRow => ({
    id,
    content: `m${id}`,
    message_type: type,
    private: null,
    created_at: id,
    conversation_id: 1,
    conversation_display_id: 7,
    conversation_status: 1,
    inbox_id: 3,
    sender_type: null,
    sender_id: null,
    sender_name: null,
  });
  const rows = (from: number, to: number, step: number) =>
    Array.from({ length: Math.abs(to - from) + 1 }, (_, i) => row(from + i * step));

  it('puts a backward page oldest first and cuts the extra row, which means older messages exist', () => {
    const t = toTranscript({ ...lookup, cursor_found: null, beyond_cursor: null }, rows(100, 50, -1), { id: 1 }, undefined);
    expect(t.payload.map((m) => m.id)).toEqual(rows(51, 100, 1).map((r) => r.id));
    expect(t.meta.has_more).toEqual({ before: true, after: false });
    expect(t.meta.conversation).toMatchObject({ id: 1, display_id: 7, status: 'resolved', messages: [] });
  });

  it("shows the conversation's triage state, and its agent-app url only with the app's address", () => {
    const without = toTranscript(lookup, rows(6, 8, 1), { id: 1, after: 5 }, undefined);
    expect(without.meta.conversation).toMatchObject({
      priority: 'urgent',
      labels: ['billing', 'vip'],
      waiting_since: 15,
      snoozed_until: null,
      first_reply_created_at: null,
      custom_attributes: { plan: 'pro' },
    });
    expect(without.meta.conversation).not.toHaveProperty('url');
    expect(without.payload[0]).toMatchObject({ conversation_status: 'resolved' });
    const linked = toTranscript(lookup, rows(6, 8, 1), { id: 1, after: 5 }, 'https://desk.example.com');
    expect(linked.meta.conversation.url).toBe('https://desk.example.com/app/accounts/2/conversations/7');
  });

  it('keeps a forward page as it is; messages at or before the cursor mean older ones exist', () => {
    const t = toTranscript(lookup, rows(6, 8, 1), { id: 1, after: 5 }, undefined);
    expect(t.payload.map((m) => m.id)).toEqual([6, 7, 8]);
    expect(t.meta.has_more).toEqual({ before: true, after: false });
  });

  it('names activity and template messages', () => {
    const t = toTranscript(lookup, [row(3, 3), row(2, 2), row(1, 1)], { id: 1, include_activity: true }, undefined);
    expect(t.payload.map((m) => m.message_type)).toEqual(['outgoing', 'activity', 'template']);
  });
});

describe('toArticleText', () => {
  it('removes HTML and Markdown like the snippet, one line per paragraph, list item or heading', () => {
    expect(toArticleText('<h2>Title</h2><p>First <a href="x">link</a> here.</p><ul><li>one</li><li>two</li></ul>')).toBe(
      'Title\nFirst link here.\none\ntwo',
    );
    expect(toArticleText('# Heading\r\n\r\nSome **bold** text\nover two lines\n\n1. step `one`\n2. step two')).toBe(
      'Heading\nSome bold text\nover two lines\nstep one\nstep two',
    );
    expect(toArticleText('<script>alert(1)</script>plain &amp; simple')).toBe('plain & simple');
  });
  it('reads 1 MB of unclosed markup or deep nesting as text, line by line', () => {
    expect(toArticleText('[](\n'.repeat(1 << 18))).toBe('[](\n'.repeat(1 << 18).trim());
    expect(toArticleText('a<b '.repeat(1 << 18))).toBe('a<b '.repeat(1 << 18).trim());
    expect(toArticleText(`${'<div><p>'.repeat(1 << 17)}deep${'</p></div>'.repeat(1 << 17)}`)).toBe('deep');
    expect(toArticleText('<br   '.repeat(1 << 17))).toBe(
      Array<string>(1 << 17)
        .fill('<br')
        .join(' '),
    );
  });
});
