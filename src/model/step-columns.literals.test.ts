import { describe, expect, it, vi } from 'vitest';
import * as makers from './record-makers.ts';
import { rebuild, RunStrings, StringTable, toColumns, transferablesOf } from './step-columns.ts';

// Every literal's calls counted: rebuild must make records of a literal shape by their literal (ADR 0107), which the
// records themselves cannot show (they read the same however they are made).
const calls = new Map<string, number>();
vi.mock('./record-makers.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof makers>();
  return {
    ...actual,
    recordMaker: (keys: readonly string[]) => {
      const make = actual.recordMaker(keys);
      if (!make) return undefined;
      const shape = keys.join(',');
      return (v: makers.ValueAt) => {
        calls.set(shape, (calls.get(shape) ?? 0) + 1);
        return make(v);
      };
    },
  };
});

describe('rebuild makes records of literal shapes by their literals (ADR 0107)', () => {
  it('makes a chat log\'s steps, their token counts and tool calls, and handoffs by literals; other shapes key by key', () => {
    const steps = Array.from({ length: 6 }, (_, i) => ({
      id: `s${i}`,
      index: i,
      kind: 'message',
      agentId: i % 2 ? 'Coder' : 'Planner',
      agentRunId: `r:${i % 2}`,
      number: i,
      output: `step ${i}`,
      raw: { role: 'assistant', seq: i },
      usage: { input: i, output: 2 * i, total: 3 * i },
      recipients: ['Writer'],
    }));
    const odd = [{ id: 'x', looseKey: 1 }];
    const slice = toColumns([...steps, ...odd], new StringTable());
    const got = rebuild<Record<string, unknown>>(structuredClone(slice, { transfer: transferablesOf(slice) }), new RunStrings());
    expect(got).toEqual([...steps, ...odd]);
    expect(calls.get('id,index,kind,agentId,agentRunId,number,output,raw,usage,recipients')).toBe(6);
    expect(calls.get('input,output,total')).toBe(6);
    // `raw`'s keys come from the file, and so does the odd record's: no literal.
    expect(calls.get('role,seq')).toBeUndefined();
    expect(calls.get('id,looseKey')).toBeUndefined();
  });
});
