import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { generateAgentTrace } from '../../bench/gen-agent-otlp.ts';
import { importText } from '../import/index.ts';
import { chunkRange, expectStoredRuns, openLibraryDb, readStoredSpans, startLibraryPersistence, usePersistence } from '../store/library-db.ts';
import { useLibrary } from '../store/library.ts';
import { FileAssembler, STEP_SLICE, type FilePart } from './run-parts.ts';
import { sendInParts } from './send-parts.ts';
import { CHUNKS_IN_FLIGHT, readSpans, storeRuns, withStoredSpans } from './import-storage.ts';
import { hydrateRun, joinStepRaw } from '../model/session-spans.ts';
import { readableChunk } from '../model/run-chunks.ts';
import { callIdOfStep } from '../features/run-view/conversation.tsx';
import { exportSessionParts } from '../export/native.ts';
import { exportOtlpParts } from '../export/otlp.ts';
import { serialize } from 'node:v8';
import { stepSpanRestorer } from '../features/run-view/span-tree-loader.ts';
import { SpanSliceTaker, type SpanSlice } from './span-slices.ts';
import type { RunSpan } from '../model/types.ts';
import type { LoadedFile } from '../import/index.ts';
import { makeRun as makeSmallRun } from '../testing/test-runs.ts';

let dbCount = 0;
const freshName = () => `import-storage-test-${dbCount++}`;

/** A 300-step agent trace (3,000 spans): step spans share their attributes with the steps' raw. */
function agentFile(steps = 300): LoadedFile {
  const result = importText('agent.otlp.json', JSON.stringify(generateAgentTrace(steps, 'genai')));
  return { file: 'agent.otlp.json', format: result.format, formatLabel: result.formatLabel, runs: result.runs, warnings: result.warnings };
}

async function handOver(file: LoadedFile, keepSpans: boolean): Promise<{ received: LoadedFile; parts: FilePart[] }> {
  const assembler = new FileAssembler();
  const parts: FilePart[] = [];
  let received: LoadedFile | undefined;
  // Each part is cloned, as postMessage would.
  await sendInParts(file, async (part) => {
    parts.push(part);
    received = assembler.take(structuredClone(part)) ?? received;
  }, keepSpans);
  return { received: received!, parts };
}

/** A reload: this page's persistence stopped, the library emptied, and the library read back from `name`. */
async function reloadLibrary(persistence: { stop(): void }, name: string) {
  persistence.stop();
  useLibrary.setState({ hydrated: false, files: [], runs: {}, llmCalls: {}, failures: [] });
  return startLibraryPersistence({ name, debounceMs: 0 });
}

beforeEach(() => {
  useLibrary.setState({ hydrated: false, files: [], runs: {}, llmCalls: {}, failures: [] });
  usePersistence.setState({ status: 'loading', problem: undefined, writes: 0, savingRuns: new Set(), storedSpans: new Set() });
});

describe('handing a file to the page in parts', () => {
  it('sends the run without its spans, then its steps in slices, and puts it back together', async () => {
    const file = agentFile();
    const [run] = file.runs;
    run.steps = Array.from({ length: 2 * STEP_SLICE + 5 }, (_, i) => ({ ...run.steps[i % run.steps.length], id: `s${i}`, index: i }));
    run.handoffs = Array.from({ length: STEP_SLICE + 1 }, (_, i) => ({ id: `h${i}`, from: 'a', to: ['b'], kind: 'message', stepId: `s${i}`, content: `m${i}` }));
    const { received, parts } = await handOver(file, false);
    expect(parts.map((p) => p.kind)).toEqual(['file', 'steps', 'steps', 'steps', 'handoffs', 'handoffs', 'end']);
    expect(parts[0].kind === 'file' && parts[0].file.runs[0].steps).toEqual([]);
    expect(parts[0].kind === 'file' && parts[0].file.runs[0].handoffs).toEqual([]);
    expect(parts[0].kind === 'file' && 'spans' in parts[0].file.runs[0]).toBe(false);
    const { spans, ...rest } = run;
    expect(spans!.length).toBe(3000);
    expect(received.runs[0]).toEqual(rest);
  });

  it('a slice that cannot be sent fails the file: the page never takes it with steps missing', async () => {
    const file = agentFile();
    const assembler = new FileAssembler();
    const taken: LoadedFile[] = [];
    let n = 0;
    const sending = sendInParts(file, async (part) => {
      if (part.kind === 'steps' && n++ === 0) throw new DOMException('could not be cloned', 'DataCloneError');
      const done = assembler.take(structuredClone(part));
      if (done) taken.push(done);
    }, false);
    await expect(sending).rejects.toThrow(/could not be cloned|did not arrive/);
    expect(taken).toEqual([]);
  });

  it('sends a step without the raw its span keeps (ADR 0026): only the call-id keys the page reads cross', async () => {
    const original = agentFile();
    const file = agentFile();
    const { received, parts } = await handOver(file, false);
    const before = original.runs[0].steps;
    const after = received.runs[0].steps;
    expect(after.length).toBe(before.length);
    // Every step span keeps its step's raw; the step keeps the key a tool result is matched by, and its place.
    expect(after.filter((s) => s.spanId !== undefined && Object.keys(s.raw ?? {}).length > 0).every((s) => Object.keys(s.raw!).every((k) => k === 'gen_ai.tool.call.id'))).toBe(true);
    expect(after.map(callIdOfStep)).toEqual(before.map(callIdOfStep));
    expect(after.filter((s) => callIdOfStep(s) !== undefined).length).toBeGreaterThan(100);
    expect(after.map((s) => Object.keys(s))).toEqual(before.map((s) => Object.keys(s)));
    expect(file.runs[0].spans!.filter((x) => x.stepRaw === true).length).toBe(600);
    // Everything else of a step arrives as it was.
    expect(after.map(({ raw: _r, ...rest }) => rest)).toEqual(before.map(({ raw: _r, ...rest }) => rest));
    const stepBytes = (steps: unknown) => serialize(steps).length;
    const sent = parts.reduce((n, p) => n + (p.kind === 'steps' ? stepBytes(p.steps) : 0), 0);
    expect(sent).toBeLessThan(stepBytes(before) * 0.75);
    // With the spans back, the steps are whole again.
    expect(joinStepRaw({ ...received.runs[0], spans: file.runs[0].spans }).steps).toEqual(before);
  });

  it('posts each slice as soon as it is split: the page starts receiving before the later steps are split', async () => {
    const file = agentFile(1100);
    const steps = file.runs[0].steps;
    expect(steps.length).toBeGreaterThan(STEP_SLICE + 100);
    const later = steps.slice(STEP_SLICE).find((s) => s.spanId !== undefined && Object.keys(s.raw ?? {}).length > 1)!;
    const seen: { kind: string; laterRawKeys: number }[] = [];
    await sendInParts(file, async (part) => {
      seen.push({ kind: part.kind, laterRawKeys: Object.keys(later.raw ?? {}).length });
    }, false);
    // When the first slice went, a step of the second still had its whole raw; by the end it is split too.
    expect(seen.filter((p) => p.kind === 'steps')[0].laterRawKeys).toBeGreaterThan(1);
    expect(Object.keys(later.raw ?? {}).length).toBeLessThanOrEqual(1);
  });

  it('keeps the spans in the run when the worker does not store them (no IndexedDB)', async () => {
    const file = agentFile();
    const { received } = await handOver(file, true);
    expect(received.runs[0]).toEqual(file.runs[0]);
  });
});

describe('the import worker’s write (ADR 0020)', () => {
  it('stores the run without spans and the spans apart; the page reads them back as they were', async () => {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
    const file = agentFile();
    const [run] = file.runs;
    const { received } = await handOver(file, false);
    const shell = received.runs[0];
    const durable = storeRuns({ name, version: 3 }, file.runs);
    const saved = expectStoredRuns(received.runs, durable);
    useLibrary.getState().addLoaded(received);
    expect(usePersistence.getState().savingRuns.has(run.id)).toBe(true);
    expect(usePersistence.getState().status).toBe('saving');
    await saved;
    await persistence.flush();
    expect(usePersistence.getState().savingRuns.size).toBe(0);
    expect(usePersistence.getState().status).toBe('saved');
    expect(usePersistence.getState().storedSpans.has(run.id)).toBe(true);
    expect(await readStoredSpans(shell)).toEqual(run.spans);

    // A change made on the page (a label) writes the run without spans; the spans stay where they are.
    useLibrary.getState().updateRun({ ...shell, title: 'relabelled' });
    await persistence.flush();
    const again = await reloadLibrary(persistence, name);
    const stored = useLibrary.getState().runs[run.id];
    expect(stored.title).toBe('relabelled');
    expect(stored.spans).toBeUndefined();
    expect(stored.steps).toEqual(run.steps);
    expect(usePersistence.getState().storedSpans.has(run.id)).toBe(true);
    expect(await readStoredSpans(stored)).toEqual(run.spans);
    again.stop();
  });

  it('a change made on the page to a large run the worker stored keeps its step chunks (ADR 0058)', async () => {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
    // Over one chunk (20,000 items): the worker stores the steps in two chunks.
    const big = makeSmallRun('big-chat');
    big.steps = Array.from({ length: 20_001 }, (_, i) => ({ id: `m${i}`, index: i, kind: 'message' as const, agentId: 'manager', output: `said ${i}` }));
    const file: LoadedFile = { file: 'big.json', format: 'native', formatLabel: 'x', runs: [big], warnings: [] };
    const durable = storeRuns({ name, version: 3 }, file.runs);
    const saved = expectStoredRuns(file.runs, durable);
    useLibrary.getState().addLoaded(file);
    await saved;
    await persistence.flush();
    const db = await openLibraryDb({ name });
    expect((await db.getAllKeys('runChunks', chunkRange(big.id))).map((k) => (k as unknown[])[1])).toEqual(['steps', 'steps']);
    // The worker writes its steps' chunks in columns (ADR 0075), in slices (ADR 0079); marked, the chunk is put back as
    // items (read alike).
    const raw = await db.get('runChunks', [big.id, 'steps', 1]);
    expect(raw && 'slices' in raw).toBe(true);
    const chunk = readableChunk(raw) as { items: unknown[]; of: number };
    await db.put('runChunks', { ...chunk, items: [{ ...(chunk.items[0] as object), output: 'mark' }] }, [big.id, 'steps', 1]);
    db.close();
    // A label: a new run object with the same steps. Only its record is written; the marked chunk stays.
    useLibrary.getState().updateRun({ ...big, title: 'relabelled' });
    await persistence.flush();
    const again = await reloadLibrary(persistence, name);
    const stored = useLibrary.getState().runs[big.id];
    expect(stored.title).toBe('relabelled');
    expect(stored.steps).toHaveLength(20_001);
    expect(stored.steps[20_000].output).toBe('mark');
    expect(stored.steps[19_999]).toEqual(big.steps[19_999]);
    again.stop();
  });

  it('a run without spans (a chat log) is not taken for one whose spans are stored apart', async () => {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
    const chat = makeSmallRun('chat-no-spans');
    expect(chat.spans).toBeUndefined();
    const spanned = agentFile();
    const file: LoadedFile = { ...spanned, runs: [...spanned.runs, chat] };
    const { received } = await handOver(file, false);
    const durable = storeRuns({ name, version: 3 }, file.runs);
    expect(await durable).toEqual([spanned.runs[0].id]);
    await expectStoredRuns(received.runs, durable);
    expect(usePersistence.getState().storedSpans.has(spanned.runs[0].id)).toBe(true);
    // Before: every run handed over without spans was marked so, and its run view showed an empty "Spans" panel.
    expect(usePersistence.getState().storedSpans.has(chat.id)).toBe(false);
    persistence.stop();
  });

  it('tells how many of its database requests are done as they succeed, all of them before the write is durable', async () => {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
    const file = agentFile();
    await handOver(file, false);
    const reports: [number, number][] = [];
    let durableAt = -1;
    const durable = storeRuns({ name, version: 3, chunkLimits: { maxItems: 50, maxBytes: 1 << 20 } }, file.runs, (written, total) => reports.push([written, total]));
    await durable.then(() => (durableAt = reports.length));
    expect(reports.length).toBeGreaterThan(0);
    const total = reports[0][1];
    // A delete and a put of the run, the spans apart, and one put per chunk of 50 steps: each counted when made and
    // when done.
    expect(total).toBeGreaterThan(6);
    expect(total % 2).toBe(0);
    expect(reports.every(([, t]) => t === total)).toBe(true);
    expect(reports.map(([w]) => w)).toEqual([...reports.map(([w]) => w)].sort((a, b) => a - b));
    expect(reports[reports.length - 1]).toEqual([total, total]);
    expect(durableAt).toBe(reports.length);
    persistence.stop();
  });

  it('a label added on the page keeps the raw that stayed with the spans; exports are the bytes they were (ADR 0026)', async () => {
    /** Import, store through the worker's write, label on the page, reload: the run as stored, and its exports. */
    const labelAndReload = async (split: boolean) => {
      const name = freshName();
      const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
      const file = agentFile();
      // The hand-over before ADR 0026: the run without its spans, its steps whole.
      const received: LoadedFile = split ? (await handOver(file, false)).received : { ...file, runs: file.runs.map(({ spans: _s, ...run }) => structuredClone(run)) };
      const [shell] = received.runs;
      await expectStoredRuns(received.runs, storeRuns({ name, version: 3 }, file.runs));
      useLibrary.getState().addLoaded(received);
      await persistence.flush();
      useLibrary.getState().updateRun({ ...shell, title: 'relabelled' });
      await persistence.flush();
      const again = await reloadLibrary(persistence, name);
      const stored = useLibrary.getState().runs[shell.id];
      const now = vi.spyOn(Date, 'now').mockReturnValue(1_800_000_000_000);
      try {
        // As the export worker makes the files (export.worker.ts): spans read back, the text in parts.
        const whole = await withStoredSpans(stored, { storage: { name, version: 3 }, runIds: [...usePersistence.getState().storedSpans] });
        return { stored, whole, session: exportSessionParts({ runs: [whole], llmCalls: [], createdAt: Date.now() }).join(''), otlp: exportOtlpParts([whole], 2).join('') };
      } finally {
        now.mockRestore();
        again.stop();
      }
    };
    const before = await labelAndReload(false);
    const after = await labelAndReload(true);
    expect(after.stored.title).toBe('relabelled');
    // The stored steps carry only the call-id keys; the spans carry the rest, and give it back.
    expect(after.stored.steps.some((s) => Object.keys(s.raw ?? {}).length > 1)).toBe(false);
    expect(before.stored.steps.some((s) => Object.keys(s.raw ?? {}).length > 1)).toBe(true);
    expect(after.whole.steps).toEqual(before.whole.steps);
    expect(after.whole.spans).toEqual(before.whole.spans);
    // Compared as booleans: a failure would print two files of a megabyte.
    expect(after.session === before.session).toBe(true);
    expect(after.session).toContain('"attributesOf":"step"');
    expect(after.session).not.toContain('stepRaw');
    expect(after.otlp === before.otlp).toBe(true);
  });

  it('the page never writes the runs the worker writes, and its own later writes wait for the worker', async () => {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
    const { received } = await handOver(agentFile(), false);
    let commit!: () => void;
    const durable = new Promise<string[]>((resolve) => (commit = () => resolve([])));
    void expectStoredRuns(received.runs, durable);
    useLibrary.getState().addLoaded(received);
    const flushed = persistence.flush();
    await new Promise((r) => setTimeout(r, 20));
    // Still waiting for the worker: nothing of this page written yet, the status says saving.
    expect(usePersistence.getState().status).toBe('saving');
    commit();
    await flushed;
    await persistence.flush();
    expect(usePersistence.getState().status).toBe('saved');
    persistence.stop();
    // Only the file record came from the page: the run itself is not in the database (the worker "wrote" nothing here).
    const db = await openLibraryDb({ name });
    expect(await db.count('files')).toBe(1);
    expect(await db.count('runs')).toBe(0);
    db.close();
  });

  it('a write that fails says so in the library’s status', async () => {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
    const { received } = await handOver(agentFile(), false);
    await expectStoredRuns(received.runs, Promise.reject(new Error('QuotaExceededError')));
    expect(usePersistence.getState()).toMatchObject({ status: 'failed' });
    expect(usePersistence.getState().problem).toContain('was not saved: Error: QuotaExceededError');
    expect(usePersistence.getState().savingRuns.size).toBe(0);
    persistence.stop();
  });

  /** readSpans as the page takes it: each slice cloned (as postMessage would) and given to the page's taker. */
  async function readBack(name: string, runId: string, log: SpanSlice[] = []): Promise<{ count: number; spans: RunSpan[] }> {
    const taker = new SpanSliceTaker(runId);
    const count = await readSpans({ name, version: 3 }, runId, async (slice, transfer) => {
      log.push(slice);
      // Cloned with its buffers transferred, as postMessage does (which refuses a buffer listed twice, or a non-buffer).
      taker.take(structuredClone(slice, { transfer }));
    });
    return { count, spans: taker.spans };
  }

  const rowsOf = (slice: SpanSlice) => ('columns' in slice ? slice.columns.rows : slice.items.length);

  it('reads stored spans back in slices, in columns, for the page to make and restore', async () => {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
    const file = agentFile();
    const [run] = file.runs;
    await storeRuns({ name, version: 3 }, file.runs);
    const slices: SpanSlice[] = [];
    const { count, spans } = await readBack(name, run.id, slices);
    expect(count).toBe(3000);
    expect(slices.map(rowsOf)).toEqual([2000, 1000]);
    // Stored whole (runSpans), they are put in columns by the worker with one table: only the first starts it.
    expect(slices.map((x) => 'columns' in x && x.fresh)).toEqual([true, false]);
    // Step spans are stored compacted (their attributes are the step's raw).
    expect(spans.filter((x) => x.attributesOf === 'step').length).toBe(600);
    expect(hydrateRun({ ...run, spans: structuredClone(spans) }).spans).toEqual(run.spans);
    // The loader's restorer, span by span, gives the same spans.
    expect(spans.map(stepSpanRestorer(run))).toEqual(run.spans);
    expect(await readSpans({ name, version: 3 }, 'no-such-run', async () => {})).toBe(0);
    persistence.stop();
  });

  it('writes a large run in chunks (steps and spans in columns); the page and the worker read it back whole', async () => {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
    const file = agentFile();
    const [run] = file.runs;
    const limits = { maxItems: 1000, maxBytes: 200_000 };
    await storeRuns({ name, version: 3, chunkLimits: limits }, file.runs);
    const db = await openLibraryDb({ name });
    const chunkKeys = await db.getAllKeys('runChunks', chunkRange(run.id));
    const keys = chunkKeys.map((k) => (k as unknown[])[1]);
    expect(keys.filter((f) => f === 'steps').length).toBeGreaterThan(1);
    const spanChunks = keys.filter((f) => f === 'spans').length;
    expect(spanChunks).toBeGreaterThanOrEqual(3);
    expect(await db.get('runSpans', run.id)).toBeUndefined();
    // The spans' chunks are stored in columns (ADR 0103), as the steps' are.
    for (const key of chunkKeys.filter((k) => (k as unknown[])[1] === 'spans')) expect(Object.keys((await db.get('runChunks', key)) as object).sort()).toEqual(['of', 'slices']);
    db.close();
    const slices: SpanSlice[] = [];
    const { count, spans } = await readBack(name, run.id, slices);
    expect(count).toBe(3000);
    // Passed on as stored: each chunk's first slice starts a table of its own.
    expect(slices.every((x) => 'columns' in x)).toBe(true);
    expect(slices.filter((x) => 'columns' in x && x.fresh).length).toBe(spanChunks);
    expect(spans.map(stepSpanRestorer(run))).toEqual(run.spans);
    const again = await reloadLibrary(persistence, name);
    const { spans: _spans, ...rest } = run;
    expect(useLibrary.getState().runs[run.id]).toEqual(rest);
    expect(usePersistence.getState().storedSpans.has(run.id)).toBe(true);
    expect(await readStoredSpans(useLibrary.getState().runs[run.id])).toEqual(run.spans);
    // Exports read them whole in the worker, as before.
    expect((await withStoredSpans(useLibrary.getState().runs[run.id], { storage: { name, version: 3 }, runIds: [run.id] })).spans).toEqual(run.spans);
    again.stop();
  });

  /** The 3,000-span agent run stored in small chunks: the library's database open, and the keys of its spans' chunks. */
  async function storedInSpanChunks() {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
    const file = agentFile();
    const [run] = file.runs;
    await storeRuns({ name, version: 3, chunkLimits: { maxItems: 1000, maxBytes: 200_000 } }, file.runs);
    const db = await openLibraryDb({ name });
    const chunkKeys = (await db.getAllKeys('runChunks', chunkRange(run.id))).filter((k) => (k as unknown[])[1] === 'spans');
    return { name, persistence, run, db, chunkKeys, n: chunkKeys.length };
  }

  it('reads spans stored in chunks of items (before ADR 0103), and a chunk of items that are not all records', async () => {
    const { name, persistence, run, db, chunkKeys, n } = await storedInSpanChunks();
    // Every chunk put back as items, as a build before this one stored them.
    const stored: RunSpan[][] = [];
    for (const key of chunkKeys) {
      const items = (readableChunk(await db.get('runChunks', key)) as { items: RunSpan[] }).items;
      stored.push(items);
      await db.put('runChunks', { items, of: n } as never, key);
    }
    const asItems = await readBack(name, run.id);
    expect(asItems.count).toBe(3000);
    expect(asItems.spans.map(stepSpanRestorer(run))).toEqual(run.spans);
    // A chunk with an item that is not a record: its slice goes as items (and would every later slice of that chunk: the
    // worker's table may hold strings the page never got); the next chunk starts a table of its own.
    const odd: unknown[] = [...stored[0]];
    const at = Math.floor(odd.length / 2);
    odd[at] = 'not a span';
    await db.put('runChunks', { items: odd, of: n } as never, chunkKeys[0]);
    db.close();
    const slices: SpanSlice[] = [];
    const read = await readBack(name, run.id, slices);
    expect(read.count).toBe(3000);
    expect(slices.map((x) => ('items' in x ? 'items' : x.fresh ? 'fresh' : 'columns'))).toEqual(['items', ...Array.from({ length: n - 1 }, () => 'fresh')]);
    expect(read.spans[at]).toBe('not a span');
    expect(read.spans.filter((_, i) => i !== at)).toEqual(asItems.spans.filter((_, i) => i !== at));
    persistence.stop();
  });

  it('refuses stored spans whose chunks are missing, miscounted or cannot be rebuilt, naming the run', async () => {
    const { name, persistence, run, db, chunkKeys, n } = await storedInSpanChunks();
    const second = (await db.get('runChunks', chunkKeys[1])) as { slices: { shapes: { cols: { t: string; v: Uint32Array }[] }[] }[]; of: number };
    // A count that is not the number of chunks.
    await db.put('runChunks', { ...second, of: n + 1 } as never, chunkKeys[1]);
    await expect(readBack(name, run.id)).rejects.toThrow(`the stored spans of ${run.id} cannot be read: spans: chunk 1 is not a chunk of ${n}`);
    // A slice that names a string its table never had: the page's rebuild refuses it.
    const tampered = structuredClone(second);
    const col = tampered.slices[0].shapes.flatMap((shape) => shape.cols).find((c) => c.t === 'str')!;
    col.v[0] = 1_000_000;
    await db.put('runChunks', tampered as never, chunkKeys[1]);
    await expect(readBack(name, run.id)).rejects.toThrow(`the stored spans of ${run.id} cannot be read: a slice names a string its run has not received`);
    // Stored typed arrays that share one buffer (a structured clone keeps that), or a column held in a plain array:
    // passed on without transferring what cannot be, and read as they say. A slice that is not one is refused, by name.
    const shared = structuredClone(second);
    const strs = shared.slices[0].shapes.flatMap((shape) => shape.cols).filter((c) => c.t === 'str');
    expect(strs.length).toBeGreaterThan(1);
    const one = new Uint32Array(strs.reduce((sum, c) => sum + c.v.length, 0));
    let from = 0;
    for (const c of strs) {
      const view = one.subarray(from, from + c.v.length);
      view.set(c.v);
      c.v = view;
      from += c.v.length;
    }
    await db.put('runChunks', shared as never, chunkKeys[1]);
    const read = await readBack(name, run.id);
    expect(read.count).toBe(3000);
    expect(read.spans.map(stepSpanRestorer(run))).toEqual(run.spans);
    const notTyped = structuredClone(second);
    const plain = notTyped.slices[0].shapes.flatMap((shape) => shape.cols).find((c) => c.t === 'str')!;
    (plain as unknown as { v: unknown }).v = Array.from(plain.v);
    await db.put('runChunks', notTyped as never, chunkKeys[1]);
    expect((await readBack(name, run.id)).spans.map(stepSpanRestorer(run))).toEqual(run.spans);
    const notSlice = structuredClone(second);
    (notSlice.slices[0] as unknown as { shapes: unknown }).shapes = 'no shapes';
    await db.put('runChunks', notSlice as never, chunkKeys[1]);
    await expect(readBack(name, run.id)).rejects.toThrow(`the stored spans of ${run.id} cannot be read: `);
    // A missing chunk.
    await db.delete('runChunks', chunkKeys[1]);
    await expect(readBack(name, run.id)).rejects.toThrow(`the stored spans of ${run.id} cannot be read: spans: ${n - 1} of ${n} chunks are stored`);
    db.close();
    persistence.stop();
  });

  it('makes a large run\'s chunk writes a few at a time: each chunk\'s clone is held until the database has it', async () => {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
    const file = agentFile();
    const [run] = file.runs;
    // The chunk puts made and not yet done, counted as the worker makes them.
    const put = IDBObjectStore.prototype.put;
    let pending = 0;
    let most = 0;
    let chunks = 0;
    const spy = vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      const request = put.apply(this, args);
      if (this.name === 'runChunks') {
        chunks++;
        most = Math.max(most, ++pending);
        const done = () => pending--;
        request.addEventListener('success', done);
        request.addEventListener('error', done);
      }
      return request;
    });
    try {
      await storeRuns({ name, version: 3, chunkLimits: { maxItems: 100, maxBytes: 1 << 20 } }, file.runs);
    } finally {
      spy.mockRestore();
    }
    expect(chunks).toBeGreaterThan(2 * CHUNKS_IN_FLIGHT);
    expect(most).toBe(CHUNKS_IN_FLIGHT);
    expect(await readStoredSpans(run)).toEqual(run.spans);
    persistence.stop();
  });

  it('a run the worker failed to write stays named as not saved until it is written, then says saved', async () => {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
    const { received } = await handOver(agentFile(), false);
    const [shell] = received.runs;
    const failure = new DOMException('The serialized keys and/or value are too large', 'UnknownError');
    const saved = expectStoredRuns(received.runs, Promise.reject(failure));
    useLibrary.getState().addLoaded(received);
    await saved;
    // The page's own write (the file record) lands, and does not say saved over the failed run.
    await persistence.flush();
    expect(usePersistence.getState().writes).toBe(1);
    expect(usePersistence.getState()).toMatchObject({ status: 'failed' });
    expect(usePersistence.getState().problem).toContain(`the run ${shell.id} was not saved: UnknownError: The serialized keys`);
    // Another change elsewhere neither.
    useLibrary.getState().addLoaded({ file: 'other.json', format: 'native', formatLabel: 'x', runs: [makeSmallRun('other')], warnings: [] });
    await persistence.flush();
    expect(usePersistence.getState()).toMatchObject({ status: 'failed' });
    // A change to the run is written by the page: now it is stored, and the library is saved.
    useLibrary.getState().updateRun({ ...useLibrary.getState().runs[shell.id], title: 'relabelled' });
    await persistence.flush();
    expect(usePersistence.getState()).toMatchObject({ status: 'saved', problem: undefined });
    persistence.stop();
    const db = await openLibraryDb({ name });
    expect((await db.get('runs', shell.id))?.title).toBe('relabelled');
    db.close();
  });

  it('a failed run removed from the library is no longer reported', async () => {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
    const { received } = await handOver(agentFile(), false);
    const saved = expectStoredRuns(received.runs, Promise.reject(new Error('too large')));
    useLibrary.getState().addLoaded(received);
    await saved;
    await persistence.flush();
    expect(usePersistence.getState().status).toBe('failed');
    useLibrary.getState().removeFile(useLibrary.getState().files[0].id);
    await persistence.flush();
    expect(usePersistence.getState()).toMatchObject({ status: 'saved', problem: undefined });
    persistence.stop();
  });

  it('a write too large for the database rejects with its cause and nothing of it lands', async () => {
    const name = freshName();
    const persistence = await startLibraryPersistence({ name, debounceMs: 0 });
    const file = agentFile();
    // A value the database refuses at once (a function cannot be cloned): the whole transaction is aborted.
    const bad = { ...file.runs[0], id: 'bad', tags: { f: (() => {}) as unknown as string } };
    await expect(storeRuns({ name, version: 3 }, [file.runs[0], bad])).rejects.toThrow(/clone|function/i);
    const db = await openLibraryDb({ name });
    expect(await db.count('runs')).toBe(0);
    db.close();
    persistence.stop();
  });

  it('refuses a database the page has not migrated, instead of creating it', async () => {
    await expect(storeRuns({ name: freshName(), version: 3 }, agentFile().runs)).rejects.toThrow();
  });
});
