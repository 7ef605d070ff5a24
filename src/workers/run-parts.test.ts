import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { serialize } from 'node:v8';
import { HAVE_SHARED, SHARED_TRACES, sharedFiles } from '../testing/fixture-kit.ts';
import { firstDifference } from '../testing/same-value.ts';
import { importFiles } from './import-files.ts';
import { importText } from '../import/index.ts';
import type { LoadedFile } from '../import/index.ts';
import { FileAssembler, STEP_SLICE, type FilePart, type LeanHandoff } from './run-parts.ts';
import { rebuild, RunStrings } from '../model/step-columns.ts';
import { sendInParts } from './send-parts.ts';

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
  it("the page's run deep-equals the worker's, and each handoff's content is its step's output, one string", async () => {
    const file = chatFile(2 * STEP_SLICE + 7);
    const before = structuredClone(file.runs);
    const { received, lean } = await handOver(file);
    // The worker's runs are unchanged (its IndexedDB write follows the hand-off).
    expect(file.runs).toEqual(before);
    expect(received!.runs).toEqual(file.runs);
    expect(JSON.stringify(received!.runs)).toBe(JSON.stringify(file.runs));
    const [run] = received!.runs;
    expect(run.handoffs.length).toBeGreaterThan(2 * STEP_SLICE);
    const byId = new Map(run.steps.map((s) => [s.id, s]));
    for (const h of run.handoffs) {
      const step = byId.get(h.stepId!)!;
      expect(h.content).toBe(step.output);
      expect(h.to).toEqual(step.recipients);
      // One array on the page, as the content is one string.
      expect(h.to).toBe(step.recipients);
    }
    // What crossed: no handoff carried its content or recipients.
    expect(lean.length).toBe(run.handoffs.length);
    for (const h of lean) {
      expect(typeof h.content).toBe('number');
      expect(typeof h.to).toBe('number');
      expect(typeof h.stepId).toBe('number');
    }
    // The step id the page's handoff names is the received step's own string (no second copy crossed).
    run.handoffs.forEach((h, i) => expect(h.stepId).toBe(run.steps[lean[i].stepId as number].id));
  });

  it('the handoff slices are smaller serialised than the handoffs themselves', async () => {
    const file = chatFile(STEP_SLICE);
    const { parts } = await handOver(file);
    const lean = parts.filter((p) => p.kind === 'handoffs').reduce((n, p) => n + serialize(p).length, 0);
    const whole = serialize(file.runs[0].handoffs).length;
    expect(lean).toBeLessThan(whole * 0.85);
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

  it('a lost slice still fails the file', async () => {
    const file = chatFile(3 * STEP_SLICE);
    let n = 0;
    const taken = handOver(file, (p) => p.kind === 'steps' && n++ === 1);
    await expect(taken).rejects.toThrow(/could not be cloned|did not arrive/);
    let m = 0;
    const lostHandoffs = handOver(file, (p) => p.kind === 'handoffs' && m++ === 0);
    await expect(lostHandoffs).rejects.toThrow(/could not be cloned|did not arrive/);
  });
});

describe('steps and handoffs cross in columns (ADR 0029)', () => {
  const traces = HAVE_SHARED ? ['format-fixtures', 'langfuse', 'otlp', 'smolagents-bus', 'tau-bench', 'trail', 'who-and-when'].flatMap((f) => sharedFiles(f)) : [];

  it.skipIf(!HAVE_SHARED)("every real trace: the page's runs are the worker's, key order, -0 and undefined values included", async () => {
    let steps = 0;
    let handoffs = 0;
    for (const path of traces) {
      for (const keepSpans of [true, false]) {
        const { loaded } = await importFiles([{ name: relative(SHARED_TRACES, path), bytes: readFileSync(path) }]);
        for (const file of loaded) {
          // As the hand-off before columns gave it (a structured clone of each slice), after the worker's split.
          const assembler = new FileAssembler();
          let received: LoadedFile | undefined;
          await sendInParts(file, async (part, transfer) => {
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
  }, 60_000);
});

