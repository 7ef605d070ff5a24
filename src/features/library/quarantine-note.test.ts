import { describe, expect, it } from 'vitest';
import type { QuarantinedRecord } from '../../store/library-db.ts';
import { quarantineText } from './quarantine-note.tsx';

function record(value: unknown): QuarantinedRecord {
  return { store: 'runs', key: 'r1', reason: 'not a run', value, at: 0 };
}

describe('the download of records set aside', () => {
  it('writes an object met twice each time, and only a real cycle as [cycle]', () => {
    const usage = { input: 1, output: 2 };
    const shared = { steps: [{ id: 'a', usage }, { id: 'b', usage }] };
    const text = JSON.parse(quarantineText([record(shared)])) as { records: { value: unknown }[] };
    expect(text.records[0].value).toEqual({ steps: [{ id: 'a', usage: { input: 1, output: 2 } }, { id: 'b', usage: { input: 1, output: 2 } }] });

    const looped: Record<string, unknown> = { id: 'x', child: { n: 1 } };
    (looped.child as Record<string, unknown>).back = looped;
    looped.self = looped;
    const written = JSON.parse(quarantineText([record(looped)])) as { records: { value: Record<string, unknown> }[] };
    expect(written.records[0].value).toEqual({ id: 'x', child: { n: 1, back: '[cycle]' }, self: '[cycle]' });
  });

  it('writes a bigint as its digits', () => {
    const text = JSON.parse(quarantineText([record({ big: 12345678901234567890n })])) as { records: { value: { big: string } }[] };
    expect(text.records[0].value.big).toBe('12345678901234567890');
  });
});
