import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ImportError } from './errors.ts';
import { valueEnd } from './json-pieces.ts';
import { OtlpDocumentStream, startsOtlpDocument, type DocumentPiece } from './otlp-document-stream.ts';

type Span = Record<string, unknown>;

/** An export of two resources with two scopes each, written with uneven spaces and newlines (pretty-printed, or not). */
function exportText(spansPer: number, pretty: boolean): { text: string; spans: Span[][] } {
  const spans: Span[][] = [];
  const resources = [0, 1].map((r) => {
    const scopes = [0, 1].map((s) => {
      const list = Array.from({ length: spansPer }, (_, i) => ({
        traceId: `t${r}`,
        spanId: `s${r}-${s}-${i}`,
        name: i % 3 === 0 ? 'a "quoted" ] } name' : `step \\ ${i} \u00e9 \u4e2d`,
        attributes: [{ key: 'k', value: { stringValue: `[{"nested": ${i}}]` } }],
        startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i)),
        status: { code: i % 5 },
      }));
      spans.push(list);
      // schemaUrl after the spans, as exporters write it (protobuf's field order): the importer does not read it.
      return { scope: { name: `scope-${s}` }, spans: list, schemaUrl: 'y' };
    });
    return { resource: { attributes: [{ key: 'service.name', value: { stringValue: `svc-${r}` } }] }, scopeSpans: scopes, schemaUrl: 'x' };
  });
  const text = pretty ? JSON.stringify({ resourceSpans: resources }, null, 2).replace(/,\n/g, ' ,\n\t') : JSON.stringify({ resourceSpans: resources });
  return { text, spans };
}

/** The spans of each scope (in order) from the small exports, checked to name their resource and scope. */
function spansOf(pieces: DocumentPiece[]): Span[][] {
  const byScope = new Map<string, Span[]>();
  for (const piece of pieces) {
    const doc = piece.value as { resourceSpans: { resource: { attributes: { value: { stringValue: string } }[] }; scopeSpans: { scope: { name: string }; spans: Span[] }[] }[] };
    expect(doc.resourceSpans).toHaveLength(1);
    const [rs] = doc.resourceSpans;
    expect(rs.scopeSpans).toHaveLength(1);
    const key = `${rs.resource.attributes[0].value.stringValue}/${rs.scopeSpans[0].scope.name}`;
    byScope.set(key, [...(byScope.get(key) ?? []), ...rs.scopeSpans[0].spans]);
  }
  return [...byScope.values()];
}

function read(text: string, cuts: number[], batchChars?: number): DocumentPiece[] {
  const pieces: DocumentPiece[] = [];
  const stream = new OtlpDocumentStream('big.json', (p) => pieces.push(p), batchChars);
  let at = 0;
  for (const cut of [...cuts, text.length]) {
    stream.push(text.slice(at, Math.max(at, cut)));
    at = Math.max(at, cut);
  }
  stream.finish();
  return pieces;
}

function failure(text: string, chunk = 7): ImportError {
  try {
    read(text, Array.from({ length: Math.ceil(text.length / chunk) }, (_, i) => i * chunk));
  } catch (e) {
    expect(e).toBeInstanceOf(ImportError);
    return e as ImportError;
  }
  throw new Error('no error');
}

describe('OtlpDocumentStream (one OTLP export read as a stream)', () => {
  it('gives every span once, in order, with its resource and scope, however the text is cut', () => {
    for (const pretty of [false, true]) {
      const { text, spans } = exportText(40, pretty);
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 0, max: text.length }), { maxLength: 30 }), fc.integer({ min: 1, max: 3000 }), (cuts, batchChars) => {
          const pieces = read(text, [...cuts].sort((a, b) => a - b), batchChars);
          expect(spansOf(pieces)).toEqual(spans);
          // Each batch holds whole spans: at least one, and about batchChars of text (one span more at most).
          for (const piece of pieces) expect(JSON.stringify(piece.value).length).toBeLessThan(batchChars + 1200);
        }),
        { numRuns: 60 },
      );
    }
  });

  it('names where each batch begins in the file: its first span is the file’s text from there', () => {
    const { text } = exportText(30, true);
    const pieces = read(text, [100, 5000, 5001, 9000], 500);
    expect(pieces.length).toBeGreaterThan(10);
    for (const piece of pieces) {
      const [firstSpan] = (piece.value as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] }).resourceSpans[0].scopeSpans[0].spans;
      expect(JSON.parse(text.slice(piece.first, valueEnd(text, piece.first, Infinity)))).toEqual(firstSpan);
      const before = text.slice(0, piece.first).split('\n');
      expect([piece.line, piece.column]).toEqual([before.length, before[before.length - 1].length + 1]);
    }
  });

  it('cuts batches where spans begin, not at a link that begins as a span does', () => {
    const spans = Array.from({ length: 200 }, (_, i) => ({ traceId: 't', spanId: `s${i}`, links: [{ traceId: 't', spanId: `l${i}` }, { traceId: 't', spanId: `m${i}` }] }));
    const text = JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: {}, spans }, { scope: { name: 'b' }, spans: spans.slice(0, 3) }] }] });
    for (const batchChars of [1, 50, 77, 500, 5000]) {
      const pieces = read(text, [1000, 1001, 7000], batchChars);
      const got = pieces.flatMap((p) => (p.value as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] }).resourceSpans[0].scopeSpans[0].spans);
      expect(got).toEqual([...spans, ...spans.slice(0, 3)]);
    }
  });

  it('reads an array of exports, each on its own', () => {
    const a = exportText(5, false);
    const b = exportText(7, true);
    const pieces = read(`[${a.text},\n${b.text}]`, [10, 2000], 300);
    const spans = spansOf(pieces);
    expect(spans).toEqual(a.spans.map((list, i) => [...list, ...b.spans[i]]));
  });

  it('takes a byte order mark, the older key names, and a document without spans', () => {
    const doc = { resource_spans: [{ resource: {}, instrumentation_library_spans: [{ instrumentation_library: { name: 'l' }, spans: [{ spanId: 'a' }, { spanId: 'b' }] }] }] };
    const pieces = read(`\ufeff${JSON.stringify(doc)}`, [1, 3]);
    expect(pieces.map((p) => p.value)).toEqual([{ resourceSpans: [{ resource: {}, instrumentation_library_spans: [{ instrumentation_library: { name: 'l' }, spans: [{ spanId: 'a' }, { spanId: 'b' }] }] }] }]);
    expect(read('{"resourceSpans": [ {"resource": {}, "scopeSpans": []} ], "other": [1, {"x": "]"}]}', [5])).toEqual([]);
  });

  it('refuses, at their place in the file, what it cannot read as a stream', () => {
    const late = '{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"a"}],"schemaUrl":"s"}],"schemaUrl":"s",\n  "resource":{}}]}';
    expect(failure(late).location).toBe('line 2, column 3');
    expect(failure(late).detail).toMatch(/resourceSpans\[0\]\.resource comes after the spans it belongs to/);
    // A scope's name after its spans, a key twice, text after the document, a document cut short, an unclosed string.
    expect(failure('{"resourceSpans":[{"scopeSpans":[{"spans":[{}],"scope":{}}]}]}').detail).toMatch(/scopeSpans\[0\]\.scope comes after/);
    expect(failure('{"resourceSpans":[],"resourceSpans":[]}').detail).toBe('the document has the key "resourceSpans" twice');
    expect(failure('{"resourceSpans":[]}\n x').location).toBe('line 2, column 2');
    expect(failure('{"resourceSpans":[{"scopeSpans":[{"spans":[{"a":1},').detail).toMatch(/the text ends/);
    expect(failure('{"resourceSpans":[{"scopeSpans":[{"spans":[{"a":"x}]}]}]}').detail).toMatch(/the text ends inside a value/);
    expect(failure('[{"resourceSpans":[]}, 3]').detail).toBe('the export [1] is not an OTLP/JSON export (an object with resourceSpans)');
    expect(failure('"x"').detail).toMatch(/an OTLP\/JSON export \(an object with resourceSpans\) or an array of them/);
    expect(failure('{"resourceSpans":[{"scopeSpans":[{"spans":[{"a":1} {"b":2}]}]}]}').detail).toBe('expected a comma or the end of resourceSpans[0].scopeSpans[0].spans');
    // A comma before an object's end, or a member without a value: refused there (JSON.parse refuses both), not read on.
    expect(failure('{"resourceSpans":[{"resource":{},"scopeSpans":[],}]}').detail).toBe('expected a key in resourceSpans[0]');
    expect(failure('{"resourceSpans":[],}').detail).toBe('expected a key in the document');
    expect(failure('{"resourceSpans":[{"resource":,"scopeSpans":[]}]}').detail).toBe('expected a value');
  });

  it('fails on any text only with an ImportError, never another error', () => {
    const { text } = exportText(3, false);
    const mutated = fc.tuple(fc.integer({ min: 0, max: text.length }), fc.integer({ min: 0, max: 40 }), fc.string({ maxLength: 6 })).map(([at, cut, insert]) => text.slice(0, at) + insert + text.slice(at + cut));
    fc.assert(
      fc.property(fc.oneof(mutated, fc.json(), fc.string()), fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 5 }), (doc, cuts) => {
        try {
          read(doc, [...cuts].sort((a, b) => a - b), 64);
        } catch (e) {
          expect(e).toBeInstanceOf(ImportError);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('tells an OTLP export from other JSON by its first key', () => {
    const head = (s: string) => new TextEncoder().encode(s);
    expect(startsOtlpDocument(head('\ufeff \n{ "resourceSpans": ['))).toBe(true);
    expect(startsOtlpDocument(head('{"resource_spans":[]}'))).toBe(true);
    expect(startsOtlpDocument(head('{"data":[{"resourceSpans":[]}]}'))).toBe(false);
    expect(startsOtlpDocument(head('[\n  {\n    "resourceSpans":[]}]'))).toBe(true);
    expect(startsOtlpDocument(head('[{"spans":[]}]'))).toBe(false);
    expect(startsOtlpDocument(new Uint8Array(16))).toBe(false);
  });
});
