import { describe, expect, it } from 'vitest';
import { normaliseBenchmarkAnswer, scoreBenchmarkAnswer } from './benchmark-scoring.ts';

describe('the smolagents decentralised benchmark rule', () => {
  it('normalises: trim, lower case, one space, no trailing . ! ? ; ,', () => {
    expect(normaliseBenchmarkAnswer('  The  Answer\n is\t42.!  ')).toBe('the answer is 42');
    expect(normaliseBenchmarkAnswer('3.5')).toBe('3.5');
    expect(normaliseBenchmarkAnswer(null)).toBe('');
  });

  it('exact match and contains; an empty true answer scores 0', () => {
    expect(scoreBenchmarkAnswer('Guava.', 'guava')).toEqual({ exactMatch: 1, contains: 1 });
    expect(scoreBenchmarkAnswer('It is 3 albums', '3')).toEqual({ exactMatch: 0, contains: 1 });
    expect(scoreBenchmarkAnswer('Pineapple', 'Guava')).toEqual({ exactMatch: 0, contains: 0 });
    expect(scoreBenchmarkAnswer(null, '3')).toEqual({ exactMatch: 0, contains: 0 });
    expect(scoreBenchmarkAnswer('', '  ')).toEqual({ exactMatch: 0, contains: 0 });
    expect(scoreBenchmarkAnswer('anything', '')).toEqual({ exactMatch: 0, contains: 0 });
  });
});
