// The mapping phase's determinate bar (ADR 0023): the OTLP importer ticks through its five passes over the spans and
// the chat-log importer through its three over the messages and the value checks on the built run, every 4,096
// items, with the total counted first.
import { afterEach, describe, expect, it } from 'vitest';
import { mapTicks } from '../model/run-builder.ts';
import { importFromOtlp } from './formats/otlp.ts';
import { chatLogImporter } from './formats/chat-log.ts';
import { importText } from './index.ts';
import { agentTraceDocument } from '../testing/otlp-docs.ts';

/** One trace of `spans` spans: an agent and its tool calls. */
const otlpDoc = (spans: number) => agentTraceDocument(0xabc, spans);

afterEach(() => {
  mapTicks.onTick = undefined;
});

describe('mapping progress', () => {
  it('ticks while the OTLP importer reads, takes in and links the tree, maps and lists its spans, of a total counted first', () => {
    const spans = 40_000;
    const ticks: { done: number; total: number }[] = [];
    mapTicks.onTick = (done, total) => ticks.push({ done, total });
    const result = importFromOtlp({ kind: 'json', value: otlpDoc(spans), text: '' });
    expect(result.runs[0].steps.length).toBe(spans - 1); // the agent's span is its run, the tools' its steps
    expect(ticks.length).toBeGreaterThanOrEqual(48); // 200,000 / 4,096 = 48
    expect(ticks.every((t) => t.total === 5 * spans)).toBe(true);
    expect(ticks.every((t, i) => i === 0 || t.done > ticks[i - 1].done)).toBe(true);
    // Ticks in each fifth: reading (≤ 40k), the tree as it takes each span in (40k–80k) and links it (80k–120k), the
    // mapping (120k–160k), the run's span list (beyond 160k); each of the last was ~0.3 s of a still bar at 1M spans.
    expect(ticks.some((t) => t.done <= spans)).toBe(true);
    expect(ticks.filter((t) => t.done > spans && t.done <= 2 * spans).length).toBeGreaterThanOrEqual(2);
    expect(ticks.filter((t) => t.done > 2 * spans && t.done <= 3 * spans).length).toBeGreaterThanOrEqual(2);
    expect(ticks.some((t) => t.done > 3 * spans && t.done <= 4 * spans)).toBe(true);
    expect(ticks.filter((t) => t.done > 4 * spans).length).toBeGreaterThanOrEqual(2);
    expect(ticks.at(-1)!.done).toBeLessThanOrEqual(5 * spans);
  });

  it('ticks through the chat-log importer\'s passes after its steps are built', () => {
    const n = 30_000;
    const history = Array.from({ length: n }, (_, i) => ({ content: `step ${i}`, role: 'assistant', name: i % 2 ? 'A' : 'B' }));
    const ticks: number[] = [];
    let total = 0;
    mapTicks.onTick = (done, t) => {
      ticks.push(done);
      total = t;
    };
    const result = chatLogImporter.importDoc({ kind: 'json', value: { question: 'q', history }, text: '' });
    expect(result.runs[0].steps.length).toBe(n);
    expect(total).toBe(4 * n);
    expect(ticks.filter((d) => d > n).length).toBeGreaterThanOrEqual(3); // the usage and handoff passes tick too
    expect(ticks.at(-1)).toBeLessThanOrEqual(3 * n); // the fourth quarter is the checks', made by the file's import
  });

  it('goes on through the value checks made on a chat log\'s run once built, to its total', () => {
    // 1M messages: the checks (a pass over the steps' ids and usage) stood as a still bar at "done" for ~1.4 s.
    const n = 30_000;
    const history = Array.from({ length: n }, (_, i) => ({ content: `step ${i}`, role: 'assistant', name: i % 2 ? 'A' : 'B' }));
    const ticks: number[] = [];
    mapTicks.onTick = (done, total) => {
      expect(total).toBe(4 * n);
      ticks.push(done);
    };
    const file = importText('group-chat.json', JSON.stringify({ question: 'q', history }));
    expect(file.runs[0].steps.length).toBe(n);
    expect(ticks.filter((d) => d > 3 * n).length).toBeGreaterThanOrEqual(1);
    expect(ticks.at(-1)).toBeLessThanOrEqual(4 * n);
    expect('checksProgress' in file).toBe(false); // the importer's progress is not part of the file
  });

  it('leaves no room an importer did not keep: the OTLP importer\'s progress ends at its own total', () => {
    const spans = 40_000;
    const ticks: number[] = [];
    mapTicks.onTick = (done) => ticks.push(done);
    importText('trace.json', JSON.stringify(otlpDoc(spans)));
    expect(ticks.at(-1)).toBeLessThanOrEqual(5 * spans);
  });
});
