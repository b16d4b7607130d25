/** Article snippets: up to 300 characters of plain text around the first matched word. */
import { toPlainText } from './plain-text.js';
import { foldCase } from './text.js';

export const SNIPPET_LENGTH = 300;
const LEAD = 80;

/**
 * How much of an article's content its snippet is taken from, in characters: it bounds the work
 * one article adds to a page of results. A word found only further on gives the content's start.
 */
export const SNIPPET_SOURCE_LENGTH = 100_000;

/**
 * Index of the first place where one of the folded `words` starts a word of `text` (folded the
 * same way, which keeps every index in place), or -1.
 */
function firstWordStart(text: string, words: string[]): number {
  let best = -1;
  const lower = foldCase(text);
  for (const word of words) {
    const re = new RegExp(`(?<![\\p{L}\\p{M}\\p{N}])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'u');
    const m = re.exec(lower);
    if (m && (best === -1 || m.index < best)) best = m.index;
  }
  return best;
}

/**
 * The first SNIPPET_SOURCE_LENGTH characters of `content`, without splitting a surrogate pair, and
 * ending before a tag the cut would leave open.
 */
function snippetSource(content: string): string {
  if (content.length <= SNIPPET_SOURCE_LENGTH) return content;
  const high = content.charCodeAt(SNIPPET_SOURCE_LENGTH - 1);
  const source = content.slice(0, high >= 0xd800 && high <= 0xdbff ? SNIPPET_SOURCE_LENGTH - 1 : SNIPPET_SOURCE_LENGTH);
  const open = source.lastIndexOf('<');
  return open > source.lastIndexOf('>') ? source.slice(0, open) : source;
}

/** Up to 300 characters of `content` as plain text, centred near the first matched word. */
export function buildSnippet(content: string | null, words: string[]): string {
  if (!content) return '';
  const source = snippetSource(content);
  const text = toPlainText(source);
  // Content past the source continues the text: the snippet ends with `…` there too.
  const continues = source.length < content.length;
  if (text.length <= SNIPPET_LENGTH && !continues) return text;
  const hit = firstWordStart(text, words);
  let start = hit <= LEAD ? 0 : hit - LEAD;
  if (start > 0) {
    // Start on a word boundary, after the leading ellipsis.
    const space = text.indexOf(' ', start);
    start = space !== -1 && space < hit ? space + 1 : start;
  }
  const prefix = start > 0 ? '…' : '';
  const room = SNIPPET_LENGTH - prefix.length;
  let body = text.slice(start, start + room);
  if (start + room < text.length || continues) {
    body = body.slice(0, room - 1);
    const cut = body.lastIndexOf(' ');
    if (cut > room / 2) body = body.slice(0, cut);
    body = `${body.trimEnd()}…`;
  }
  return prefix + body;
}
