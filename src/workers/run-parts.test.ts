import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { serialize } from 'node:v8';
import { HAVE_SHARED, SHARED_TRACES, sharedFiles } from '../testing/fixture-kit.ts';
import { firstDifference } from '../testing/same-value.ts';
import { importFiles } from './import-files.ts';
import { importText } from '../import/index.ts';
import type { LoadedFile } from '../import/index.ts';
import type { Handoff } from '../model/types.ts';
import type { Column } from '../model/step-columns.ts';
import { FileAssembler, STEP_SLICE, type FilePart, type LeanHandoff } from './run-parts.ts';
import { rebuild, RunStrings } from '../model/step-columns.ts';
import { SLICE_TEXT_CHARS, sendInParts, stepTextChars } from './send-parts.ts';
import { textChars } from '../model/step-columns.ts';

const AGENTS = ['Planner', 'Writer', 'Checker'];

/** An AG2 group chat of `n` messages, as bench/million.bench.ts writes it. */
function chatFile(n: number): LoadedFile {
  const history = [];
  for (let i = 0; i < n; i++) history.push({ content: `step ${i}: noted item ${i % 97}`, role: 'assistant', name: AGENTS[i % AGENTS.length] });
  const result = importText('chat.json', JSON.stringify({ question: 'Plan and check.', history }));
  return { file: 'chat.json', format: result.format, formatLabel: result.formatLabel, runs: result.runs, warnings: result.warnings };
}

async function handOver(file: LoadedFile, lose?: (part: FilePart) => boolean): Promise<{ received?: LoadedFile; parts: FilePart[]; lean: LeanHandoff[] }> {
  const assembler = new FileAssembler();
  const parts: FilePart[] = [];
  // The handoffs as they crossed (rebuilt from their columns, before the page restores them).
  const lean: LeanHandoff[] = [];
  const strings = new Map<number, RunStrings>();
  let received: LoadedFile | undefined;
  await sendInParts(file, async (part, transfer) => {
    if (lose?.(part)) throw new DOMException('could not be cloned', 'DataCloneError');
    // As postMessage would: the page takes a clone (and restores the handoffs in it); `parts` keep what crossed.
    parts.push(structuredClone(part));
    if (part.kind === 'steps' || part.kind === 'handoffs') {
      if (!strings.has(part.run)) strings.set(part.run, new RunStrings());
      const records = rebuild<LeanHandoff>(structuredClone(part.kind === 'steps' ? part.steps : part.handoffs), strings.get(part.run)!);
      if (part.kind === 'handoffs') for (const h of records) lean.push(h);
    }
    received = assembler.take(structuredClone(part, { transfer })) ?? received;
  }, false);
  return { received, parts, lean };
}

describe('handoffs cross naming their step (ADR 0026, shared strings)', () => {
  it("a chat log's handoffs are made from their steps on the page (ADR 0067): one string and one array with the step's", async () => {
    const file = chatFile(2 * STEP_SLICE + 7);
    const before = structuredClone(file.runs);
    const { received, parts } = await handOver(file);
    // The worker's runs are unchanged (its IndexedDB write follows the hand-off).
    expect(file.runs).toEqual(before);
    expect(firstDifference(received!.runs, file.runs)).toBeUndefined();
    expect(JSON.stringify(received!.runs)).toBe(JSON.stringify(file.runs));
    const [run] = received!.runs;
    expect(run.handoffs.length).toBeGreaterThan(2 * STEP_SLICE);
    // What crossed: each handoff as its step's position and its kind, in three slices, none in columns.
    const made = parts.filter((p) => p.kind === 'step-handoffs');
    expect(parts.filter((p) => p.kind === 'handoffs')).toEqual([]);
    expect(made.map((p) => p.steps.length)).toEqual([STEP_SLICE, STEP_SLICE, run.handoffs.length - 2 * STEP_SLICE]);
    const at = made.flatMap((p) => [...p.steps]);
    run.handoffs.forEach((h, i) => {
      const step = run.steps[at[i]];
      expect(h.stepId).toBe(step.id);
      expect(h.content).toBe(step.output);
      // One array on the page, as the content is one string.
      expect(h.to).toBe(step.recipients);
    });
  });

  it('the handoff slices are smaller serialised than the handoffs themselves', async () => {
    const file = chatFile(STEP_SLICE);
    const { parts } = await handOver(file);
    const sent = parts.filter((p) => p.kind === 'handoffs' || p.kind === 'step-handoffs').reduce((n, p) => n + serialize(p).length, 0);
    const whole = serialize(file.runs[0].handoffs).length;
    // Columns of lean handoffs (ADR 0026) were 0.36 of it here.
    expect(sent).toBeLessThan(whole * 0.3);
  });

  it("a handoff whose content (or `to`) differs from its step's crosses whole", async () => {
    const file = chatFile(10);
    const run = file.runs[0];
    run.handoffs[3] = { ...run.handoffs[3], content: 'something else' };
    run.handoffs[4] = { ...run.handoffs[4], to: ['Nobody'] };
    run.handoffs[5] = { ...run.handoffs[5], stepId: 'no-such-step' };
    const { received, lean: sent } = await handOver(file);
    expect(received!.runs).toEqual(file.runs);
    expect(sent[3].content).toBe('something else');
    expect(typeof sent[3].to).toBe('number');
    expect(typeof sent[4].content).toBe('number');
    expect(sent[4].to).toEqual(['Nobody']);
    expect(sent[5].content).toBe(run.handoffs[5].content);
    expect(sent[5].to).toEqual(run.handoffs[5].to);
    expect(sent[5].stepId).toBe('no-such-step');
  });

  it('a slice with one handoff the page cannot make from its step crosses in columns; the others are made', async () => {
    const file = chatFile(3 * STEP_SLICE);
    const run = file.runs[0];
    // In the second slice only: a handoff with a field of its own.
    run.handoffs[STEP_SLICE + 5] = { ...run.handoffs[STEP_SLICE + 5], note: 'kept' } as (typeof run.handoffs)[number];
    const { received, parts } = await handOver(file);
    expect(firstDifference(received!.runs, file.runs)).toBeUndefined();
    expect(JSON.stringify(received!.runs)).toBe(JSON.stringify(file.runs));
    expect(parts.filter((p) => p.kind === 'handoffs' || p.kind === 'step-handoffs').map((p) => p.kind)).toEqual(['step-handoffs', 'handoffs', 'step-handoffs']);
  });

  // Each way a handoff can differ from what the page would make of its step: its slice crosses in columns, and the
  // page's run is the worker's (keys in their order, values and all).
  const unlike: [string, (h: Handoff) => Handoff][] = [
    ['another sender', (h) => ({ ...h, from: 'Someone' })],
    ['its keys in another order', ({ id, from, to, kind, stepId, content }) => ({ id, from, to, kind, content, stepId })],
    ['a key of its own', (h) => ({ ...h, note: 'x' }) as Handoff],
    ['a key whose value is undefined', (h) => ({ ...h, extra: undefined }) as Handoff],
    ['no step', ({ stepId: _s, ...h }) => h],
    ['recipients of its own', (h) => ({ ...h, to: [...h.to, 'Extra'] })],
    ['content of its own', (h) => ({ ...h, content: `${h.content}!` })],
  ];
  it.each(unlike)('a handoff with %s crosses in columns, the same on the page', async (_what, change) => {
    const file = chatFile(40);
    const run = file.runs[0];
    run.handoffs[17] = change(run.handoffs[17]);
    const { received, parts } = await handOver(file);
    expect(parts.some((p) => p.kind === 'step-handoffs')).toBe(false);
    expect(firstDifference(received!.runs, file.runs)).toBeUndefined();
    expect(JSON.stringify(received!.runs)).toBe(JSON.stringify(file.runs));
  });

  it("ids of any kind, recipients equal to its step's (another array) and a step found past the next one: still made from the step", async () => {
    const file = chatFile(60);
    const run = file.runs[0];
    run.handoffs[7] = { ...run.handoffs[7], to: [...run.handoffs[7].to] };
    run.handoffs[8] = { ...run.handoffs[8], id: 'an id of its own' };
    run.handoffs[9] = { ...run.handoffs[9], id: run.handoffs[10].id };
    // Handoffs 20–29 gone: the next one names a step ten places on.
    run.handoffs = run.handoffs.filter((_h, i) => i < 20 || i >= 30);
    const { received, parts } = await handOver(file);
    expect(parts.filter((p) => p.kind === 'handoffs')).toEqual([]);
    expect(firstDifference(received!.runs, file.runs)).toBeUndefined();
  });

  it('more than 256 kinds in a slice: it crosses in columns', async () => {
    const file = chatFile(300);
    const run = file.runs[0];
    run.handoffs = run.handoffs.map((h, i) => ({ ...h, kind: `kind ${i}` as Handoff['kind'] }));
    const { received, parts } = await handOver(file);
    expect(parts.filter((p) => p.kind === 'step-handoffs')).toEqual([]);
    expect(firstDifference(received!.runs, file.runs)).toBeUndefined();
  });

  it('a lost slice still fails the file', async () => {
    const file = chatFile(3 * STEP_SLICE);
    let n = 0;
    const taken = handOver(file, (p) => p.kind === 'steps' && n++ === 1);
    await expect(taken).rejects.toThrow(/could not be cloned|did not arrive/);
    // A lost slice of handoffs made from their steps: the next one does not start where the page's list ends.
    let m = 0;
    const lostHandoffs = handOver(file, (p) => p.kind === 'step-handoffs' && m++ === 0);
    await expect(lostHandoffs).rejects.toThrow(/could not be cloned|did not arrive/);
    let k = 0;
    const assembler = new FileAssembler();
    await expect(
      sendInParts(file, async (part) => {
        if (part.kind === 'step-handoffs' && k++ === 0) return;
        assembler.take(structuredClone(part));
      }, false),
    ).rejects.toThrow(/did not arrive/);
  });

  it('property: runs with handoffs made by RunBuilder, some changed, cross as they were', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 * STEP_SLICE }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: unlike.length - 1 })), { maxLength: 4 }),
        fc.integer({ min: 0, max: 3 }),
        async (n, changes, skipEvery) => {
          const file = chatFile(n);
          const run = file.runs[0];
          if (skipEvery > 0) run.handoffs = run.handoffs.filter((_h, i) => i % (skipEvery + 3) !== 0);
          for (const [at, which] of changes) {
            if (run.handoffs.length === 0) break;
            const i = at % run.handoffs.length;
            run.handoffs[i] = unlike[which][1](run.handoffs[i]);
          }
          const { received } = await handOver(file);
          expect(firstDifference(received!.runs, file.runs)).toBeUndefined();
          expect(JSON.stringify(received!.runs)).toBe(JSON.stringify(file.runs));
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);
});

describe('steps and handoffs cross in columns (ADR 0029)', () => {
  const traces = HAVE_SHARED ? ['format-fixtures', 'langfuse', 'otlp', 'smolagents-bus', 'tau-bench', 'trail', 'who-and-when'].flatMap((f) => sharedFiles(f)) : [];

  it.skipIf(!HAVE_SHARED)("every real trace: the page's runs are the worker's, key order, -0 and undefined values included", async () => {
    let steps = 0;
    let handoffs = 0;
    // Columns of long texts sent joined (ADR 0074): real prompts and results are long enough.
    let joined = 0;
    const countJoined = (col: Column): void => {
      if (col.t === 'joined') joined++;
      if (col.t === 'obj') col.cols.forEach(countJoined);
      if (col.t === 'arr' || col.t === 'ref') countJoined(col.items);
    };
    for (const path of traces) {
      for (const keepSpans of [true, false]) {
        const { loaded } = await importFiles([{ name: relative(SHARED_TRACES, path), bytes: readFileSync(path) }]);
        for (const file of loaded) {
          // As the hand-off before columns gave it (a structured clone of each slice), after the worker's split.
          const assembler = new FileAssembler();
          let received: LoadedFile | undefined;
          await sendInParts(file, async (part, transfer) => {
            if (part.kind === 'steps') for (const shape of part.steps.shapes) shape.cols.forEach(countJoined);
            received = assembler.take(structuredClone(part, { transfer })) ?? received;
          }, keepSpans);
          // The shell puts the spans (when they cross) last; that order is the shell's, not the slices'.
          const expected = structuredClone(file.runs.map(({ spans: _s, ...r }) => r));
          const got = received!.runs.map(({ spans: _s, ...r }) => r);
          const difference = firstDifference(got, expected);
          if (difference !== undefined) throw new Error(`${relative(SHARED_TRACES, path)}${keepSpans ? '' : ' (spans stored apart)'}: ${difference}`);
          // And the worker's own runs as an export writes them (its records without a prototype arrive plain, as before).
          expect(JSON.stringify(received!.runs.map((r) => [r.steps, r.handoffs]))).toBe(JSON.stringify(file.runs.map((r) => [r.steps, r.handoffs])));
          for (const r of file.runs) {
            steps += r.steps.length;
            handoffs += r.handoffs.length;
          }
        }
      }
    }
    expect(traces.length).toBeGreaterThan(20);
    expect(steps).toBeGreaterThan(3000);
    expect(handoffs).toBeGreaterThan(100);
    expect(joined).toBeGreaterThan(300);
  }, 60_000);
});


describe('slices of steps are cut by the text they carry (ADR 0073)', () => {
  /** An OTLP run of `n` tool spans, each returning `chars` characters (as bench/million-huge.ts writes them). */
  function toolRun(n: number, chars: number): LoadedFile {
    const spans = Array.from({ length: n }, (_, i) => ({
      traceId: 'ab'.repeat(16),
      spanId: (i + 1).toString(16).padStart(16, '0'),
      name: 'execute_tool fetch_page',
      startTimeUnixNano: String(1_760_000_000_000_000_000n + BigInt(i) * 1_000_000n),
      endTimeUnixNano: String(1_760_000_000_000_500_000n + BigInt(i) * 1_000_000n),
      attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
        { key: 'gen_ai.tool.name', value: { stringValue: 'fetch_page' } },
        { key: 'gen_ai.tool.call.result', value: { stringValue: `${i} ${'x'.repeat(chars)}` } },
      ],
    }));
    const result = importText('huge.json', JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'huge' }, spans }] }] }));
    return { file: 'huge.json', format: result.format, formatLabel: result.formatLabel, runs: result.runs, warnings: result.warnings };
  }

  it('a run of long tool results crosses in slices of at most SLICE_TEXT_CHARS of text, and arrives whole', async () => {
    const file = toolRun(600, 20_000);
    const total = file.runs[0].steps.reduce((n, s) => n + stepTextChars(s), 0);
    expect(total).toBeGreaterThan(5 * SLICE_TEXT_CHARS);
    const { received, parts } = await handOver(file);
    expect(firstDifference(received!.runs.map(({ spans: _s, ...r }) => r), file.runs.map(({ spans: _s, ...r }) => r))).toBeUndefined();
    expect(JSON.stringify(received!.runs.map((r) => r.steps))).toBe(JSON.stringify(file.runs.map((r) => r.steps)));
    const slices = parts.flatMap((p) => (p.kind === 'steps' ? [p.steps] : []));
    expect(slices.length).toBeGreaterThan(5);
    for (const slice of slices) expect(textChars(slice)).toBeLessThanOrEqual(SLICE_TEXT_CHARS);
    expect(slices.reduce((n, s) => n + s.rows, 0)).toBe(600);
  });

  it('with the spans crossing too, each step\'s raw (its span\'s attributes, the result again) counts from the first slice', async () => {
    const file = toolRun(300, 20_000);
    const sizes: number[] = [];
    const assembler = new FileAssembler();
    let received: LoadedFile | undefined;
    await sendInParts(file, async (part, transfer) => {
      if (part.kind === 'steps') sizes.push(textChars(part.steps));
      received = assembler.take(structuredClone(part, { transfer })) ?? received;
    }, true);
    expect(JSON.stringify(received!.runs.map((r) => r.steps))).toBe(JSON.stringify(file.runs.map((r) => r.steps)));
    expect(sizes.length).toBeGreaterThan(5);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(SLICE_TEXT_CHARS);
  });

  it('a run of short steps still crosses STEP_SLICE steps a part', async () => {
    const file = chatFile(2 * STEP_SLICE + 7);
    const { parts } = await handOver(file);
    expect(parts.flatMap((p) => (p.kind === 'steps' ? [p.steps.rows] : []))).toEqual([STEP_SLICE, STEP_SLICE, 7]);
  });

  it('a step longer than the budget crosses alone, and the run still arrives whole', async () => {
    const file = toolRun(5, SLICE_TEXT_CHARS + 10);
    const { received, parts } = await handOver(file);
    expect(JSON.stringify(received!.runs.map((r) => r.steps))).toBe(JSON.stringify(file.runs.map((r) => r.steps)));
    expect(parts.flatMap((p) => (p.kind === 'steps' ? [p.steps.rows] : []))).toEqual([1, 1, 1, 1, 1]);
  });
});
