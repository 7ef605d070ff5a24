// OTLP JSON Lines read as they are parsed (OtlpLinesReader): the same import as reading the parsed lines afterwards,
// on the real OTLP traces cut into lines, on lines with every per-span defect and a broken line, and on the files the
// reader must give up (read again without it).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HAVE_SHARED, SKIP_REASON, sharedFiles } from '../../testing/fixture-kit.ts';
import { ImportError } from '../errors.ts';
import { importParsed, importText, jsonLinesReaderFor } from '../index.ts';
import { readGzipJsonLines, readJsonLines, type ReadJsonLinesOptions } from '../jsonl-stream.ts';
import { gzipSync } from 'node:zlib';
import { OtlpLinesReader } from './otlp.ts';
import { MAX_JSON_DEPTH } from '../json-depth.ts';
import { nestedValue } from '../../testing/otlp-docs.ts';

const enc = new TextEncoder();

async function* pieces(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = enc.encode(text);
  for (let at = 0; at < bytes.length; at += size) yield bytes.slice(at, at + size);
}

/** readJsonLines as the import worker calls it, counting how often the file was read. */
async function streamed(name: string, text: string, options: ReadJsonLinesOptions = {}): Promise<{ result: unknown; reads: number; read: boolean }> {
  let reads = 1;
  let read = false;
  const lineReader = (file: string) => {
    const reader = jsonLinesReaderFor(file);
    read ||= reader !== undefined;
    return reader;
  };
  let doc;
  try {
    doc = await readJsonLines(name, pieces(text, 4093), {
      ...options,
      lineReader,
      readAgain: () => {
        reads++;
        return pieces(text, 4093);
      },
    });
  } catch (e) {
    return { result: outcome(() => { throw e; }), reads, read };
  }
  return { result: outcome(() => importParsed(name, doc)), reads, read };
}

/** An import's result, or its ImportError's fields. */
function outcome(run: () => unknown): unknown {
  try {
    return run();
  } catch (e) {
    if (e instanceof ImportError) return { error: [e.file, e.format, e.location, e.message] };
    throw e;
  }
}

const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');

function span(id: number, trace = 1, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    traceId: hex(trace, 32),
    spanId: hex(id, 16),
    ...(id > 1 ? { parentSpanId: hex(1, 16) } : {}),
    name: id % 2 ? `execute_tool t${id % 3}` : 'chat gpt-4o',
    startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(id) * 1_000_000n),
    endTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(id) * 2_000_000n),
    attributes:
      id % 2
        ? [
            { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
            { key: 'gen_ai.tool.name', value: { stringValue: `t${id % 3}` } },
          ]
        : [
            { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
            { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } },
            { key: 'gen_ai.usage.input_tokens', value: { intValue: String(100 + id) } },
          ],
    status: { code: id % 7 === 0 ? 2 : 1 },
    ...extra,
  };
}

const line = (spans: unknown[], service = 'svc') =>
  JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] }, scopeSpans: [{ scope: { name: 'scope' }, spans }] }] });

/** Lines of OTLP exports: `perLine` spans each, two traces interleaved. */
function lines(count: number, perLine: number): string[] {
  const out: string[] = [];
  for (let l = 0, id = 1; l < count; l++) {
    const spans = [];
    for (let k = 0; k < perLine; k++, id++) spans.push(span(id, 1 + (l % 2)));
    out.push(line(spans));
  }
  return out;
}

describe('OTLP JSON Lines read as they are parsed', () => {
  it('gives the import of the whole text, read once', async () => {
    for (const count of [2, 3, 10]) {
      const text = `${lines(count, 25).join('\n')}\n`;
      const got = await streamed('x.otlp.jsonl', text);
      expect(got.read).toBe(true);
      expect(got.reads).toBe(1);
      expect(got.result).toEqual(outcome(() => importText('x.otlp.jsonl', text)));
    }
  });

  it('gives the same import under any name (detection order), with or without a final newline', async () => {
    const text = lines(4, 10).join('\n');
    for (const name of ['a.jsonl', 'trail-otlp.jsonl', 'traces.jsonl', 'chat-log.jsonl', 'messages.jsonl', 'span-tree.jsonl']) {
      const got = await streamed(name, text);
      expect(got.result, name).toEqual(outcome(() => importText(name, text)));
    }
  });

  it('is made only where OTLP is the first importer detection could pick for JSON Lines', () => {
    expect(jsonLinesReaderFor('x.jsonl')).toBeInstanceOf(OtlpLinesReader);
    expect(jsonLinesReaderFor('otlp-traces.jsonl')).toBeInstanceOf(OtlpLinesReader);
    expect(jsonLinesReaderFor('trail-traces.jsonl')).toBeInstanceOf(OtlpLinesReader);
    expect(jsonLinesReaderFor('runs/1/messages.jsonl')).toBeUndefined();
    expect(jsonLinesReaderFor('chat-log.jsonl')).toBeUndefined();
    expect(jsonLinesReaderFor('langfuse-export.jsonl')).toBeUndefined();
  });

  it('keeps every per-span defect, note and drop as the whole-text import does', async () => {
    const defects: Array<Record<string, unknown> | string> = [
      span(2, 1, { traceId: undefined }),
      span(3, 1, { traceId: '' }),
      span(4, 1, { traceId: '0'.repeat(32) }),
      span(5, 1, { spanId: undefined }),
      span(6, 1, { startTimeUnixNano: 'soon' }),
      span(7, 1, { attributes: [{ value: 1 }] }),
      span(8, 1, { events: { not: 'a list' } }),
      span(9, 1, { parentSpanId: 42 }),
      span(10, 1, { events: [{ name: 'e', timeUnixNano: '1700000000000000000', attributes: [{ key: 'k', value: { intValue: '3' } }] }] }),
      span(11, 1, { spanId: hex(2, 16) }),
      span(12, 3, { spanId: undefined }),
      'not a span',
    ];
    const text = [line([span(1)]), line(defects), line([span(20), span(21)], 'other'), line([])].join('\n');
    const got = await streamed('x.jsonl', text);
    expect(got.reads).toBe(1);
    expect(got.result).toEqual(outcome(() => importText('x.jsonl', text)));
    expect(JSON.stringify(got.result)).toMatch(/spans dropped/);
  });

  it('throws the problem of a malformed line where the whole-text import throws it', async () => {
    const bad = JSON.stringify({ resourceSpans: [{ scopeSpans: { not: 'an array' } }] });
    for (const at of [0, 1, 3]) {
      const all = lines(5, 3);
      all.splice(at, 0, bad);
      const text = all.join('\n');
      const got = await streamed('x.jsonl', text);
      expect(got.reads).toBe(1);
      expect(got.result).toMatchObject({ error: expect.any(Array) });
      expect(got.result).toEqual(outcome(() => importText('x.jsonl', text)));
    }
  });

  it('gives a syntax error where the whole-text path gives it, not a problem of an earlier line', async () => {
    const bad = JSON.stringify({ resourceSpans: [{ scopeSpans: 3 }] });
    const text = [line([span(1)]), bad, line([span(2)]), '{"resourceSpans": [tru]}'].join('\n');
    const got = await streamed('x.jsonl', text);
    expect(got.result).toEqual(outcome(() => importText('x.jsonl', text)));
    expect(JSON.stringify(got.result)).toMatch(/invalid JSON/);
  });

  it('reads the file again when a line is not OTLP, or when every line is also a span tree', async () => {
    for (const other of ['{"question":"q","history":[{"content":"hi","role":"user","name":"A"}]}', '{"a":1}']) {
      for (const at of [1, 2, 4]) {
        const all = lines(5, 3);
        all.splice(at, 0, other);
        const text = all.join('\n');
        const got = await streamed('x.jsonl', text);
        expect(got.reads, `${other} at ${at}`).toBe(at === 1 ? 1 : 2);
        expect(got.result).toEqual(outcome(() => importText('x.jsonl', text)));
      }
    }
    // Both an OTLP export and a span tree on every line: the span-tree importer comes first.
    const both = (i: number) => JSON.stringify({ ...JSON.parse(line([span(i)])), trace_id: `t${i}`, spans: [{ span_id: hex(i, 16), span_name: 's', child_spans: [] }] });
    const text = [both(1), both(2), both(3)].join('\n');
    const got = await streamed('x.jsonl', text);
    expect(got.reads).toBe(2);
    expect(got.result).toEqual(outcome(() => importText('x.jsonl', text)));
    expect(got.result).toMatchObject({ format: 'span-tree' });
    // One of them a span tree only: OTLP's sniffer fails on it, the file is read again.
    const mixed = [line([span(1)]), both(2), line([span(3)])].join('\n');
    const again = await streamed('x.jsonl', mixed);
    expect(again.reads).toBe(1);
    expect(again.result).toEqual(outcome(() => importText('x.jsonl', mixed)));
  });

  it('reads one line alone as the JSON document it is', async () => {
    const text = `${line([span(1), span(2)])}\n\n`;
    const got = await streamed('x.jsonl', text);
    expect(got.reads).toBe(1);
    expect(got.result).toEqual(outcome(() => importText('x.jsonl', text)));
  });

  it('maps the same input again to the same runs, without changing the first import', async () => {
    const text = lines(3, 6).join('\n');
    const doc = await readJsonLines('x.jsonl', pieces(text, 1000), { lineReader: jsonLinesReaderFor, readAgain: () => pieces(text, 1000) });
    const first = importParsed('x.jsonl', doc);
    const snapshot = structuredClone(first);
    const second = importParsed('x.jsonl', doc);
    expect(second).toEqual(first);
    expect(first).toEqual(snapshot);
    expect(second.runs[0].spans![0]).not.toBe(first.runs[0].spans![0]);
  });

  it('reads gzip-compressed lines the same way, and again when it must', async () => {
    for (const text of [lines(4, 5).join('\n'), [line([span(1)]), line([span(2)]), '{"a":1}'].join('\n')]) {
      const gz = new Uint8Array(gzipSync(text));
      async function* bytes(): AsyncGenerator<Uint8Array> {
        for (let at = 0; at < gz.length; at += 100) yield gz.slice(at, at + 100);
      }
      let reads = 1;
      const doc = await readGzipJsonLines('x.jsonl.gz', bytes(), {
        lineReader: jsonLinesReaderFor,
        readAgain: () => {
          reads++;
          return bytes();
        },
      });
      expect(outcome(() => importParsed('x.jsonl.gz', doc!))).toEqual(outcome(() => importText('x.jsonl.gz', text)));
      expect(reads).toBe(text.includes('"a"') ? 2 : 1);
    }
  });
});

describe('the nesting depth of lines read as they are parsed (checked while the reader reads them, ADR 0040)', () => {
  const limit = MAX_JSON_DEPTH;
  /** A line as `line` makes it, with `extra` at its top, in its resource or in its scope block. */
  const lineWith = (spans: unknown[], extra: { doc?: object; resource?: object; scope?: object }) =>
    JSON.stringify({
      resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }], ...extra.resource }, scopeSpans: [{ scope: { name: 'scope' }, spans, ...extra.scope }] }],
      ...extra.doc,
    });
  const places = (levels: number): Array<[string, string]> => [
    ['an attribute value', line([span(2), span(3, 1, { attributes: [{ key: 'k', value: { kvlistValue: nestedValue(levels) } }] })])],
    ['an attribute value read from a template', line([span(2), span(4), span(6, 1, { attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat', extra: nestedValue(levels) } }] })])],
    ['a span field the reader does not read', line([span(2, 1, { links: [nestedValue(levels)] })])],
    ['a span dropped for its trace id', line([span(2), span(3, 1, { traceId: '', extra: nestedValue(levels) })])],
    ['the attributes list of a span without an id', line([span(2), span(3, 1, { spanId: '', attributes: [{ key: 'k', value: { arrayValue: nestedValue(levels) } }] })])],
    ['a span entry that is an array', line([span(2), [nestedValue(levels)]])],
    ['the resource', lineWith([span(2)], { resource: { extra: nestedValue(levels) } })],
    ['the scope block', lineWith([span(2)], { scope: { extra: nestedValue(levels) } })],
    ['the line itself', lineWith([span(2)], { doc: { extra: nestedValue(levels) } })],
    ['a line whose scope blocks are malformed', JSON.stringify({ resourceSpans: [{ scopeSpans: ['not a block'] }, { extra: nestedValue(levels) }] })],
  ];

  for (const levels of [limit - 6, limit - 7, limit - 8, limit]) {
    for (const [where, deepLine] of places(levels)) {
      it(`refuses or reads as the whole text does: ${where}, ${levels} levels, as the first, a middle, a later line and after a malformed line`, async () => {
        const files = [
          [deepLine, ...lines(2, 2)],
          [...lines(2, 2), deepLine, ...lines(1, 2)],
          [...lines(3, 2), deepLine],
          [line([span(1)]), JSON.stringify({ resourceSpans: [{ scopeSpans: 3 }] }), deepLine, line([span(9)])],
        ];
        for (const file of files) {
          const text = file.join('\n');
          const expected = outcome(() => importText('x.jsonl', text));
          if (levels === limit) expect(expected).toMatchObject({ error: ['x.jsonl', 'json', expect.stringMatching(/^line \d+: \$/), expect.any(String)] });
          expect((await streamed('x.jsonl', text)).result).toEqual(expected);
        }
      });
    }
  }

  it('refuses the first line too deep, in file order, when two are', async () => {
    const text = [line([span(1)]), lineWith([span(2)], { doc: { extra: nestedValue(limit) } }), line([span(3, 1, { links: [nestedValue(limit)] })])].join('\n');
    const expected = outcome(() => importText('x.jsonl', text));
    expect(expected).toMatchObject({ error: ['x.jsonl', 'json', expect.stringMatching(/^line 2: \$\.extra/), expect.any(String)] });
    expect((await streamed('x.jsonl', text)).result).toEqual(expected);
  });
});

describe.skipIf(!HAVE_SHARED)(`real OTLP traces cut into JSON Lines (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  for (const path of sharedFiles('otlp')) {
    it(`imports ${path.split('/').pop()} as lines the same way`, async () => {
      const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
      const docs = Array.isArray(value) ? value : [value];
      // One export per line, and each export's resource blocks one per line.
      const perDoc = docs.map((d) => JSON.stringify(d)).join('\n');
      const perResource = docs.flatMap((d: { resourceSpans: unknown[] }) => d.resourceSpans.map((rs) => JSON.stringify({ resourceSpans: [rs] }))).join('\n');
      for (const text of [perDoc, perResource]) {
        const got = await streamed('trace.jsonl', text);
        expect(got.reads).toBe(1);
        expect(got.result).toEqual(outcome(() => importText('trace.jsonl', text)));
      }
    });
  }
});
