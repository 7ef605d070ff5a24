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

  it('says how far the parse is: of a stream as it is read, of a text read already (ADR 0047)', () => {
    const MB = 1048576;
    const stream = { file: 'spans.jsonl', fileIndex: 0, fileCount: 1, phase: 'parsing' as const, bytesRead: 25 * MB, bytesTotal: 100 * MB };
    expect(describeProgress(stream)).toBe('reading and parsing spans.jsonl: 25.0 of 100.0 MB');
    const text = { ...stream, file: 'batches.json', ofText: true as const };
    expect(progressFraction(text)).toBeCloseTo(0.25);
    expect(describeProgress(text)).toBe('parsing batches.json: 25.0 of 100.0 MB');
    expect(describeProgress({ ...text, bytesRead: 100 * MB })).toBe('parsing batches.json');
  });

  it('says a file read in one call is being read, with its size and an indeterminate bar (bytes not counted)', () => {
    const MB = 1048576;
    const whole = { file: 'flat.json', fileIndex: 0, fileCount: 1, phase: 'reading' as const, bytesTotal: 78.2 * MB };
    expect(describeProgress(whole)).toBe('reading flat.json (78.2 MB)');
    expect(progressFraction(whole)).toBeUndefined();
    expect(describeProgress({ ...whole, bytesRead: 39.1 * MB })).toBe('reading flat.json: 39.1 of 78.2 MB');
  });

  it('says how far the write of one file is (its database requests), or how many files are saved', () => {
    const one = { file: 'flat.json', fileIndex: 0, fileCount: 1, phase: 'saving' as const, done: 450, total: 1000, ofWrites: true as const };
    expect(describeProgress(one)).toBe('saving flat.json in this browser: 45%');
    expect(progressFraction(one)).toBeCloseTo(0.45);
    expect(describeProgress({ ...one, ofWrites: undefined, file: '3 files', done: 1, total: 3 })).toBe('saving 3 files in this browser: 1 of 3 files');
    expect(describeProgress({ file: 'flat.json', fileIndex: 0, fileCount: 1, phase: 'saving' })).toBe('saving flat.json in this browser');
  });

  it('says the token counter is loading for a file, with an indeterminate bar (ADR 0070)', () => {
    const counter = { file: 'chat.json', fileIndex: 1, fileCount: 2, phase: 'counter' as const };
    expect(progressFraction(counter)).toBeUndefined();
    expect(describeProgress(counter)).toBe("loading the token counter to estimate chat.json's tokens (file 2 of 2)");
  });
});
