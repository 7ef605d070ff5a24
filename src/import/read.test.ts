import { describe, expect, it } from 'vitest';
import { parseTime } from './read.ts';

describe('parseTime', () => {
  it('reads epoch seconds, ms, µs and ns, and ISO strings, as epoch milliseconds', () => {
    expect(parseTime(1_700_000_000)).toBe(1_700_000_000_000);
    expect(parseTime(1_700_000_000_123)).toBe(1_700_000_000_123);
    expect(parseTime(1_700_000_000_123_000)).toBe(1_700_000_000_123);
    expect(parseTime('1700000000123000000')).toBe(1_700_000_000_123);
    expect(parseTime('2025-01-02T03:04:05.678901')).toBe(Date.UTC(2025, 0, 2, 3, 4, 5, 678));
  });

  it('gives no time for what is none: empty, non-finite, or seconds whose milliseconds overflow (found by fuzzing)', () => {
    for (const v of [undefined, null, '', Number.NaN, Number.POSITIVE_INFINITY, -1.797693134862316e305, 'soon', {}]) {
      expect(parseTime(v)).toBeUndefined();
    }
  });
});
