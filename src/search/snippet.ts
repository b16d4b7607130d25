/** Article snippets: up to 300 characters of plain text around the first matched word. */
import { decodeHTML } from 'entities';
import { foldCase } from './text.js';

export const SNIPPET_LENGTH = 300;
const LEAD = 80;

/**
 * Markdown/HTML → plain text, whitespace collapsed. Conservative: removes markup, keeps words.
 * Entities are decoded last (by `entities`, the full HTML table: named, decimal, hexadecimal), so
 * `&lt;b&gt;` and `&#42;` stay text instead of being taken for markup.
 */
export function toPlainText(content: string): string {
  const stripped = content
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\/?[a-z!][^>]*>/gi, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, '')
    .replace(/(\*\*|__|\*|`{1,3}|~~)/g, '');
  return decodeHTML(stripped).replace(/\s+/g, ' ').trim();
}

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

/** Up to 300 characters of `content` as plain text, centred near the first matched word. */
export function buildSnippet(content: string | null, words: string[]): string {
  if (!content) return '';
  const text = toPlainText(content);
  if (text.length <= SNIPPET_LENGTH) return text;
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
  if (start + room < text.length) {
    body = body.slice(0, room - 1);
    const cut = body.lastIndexOf(' ');
    if (cut > room / 2) body = body.slice(0, cut);
    body = `${body.trimEnd()}…`;
  }
  return prefix + body;
}
