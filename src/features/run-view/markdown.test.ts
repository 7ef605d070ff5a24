import { describe, expect, it } from 'vitest';
import { looksLikeMarkdown, remarkHtmlAsText, safeHref } from './markdown.ts';

describe('markdown in trace text', () => {
  it('renders text that uses markdown, leaves prose alone', () => {
    expect(looksLikeMarkdown('## Answer\nThe total is 4.')).toBe(true);
    expect(looksLikeMarkdown('Steps:\n- open the file\n- read it')).toBe(true);
    expect(looksLikeMarkdown('1. first\n2. second')).toBe(true);
    expect(looksLikeMarkdown('use `grep` here')).toBe(true);
    expect(looksLikeMarkdown('see [docs](https://example.org)')).toBe(true);
    expect(looksLikeMarkdown('The total is 4 - give or take.')).toBe(false);
    expect(looksLikeMarkdown('- one dash line only')).toBe(false);
    expect(looksLikeMarkdown('')).toBe(false);
  });

  it('keeps only http(s) and mailto link addresses', () => {
    expect(safeHref('https://example.org/a')).toBe('https://example.org/a');
    expect(safeHref('mailto:a@b.c')).toBe('mailto:a@b.c');
    expect(safeHref("javascript:window.__xss='md'")).toBe('');
    expect(safeHref(' JaVaScRiPt:alert(1)')).toBe('');
    expect(safeHref('data:text/html,<script>')).toBe('');
    expect(safeHref('/relative')).toBe('');
    expect(safeHref('https://a\u0000b')).toBe('');
  });

  it('turns raw HTML nodes, inline and block, into literal text', () => {
    const tree = {
      type: 'root',
      children: [
        { type: 'html', value: '<script>x</script>' },
        { type: 'paragraph', children: [{ type: 'text', value: 'a ' }, { type: 'html', value: '<b onmouseover="x">' }] },
      ],
    };
    remarkHtmlAsText()(tree);
    expect(tree).toEqual({
      type: 'root',
      children: [
        { type: 'paragraph', children: [{ type: 'text', value: '<script>x</script>' }] },
        { type: 'paragraph', children: [{ type: 'text', value: 'a ' }, { type: 'text', value: '<b onmouseover="x">' }] },
      ],
    });
  });
});
