import { describe, expect, it } from 'vitest';
import { serialize } from 'node:v8';
import { importText } from '../import/index.ts';
import type { LoadedFile } from '../import/index.ts';
import { FileAssembler, STEP_SLICE, type FilePart } from './run-parts.ts';
import { sendInParts } from './send-parts.ts';

const AGENTS = ['Planner', 'Writer', 'Checker'];

/** An AG2 group chat of `n` messages, as bench/million.bench.ts writes it. */
function chatFile(n: number): LoadedFile {
  const history = [];
  for (let i = 0; i < n; i++) history.push({ content: `step ${i}: noted item ${i % 97}`, role: 'assistant', name: AGENTS[i % AGENTS.length] });
  const result = importText('chat.json', JSON.stringify({ question: 'Plan and check.', history }));
  return { file: 'chat.json', format: result.format, formatLabel: result.formatLabel, runs: result.runs, warnings: result.warnings };
}

async function handOver(file: LoadedFile, lose?: (part: FilePart) => boolean): Promise<{ received?: LoadedFile; parts: FilePart[] }> {
  const assembler = new FileAssembler();
  const parts: FilePart[] = [];
  let received: LoadedFile | undefined;
  await sendInParts(file, async (part) => {
    if (lose?.(part)) throw new DOMException('could not be cloned', 'DataCloneError');
    // As postMessage would: the page takes a clone (and restores the handoffs in it); `parts` keep what crossed.
    parts.push(structuredClone(part));
    received = assembler.take(structuredClone(part)) ?? received;
  }, false);
  return { received, parts };
}

describe('handoffs cross naming their step (ADR 0026, shared strings)', () => {
  it("the page's run deep-equals the worker's, and each handoff's content is its step's output, one string", async () => {
    const file = chatFile(2 * STEP_SLICE + 7);
    const before = structuredClone(file.runs);
    const { received, parts } = await handOver(file);
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
      expect(h.to).not.toBe(step.recipients);
    }
    // What crossed: no handoff carried its content or recipients.
    const handoffParts = parts.filter((p) => p.kind === 'handoffs');
    for (const p of handoffParts) for (const h of p.handoffs) {
      expect(typeof h.content).toBe('number');
      expect(typeof h.to).toBe('number');
    }
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
    const { received, parts } = await handOver(file);
    expect(received!.runs).toEqual(file.runs);
    const sent = parts.flatMap((p) => (p.kind === 'handoffs' ? p.handoffs : []));
    expect(sent[3].content).toBe('something else');
    expect(typeof sent[3].to).toBe('number');
    expect(typeof sent[4].content).toBe('number');
    expect(sent[4].to).toEqual(['Nobody']);
    expect(sent[5].content).toBe(run.handoffs[5].content);
    expect(sent[5].to).toEqual(run.handoffs[5].to);
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
