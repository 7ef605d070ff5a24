import { describe, expect, it } from 'vitest';
import { describeLoad } from './library-loading.tsx';

describe("the saved library's load, as the progress bar says it", () => {
  it('names the parts read, then the share of the steps checked (never 100% before it is done)', () => {
    expect(describeLoad({ phase: 'reading', done: 12, total: 1050 })).toBe('reading its runs: 12 of 1,050 parts');
    expect(describeLoad({ phase: 'checking', done: 400_000, total: 1_000_001 })).toBe('checking its runs: 39%');
    expect(describeLoad({ phase: 'checking', done: 999, total: 1000 })).toBe('checking its runs: 99%');
    expect(describeLoad({ phase: 'checking', done: 0, total: 0 })).toBe('checking its runs: 0%');
  });
});
