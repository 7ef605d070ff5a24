import { describe, expect, it } from 'vitest';
import { StringTable, toColumns } from '../model/step-columns.ts';
import type { RunSpan } from '../model/types.ts';
import { SpanSliceTaker } from './span-slices.ts';

const span = (id: string, name: string): RunSpan => ({ id, name, status: 'ok', attributes: { 'gen_ai.operation.name': name }, events: [] });

describe('SpanSliceTaker', () => {
  it('makes spans from slices made with one table, starts another at a fresh slice, and takes items as they are', () => {
    const table = new StringTable();
    const a = [span('1', 'chat'), span('2', 'chat')];
    const b = [span('3', 'execute_tool')];
    const c = [span('4', 'chat')];
    const taker = new SpanSliceTaker('run', (s) => ({ ...s, name: s.name.toUpperCase() }));
    taker.take(structuredClone({ columns: toColumns(a, table), fresh: true }));
    taker.take(structuredClone({ columns: toColumns(b, table), fresh: false }));
    taker.take({ items: c });
    // A slice of another table (another chunk), marked fresh.
    taker.take(structuredClone({ columns: toColumns(c, new StringTable()), fresh: true }));
    expect(taker.spans.map((s) => [s.id, s.name])).toEqual([['1', 'CHAT'], ['2', 'CHAT'], ['3', 'EXECUTE_TOOL'], ['4', 'CHAT'], ['4', 'CHAT']]);
    expect(taker.spans[0].attributes).toEqual({ 'gen_ai.operation.name': 'chat' });
  });

  it('names the run when a slice cannot be made, and makes no slice after it', () => {
    const spans = [span('1', 'chat'), span('2', 'chat'), span('3', 'chat')];
    const good = toColumns(spans, new StringTable());
    const bad = structuredClone(good);
    const names = bad.shapes[0].cols[bad.shapes[0].keys.indexOf('name')];
    expect(names.t).toBe('str');
    (names as { v: Uint32Array }).v[1] = 999;
    const taker = new SpanSliceTaker('run-7');
    expect(() => taker.take({ columns: bad, fresh: true })).toThrow('the stored spans of run-7 cannot be read: a slice names a string its run has not received');
    expect(() => taker.take({ columns: good, fresh: true })).toThrow('the stored spans of run-7 cannot be read');
    expect(() => taker.take({ items: spans })).toThrow('the stored spans of run-7 cannot be read');
    expect(taker.spans).toEqual([]);
  });
});
