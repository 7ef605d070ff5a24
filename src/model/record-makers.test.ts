import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { generateFlatAgentTrace } from '../../bench/gen-flat-agent-otlp.ts';
import { importBytes, importText } from '../import/index.ts';
import { HAVE_SHARED, importShared, sharedFiles, SKIP_REASON } from '../testing/fixture-kit.ts';
import { firstDifference } from '../testing/same-value.ts';
import { literalShapes, recordMaker } from './record-makers.ts';
import { rebuild, RunStrings, StringTable, toColumns, transferablesOf } from './step-columns.ts';
import type { Run } from './types.ts';

/** Records crossed as the hand-off crosses them: in columns, cloned with their buffers transferred, rebuilt. */
function crossed(records: readonly object[]): unknown[] {
  const slice = toColumns(records, new StringTable());
  return rebuild(structuredClone(slice, { transfer: transferablesOf(slice) }), new RunStrings());
}

/** The share of a run's steps whose shape a literal makes. */
function literalSteps(runs: readonly Run[]): { literal: number; steps: number; missed: Set<string> } {
  let literal = 0;
  let steps = 0;
  const missed = new Set<string>();
  for (const run of runs) {
    for (const step of run.steps) {
      steps++;
      const keys = Object.keys(step);
      if (recordMaker(keys)) literal++;
      else missed.add(keys.join(','));
    }
  }
  return { literal, steps, missed };
}

describe('records of common shapes made by literals (ADR 0107)', () => {
  it('files each maker under the keys it makes, in their order, and under no other', () => {
    const shapes = literalShapes();
    expect(shapes.length).toBeGreaterThan(0);
    expect(new Set(shapes.map((s) => s.join(','))).size).toBe(shapes.length);
    for (const keys of shapes) {
      const make = recordMaker(keys)!;
      const made = make((j) => `value ${j}`);
      expect(Object.keys(made)).toEqual(keys);
      keys.forEach((key, j) => expect(made[key]).toBe(`value ${j}`));
      expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
      // The same keys in another order, or one fewer, have no maker: a record made by one would change its keys.
      if (keys.length > 1) expect(recordMaker([...keys].reverse())).toBeUndefined();
      expect(recordMaker(keys.slice(1))).toBeUndefined();
    }
  });

  it('rebuilds records of every literal shape as they were: values, key order, -0, NaN and undefined (fast-check)', () => {
    const leaf = fc.oneof(
      fc.constantFrom('Planner', 'message', 'tool', ''),
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.constantFrom(-0, Number.NaN, Infinity),
      fc.boolean(),
      fc.constant(undefined),
      fc.constant(null),
    );
    const value = fc.oneof(leaf, fc.dictionary(fc.constantFrom('role', 'input', 'output'), leaf, { maxKeys: 3 }).map((d) => structuredClone(d)), fc.array(leaf, { maxLength: 3 }));
    const shapes = literalShapes();
    const MOST_KEYS = Math.max(...shapes.map((s) => s.length));
    const slice = fc.tuple(fc.nat({ max: shapes.length - 1 }), fc.array(fc.array(value, { minLength: MOST_KEYS, maxLength: MOST_KEYS }), { minLength: 1, maxLength: 12 })).map(([s, rows]) =>
      rows.map((values) => {
        const record: Record<string, unknown> = {};
        shapes[s].forEach((key, j) => (record[key] = values[j]));
        return record;
      }),
    );
    fc.assert(
      fc.property(slice, (records) => {
        const got = crossed(records);
        const difference = firstDifference(got, structuredClone(records));
        if (difference !== undefined) throw new Error(difference);
        for (const record of got) expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
      }),
      { numRuns: 200 },
    );
  });

  it('makes every step of the benches\' large files by a literal: the chat log and the flat OTLP trace', () => {
    // The AG2 group chat of bench/million.bench.ts (writeChatLog), a few messages of it.
    const names = ['Planner', 'Researcher', 'Coder', 'Executor'];
    const history = Array.from({ length: 40 }, (_, i) => ({ content: `step ${i}: noted item ${i % 97}`, role: 'assistant', name: names[i % names.length] }));
    const chat = importText('group-chat.json', JSON.stringify({ question: 'Plan, write and check the report.', history }));
    const flat = importBytes('flat.json', new TextEncoder().encode(generateFlatAgentTrace(200)));
    for (const runs of [chat.runs, flat.runs]) {
      const { literal, steps, missed } = literalSteps(runs);
      expect(steps).toBeGreaterThan(0);
      expect([...missed]).toEqual([]);
      expect(literal).toBe(steps);
    }
  });

  describe.skipIf(!HAVE_SHARED)(`on real files (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
    // The chat-log families whose files grow large: Who&When, τ-bench, the smolagents team's message-bus runs.
    it.each(['who-and-when', 'tau-bench/tau_dataset_failed.json', 'smolagents-bus/runs'])('makes every step of %s by a literal', (folder) => {
      const files = folder.endsWith('.json') ? sharedFiles('', /\.json$/).filter((f) => f.endsWith(folder)) : sharedFiles(folder);
      expect(files.length).toBeGreaterThan(0);
      let steps = 0;
      for (const file of files) {
        let runs: Run[];
        try {
          runs = importShared(file).runs;
        } catch {
          continue;
        }
        const counted = literalSteps(runs);
        expect([...counted.missed], file).toEqual([]);
        steps += counted.steps;
      }
      expect(steps).toBeGreaterThan(0);
    });
  });
});
