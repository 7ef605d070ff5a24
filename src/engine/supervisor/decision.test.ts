import { describe, expect, it } from 'vitest';
import { ALLOWED_ACTIONS } from './actions.ts';
import { parseDecision } from './decision.ts';
import { purifyObservation } from './heuristics.ts';

describe('parseDecision', () => {
  const ok = JSON.stringify({ analysis: 'a', action: 'provide_guidance', parameters: { guidance: 'do X' } });

  it('reads a clean answer with no repairs', () => {
    expect(parseDecision(ok, ALLOWED_ACTIONS.error)).toEqual({ decision: { analysis: 'a', action: 'provide_guidance', parameters: { guidance: 'do X' } }, repairs: [] });
  });

  it('takes JSON out of a fence or out of surrounding prose, and fixes trailing commas', () => {
    expect(parseDecision(`Sure!\n\`\`\`json\n${ok}\n\`\`\`\nHope this helps`, ALLOWED_ACTIONS.error).decision?.action).toBe('provide_guidance');
    const prose = parseDecision(`My answer: ${ok} -- end`, ALLOWED_ACTIONS.error);
    expect(prose.decision?.parameters.guidance).toBe('do X');
    expect(prose.repairs).toEqual(['ignored text around the JSON object']);
    const commas = parseDecision('{"analysis": "a", "action": "approve", "parameters": {},}', ALLOWED_ACTIONS.inefficient);
    expect(commas.decision?.action).toBe('approve');
    expect(commas.repairs).toContain('removed trailing commas or typographic quotes');
  });

  it('braces inside strings do not end the object early', () => {
    const text = 'x {"analysis": "a } b", "action": "provide_guidance", "parameters": {"guidance": "use {x}"}} y';
    expect(parseDecision(text, ALLOWED_ACTIONS.error).decision?.parameters.guidance).toBe('use {x}');
  });

  it('a disallowed action is repaired from the parameters when exactly one allowed action fits', () => {
    const r = parseDecision(JSON.stringify({ analysis: '', action: 'approve', parameters: { guidance: 'try Y' } }), ALLOWED_ACTIONS.error);
    expect(r.decision?.action).toBe('provide_guidance');
    expect(r.repairs[0]).toMatch(/approve is not allowed here/);
  });

  it('a disallowed action with nothing to repair it from is reported as a problem (the caller falls back)', () => {
    const r = parseDecision(JSON.stringify({ analysis: '', action: 'approve', parameters: {} }), ALLOWED_ACTIONS.error);
    expect(r.decision).toBeUndefined();
    expect(r.problem).toMatch(/no allowed action/);
    expect(parseDecision('no json here', ALLOWED_ACTIONS.error).problem).toMatch(/no JSON object/);
    expect(parseDecision(JSON.stringify({ action: 'correct_observation', parameters: {} }), ALLOWED_ACTIONS.excessive).problem).toMatch(/needs new_observation/);
  });

  it('accepts synonyms and top-level parameters', () => {
    const r = parseDecision(JSON.stringify({ action: 'Provide Guidance', guidance: 'g' }), ALLOWED_ACTIONS.inefficient);
    expect(r.decision).toMatchObject({ action: 'provide_guidance', parameters: { guidance: 'g' } });
  });
});

describe('purifyObservation', () => {
  it('drops scripts, styles, comments and noisy attributes; keeps links, alt text, structure and metadata lines', () => {
    const page = [
      'Address: https://example.org/page',
      'Viewport position: Showing page 1 of 3.',
      '<html><head><style>.a{color:red}</style><script>alert(1)</script></head>',
      '<body class="x" onclick="evil()"><!-- tracking -->',
      '<h1 id="t" style="x">Title</h1>',
      '<a href="https://example.org/next" class="btn" data-x="1">Next</a>',
      '<img src="/a.png" alt="A chart" width="10">',
      '<input placeholder="Search" value="q" onfocus="x()">',
      '',
      '',
      '',
      'Accept all cookies',
      'Body   text\twith   spaces',
      '</body></html>',
    ].join('\n');
    const out = purifyObservation(page);
    expect(out).toContain('Address: https://example.org/page');
    expect(out).toContain('Viewport position: Showing page 1 of 3.');
    expect(out).not.toMatch(/alert|color:red|tracking|onclick|class=|data-x|style=|width=|onfocus/);
    expect(out).toContain('<a href="https://example.org/next">Next</a>');
    expect(out).toContain('<img src="/a.png" alt="A chart">');
    expect(out).toContain('<input placeholder="Search" value="q">');
    expect(out).toContain('<h1>Title</h1>');
    expect(out).toContain('Body text with spaces');
    expect(out).not.toContain('Accept all cookies');
    expect(out).not.toMatch(/\n\n\n/);
    expect(out.length).toBeLessThan(page.length);
  });

  it('leaves clean text alone', () => {
    expect(purifyObservation('Line one.\n\n- item a\n- item b')).toBe('Line one.\n\n- item a\n- item b');
  });
});
