/** The result envelope as pure functions: meta.next, the read-further notices, ISO times and the budget notice. */
import { describe, expect, it } from 'vitest';
import { budgetNotice, nextMessages, nextPage, toToolResult } from './result.js';

const facts = (page: number, has_more: Record<string, boolean>) => ({ page, per_page: 15, has_more, engine: 'postgres' });
const call = { args: { q: 'refund', since: '2026-11-01' }, now: '2026-11-28T09:46:08Z', maxResultChars: 60_000 };

describe('nextPage', () => {
  it('gives the same arguments with the next page, and names the lists with more', () => {
    expect(nextPage(facts(1, { contacts: true, conversations: false, messages: true, articles: true }), call.args)).toEqual({
      next: { q: 'refund', since: '2026-11-01', page: 2 },
      notices: ['More contacts, messages and articles: call again with page=2 (meta.next).'],
    });
  });

  it('is null when nothing has more, and never points past the last page', () => {
    expect(nextPage(facts(3, { messages: false }), call.args)).toEqual({ next: null, notices: [] });
    expect(nextPage(facts(500, { messages: true }), call.args)).toEqual({
      next: null,
      notices: ['More messages exist beyond page 500, the last one: narrow q or add filters.'],
    });
  });
});

describe('nextMessages', () => {
  const transcript = (before: boolean, after: boolean) => ({
    meta: { has_more: { before, after } },
    payload: [{ id: 7 }, { id: 9 }],
  });
  it('reads on towards older messages, or newer ones when the call gave after', () => {
    expect(nextMessages(transcript(true, false), { id: 3 })).toEqual({
      next: { id: 3, before: 7 },
      notices: ['Older messages: call again with before=7 (meta.next).'],
    });
    expect(nextMessages(transcript(true, true), { id: 3, after: 5 })).toEqual({
      next: { id: 3, after: 9 },
      notices: ['Older messages: call again with before=7.', 'Newer messages: call again with after=9 (meta.next).'],
    });
    expect(nextMessages(transcript(false, true), { id: 3, before: 10 }).next).toBeNull();
  });
});

describe('toToolResult', () => {
  it('writes times as ISO 8601 UTC and adds meta, the same JSON as the text block', () => {
    const body = {
      payload: {
        contacts: [{ id: 1, created_at: 1_795_859_168, last_activity_at: null, additional_attributes: { created_at: 5 } }],
      },
    };
    const r = toToolResult('search_contacts', body, { ...facts(1, { contacts: false }), notices: ['core says'] }, call);
    expect(r.structuredContent).toEqual({
      payload: {
        contacts: [
          { id: 1, created_at: '2026-11-28T09:46:08Z', last_activity_at: null, additional_attributes: { created_at: 5 } },
        ],
      },
      meta: {
        page: 1,
        per_page: 15,
        has_more: { contacts: false },
        next: null,
        truncated: false,
        now: '2026-11-28T09:46:08Z',
        notices: ['core says'],
      },
    });
    expect(r.content).toEqual([{ type: 'text', text: JSON.stringify(r.structuredContent) }]);
    expect(r._meta).toEqual({ page: 1, per_page: 15, has_more: { contacts: false }, engine: 'postgres' });
    expect(body.payload.contacts[0]?.created_at).toBe(1_795_859_168);
  });

  it('keeps a transcript its own meta and adds the keys to it', () => {
    const body = { meta: { conversation: { id: 4 }, has_more: { before: false, after: false } }, payload: [] };
    const r = toToolResult('get_conversation', body, { per_page: 50, has_more: body.meta.has_more, engine: 'postgres' }, call);
    expect(r.structuredContent.meta).toMatchObject({ conversation: { id: 4 }, next: null, now: call.now, notices: [] });
  });

  it('pages a list that has its own meta by page, not by cursor', () => {
    const body = { meta: { all_count: 30 }, payload: [{ id: 1, waiting_since: 1_795_859_168 }] };
    const r = toToolResult('list_conversations', body, { page: 1, per_page: 25, has_more: { conversations: true } }, call);
    expect(r.structuredContent).toEqual({
      meta: {
        all_count: 30,
        page: 1,
        per_page: 25,
        has_more: { conversations: true },
        next: { ...call.args, page: 2 },
        truncated: false,
        now: call.now,
        notices: ['More conversations: call again with page=2 (meta.next).'],
      },
      payload: [{ id: 1, waiting_since: '2026-11-28T09:46:08Z' }],
    });
  });

  it('cuts to the budget with meta included, and says what was cut and how to read it whole', () => {
    const messages = [1, 2, 3].map((id) => ({ id, content: 'x'.repeat(2_000), created_at: 0 }));
    const r = toToolResult('search_messages', { payload: { messages } }, facts(1, { messages: true }), {
      ...call,
      maxResultChars: 2_000,
    });
    const text = (r.content[0] as { text: string }).text;
    expect(text.length).toBeLessThanOrEqual(2_000);
    expect(JSON.parse(text)).toEqual(r.structuredContent);
    const meta = r.structuredContent.meta as { truncated: boolean; notices: string[] };
    expect(meta.truncated).toBe(true);
    expect(meta.notices.at(-1)).toBe(
      '3 long texts were shortened to fit the result budget, ending in "…" (message content). Read a conversation whole with get_conversation (display_id), an article with get_article (id), or narrow q.',
    );
    expect(r._meta).toMatchObject({ truncated: true });
  });
});

describe('budgetNotice', () => {
  it('names the fields as the tool shows them', () => {
    expect(budgetNotice('get_article', ['content'], 1)).toBe(
      '1 long text was shortened to fit the result budget, ending in "…" (article content). The article is longer than one result holds.',
    );
    expect(budgetNotice('search_all', ['content', 'snippet'], 2)).toMatch(/\(message content and article snippet\)/);
  });
});
