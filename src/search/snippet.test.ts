import { describe, expect, it } from 'vitest';
import { toPlainText } from './plain-text.js';
import { buildSnippet, SNIPPET_SOURCE_LENGTH } from './snippet.js';

describe('toPlainText', () => {
  it('removes HTML and Markdown markup', () => {
    expect(toPlainText('<p>Hello <b>world</b></p>\n# Title\n**bold** [link](http://x) &amp; more')).toBe(
      'Hello world Title bold link & more',
    );
  });
});

describe('toPlainText decodes every HTML entity', () => {
  it('named, decimal and hexadecimal, once', () => {
    expect(toPlainText('<p>Caf&eacute; &mdash; we&#8217;re open&hellip; &#x2F; &euro;5 &copy; &amp;amp;</p>')).toBe(
      'Café — we’re open… / €5 © &amp;',
    );
  });
  it('turns &nbsp; into a space and keeps decoded markup as text', () => {
    expect(toPlainText('a&nbsp;&nbsp;b &lt;script&gt;x&lt;/script&gt; &#42;&#42;kept&#42;&#42;')).toBe(
      'a b <script>x</script> **kept**',
    );
  });
  it('keeps a lone < that starts no tag', () => {
    expect(toPlainText('5 < 6 and 7 > 3')).toBe('5 < 6 and 7 > 3');
  });
});

describe('buildSnippet', () => {
  it('returns short content whole', () => {
    expect(buildSnippet('Short text', ['x'])).toBe('Short text');
    expect(buildSnippet(null, ['x'])).toBe('');
  });
  it('centres long content near the first matched word, within 300 characters', () => {
    const text = `${'alpha '.repeat(100)}needle here ${'omega '.repeat(100)}`;
    const s = buildSnippet(text, ['needle']);
    expect(s.length).toBeLessThanOrEqual(300);
    expect(s).toMatch(/^….*needle here.*…$/);
  });
  it('finds the word with the one case folding, at the right place after letters that lower-case longer', () => {
    const text = `${'İİİİ '.repeat(60)}ΚΩΔΙΚΟΣ here ${'omega '.repeat(60)}`;
    const s = buildSnippet(text, ['κωδικοσ']);
    expect(s).toMatch(/^…(İİİİ )+ΚΩΔΙΚΟΣ here/);
    expect(s.indexOf('ΚΩΔΙΚΟΣ')).toBeLessThanOrEqual(81);
  });
  it('starts at the beginning when the word is near the start or missing', () => {
    const text = 'w '.repeat(400);
    expect(buildSnippet(text, ['nothing']).startsWith('w w')).toBe(true);
  });
  it('reads the first SNIPPET_SOURCE_LENGTH characters only: a word further on gives the start', () => {
    const text = `${'alpha '.repeat(SNIPPET_SOURCE_LENGTH / 6)}needle here`;
    const s = buildSnippet(text, ['needle']);
    expect(s.startsWith('alpha alpha')).toBe(true);
    expect(s.endsWith('…')).toBe(true);
    expect(buildSnippet(`${'alpha '.repeat(SNIPPET_SOURCE_LENGTH / 12)}needle here`, ['needle'])).toMatch(/^….*needle here/);
  });
  it('ends with … when the content goes on past what it reads, however short its text', () => {
    expect(buildSnippet(`<b>hi</b>${'<i>'.repeat(SNIPPET_SOURCE_LENGTH)}more`, ['hi'])).toBe('hi…');
  });
  it('finishes on 1 MB of unclosed markup', () => {
    for (const unit of ['a<b ', '[](', '<x', '[', '](', '<div><p>[x']) {
      expect(buildSnippet(unit.repeat((1 << 20) / unit.length), ['b']).length).toBeLessThanOrEqual(300);
    }
  });
});
