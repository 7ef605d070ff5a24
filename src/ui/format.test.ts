import { describe, expect, it } from 'vitest';
import { formatCount, formatDuration, plural, stepPosition } from './format.ts';

describe('stepPosition', () => {
  it('says "no steps" for a run without steps, not "step 1 / 0"', () => {
    expect(stepPosition(0, 0)).toBe('no steps');
  });
  it('numbers the step from 1 and groups thousands the same whatever the browser locale', () => {
    expect(stepPosition(0, 1)).toBe('step 1 / 1');
    expect(stepPosition(12_344, 1_000_000)).toBe('step 12,345 / 1,000,000');
  });
});

describe('formatCount', () => {
  it('groups thousands with commas', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(96_000)).toBe('96,000');
  });
});

describe('plural', () => {
  it('says one in the singular, every other count in the plural, with thousands separators', () => {
    expect(plural(1, 'agent')).toBe('1 agent');
    expect(plural(0, 'agent')).toBe('0 agents');
    expect(plural(12345, 'step')).toBe('12,345 steps');
    expect(plural(2, 'file', 'files')).toBe('2 files');
    expect(plural(1, 'related handoff')).toBe('1 related handoff');
  });
});

describe('formatDuration', () => {
  it('rounds before it picks the unit: never "60.0 s" or "1 min 60 s" (a real bus result line took 119.6 s)', () => {
    expect([0, 12.4, 999.4, 999.6, 1234, 9_994, 9_996, 59_940, 59_960, 119_600, 119_400].map(formatDuration)).toEqual([
      '0 ms',
      '12 ms',
      '999 ms',
      '1.00 s',
      '1.23 s',
      '9.99 s',
      '10.0 s',
      '59.9 s',
      '1 min 0 s',
      '2 min 0 s',
      '1 min 59 s',
    ]);
  });
  it('writes hours past an hour', () => {
    expect(formatDuration(3_600_000)).toBe('1 h 0 min');
    expect(formatDuration(5_025_000)).toBe('1 h 24 min');
  });
});
