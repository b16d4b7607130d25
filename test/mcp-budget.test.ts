/** The context budget as a pure function: which fields shrink, how far, and what never changes. */
import { describe, expect, it } from 'vitest';
import { fitBodyToBudget, fitToBudget, shorten } from '../src/mcp/budget.js';
import type { ArticleRecord, MessageRecord, Payload } from '../src/search/records.js';

function message(id: number, content: string | null): MessageRecord {
  return {
    id,
    content,
    message_type: 'incoming',
    private: false,
    created_at: 1,
    conversation_id: 1,
    conversation_display_id: 1,
    inbox_id: 1,
    sender: null,
    conversation_status: 'open',
  };
}

function article(id: number, snippet: string): ArticleRecord {
  return {
    id,
    title: 't',
    slug: 's',
    portal_slug: 'p',
    account_id: 1,
    category_name: null,
    status: 'published',
    updated_at: 1,
    locale: 'en',
    description: null,
    snippet,
  };
}

describe('shorten', () => {
  it('keeps a string within the limit and ends a cut one with "…"', () => {
    expect(shorten('abc', 3)).toBe('abc');
    expect(shorten('abcdef', 4)).toBe('abc…');
  });

  it('never cuts a surrogate pair in half', () => {
    const cut = shorten('ab😀cd', 4);
    expect(cut).toBe('ab…');
    expect(JSON.stringify(cut)).not.toMatch(/\\ud/);
  });
});

describe('fitToBudget', () => {
  it('returns the payload as it is when the text fits', () => {
    const payload: Payload = { messages: [message(1, 'hello')] };
    const r = fitToBudget(payload, 10_000);
    expect(r).toEqual({ payload, text: JSON.stringify({ payload }), truncated: false });
  });

  it('shortens the longest fields first and leaves short ones whole', () => {
    const payload: Payload = { messages: [message(1, 'x'.repeat(5_000)), message(2, 'short'), message(3, 'y'.repeat(3_000))] };
    const r = fitToBudget(payload, 2_000);
    expect(r.truncated).toBe(true);
    expect(r.text.length).toBeLessThanOrEqual(2_000);
    expect(r.text).toBe(JSON.stringify({ payload: r.payload }));
    const [a, b, c] = r.payload.messages ?? [];
    expect(b?.content).toBe('short');
    expect(a?.content?.endsWith('…')).toBe(true);
    expect(c?.content?.endsWith('…')).toBe(true);
    // One cap for all: the two long fields end up the same length, as long as fits.
    expect(a?.content?.length).toBe(c?.content?.length);
    expect(fitToBudget(payload, r.text.length + 2).text.length).toBeGreaterThan(r.text.length);
  });

  it('counts JSON escapes, not raw characters', () => {
    const payload: Payload = { messages: [message(1, '"\n'.repeat(2_000))] };
    const r = fitToBudget(payload, 1_500);
    expect(r.text.length).toBeLessThanOrEqual(1_500);
  });

  it('shortens article snippets, never titles, ids or null contents', () => {
    const payload: Payload = { articles: [article(1, 's'.repeat(2_000))], messages: [message(2, null)] };
    const r = fitToBudget(payload, 1_000);
    expect(r.payload.articles?.[0]).toMatchObject({ id: 1, title: 't' });
    expect(r.payload.articles?.[0]?.snippet.endsWith('…')).toBe(true);
    expect(r.payload.messages?.[0]?.content).toBeNull();
  });

  it('never drops rows, even when the shortest form does not fit', () => {
    const payload: Payload = { messages: Array.from({ length: 50 }, (_, i) => message(i, 'z'.repeat(100))) };
    const r = fitToBudget(payload, 1_000);
    expect(r.payload.messages).toHaveLength(50);
    expect(r.truncated).toBe(true);
    expect(r.payload.messages?.every((m) => m.content === '…')).toBe(true);
  });

  it('does not change the caller’s payload', () => {
    const payload: Payload = { messages: [message(1, 'q'.repeat(5_000))] };
    fitToBudget(payload, 1_000);
    expect(payload.messages?.[0]?.content).toHaveLength(5_000);
  });

  it('reports no truncation when there is nothing it may shorten', () => {
    const payload: Payload = { messages: Array.from({ length: 50 }, (_, i) => message(i, null)) };
    const r = fitToBudget(payload, 1_000);
    expect(r.truncated).toBe(false);
    expect(r.payload).toBe(payload);
  });
});

describe('fitBodyToBudget', () => {
  it('names the fields it shortened, for the budget notice, and leaves meta alone', () => {
    const body = {
      payload: { articles: [article(1, 's'.repeat(2_000))], messages: [message(2, 'm'.repeat(2_000))] },
      meta: { notices: ['n'.repeat(200)], now: '2026-11-28T09:46:08Z' },
    };
    const r = fitBodyToBudget(body, 1_500);
    expect(r.text.length).toBeLessThanOrEqual(1_500);
    expect(r.fields.sort()).toEqual(['content', 'snippet']);
    expect(r.shortened).toBe(2);
    expect(r.body.meta).toEqual(body.meta);
    expect(fitBodyToBudget(body, 10_000).fields).toEqual([]);
  });

  it('counts a message shown twice once: a transcript, its last message also in its conversation', () => {
    const last = message(2, 'm'.repeat(2_000));
    const body = {
      meta: { conversation: { id: 9, messages: [last] } },
      payload: [message(1, 'l'.repeat(2_000)), last],
    };
    const r = fitBodyToBudget(body, 1_500);
    expect(r.text.length).toBeLessThanOrEqual(1_500);
    expect(r.body.meta.conversation.messages[0]?.content).toMatch(/…$/);
    expect(r.shortened).toBe(2);
    // Rows without an id are each their own text.
    const ids = fitBodyToBudget({ a: { content: 'x'.repeat(900) }, b: { content: 'x'.repeat(900) } }, 1_000);
    expect(ids.shortened).toBe(2);
  });
});
