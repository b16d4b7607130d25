import { decodeHTML } from 'entities';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { searchedCharacters, toPlainText } from './plain-text.js';

/**
 * The regular expressions toPlainText stood for until issue 49: the same text on every content,
 * but quadratic on unclosed markup. Only short contents are given to it here.
 */
function regexPlainText(content: string): string {
  const stripped = content
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\/?[a-z!][^>]*>/gi, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, '')
    .replace(/(\*\*|__|\*|`{1,3}|~~)/g, '');
  return decodeHTML(stripped).replace(/\s+/g, ' ').trim();
}

/** Pieces of markup, closed and unclosed, in any letter case, to build contents from. */
const PIECES = [
  '<',
  '>',
  '/',
  '!',
  '[',
  ']',
  '(',
  ')',
  '<!--',
  '-->',
  '<!-->',
  '<script>',
  '</script>',
  '<SCRIPT',
  '</Script>',
  '<style a>',
  '</style>',
  '</STYLE>',
  '<b',
  '</p>',
  '<br/>',
  '<a href="x">',
  'a',
  'word',
  ' ',
  '  ',
  '\n',
  '\r\n',
  '\t',
  '\u00a0',
  '#',
  '###',
  '*',
  '**',
  '_',
  '__',
  '`',
  '```',
  '~~',
  '-',
  '+',
  '1.',
  '42',
  '&amp;',
  '&lt;b&gt;',
  '&',
  '&#42;',
  'é',
  'İ',
  '😀',
  '![',
  '](',
  '>x',
  '<!',
  '</',
  'x)',
];

const content = fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }).map((pieces) => pieces.join(''));

/** Adversarial contents of about `size` characters: unclosed tags and brackets, deep nesting. */
function adversarial(size: number): Record<string, string> {
  const repeat = (unit: string) => unit.repeat(Math.ceil(size / unit.length));
  return {
    'a<b ': repeat('a<b '),
    '<x': repeat('<x'),
    '</x': repeat('</x'),
    '<!--': repeat('<!--'),
    '<script>': repeat('<script>'),
    '<style>': repeat('<style>'),
    '<script> then </style>': `${repeat('<script>')}</style>`,
    '[': repeat('['),
    '[](': repeat('[]('),
    '](': repeat(']('),
    '![': repeat('!['),
    '[[ then ]': `${repeat('[')}]`,
    '[x] not a link': repeat('[x] '),
    'nested tags': repeat('<div><p>'),
    'nested brackets': `${repeat('[')}x${'](u)'.repeat(1000)}`,
    'nested, unclosed': repeat('<div><p>[x'),
    'heading marks': repeat('\n   ######'),
    digits: `\n${repeat('1')}`,
    entities: repeat('&amp'),
    emphasis: repeat('*`~'),
  };
}

const MB = 1 << 20;

describe('toPlainText', () => {
  it('gives the text the regular expressions gave, on any mix of markup', () => {
    fc.assert(
      fc.property(content, (text) => {
        expect(toPlainText(text)).toBe(regexPlainText(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('gives the regular expressions’ text on an ordinary article', () => {
    const article = [
      '<h2 id="t">Reset your password</h2>',
      '<p>Open <a href="https://x.example/reset">the reset page</a> &mdash; then <b>confirm</b>.</p>',
      '<!-- editor note --><script type="text/javascript">track()</script>',
      '# Steps',
      '1. Click **Forgot password**',
      '2. See ![screenshot](img.png) and [help](https://h) for `more`',
      '> Tip: ~~old~~ new',
    ].join('\n');
    expect(toPlainText(article)).toBe(regexPlainText(article));
    expect(toPlainText(article)).toBe(
      'Reset your password Open the reset page — then confirm . Steps Click Forgot password See screenshot and help for more Tip: old new',
    );
  });

  it('finishes on 1 MB of unclosed tags, brackets and deep nesting, keeping the text', () => {
    const cases = adversarial(MB);
    expect(toPlainText(cases['a<b ']!)).toBe(cases['a<b ']!.trim());
    expect(toPlainText(cases['[](']!)).toBe(cases['[](']!);
    expect(toPlainText(cases['nested tags']!)).toBe('');
    // The outermost `[` opens the one link: its text is every other `[` and the `x`.
    expect(toPlainText(cases['nested brackets']!)).toBe(`${'['.repeat(MB - 1)}x${'](u)'.repeat(999)}`);
    for (const [kind, text] of Object.entries(cases)) expect(toPlainText(text).length, kind).toBeLessThanOrEqual(text.length);
  });

  it('searches each character a bounded number of times, however the markup is left open', () => {
    // Four scans, each searching the text once per kind of close it looks for: at most 11 times.
    for (const [kind, text] of Object.entries(adversarial(MB))) {
      const before = searchedCharacters();
      toPlainText(text);
      expect(searchedCharacters() - before, kind).toBeLessThanOrEqual(11 * text.length);
    }
  });

  it('searches twice the characters for twice the content', () => {
    const small = adversarial(MB / 4);
    const large = adversarial(MB / 2);
    for (const kind of Object.keys(small)) {
      const before = searchedCharacters();
      toPlainText(small[kind]!);
      const once = searchedCharacters() - before;
      toPlainText(large[kind]!);
      const twice = searchedCharacters() - before - once;
      expect(twice, kind).toBeLessThanOrEqual(2 * once + 8_000);
    }
  });
});
