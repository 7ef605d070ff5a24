import { describe, expect, it } from 'vitest';
import { answersMatch, extractCode, extractMathAnswer, lastBoxed, referenceAnswer } from './scoring.ts';

describe('math answer extraction', () => {
  it('prefers the last boxed answer, then the FINAL ANSWER line, then #### x, then the last number', () => {
    expect(extractMathAnswer('first \\boxed{1} then \\boxed{\\frac{3}{4}}')).toBe('\\frac{3}{4}');
    expect(lastBoxed('\\boxed{x^{2}+1}')).toBe('x^{2}+1');
    expect(extractMathAnswer('So 2+2=4.\nFINAL ANSWER: $4$')).toBe('4');
    expect(extractMathAnswer('FINAL ANSWER: 3\nwait, FINAL ANSWER: 5')).toBe('5');
    expect(extractMathAnswer('she makes 9 * 2 = 18\n#### 18')).toBe('18');
    expect(extractMathAnswer('costs 1,200 then 3.5 more')).toBe('3.5');
    expect(extractMathAnswer('no numbers here')).toBeUndefined();
  });

  it('reads GSM8K references and compares numbers, fractions and LaTeX', () => {
    expect(referenceAnswer('Janet sells 9 eggs.\n#### 18')).toBe('18');
    expect(answersMatch('18', '#### 18')).toBe(true);
    expect(answersMatch('$1,200', '1200')).toBe(true);
    expect(answersMatch('18.0', '18')).toBe(true);
    expect(answersMatch('17', '18')).toBe(false);
    expect(answersMatch('\\dfrac{1}{2}', '\\frac{1}{2}')).toBe(true);
    expect(answersMatch('0.5', '\\frac{1}{2}')).toBe(true);
    expect(answersMatch('\\left( 3, \\frac{\\pi}{2} \\right)', '(3,\\frac{\\pi}{2})')).toBe(true);
    expect(answersMatch(undefined, '18')).toBe(false);
  });

  it('takes the last fenced block of a code answer', () => {
    expect(extractCode('try:\n```python\ndef f(): return 1\n```\nbetter:\n```python\ndef f(): return 2\n```')).toBe('def f(): return 2');
  });
});
