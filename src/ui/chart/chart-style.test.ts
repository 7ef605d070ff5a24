// Axis ticks in tokens stay distinct at every scale: a spread of a few tokens read "0K, 0K, 0K" before.
import { describe, expect, it } from 'vitest';
import { squareTokenTick, tokenTick } from './chart-style.ts';

describe('token ticks', () => {
  it('writes small values plainly and large ones in K and M', () => {
    expect([0, 0.2, 0.4, 1, 250, 999].map(tokenTick)).toEqual(['0', '0.2', '0.4', '1', '250', '999']);
    expect([1000, 2500, 80_000, 1_200_000].map(tokenTick)).toEqual(['1K', '2.5K', '80K', '1,200K']);
    expect([0.5, 500, 25_000, 2_500_000].map(squareTokenTick)).toEqual(['0.5', '500', '25K', '2.5M']);
    expect(tokenTick(Number.NaN)).toBe('—');
  });
});
