import { closeSync, existsSync, ftruncateSync, mkdtempSync, openAsBlob, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { valueStreamSizes } from '../import/json-value-stream.ts';
import { exportSession } from '../export/native.ts';
import { makeRun } from '../testing/test-runs.ts';
import { deliverEach, importFiles, readFileInput, readFileText, type ImportProgress } from './import-files.ts';
import { forgetTokenCounter, loadTokenCounter, tokenEstimatesRefused } from '../import/tokens.ts';
import { detectText, importDetected } from '../import/index.ts';

const encode = (text: string) => new TextEncoder().encode(text);
const TRAIL = resolve(import.meta.dirname, '../../../shared/traces/trail');
const TRAIL_ID = '0ebe673d64647ec44c370638b82d3c78';
const OTLP = resolve(import.meta.dirname, '../../../shared/traces/otlp');
const TRACES = resolve(import.meta.dirname, '../../../shared/traces');

/** The `.json` files under `dir`, at any depth, in path order (the shared traces' JSON documents: MANIFEST.md). */
function jsonDocumentsUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.json'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}
const OTLP_DOCS = [`${OTLP}/rag_earnings_agent.json`, `${OTLP}/quo_tav_agent.json`];
const haveTrail = existsSync(`${TRAIL}/gaia/${TRAIL_ID}.json`) && existsSync(`${TRAIL}/annotations/${TRAIL_ID}.json`);

describe('readFileInput (a File, as the worker reads it)', () => {
  it('reads JSON Lines as a stream, parsing as it reads, and imports them as the whole text would be', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ sender: i % 2 ? 'a' : 'b', type: 'channel_message', content: `m${i}`, recipients: ['@all'], thread_id: null }));
    const text = `${lines.join('\n')}\n`;
    const phases: string[] = [];
    const input = await readFileInput('messages.jsonl', new Blob([text]), (phase) => phases.push(phase));
    expect('parsed' in input && input.parsed.kind).toBe('jsonl');
    expect(phases.every((p) => p === 'parsing')).toBe(true);
    const streamed = await importFiles([input]);
    const whole = await importFiles([{ name: 'messages.jsonl', text }]);
    expect(streamed.failures).toEqual([]);
    expect(streamed.loaded).toEqual(whole.loaded);
  });

  it('reads a file\'s JSON Lines into a buffer of its own and, when a read stalls, reads on from a slice where it stood (ADR 0100)', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ sender: i % 2 ? 'a' : 'b', type: 'channel_message', content: `m${i} é😀`, recipients: ['@all'], thread_id: null }));
    const text = `${lines.join('\n')}\n`;
    const bytes = new TextEncoder().encode(text);
    // A File whose stream answers the reader's own buffer 10 KB at a time, and never answers its third read (as
    // Chromium's sometimes does); its slices are the File's own.
    class StallingFile extends Blob {
      readonly sliced: number[] = [];
      byobReads = 0;
      override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
        let at = 0;
        let pulls = 0;
        return new ReadableStream({
          type: 'bytes',
          pull: (controller) => {
            if (++pulls === 3) return new Promise<void>(() => {});
            const request = controller.byobRequest!;
            const view = new Uint8Array(request.view!.buffer, request.view!.byteOffset, request.view!.byteLength);
            const k = Math.min(10_000, bytes.length - at, view.byteLength);
            this.byobReads++;
            view.set(bytes.subarray(at, at + k));
            at += k;
            request.respond(k);
          },
        }) as ReadableStream<Uint8Array<ArrayBuffer>>;
      }
      override slice(start?: number, end?: number, type?: string): Blob {
        if (end === undefined) this.sliced.push(start ?? 0);
        return super.slice(start, end, type);
      }
    }
    const file = new StallingFile([bytes]);
    const input = await readFileInput('messages.jsonl', file);
    expect(file.byobReads).toBe(2);
    expect(file.sliced).toEqual([20_000]);
    const streamed = await importFiles([input]);
    const whole = await importFiles([{ name: 'messages.jsonl', text }]);
    expect(streamed.failures).toEqual([]);
    expect(streamed.loaded).toEqual(whole.loaded);
  });

  it('reads gzip-compressed JSON Lines as a stream too (not the whole-text path), as the whole file would import', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ sender: i % 2 ? 'a' : 'b', type: 'channel_message', content: `m${i}`, recipients: ['@all'], thread_id: null }));
    const text = `${lines.join('\n')}\n`;
    const gz = new Uint8Array(gzipSync(text));
    const phases: string[] = [];
    const read: (number | undefined)[] = [];
    const input = await readFileInput('m.jsonl.gz', new Blob([gz]), (phase, bytes) => {
      phases.push(phase);
      read.push(bytes);
    });
    expect('parsed' in input && input.parsed.kind).toBe('jsonl');
    expect(phases.every((p) => p === 'parsing')).toBe(true);
    expect(read[read.length - 1]).toBe(gz.length);
    const streamed = await importFiles([input]);
    const whole = await importFiles([{ name: 'm.jsonl.gz', bytes: gz }]);
    expect(streamed.failures).toEqual([]);
    expect(streamed.loaded).toEqual(whole.loaded);
    // One JSON document inside gzip: read whole, as before.
    const doc = await readFileInput('chat.json.gz', new Blob([new Uint8Array(gzipSync('{"history":[]}'))]));
    expect('text' in doc).toBe(true);
  });

  it('reads a UTF-8 document in one call (its bytes not counted), with the text the stream would decode', async () => {
    const doc = `\uFEFF${JSON.stringify({ history: [{ role: 'user', content: 'héllo ✓ 😀 \uFFFD' }] })}`;
    // A BOM dropped, multi-byte characters, and an invalid byte (0xff) read as U+FFFD, as TextDecoder does.
    const bytes = new Uint8Array([...new TextEncoder().encode(doc), 0xff, 0x20]);
    const progress: [string, number | undefined][] = [];
    const input = await readFileInput('chat.json', new Blob([bytes]), (phase, read) => progress.push([phase, read]));
    expect(progress).toEqual([['reading', undefined]]);
    expect('text' in input && input.text).toBe(await readFileText('chat.json', new Blob([bytes])));
    // UTF-16 is decoded from the stream, its bytes counted.
    const utf16 = new Uint8Array([0xff, 0xfe, ...Array.from('{"history":[]}').flatMap((c) => [c.charCodeAt(0), 0])]);
    const counted: (number | undefined)[] = [];
    const wide = await readFileInput('chat.json', new Blob([utf16]), (_, read) => counted.push(read));
    expect('text' in wide && wide.text).toBe('{"history":[]}');
    expect(counted[counted.length - 1]).toBe(utf16.length);
  });

  it('refuses a UTF-8 document holding a NUL byte, saying at which byte (read again as a stream)', async () => {
    const bytes = new TextEncoder().encode(`{"history":[{"content":"ab${'\0'}"}]}`);
    const error = await readFileInput('bin.json', new Blob([bytes])).then(
      () => undefined,
      (e: unknown) => e as Error & { detail?: string; location?: string },
    );
    expect(error?.detail).toMatch(/binary data \(a NUL byte\)/);
    expect(error?.location).toBe(`byte ${bytes.indexOf(0)}`);
  });

  it('reads an OTLP export too large to read whole as a stream, into the runs the whole text gives', async () => {
    const docs = OTLP_DOCS.filter((f) => existsSync(f));
    if (docs.length === 0) console.warn(`skipped: no OTLP export under ${OTLP} (../shared is absent)`);
    for (const path of docs) {
      const text = readFileSync(path, 'utf8');
      const phases: string[] = [];
      const input = await readFileInput('big.json', new Blob([text]), (phase) => phases.push(phase), 1000);
      expect('parsed' in input).toBe(true);
      expect(phases.length > 0 && phases.every((p) => p === 'parsing')).toBe(true);
      const streamed = await importFiles([input]);
      const whole = await importFiles([{ name: 'big.json', text }]);
      expect(streamed.failures).toEqual([]);
      expect(streamed.loaded[0].runs.length).toBeGreaterThan(0);
      expect(streamed.loaded).toEqual(whole.loaded);
      // gzip-compressed, when it decodes to more than the limit: the same runs, decoded and read as a stream.
      const zipped = await readFileInput('big.json', new Blob([gzipSync(text)]), undefined, 1000);
      expect('parsed' in zipped).toBe(true);
      expect((await importFiles([zipped])).loaded).toEqual(whole.loaded);
      // Under the limit it is read whole, as before.
      expect('text' in (await readFileInput('big.json', new Blob([gzipSync(text)])))).toBe(true);
    }
  });

  it('says where a streamed OTLP export is broken, as the whole text would', async () => {
    const spans = Array.from({ length: 50 }, (_, i) => `{"traceId":"t","spanId":"s${i}","name":"n${i}","startTimeUnixNano":"1","endTimeUnixNano":"2"}`);
    spans[37] = spans[37].replace('"name"', '"name" ');
    spans[41] = spans[41].replace(',"name"', ' "name"');
    const text = `{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{},"spans":[\n${spans.join(',\n')}\n]}]}]}`;
    const streamed = await readFileInput('broken.json', new Blob([text]), undefined, 100).then(() => undefined, (e: unknown) => e as { location?: string; detail?: string });
    const whole = await importFiles([{ name: 'broken.json', text }]);
    expect(streamed?.location).toBe('line 43, column 31');
    expect(streamed).toMatchObject({ location: whole.failures[0].location, detail: whole.failures[0].detail });
  });

  it('reads every real JSON document as a stream past a lowered limit, into the runs the whole text gives (ADR 0081)', async () => {
    const files = existsSync(TRACES) ? jsonDocumentsUnder(TRACES) : [];
    if (files.length === 0) {
      console.warn(`skipped: no JSON document under ${TRACES} (../shared is absent)`);
      return;
    }
    const kinds = new Set<string>();
    // Small sizes, so that the stream opens every object and array past 256 characters and parses the rest in batches.
    const sizes = { ...valueStreamSizes };
    Object.assign(valueStreamSizes, { smallChars: 256, batchChars: 128 });
    onTestFinished(() => void Object.assign(valueStreamSizes, sizes));
    for (const path of files) {
      const text = readFileSync(path, 'utf8');
      const name = path.slice(TRACES.length + 1);
      const input = await readFileInput(name, new Blob([text]), undefined, 100);
      expect('parsed' in input, name).toBe(true);
      const streamed = await importFiles([input]);
      const whole = await importFiles([{ name, text }]);
      expect(streamed, name).toEqual(whole);
      for (const f of whole.loaded) kinds.add(f.format);
      // gzip-compressed, decoding to more than the limit: the same, decoded as read.
      expect(await importFiles([await readFileInput(name, new Blob([gzipSync(text)]), undefined, 100)]), name).toEqual(whole);
    }
    // Every format the folder holds as one document went through the stream (the OTLP ones through theirs).
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['chat-log', 'langfuse', 'openai-chat', 'otlp', 'span-tree', 'trail-annotations']));
  }, 120_000);

  it('a gzip document of several members, its last one small, is read again as a stream once it decodes past the limit', async () => {
    const history = Array.from({ length: 400 }, (_, i) => ({ content: `message ${i}`, role: 'assistant', name: `agent-${i % 3}` }));
    const text = JSON.stringify({ question: 'q', history });
    const whole = await importFiles([{ name: 'chat.json.gz', text }]);
    // Two members, the second of 10 bytes: the trailer says 10 bytes, under the limit, and so is the compressed size.
    const zipped = new Blob([gzipSync(text.slice(0, -10)), gzipSync(text.slice(-10))]);
    const limit = 8000;
    expect(zipped.size).toBeLessThan(limit);
    expect(text.length).toBeGreaterThan(limit);
    const phases: string[] = [];
    const input = await readFileInput('chat.json.gz', zipped, (phase) => phases.push(phase), limit);
    expect('parsed' in input).toBe(true);
    expect(phases).toContain('parsing');
    expect(await importFiles([input])).toEqual(whole);
    // One member: its trailer says it decodes past the limit, so it is read as a stream at once (never read whole).
    const single: string[] = [];
    const once = await readFileInput('chat.json.gz', new Blob([gzipSync(text)]), (phase) => single.push(phase), limit);
    expect(single.length > 0 && single.every((p) => p === 'parsing')).toBe(true);
    expect(await importFiles([once])).toEqual(whole);
    // Not JSON inside: refused with the limit's message, as before.
    const binary = new Blob([gzipSync(new Uint8Array(3 * limit).fill(7)), gzipSync('x')]);
    const error = await readFileInput('data.gz', binary, undefined, limit).then(() => undefined, (e: unknown) => e as { detail?: string });
    expect(error?.detail).toMatch(/decompressed size exceeds the .* limit/);
  });

  it('a message-bus log written as one JSON document is refused when read as a stream (its run id is its text hash)', async () => {
    const messages = Array.from({ length: 30 }, (_, i) => ({ sender: i % 2 ? 'a' : 'b', type: 'channel_message', content: `m${i}`, recipients: ['@all'], thread_id: null }));
    const text = JSON.stringify(messages);
    const whole = await importFiles([{ name: 'messages.json', text }]);
    expect(whole.loaded[0]?.format).toBe('message-bus-log');
    const streamed = await importFiles([await readFileInput('messages.json', new Blob([text]), undefined, 100)]);
    expect(streamed.loaded).toEqual([]);
    expect(streamed.failures[0]?.detail).toMatch(/read as JSON Lines only .* save it one message per line/);
  });

  it('refuses a file that is not JSON Lines and too long for one string, after reading only its head', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mas-read-input-'));
    try {
      const path = join(dir, 'huge.json');
      const fd = openSync(path, 'w');
      ftruncateSync(fd, 401 * 1024 * 1024); // sparse: nothing on disk
      closeSync(fd);
      const error = await readFileInput('huge.json', await openAsBlob(path)).then(
        () => undefined,
        (e: unknown) => e as Error & { detail?: string },
      );
      expect(error?.detail).toMatch(/^file is 401 MB; the limit is 400 MB for a file read whole, and only UTF-8 JSON .* is read as a stream past it/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('importFiles (the import worker’s work)', () => {
  it('reports the steps mapped while an importer builds a large run', async () => {
    const history = Array.from({ length: 40_000 }, (_, i) => ({ content: `m${i}`, role: 'assistant', name: i % 2 ? 'A' : 'B' }));
    const progress: ImportProgress[] = [];
    // The reports are at most every 100 ms of the clock: a clock that moves 60 ms a reading, so that how fast this
    // machine maps 40,000 messages does not decide whether any report is made (an idle one mapped them in one).
    let clock = Date.now();
    const now = vi.spyOn(Date, 'now').mockImplementation(() => (clock += 60));
    let loaded: Awaited<ReturnType<typeof importFiles>>['loaded'];
    try {
      ({ loaded } = await importFiles([{ name: 'chat.json', text: JSON.stringify({ question: 'q', history }) }], (p) => progress.push(p)));
    } finally {
      now.mockRestore();
    }
    expect(loaded[0].runs[0].steps).toHaveLength(40_000);
    const counts = progress.filter((p) => p.phase === 'mapping' && p.done !== undefined).map((p) => p.done);
    // Every 4,096 messages (the first may fall within 100 ms of the parse's last report, ~2 MB of text in batches).
    expect(counts.length).toBeGreaterThan(0);
    expect(counts.every((n) => n! % 4096 === 0)).toBe(true);
    // The chat-log importer counts its passes (3 per message) and the checks on its run (1 per step): a total, so the
    // row's bar is determinate, and it moves on while the checks run.
    expect(progress.filter((p) => p.phase === 'mapping' && p.done !== undefined).every((p) => p.total === 160_000)).toBe(true);
  });

  it('imports a native session from an ArrayBuffer and reports each phase', async () => {
    const bytes = encode(exportSession({ runs: [makeRun('r1', { simulated: true })], simulated: true }));
    const progress: ImportProgress[] = [];
    const { loaded, failures } = await importFiles([{ name: 'demo.session.json', bytes: bytes.buffer }], (p) => progress.push(p));
    expect(failures).toEqual([]);
    expect(loaded).toHaveLength(1);
    expect(loaded[0]).toMatchObject({ file: 'demo.session.json', format: 'native', formatLabel: 'MAS Replay session' });
    expect(loaded[0].runs.map((r) => r.id)).toEqual(['r1']);
    expect(progress.map((p) => p.phase)).toEqual(['decoding', 'parsing', 'mapping']);
    expect(progress[0]).toMatchObject({ fileIndex: 0, fileCount: 1, bytesTotal: bytes.length });
    // What crosses the worker boundary must survive structured cloning unchanged.
    expect(structuredClone(loaded)).toEqual(loaded);
  });

  it('reports a bad file with its name, the format tried and the location, and still imports the others', async () => {
    const good = encode(exportSession({ runs: [makeRun('r1')] }));
    const { loaded, failures } = await importFiles([
      { name: 'broken.json', bytes: encode('{"format": "mas-replay-session", "runs": [] "id": 1}') },
      { name: 'ok.session.json', bytes: good },
      { name: 'bad-run.session.json', bytes: encode(JSON.stringify({ ...JSON.parse(exportSession({ runs: [makeRun('r2')] })), runs: [{ id: 'x' }] })) },
      { name: 'empty.json', bytes: new Uint8Array() },
    ]);
    expect(loaded.map((f) => f.file)).toEqual(['ok.session.json']);
    expect(failures).toEqual([
      { file: 'broken.json', format: 'json', location: 'line 1, column 45', detail: expect.stringContaining('invalid JSON') },
      { file: 'bad-run.session.json', format: 'native', location: '$.runs[0].title', detail: expect.any(String) },
      { file: 'empty.json', format: 'unknown', location: '', detail: 'the file is empty' },
    ]);
  });

  it.skipIf(!haveTrail)('attaches a TRAIL annotation file to the trace opened with it', async () => {
    const read = (p: string) => new Uint8Array(readFileSync(p));
    const { loaded, failures } = await importFiles([
      { name: `${TRAIL_ID}-annotations.json`, bytes: read(`${TRAIL}/annotations/${TRAIL_ID}.json`) },
      { name: `${TRAIL_ID}.json`, bytes: read(`${TRAIL}/gaia/${TRAIL_ID}.json`) },
    ]);
    expect(failures).toEqual([]);
    const [annotations, trace] = loaded;
    expect(annotations.format).toBe('trail-annotations');
    expect(annotations.annotationSets?.length).toBeGreaterThan(0);
    const expected = annotations.annotationSets!.flatMap((s) => s.annotations).length;
    expect(trace.runs[0].annotations.length).toBeGreaterThanOrEqual(expected);
    expect(expected).toBeGreaterThan(0);
  });

  it('a file nested 10⁴ deep fails alone, with the JSON path; the files opened with it load and survive cloning', async () => {
    const deep = `{"messages":[{"role":"user","content":"hi","extra":${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`;
    const result = await importFiles([
      { name: 'a.session.json', bytes: encode(exportSession({ runs: [makeRun('r1')] })) },
      { name: 'deep.json', bytes: encode(deep) },
      { name: 'b.session.json', bytes: encode(exportSession({ runs: [makeRun('r2')] })) },
    ]);
    expect(result.loaded.map((f) => f.file)).toEqual(['a.session.json', 'b.session.json']);
    expect(result.failures).toEqual([
      { file: 'deep.json', format: 'json', location: expect.stringMatching(/^\$\.messages\[0\]\.extra\[0\]/), detail: expect.stringContaining('nested more than 256 levels deep') },
    ]);
    expect(structuredClone(result)).toEqual(result);
  });

  it('hands each file over on its own: one that cannot be cloned becomes its own failure', async () => {
    const ok = await importFiles([{ name: 'ok.session.json', bytes: encode(exportSession({ runs: [makeRun('r1')] })) }]);
    const [file] = ok.loaded;
    // A result structured cloning refuses (here a function; in the browser, a value nested too deep for the clone).
    const broken = { ...file, file: 'broken.json', warnings: [() => 1] } as unknown as typeof file;
    const received: string[] = [];
    const failures = await deliverEach({ loaded: [broken, file], failures: [] }, async (f) => {
      received.push(structuredClone(f).file);
    });
    expect(received).toEqual(['ok.session.json']);
    expect(failures).toEqual([{ file: 'broken.json', format: 'native', location: '', detail: expect.stringMatching(/^its contents could not be passed to the page: .*could not be cloned/) }]);
  });
});

describe('importFiles reads a JSON array of OTLP documents one document at a time (ADR 0047)', () => {
  const doc = (t: number) => ({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
        scopeSpans: [
          {
            scope: { name: 't' },
            spans: [0, 1].map((i) => ({
              traceId: (t + 1).toString(16).padStart(32, '0'),
              spanId: (t * 4 + i + 16).toString(16).padStart(16, '0'),
              ...(i ? { parentSpanId: (t * 4 + 16).toString(16).padStart(16, '0') } : {}),
              name: i ? 'chat gpt-4o' : 'invoke_agent a',
              startTimeUnixNano: String(1_750_000_000_000_000_000n + BigInt(t * 10 + i) * 1000n),
              endTimeUnixNano: String(1_750_000_000_000_000_000n + BigInt(t * 10 + i + 1) * 1000n),
              attributes: i
                ? [
                    { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
                    { key: 'gen_ai.usage.input_tokens', value: { intValue: String(10 + t) } },
                    { key: 'gen_ai.usage.output_tokens', value: { intValue: '3' } },
                  ]
                : [{ key: 'gen_ai.agent.name', value: { stringValue: 'a' } }],
            })),
          },
        ],
      },
    ],
  });

  it('the same file as the whole-text path, the bar moving through the text as its documents are read', async () => {
    const text = JSON.stringify(Array.from({ length: 300 }, (_, t) => doc(t)));
    const events: ImportProgress[] = [];
    const { loaded, failures } = await importFiles([{ name: 'batches.json', text }], (p) => events.push(p));
    expect(failures).toEqual([]);
    const whole = importDetected(detectText('batches.json', text));
    expect(loaded[0].runs).toEqual(whole.runs);
    expect(loaded[0].warnings).toEqual(whole.warnings);
    expect(loaded[0].format).toBe('otlp');
    expect(loaded[0].runs).toHaveLength(300);
    // Read a document at a time: the parsing phase says how far into the text (not one indeterminate parse).
    const reading = events.filter((p) => p.phase === 'parsing' && p.bytesRead !== undefined && p.bytesRead > 0);
    expect(reading.length).toBeGreaterThan(0);
    expect(reading.every((p) => p.bytesTotal === text.length && p.bytesRead! <= text.length && p.ofText)).toBe(true);
    // Once every document is read, the row says the runs are being built.
    const phases = events.map((p) => p.phase);
    expect(phases.indexOf('mapping')).toBeGreaterThan(phases.lastIndexOf('parsing'));
    expect(phases.indexOf('handing-over') === -1 || phases.indexOf('handing-over') > phases.indexOf('mapping')).toBe(true);
  });
});

describe('importFiles parses a chat log’s messages in batches (issue 14)', () => {
  it('the same file as the whole-text path, the bar moving through the text as its messages are parsed', async () => {
    // Over 2 MB: batches of 64 kB, where one JSON.parse of the whole said nothing until it ended.
    const history = Array.from({ length: 40_000 }, (_, i) => ({ content: `step ${i}: noted`, role: 'assistant', name: ['Planner', 'Coder'][i % 2] }));
    const text = JSON.stringify({ question: 'Plan the report.', history });
    const events: ImportProgress[] = [];
    const { loaded, failures } = await importFiles([{ name: 'group-chat.json', text }], (p) => events.push(p));
    expect(failures).toEqual([]);
    const whole = importDetected(detectText('group-chat.json', text));
    expect(loaded[0].format).toBe('chat-log');
    expect(loaded[0].runs).toEqual(whole.runs);
    expect(loaded[0].runs[0].id).toBe(whole.runs[0].id);
    const reading = events.filter((p) => p.phase === 'parsing' && p.bytesRead !== undefined && p.bytesRead > 0);
    expect(reading.length).toBeGreaterThan(0);
    expect(reading.every((p) => p.bytesTotal === text.length && p.bytesRead! <= text.length && p.ofText)).toBe(true);
    const phases = events.map((p) => p.phase);
    expect(phases.indexOf('mapping')).toBeGreaterThan(phases.lastIndexOf('parsing'));
  });
});

describe('importFiles loads the token counter only for a file that needs it (ADR 0038)', () => {
  const SHARED = resolve(import.meta.dirname, '../../../shared/traces');
  // A chat log (every message estimated), a message-bus run read as a stream (JSON Lines), OTLP and Langfuse traces
  // (estimated only where a model call left its usage out) and a session whose usage is recorded.
  const files = [
    'who-and-when/hand-crafted/1.json',
    'smolagents-bus/runs/023f7ac8/messages.jsonl',
    'otlp/rag_earnings_agent.json',
    'otlp/quo_tav_agent.json',
    'langfuse/agentprism-langfuse-1.json',
  ].filter((f) => existsSync(join(SHARED, f)));

  async function withoutCounter<T>(work: () => Promise<T>): Promise<T> {
    forgetTokenCounter();
    try {
      return await work();
    } finally {
      await loadTokenCounter(); // the other tests of this worker count as before
    }
  }

  it.skipIf(files.length === 0)('maps each real file as a worker with the counter loaded would, loading it only when asked', async () => {
    for (const file of files) {
      const path = join(SHARED, file);
      const input = async () =>
        file.endsWith('.jsonl') ? await readFileInput(file, await openAsBlob(path)) : { name: file, bytes: new Uint8Array(readFileSync(path)) };
      const eager = await importFiles([await input()]);
      expect(eager.failures, file).toEqual([]);
      let loads = 0;
      const refusedBefore = tokenEstimatesRefused();
      const lazy = await withoutCounter(async () =>
        importFiles([await input()], undefined, async () => {
          loads += 1;
          await loadTokenCounter();
        }),
      );
      expect(lazy, file).toEqual(eager);
      const estimated = eager.loaded.some((f) => f.runs.some((r) => r.steps.some((s) => s.usage?.estimated)));
      expect(loads, `${file}: counter loaded ${loads} times; estimates in the runs: ${estimated}`).toBe(estimated ? 1 : 0);
      // A format that always estimates loads the counter before its mapping, never after a refused (wasted) one.
      const always = ['chat-log', 'message-bus', 'message-bus-log', 'openai-chat'].includes(eager.loaded[0].format);
      if (always) expect(tokenEstimatesRefused() - refusedBefore, `${file}: estimates refused`).toBe(0);
    }
  });

  it('the row says the counter is loading between the parse and the mapping (ADR 0070)', async () => {
    const events: string[] = [];
    const chat = JSON.stringify({ question: 'q', history: [{ content: 'hello there', role: 'assistant', name: 'A' }] });
    await withoutCounter(() =>
      importFiles(
        [{ name: 'chat.json', text: chat }],
        // No done/total: the bar sweeps (indeterminate) rather than stand at 0% while the table loads.
        (p) => events.push(p.phase === 'counter' ? `counter ${p.done ?? '-'}/${p.total ?? '-'}` : p.phase),
        async () => {
          events.push('loading');
          await loadTokenCounter();
        },
      ),
    );
    expect(events.slice(0, 4)).toEqual(['parsing', 'counter -/-', 'loading', 'mapping']);
  });

  it('the text of a file read whole is let go once parsed, before the mapping (not held beside the parsed values)', async () => {
    const input = { name: 'chat.json', text: JSON.stringify({ question: 'q', history: [{ content: 'hello there', role: 'assistant', name: 'A' }] }) };
    let heldWhileMapping: number | undefined;
    const { loaded } = await importFiles([input], (p) => {
      if (p.phase === 'mapping') heldWhileMapping ??= input.text.length;
    });
    expect(loaded[0].runs[0].steps).toHaveLength(1);
    expect(heldWhileMapping).toBe(0);
  });

  it('a file whose usage is recorded is mapped without the counter', async () => {
    const text = exportSession({ runs: [makeRun('r1')] });
    let loads = 0;
    const { loaded, failures } = await withoutCounter(() =>
      importFiles([{ name: 'recorded.session.json', text }], undefined, async () => {
        loads += 1;
      }),
    );
    expect(failures).toEqual([]);
    expect(loaded[0].runs[0].id).toBe('r1');
    expect(loads).toBe(0);
  });

  it('a counter that cannot be loaded fails the file that needs it with that reason, and only that file', async () => {
    const chat = JSON.stringify({ question: 'q', history: [{ content: 'hello there', role: 'assistant', name: 'A' }] });
    const { loaded, failures } = await withoutCounter(() =>
      importFiles(
        [
          { name: 'chat.json', text: chat },
          { name: 'recorded.session.json', text: exportSession({ runs: [makeRun('r1')] }) },
        ],
        undefined,
        async () => {
          throw new Error('network down');
        },
      ),
    );
    expect(loaded.map((f) => f.file)).toEqual(['recorded.session.json']);
    expect(failures).toEqual([
      { file: 'chat.json', format: 'chat-log', location: '', detail: 'its token counts must be estimated, and the token counter could not be loaded: network down' },
    ]);
  });
});
