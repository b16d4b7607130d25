import { describe, expect, it } from 'vitest';
import { buildSnippet, toPlainText } from './snippet.js';

describe('toPlainText', () => {
  it('removes HTML and Markdown markup', () => {
    expect(toPlainText('<p>Hello <b>world</b></p>\n# Title\n**bold** [link](http://x) &amp; more')).toBe(
      'Hello world Title bold link & more',
    );
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
  it('starts at the beginning when the word is near the start or missing', () => {
    const text = 'w '.repeat(400);
    expect(buildSnippet(text, ['nothing']).startsWith('w w')).toBe(true);
  });
});
