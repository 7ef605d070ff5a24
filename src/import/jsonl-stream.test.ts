import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hashText, TextHash } from '../model/hash.ts';
import { ImportError } from './errors.ts';
import { isBusMessage } from './formats/bus-messages.ts';
import { importParsed, importText } from './index.ts';
import { JsonLinesParser, MAX_STRING_CHARS, READ_STALL_MS, readGzipJsonLines, readJsonLines, startsJsonLines } from './jsonl-stream.ts';
import { decodeBytes, parseText } from './parse-input.ts';
import { gzipSync } from 'node:zlib';

const SHARED = join(import.meta.dirname, '../../../shared/traces');
const enc = new TextEncoder();

/** `text`'s bytes in pieces of `size` (cutting UTF-8 characters and lines anywhere). */
async function* pieces(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = enc.encode(text);
  for (let at = 0; at < bytes.length; at += size) yield bytes.slice(at, at + size);
}

async function failure(run: () => Promise<unknown>): Promise<ImportError> {
  try {
    await run();
  } catch (e) {
    if (e instanceof ImportError) return e;
    throw e;
  }
  throw new Error('did not fail');
}

describe('TextHash', () => {
  it('gives hashText of the whole text, however it is cut', () => {
    const text = 'ab\u00e9😀{"x":1}\n'.repeat(50);
    for (const cut of [1, 3, 7, 100]) {
      const h = new TextHash();
      for (let at = 0; at < text.length; at += cut) h.update(text.slice(at, at + cut));
      expect(h.digest()).toBe(hashText(text));
    }
  });
});

describe('readJsonLines', () => {
  const jsonl = '\ufeff{"a":1}\r\n\n  [2, "é😀"]  \n{"b":{"c":[3]}}';

  it('gives the values parseText gives, from bytes in any pieces', async () => {
    const whole = parseText('x.jsonl', jsonl);
    for (const size of [1, 2, 5, 64]) {
      const doc = await readJsonLines('x.jsonl', pieces(jsonl, size));
      expect(doc.kind).toBe('jsonl');
      expect(doc.kind === 'jsonl' && doc.values).toEqual(whole.kind === 'jsonl' && whole.values);
      expect(doc.text).toBe('');
      expect(doc.textHash).toBe(hashText(whole.text));
    }
  });

  it('reports a broken line where parseText does', async () => {
    const broken = '{"a":1}\n{"b":2}\n{"c": tru}\n{"d":4}\n';
    let whole: ImportError | undefined;
    try {
      parseText('x.jsonl', broken);
    } catch (e) {
      whole = e as ImportError;
    }
    const streamed = await failure(() => readJsonLines('x.jsonl', pieces(broken, 3)));
    expect(streamed.location).toBe(whole!.location);
    expect(streamed.location).toMatch(/^line 3\b/);
    expect(streamed.format).toBe('jsonl');
    expect(streamed.detail).toMatch(/^invalid JSON/);
  });

  it('refuses a NUL byte and nesting past the depth limit', async () => {
    expect((await failure(() => readJsonLines('x.jsonl', pieces('{"a":1}\n{"b":"\u0000"}\n', 4)))).detail).toMatch(/NUL/);
    // At its byte, wherever the pieces cut: also right after a multi-byte character split between two pieces.
    const text = '{"a":"é€"}\n{"b":"\u0000"}\n';
    const at = `byte ${Buffer.byteLength(text.slice(0, text.indexOf('\u0000')))}`;
    for (const size of [1, 2, 3, 5, 7, 64]) expect((await failure(() => readJsonLines('x.jsonl', pieces(text, size)))).location).toBe(at);
    const deep = `${'['.repeat(300)}${']'.repeat(300)}`;
    expect((await failure(() => readJsonLines('x.jsonl', pieces(`{"a":1}\n${deep}\n`, 64)))).location).toMatch(/^line 2/);
  });

  it('hashes only when asked by the first value', async () => {
    const doc = await readJsonLines('x.jsonl', pieces(jsonl, 8), { hashWhen: () => false });
    expect(doc.textHash).toBeUndefined();
  });

  it.skipIf(!existsSync(SHARED))(`imports every JSON Lines trace in ../shared/traces as the whole-text import does, ids included${existsSync(SHARED) ? '' : ' (absent here: skipped)'}`, async () => {
    const files = (readdirSync(SHARED, { recursive: true }) as string[]).filter((f) => f.endsWith('.jsonl'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const text = readFileSync(join(SHARED, f), 'utf8');
      const name = f.split('/').pop()!;
      expect(startsJsonLines(enc.encode(text).subarray(0, 1 << 20), true)).toBe(true);
      const doc = await readJsonLines(name, pieces(text, 1000), { hashWhen: isBusMessage });
      expect(importParsed(name, doc), f).toEqual(importText(name, text));
    }
  });

  it.skipIf(!existsSync(SHARED))(`reads a message-bus log into the run the whole-text import gives, id included${existsSync(SHARED) ? '' : ' (../shared/traces absent here: skipped)'}`, async () => {
    const dir = join(SHARED, 'smolagents-bus/runs');
    const run = readdirSync(dir)[0];
    const text = readFileSync(join(dir, run, 'messages.jsonl'), 'utf8');
    const doc = await readJsonLines('messages.jsonl', pieces(text, 4096), { hashWhen: isBusMessage });
    expect(importParsed('messages.jsonl', doc)).toEqual(importText('messages.jsonl', text));
  });

  it('never holds the text: a file longer than the longest string imports line by line', { timeout: 60_000 }, async () => {
    // 530 lines of a little over 1 MiB each (one OTLP export, then spaces, which JSON allows): 2^29 + characters, more
    // than one string can hold, generated as it is read.
    const span = (i: number) => `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"${'ab'.repeat(16)}","spanId":"${i.toString(16).padStart(16, '0')}","name":"execute_tool t","startTimeUnixNano":"${1e18 + i * 1e6}","endTimeUnixNano":"${1e18 + i * 1e6 + 5e5}","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"gen_ai.tool.name","value":{"stringValue":"t"}}]}]}]}]}`;
    const pad = ' '.repeat(1 << 20);
    const lines = 530;
    let chars = 0;
    async function* huge(): AsyncGenerator<Uint8Array> {
      for (let i = 1; i <= lines; i++) {
        const line = `${span(i)}${pad}\n`;
        chars += line.length;
        yield enc.encode(line);
      }
    }
    const doc = await readJsonLines('huge-otlp.jsonl', huge());
    expect(chars).toBeGreaterThan(MAX_STRING_CHARS);
    expect(doc.kind === 'jsonl' && doc.values.length).toBe(lines);
    const imported = importParsed('huge-otlp.jsonl', doc);
    expect(imported.format).toBe('otlp');
    expect(imported.runs.reduce((n, r) => n + r.steps.length, 0)).toBe(lines);
  });
});

/**
 * A byte stream of `bytes` (as a Blob's is), at most `size` bytes a pull: into the reader's own buffer when it gives
 * one (counted in `byobReads`), else as a new chunk. The `stallAt`-th pull (from 0) never answers, as Chromium's BYOB
 * read of a Blob sometimes does (ADR 0096).
 */
function byteSource(bytes: Uint8Array, size: number, stallAt = -1) {
  const seen = { byobReads: 0, chunkReads: 0, pulls: 0 };
  let at = 0;
  const stream = new ReadableStream({
    type: 'bytes',
    pull(controller) {
      if (seen.pulls++ === stallAt) return new Promise<void>(() => {});
      const request = controller.byobRequest;
      if (at >= bytes.length) {
        controller.close();
        request?.respond(0);
        return;
      }
      if (request?.view) {
        seen.byobReads++;
        const view = new Uint8Array(request.view.buffer, request.view.byteOffset, request.view.byteLength);
        const k = Math.min(size, bytes.length - at, view.byteLength);
        view.set(bytes.subarray(at, at + k));
        at += k;
        request.respond(k);
      } else {
        seen.chunkReads++;
        controller.enqueue(bytes.slice(at, Math.min(bytes.length, at + size)));
        at = Math.min(bytes.length, at + size);
      }
    },
  });
  return { stream, seen };
}

/** The bytes from `offset` on, as a default stream in chunks of `size` (what reopenAt gives: a File's slice). */
function plainStream(bytes: Uint8Array, offset: number, size: number): ReadableStream<Uint8Array> {
  let at = offset;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, Math.min(bytes.length, at + size)));
      at += size;
    },
  });
}

describe('readJsonLines of a file that can be read again from an offset (reopenAt, ADR 0100)', () => {
  const text = `{"a":1}\n${'{"t":"ab\u00e9😀 \u4e2d","n":[1,2,{"x":null}]}\n'.repeat(60)}[3,"é"]`;
  const bytes = enc.encode(text);
  const whole = parseText('x.jsonl', text);

  it('reads a byte stream into its own buffer, and gives the values parseText gives', async () => {
    for (const size of [1, 7, 100, bytes.length]) {
      const { stream, seen } = byteSource(bytes, size);
      const doc = await readJsonLines('x.jsonl', stream, { reopenAt: () => { throw new Error('not stalled: not read again'); } });
      expect(doc.kind === 'jsonl' && doc.values).toEqual(whole.kind === 'jsonl' && whole.values);
      expect(doc.textHash).toBe(hashText(whole.text));
      expect(seen.byobReads).toBe(Math.ceil(bytes.length / size));
      expect(seen.chunkReads).toBe(0);
    }
  });

  it('reads a stream it could not read again with the default reader, as before', async () => {
    const { stream, seen } = byteSource(bytes, 100);
    const doc = await readJsonLines('x.jsonl', stream);
    expect(doc.kind === 'jsonl' && doc.values).toEqual(whole.kind === 'jsonl' && whole.values);
    expect(seen.byobReads).toBe(0);
    expect(seen.chunkReads).toBe(Math.ceil(bytes.length / 100));
  });

  it('gives up a read that stalls and reads on from where it stood: nothing read twice, nothing skipped', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 300 }), fc.nat({ max: 2000 }), async (size, reopenedSize, stallPick) => {
        const pulls = Math.ceil(bytes.length / size) + 1;
        const stallAt = stallPick % pulls;
        const { stream } = byteSource(bytes, size, stallAt);
        const reopened: number[] = [];
        const doc = await readJsonLines('x.jsonl', stream, {
          readStallMs: 2,
          reopenAt: (offset) => {
            reopened.push(offset);
            return plainStream(bytes, offset, reopenedSize);
          },
        });
        expect(doc.kind === 'jsonl' && doc.values).toEqual(whole.kind === 'jsonl' && whole.values);
        expect(doc.textHash).toBe(hashText(whole.text));
        // Read again once, from the bytes answered before the stalled pull.
        const before = Math.min(bytes.length, stallAt * size);
        expect(reopened).toEqual([before]);
      }),
      { numRuns: 60 },
    );
  });

  it('waits READ_STALL_MS for a read by default: a slow read is not taken for a stalled one', async () => {
    expect(READ_STALL_MS).toBeGreaterThanOrEqual(100);
    let at = 0;
    const stream = new ReadableStream({
      type: 'bytes',
      async pull(controller) {
        await new Promise((r) => setTimeout(r, 20));
        const request = controller.byobRequest!;
        if (at >= bytes.length) {
          controller.close();
          request.respond(0);
          return;
        }
        const view = new Uint8Array(request.view!.buffer, request.view!.byteOffset, request.view!.byteLength);
        const k = Math.min(bytes.length - at, view.byteLength, 1000);
        view.set(bytes.subarray(at, at + k));
        at += k;
        request.respond(k);
      },
    });
    const doc = await readJsonLines('x.jsonl', stream, { reopenAt: () => { throw new Error('a slow read was taken for a stalled one'); } });
    expect(doc.kind === 'jsonl' && doc.values).toEqual(whole.kind === 'jsonl' && whole.values);
  });

  it('reads a stalled OTLP document on from where it stood too', async () => {
    const span = (i: number) => `{"traceId":"${'ab'.repeat(16)}","spanId":"${i.toString(16).padStart(16, '0')}","name":"execute_tool t","startTimeUnixNano":"${1e18 + i * 1e6}","endTimeUnixNano":"${1e18 + i * 1e6 + 5e5}","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"gen_ai.tool.name","value":{"stringValue":"t\u00e9😀"}}]}`;
    const doc = `{"resourceSpans":[{"scopeSpans":[{"spans":[${Array.from({ length: 40 }, (_, i) => span(i + 1)).join(',')}]}]}]}`;
    const docBytes = enc.encode(doc);
    const plain = await readJsonLines('big.json', plainStream(docBytes, 0, 333), { document: 'otlp' });
    for (const stallAt of [0, 3, 11]) {
      const { stream } = byteSource(docBytes, 333, stallAt);
      const read = await readJsonLines('big.json', stream, { document: 'otlp', readStallMs: 2, reopenAt: (offset) => plainStream(docBytes, offset, 97) });
      expect(importParsed('big.json', read)).toEqual(importParsed('big.json', plain));
    }
    expect(importParsed('big.json', plain).runs[0].steps).toHaveLength(40);
  });
});

describe('JsonLinesParser', () => {
  it('takes a last line without a newline, and refuses a file of blank lines as empty', () => {
    const p = new JsonLinesParser('x.jsonl');
    p.push('{"a":1}\n{"b"');
    p.push(':2}');
    expect(p.finish()).toMatchObject({ kind: 'jsonl', values: [{ a: 1 }, { b: 2 }] });
    const blank = new JsonLinesParser('x.jsonl');
    blank.push('\n \n');
    expect(() => blank.finish()).toThrow(/empty/);
    const one = new JsonLinesParser('x.jsonl');
    one.push('{"a":1}\n\n');
    expect(one.finish()).toMatchObject({ kind: 'json', value: { a: 1 } }); // as parseText reads one line
  });
});

describe('startsJsonLines', () => {
  const bytes = (s: string) => enc.encode(s);
  it('says yes to JSON Lines in UTF-8 and no to one document, gzip, UTF-16 and broken heads', () => {
    expect(startsJsonLines(bytes('{"a":1}\n{"b":2}\n'))).toBe(true);
    expect(startsJsonLines(bytes('\ufeff\n[1]\n[2]'))).toBe(true);
    expect(startsJsonLines(bytes('{\n  "a": 1\n}\n'))).toBe(false); // one pretty-printed document
    expect(startsJsonLines(bytes('{"a":1}\n\n  \n'))).toBe(false); // one value: a JSON document
    expect(startsJsonLines(bytes('{"a":1'))).toBe(false); // first line not complete in the head…
    expect(startsJsonLines(bytes('{"a":1'), true)).toBe(true); // …unless the name says JSON Lines
    expect(startsJsonLines(bytes('"text"\n"more"\n'))).toBe(false); // a trace line is an object or array
    expect(startsJsonLines(new Uint8Array([0x1f, 0x8b, 8, 0, 10]))).toBe(false);
    const utf16 = new Uint8Array([0xff, 0xfe, ...[...'{"a":1}\n{"b":2}\n'].flatMap((c) => [c.charCodeAt(0), 0])]);
    expect(startsJsonLines(utf16)).toBe(false);
    expect(startsJsonLines(new Uint8Array(100))).toBe(false);
  });
});

describe('readGzipJsonLines (gzip-compressed JSON Lines read as a stream)', () => {
  const lines = Array.from({ length: 4000 }, (_, i) => JSON.stringify({ sender: i % 3 ? 'a' : 'b', type: 'channel_message', content: `message ${i} é😀`, recipients: ['@all'], thread_id: null }));
  const text = `${lines.join('\n')}\n`;
  /** Two gzip members, as `cat a.gz b.gz` makes: the stream reads every member, as the whole-text path does. */
  const half = text.indexOf('\n', text.length >> 1) + 1;
  const gz = new Uint8Array(Buffer.concat([gzipSync(text.slice(0, half)), gzipSync(text.slice(half))]));

  async function* chunksOf(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
    for (let at = 0; at < bytes.length; at += size) yield bytes.slice(at, at + size);
  }

  it('gives the values and text hash that decoding the whole file and parseText give, however the bytes arrive', async () => {
    const whole = parseText('m.jsonl.gz', decodeBytes('m.jsonl.gz', gz));
    for (const size of [7, 1000, 1 << 20]) {
      const read: number[] = [];
      const doc = await readGzipJsonLines('m.jsonl.gz', chunksOf(gz, size), { onRead: (bytes) => read.push(bytes), progressEveryMs: 0 });
      expect(doc?.kind).toBe('jsonl');
      expect(doc?.kind === 'jsonl' && doc.values).toEqual(whole.kind === 'jsonl' && whole.values);
      expect(doc?.textHash).toBe(hashText(whole.text));
      // Progress in compressed bytes: the bar is of the file's size.
      expect(read[read.length - 1]).toBe(gz.length);
      expect(read.every((b) => b <= gz.length)).toBe(true);
    }
  });

  it('reads past the limit of a file read whole (scaled down here): the decoded text is never held', async () => {
    const limit = 64 * 1024;
    expect(text.length).toBeGreaterThan(limit);
    expect(() => decodeBytes('m.jsonl.gz', gz, { maxBytes: limit })).toThrow(/decompressed size exceeds the 0\.1 MB limit|limit/);
    const doc = await readGzipJsonLines('m.jsonl.gz', chunksOf(gz, 4096));
    expect(doc?.kind === 'jsonl' && doc.values.length).toBe(4000);
  });

  it('leaves a gzip file that holds one JSON document to the whole-text path', async () => {
    const one = new Uint8Array(gzipSync(JSON.stringify({ history: [{ content: 'a', role: 'user' }] }, null, 2)));
    expect(await readGzipJsonLines('chat.json.gz', chunksOf(one, 100))).toBeUndefined();
  });

  it('reports corrupt or truncated gzip as the whole-text path does', async () => {
    const truncated = gz.slice(0, gz.length - 20);
    const streamed = await failure(() => readGzipJsonLines('m.jsonl.gz', chunksOf(truncated, 512)));
    let whole: ImportError | undefined;
    try {
      decodeBytes('m.jsonl.gz', truncated);
    } catch (e) {
      whole = e as ImportError;
    }
    expect(streamed.format).toBe('gzip');
    expect(streamed.detail).toBe(whole?.detail);
    const corrupt = gz.slice();
    corrupt[gz.length - 6] ^= 0xff; // the last member's CRC-32
    expect((await failure(() => readGzipJsonLines('m.jsonl.gz', chunksOf(corrupt, 512)))).detail).toMatch(/CRC-32 mismatch/);
  });
});

describe('readGzipJsonLines with one gzip member per line', () => {
  it('looks past the first member when it ends with the first line', async () => {
    const line = `${JSON.stringify({ sender: 'a', type: 'channel_message', content: 'x'.repeat(1_100_000), recipients: ['@all'], thread_id: null })}\n`;
    const gz = new Uint8Array(Buffer.concat([gzipSync(line), gzipSync(line), gzipSync(line)]));
    const doc = await readGzipJsonLines('m.jsonl.gz', (async function* () {
      for (let at = 0; at < gz.length; at += 65536) yield gz.slice(at, at + 65536);
    })());
    expect(doc?.kind === 'jsonl' && doc.values.length).toBe(3);
  });
});
