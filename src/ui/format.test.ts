import { describe, expect, it } from 'vitest';
import { formatCount, plural, stepPosition } from './format.ts';

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
