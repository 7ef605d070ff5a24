// @vitest-environment jsdom
// The import row's words and bar for the mapping phase (ADR 0023): a counted total gives a determinate bar and a percent.
import { describe, expect, it } from 'vitest';
import { describeProgress, progressFraction } from './import-status.tsx';

describe('import progress row', () => {
  it('shows a counted mapping as a fraction and a percent, an uncounted one as steps and no fraction', () => {
    const counted = { file: 'big.jsonl', fileIndex: 0, fileCount: 1, phase: 'mapping' as const, done: 49_152, total: 300_000 };
    expect(progressFraction(counted)).toBeCloseTo(0.16384);
    expect(describeProgress(counted)).toBe('mapping big.jsonl into runs: 16%');
    const steps = { file: 'chat.json', fileIndex: 0, fileCount: 1, phase: 'mapping' as const, done: 16_384 };
    expect(progressFraction(steps)).toBeUndefined();
    expect(describeProgress(steps)).toBe('mapping chat.json into runs: 16,384 steps');
  });
});
