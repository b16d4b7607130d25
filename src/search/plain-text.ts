/**
 * Markdown/HTML → plain text in time linear in the content's length.
 *
 * Each markup rule is one left-to-right scan that gives exactly what its regular expression
 * (in the scan's comment) gave with `replace`. The expression is quadratic: at every unclosed
 * `<x`, `[` or `](` it reads to the end of the content looking for the close, then starts again
 * one character further. A scan keeps the next close it found and looks again only once it has
 * passed it, so it reads each stretch of the text once. The rules left as regular expressions are
 * linear: anchored at line starts, or with no close to look for.
 */
import { decodeHTML } from 'entities';

/** Characters the scans have searched through since the process started (the linearity test reads it). */
let searched = 0;

export function searchedCharacters(): number {
  return searched;
}

/** Where `needle` next starts at or after `from`, or -1 (counted). */
function find(text: string, needle: string, from: number): number {
  const at = text.indexOf(needle, from);
  searched += (at === -1 ? text.length : at) - from;
  return at;
}

/** Where `pattern` (with the `g` flag) next matches at or after `from`, or -1 (counted). */
function findPattern(text: string, pattern: RegExp, from: number): number {
  pattern.lastIndex = from;
  const at = pattern.exec(text)?.index ?? -1;
  searched += (at === -1 ? text.length : at) - from;
  return at;
}

/*
 * Each scan keeps the position of the next close it found (`gt`, `closing`, …) and searches again
 * only once it has passed it: a close at or after the position asked is still the next one, and
 * -1 (none left) ends the scan or stays true. Positions only move forward, so every stretch of
 * the text is searched once per kind of close.
 */

const SLASH = 0x2f;
const BANG = 0x21;
const OPEN_PAREN = 0x28;
const RAW_OPEN = /<(?:script|style)/gi;
const RAW_CLOSE = { script: /<\/script>/gi, style: /<\/style>/gi };

/** The element name of a RAW_OPEN match at `at`, in any letter case. */
function rawName(text: string, at: number): 'script' | 'style' {
  const c = text.charCodeAt(at + 2) | 0x20;
  return c === 0x63 /* c */ ? 'script' : 'style';
}

/** `/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi` → ' ': a script or style element with its content. */
function removeRawElements(text: string): string {
  let out = '';
  let kept = 0;
  let gt = -1;
  // The next close of each name; the text's length once there is none left.
  const closing = { script: -1, style: -1 };
  for (let at = findPattern(text, RAW_OPEN, 0); at !== -1;) {
    const name = rawName(text, at);
    const after = at + 1 + name.length;
    if (gt < after) gt = find(text, '>', after);
    // No `>` left: no element opens from here on.
    if (gt === -1) break;
    if (closing[name] <= gt) {
      const found = findPattern(text, RAW_CLOSE[name], gt + 1);
      closing[name] = found === -1 ? text.length : found;
    }
    if (closing[name] === text.length) {
      // Unclosed: no element of this name matches from here on; try the next opening.
      at = findPattern(text, RAW_OPEN, after);
      continue;
    }
    out += text.slice(kept, at) + ' ';
    kept = closing[name] + name.length + 3;
    at = findPattern(text, RAW_OPEN, kept);
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/** `/<!--[\s\S]*?-->/g` → ' ': an HTML comment. */
function removeComments(text: string): string {
  let out = '';
  let kept = 0;
  for (let at = find(text, '<!--', 0); at !== -1;) {
    const closing = find(text, '-->', at + 4);
    // No close after this comment's start: none after a later one either.
    if (closing === -1) break;
    out += text.slice(kept, at) + ' ';
    kept = closing + 3;
    at = find(text, '<!--', kept);
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/** Whether `c` is an ASCII letter or `!`: what may follow `<` or `</` in a tag. */
function opensTag(c: number): boolean {
  const lower = c | 0x20;
  return (lower >= 0x61 && lower <= 0x7a) || c === BANG;
}

/** `/<\/?[a-z!][^>]*>/gi` → ' ': any other tag, comment-like declaration or closing tag. */
function removeTags(text: string): string {
  let out = '';
  let kept = 0;
  let gt = -1;
  for (let at = find(text, '<', 0); at !== -1; at = find(text, '<', at + 1)) {
    const name = text.charCodeAt(at + 1) === SLASH ? at + 2 : at + 1;
    if (!opensTag(text.charCodeAt(name))) continue;
    if (gt <= name) gt = find(text, '>', name + 1);
    // No `>` after this tag's start: no tag closes from here on.
    if (gt === -1) break;
    out += text.slice(kept, at) + ' ';
    kept = gt + 1;
    at = gt;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/** `/!?\[([^\]]*)\]\([^)]*\)/g` → '$1': a Markdown link or image becomes its text. */
function replaceLinks(text: string): string {
  let out = '';
  let kept = 0;
  let closing = -1;
  let end = -1;
  for (let at = find(text, '[', 0); at !== -1; at = find(text, '[', at + 1)) {
    if (closing <= at) closing = find(text, ']', at + 1);
    // No `]` after this `[`: no link closes from here on; the same for a `)` after `](`.
    if (closing === -1) break;
    if (text.charCodeAt(closing + 1) !== OPEN_PAREN) continue;
    if (end < closing + 2) end = find(text, ')', closing + 2);
    if (end === -1) break;
    // An image's `!` belongs to the match unless an earlier match took it.
    const from = at > kept && text.charCodeAt(at - 1) === BANG ? at - 1 : at;
    out += text.slice(kept, from) + text.slice(at + 1, closing);
    kept = end + 1;
    at = end;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/**
 * Markdown/HTML → plain text, whitespace collapsed. Conservative: removes markup, keeps words.
 * Entities are decoded last (by `entities`, the full HTML table: named, decimal, hexadecimal), so
 * `&lt;b&gt;` and `&#42;` stay text instead of being taken for markup.
 */
export function toPlainText(content: string): string {
  const stripped = replaceLinks(removeTags(removeComments(removeRawElements(content))))
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, '')
    .replace(/(\*\*|__|\*|`{1,3}|~~)/g, '');
  // Every run of whitespace becomes one space; a run that is one space already is left alone.
  return decodeHTML(stripped)
    .replace(/\s{2,}|[^\S ]/g, ' ')
    .trim();
}
