// The registry's contract: detection by content, precise typed errors, gzip, and the native round trip.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { exportSession } from '../export/native.ts';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON } from '../testing/fixture-kit.ts';
import type { Run } from '../model/types.ts';
import { IMPORTERS, importBytes, importText } from './index.ts';
import { attachAnnotationSets } from '../model/annotations.ts';
import { importError } from '../testing/fixture-kit.ts';


const REAL = {
  'chat-log': 'who-and-when/hand-crafted/6.json',
  'chat-log (AG2)': 'who-and-when/algorithm-generated/2.json',
  langfuse: 'langfuse/ag2-2026-03-09.json',
  'openai-chat': 'tau-bench/tau_dataset_failed.json',
  'agentrx-ground-truth': 'tau-bench/tau_ground_truth.json',
  'message-bus': 'smolagents-bus/decentralized-LiteLLMModel-gpt-4o__decentralized-consensus__gaia__2025-08-27.jsonl',
};
const read = (p: string) => readFileSync(join(SHARED_TRACES, p));

describe('registry: bad input gives precise ImportErrors', () => {
  it('keeps native first', () => {
    expect(IMPORTERS[0].id).toBe('native');
  });

  it('an empty or blank file', () => {
    for (const text of ['', '  \n\t\n']) {
      const e = importError(() => importText('empty.json', text));
      expect(e.detail).toBe('the file is empty');
      expect(e.message).toContain('empty.json');
    }
  });

  it('binary garbage: the byte offset of the first NUL', () => {
    const bytes = new Uint8Array([0x7b, 0x22, 0x61, 0x00, 0xff, 0xfe, 0x01]);
    const e = importError(() => importBytes('garbage.bin', bytes));
    expect(e.location).toBe('byte 3');
    expect(e.detail).toMatch(/binary/);
  });

  it('text that is not JSON at all', () => {
    const e = importError(() => importText('notes.txt', 'hello world'));
    expect(e.location).toBe('line 1, column 1');
  });

  it('truncated single-line JSON: line and column of the cut', () => {
    const text = JSON.stringify({ question: 'q', history: [{ role: 'user', content: 'a long message that gets cut' }] });
    const e = importError(() => importText('cut.json', text.slice(0, 60)));
    expect(e.format).toBe('json');
    expect(e.location).toMatch(/^line 1, column (\d+)/);
    expect(Number(/column (\d+)/.exec(e.location)![1])).toBeGreaterThanOrEqual(55);
  });

  // A multi-line document that fails as JSON is retried as JSON Lines by parse-input.ts; the error must still point
  // at the real cut near the end, not at the first line's failure as JSON Lines (`jsonl: line 1, column 2`).
  it('truncated pretty-printed JSON: the location is at the cut, not on line 1', () => {
    const text = JSON.stringify({ question: 'q', history: [{ role: 'user', content: 'message' }] }, null, 2);
    const lines = text.split('\n');
    const e = importError(() => importText('cut.json', lines.slice(0, 5).join('\n')));
    expect(e.location).toMatch(/^line 5, column \d+/);
  });

  it('valid JSON of no known format names every format tried', () => {
    const e = importError(() => importText('mystery.json', JSON.stringify({ hello: 'world', items: [1, 2, 3] })));
    expect(e.format).toBe('unknown');
    for (const id of ['langfuse', 'chat-log', 'openai-chat', 'agentrx-ground-truth', 'message-bus']) expect(e.detail).toContain(id);
  });

  it('a forced format that does not fit says so with a path', () => {
    for (const format of ['langfuse', 'openai-chat', 'agentrx-ground-truth']) {
      const e = importError(() => importText('x.json', '{"a":1}', { format }));
      expect(e.format).toBe(format);
      expect(e.location).toBe('$');
    }
  });
});

describe.skipIf(!HAVE_SHARED)(`registry on real files (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  it('wrong types deep inside a real file: the JSON path of the value', () => {
    const who = JSON.parse(read(REAL['chat-log']).toString());
    who.history[3].role = { speaker: 'Orchestrator' };
    let e = importError(() => importText('who.json', JSON.stringify(who)));
    expect([e.format, e.location]).toEqual(['chat-log', '$.history[3].role']);
    expect(e.detail).toBe('expected a string, found an object');

    const tau = JSON.parse(read(REAL['openai-chat']).toString());
    tau[2].traj[4].tool_calls = 'list_all_product_types';
    e = importError(() => importText('tau.json', JSON.stringify(tau)));
    expect([e.format, e.location]).toEqual(['openai-chat', '$[2].traj[4].tool_calls']);

    const lf = JSON.parse(read(REAL.langfuse).toString());
    lf.observations[2].usageDetails.output = [24];
    e = importError(() => importText('lf.json', JSON.stringify(lf)));
    expect([e.format, e.location]).toEqual(['langfuse', '$.observations[2].usageDetails.output']);

    const lines = read(REAL['message-bus']).toString().trim().split('\n');
    lines[4] = JSON.stringify({ ...JSON.parse(lines[4]), duration: 'long' });
    e = importError(() => importText('bus.jsonl', lines.join('\n')));
    expect([e.format, e.location]).toEqual(['message-bus', '$[line 5].duration']);
  });

  for (const [label, path] of Object.entries(REAL)) {
    it(`${label}: gzip imports the same as the plain file`, () => {
      const plain = importBytes('trace.json', read(path));
      const zipped = importBytes('trace.json.gz', gzipSync(read(path)));
      expect({ ...zipped, file: plain.file }).toEqual(plain);
    });

    it(`${label}: a misleading file name does not change the result`, () => {
      const honest = importBytes('x', read(path));
      for (const name of ['run.langfuse.json', 'who-and-when.json', 'tau_ground_truth.json', 'decentralized.jsonl', 'trail.json']) {
        expect({ ...importBytes(name, read(path)), file: 'x' }).toEqual(honest);
      }
    });

    it(`${label}: native session round trip keeps the runs`, () => {
      const imported = importBytes(path, read(path));
      const text = exportSession({ runs: imported.runs });
      const again = importText('unknown-name', text);
      expect(again.format).toBe('native');
      expect(again.runs).toEqual(imported.runs);
    });
  }
});

describe('annotation sets without a run id', () => {
  const step = (id: string) => ({ id, index: 0, kind: 'llm' as const, agentId: 'a' });
  const run = (id: string, stepIds: string[]): Run => ({
    id, title: id, sourceFormat: 'span-tree' as const, models: [], outcome: { status: 'unknown' as const }, tags: {},
    agents: [], agentRuns: [], steps: stepIds.map(step), handoffs: [], annotations: [], interventions: [], orphanSpans: 0,
  });
  const note = (stepId: string) => ({ id: `n-${stepId}`, stepId, source: 'dataset' as const, taxonomy: 'TRAIL', code: 'x' });

  it('attach to the one run that holds every step they point at', () => {
    const runs = [run('r1', ['s1', 's2']), run('r2', ['s3'])];
    const left = attachAnnotationSets(runs, [{ runId: '', annotations: [note('s1'), note('s2')] }]);
    expect(left).toEqual([]);
    expect(runs[0].annotations.map((a) => a.id)).toEqual(['n-s1', 'n-s2']);
    expect(runs[1].annotations).toEqual([]);
  });

  it('stay unattached when no run, or more than one, holds them', () => {
    const runs = [run('r1', ['s1']), run('r2', ['s1'])];
    expect(attachAnnotationSets(runs, [{ runId: '', annotations: [note('s1')] }])).toHaveLength(1);
    expect(attachAnnotationSets(runs, [{ runId: '', annotations: [note('s9')] }])).toHaveLength(1);
  });
});
