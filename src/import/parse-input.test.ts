// Bytes to text as the command line and the worker decode them (issue 14, ADR 0019): a whole file pushed at once is one
// plain decode into one string; pushed in pieces, whatever the boundaries, the text is the same; and the parsed input
// lets go of the text when its importer does not read it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { detectText, importDetected, importText } from './index.ts';
import { decodeBytes, TraceDecoder } from './parse-input.ts';
import { importError } from '../testing/fixture-kit.ts';

const TEXT = '{"runs":[{"name":"café ✓ 😀","note":"ünïcödé — every byte length","n":1}]}\n';

function pieces(file: string, bytes: Uint8Array, size: number): string {
  const decoder = new TraceDecoder(file);
  for (let i = 0; i < bytes.length; i += size) decoder.push(bytes.slice(i, i + size));
  return decoder.finish();
}


describe('TraceDecoder', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a whole buffer is decoded in one non-streaming call, and nothing is joined', () => {
    const decode = vi.spyOn(TextDecoder.prototype, 'decode');
    const join = vi.spyOn(Array.prototype, 'join');
    expect(decodeBytes('x.json', Buffer.from(TEXT))).toBe(TEXT);
    expect(decode).toHaveBeenCalledTimes(1);
    expect(decode.mock.calls[0][1]).toBeUndefined();
    expect(join).not.toHaveBeenCalled();
  });

  const encodings: [string, Buffer][] = [
    ['UTF-8', Buffer.from(TEXT)],
    ['UTF-8 with a byte order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT)])],
    ['UTF-16 LE with a mark', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, 'utf16le')])],
    ['UTF-16 BE with a mark', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(TEXT, 'utf16le').swap16()])],
    ['UTF-16 LE without a mark', Buffer.from(TEXT, 'utf16le')],
  ];
  it.each(encodings)('%s: the same text whole and in pieces of every size from 1 to 9 bytes', (_, bytes) => {
    const whole = decodeBytes('x.json', bytes);
    expect(whole.replace(/^\ufeff/, '')).toBe(TEXT);
    for (let size = 1; size <= 9; size++) expect(pieces('x.json', bytes, size)).toBe(whole);
  });

  it('a NUL byte is found at the same offset whole and in pieces', () => {
    const bytes = Buffer.concat([Buffer.from(TEXT), Buffer.from([0]), Buffer.from(TEXT)]);
    const where = `byte ${Buffer.byteLength(TEXT)}`;
    expect(importError(() => decodeBytes('x.json', bytes)).location).toBe(where);
    for (const size of [1, 3, 64]) expect(importError(() => pieces('x.json', bytes, size)).location).toBe(where);
  });

  it('empty input and input shorter than a byte order mark', () => {
    expect(decodeBytes('x.json', new Uint8Array(0))).toBe('');
    expect(decodeBytes('x.json', Buffer.from('{'))).toBe('{');
    expect(pieces('x.json', Buffer.from('[1]'), 1)).toBe('[1]');
  });
});

describe('detectText', () => {
  const otlp = JSON.stringify({
    resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', name: 'agent', startTimeUnixNano: '1', endTimeUnixNano: '2' }] }] }],
  });

  it('with dropText, the parsed input keeps no text; the runs are those of importText', () => {
    const detected = detectText('t.json', otlp, { dropText: true });
    expect(detected.importer.id).toBe('otlp');
    expect(detected.doc.text).toBe('');
    expect(importDetected(detected)).toEqual(importText('t.json', otlp));
  });

  it('an importer that reads the text (the message-bus log: its run id hashes it) keeps it', () => {
    const message = (id: string, sender: string, content: string) => JSON.stringify({ id, sender, type: 'message', content, recipients: ['@all'], thread_id: 'main', reply_to: null });
    const text = `${message('a', 'planner', 'What is 2 + 2?')}\n${message('b', 'solver', 'It is 4.')}\n`;
    const detected = detectText('messages.jsonl', text, { dropText: true });
    expect(detected.importer.readsText).toBe(true);
    expect(detected.doc.text).toBe(text);
    expect(importDetected(detected)).toEqual(importText('messages.jsonl', text));
  });

  it('without dropText the text is kept, as importText has it', () => {
    expect(detectText('t.json', otlp).doc.text).toBe(otlp);
  });
});

describe('TraceDecoder: the NUL check on the decoded text (issue 14)', () => {
  const nulAt = Buffer.byteLength(TEXT);
  const withNul = Buffer.concat([Buffer.from(TEXT), Buffer.from([0]), Buffer.from(TEXT)]);

  it('a NUL after a multi-byte character split between pieces is found at its byte', () => {
    const bytes = Buffer.concat([Buffer.from('{"a":"é'), Buffer.from([0xe2, 0x82]), Buffer.from([0]), Buffer.from('"}')]);
    const where = `byte ${Buffer.byteLength('{"a":"é') + 2}`;
    expect(importError(() => decodeBytes('x.json', bytes)).location).toBe(where);
    for (const size of [1, 2, 3, 5, 8, 9, 10]) expect(importError(() => pieces('x.json', bytes, size)).location).toBe(where);
  });

  it('a NUL in a piece still held is reported before the size limit a later piece passes', () => {
    const decoder = new TraceDecoder('x.json', { maxBytes: withNul.length });
    decoder.push(withNul);
    const e = importError(() => decoder.push(Buffer.from('more')));
    expect(e.location).toBe(`byte ${nulAt}`);
    expect(e.detail).toMatch(/NUL byte/);
  });

  it('checkPushed (a reader that failed) reports a NUL in the held piece, and nothing when there is none', () => {
    const decoder = new TraceDecoder('x.json');
    decoder.push(withNul);
    expect(importError(() => decoder.checkPushed()).location).toBe(`byte ${nulAt}`);
    const clean = new TraceDecoder('x.json');
    clean.push(Buffer.from(TEXT));
    expect(() => clean.checkPushed()).not.toThrow();
    expect(clean.finish()).toBe(TEXT);
  });

  it('the bytes are not searched for a NUL when the text is (one indexOf on the decoded string)', () => {
    const search = vi.spyOn(Uint8Array.prototype, 'indexOf');
    expect(decodeBytes('x.json', new Uint8Array(Buffer.from(TEXT)))).toBe(TEXT);
    expect(search).not.toHaveBeenCalled();
    search.mockRestore();
  });
});
