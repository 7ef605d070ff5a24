// One OTLP document read with its spans parsed a batch at a time (importOtlpDocumentText, issue 14, ADR 0047): every
// file must give exactly what the whole-text path gives (parseText, detection, importFromOtlp), runs and warnings or
// the error, under any cut of its spans into batches; and the reading in pieces must be taken for the files it is for.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { mapTicks } from '../model/run-builder.ts';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON, sharedFiles } from '../testing/fixture-kit.ts';
import { agentTraceDocument, agentTraceSpan, nestedValue } from '../testing/otlp-docs.ts';
import { importFromOtlp, importOtlpDocumentText } from './formats/otlp.ts';
import { detectText, importDetected, importText, type ImportOptions } from './index.ts';
import { MAX_JSON_DEPTH } from './json-depth.ts';


/** Names a reader must take as text: quotes, escapes, and what looks like a span's start or a list's end. */
const HOSTILE = { tool: 'search "q\\"},{"traceId":"', agent: 'a]},{"resourceSpans":[' };
const span = (trace: number, i: number, extra: Record<string, unknown> = {}) => agentTraceSpan(trace, i, HOSTILE, extra);
const document = (trace: number, spans = 3, extra: Record<string, unknown> = {}) => agentTraceDocument(trace, spans, HOSTILE, extra);

/** A document of several resource blocks and scope blocks, with members before and after their lists. */
function blocks(): Record<string, unknown> {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'one' } }] },
        scopeSpans: [
          { scope: { name: 'first' }, spans: [span(1, 0), span(1, 1), span(1, 2)], schemaUrl: 'https://x/1' },
          { scope: { name: 'second', version: '2' }, spans: [], schemaUrl: 'https://x/2' },
          { instrumentationLibrary: { name: 'old' }, spans: [span(1, 3), span(2, 0)] },
        ],
        schemaUrl: 'https://x/r1',
      },
      { resource: { attributes: [{ key: 'service.name', value: { stringValue: 'unknown_service:node' } }] }, scopeSpans: [{ spans: [span(2, 1), span(3, 0)] }] },
      { scopeSpans: [{ scope: { name: 'third' }, spans: [span(3, 1)] }] },
    ],
  };
}

/** What a call gives: its result, or the error's class and message. */
function outcome(run: () => unknown): unknown {
  try {
    return { ok: run() };
  } catch (e) {
    return { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

/** importText, and what the whole-text path gives for the same file. */
function expectSame(text: string, file = 'trace.json', options: ImportOptions = {}) {
  const inPieces = outcome(() => importText(file, text, options));
  const whole = outcome(() => importDetected(detectText(file, text, options)));
  expect(isDeepStrictEqual(inPieces, whole)).toBe(true);
  return inPieces;
}

/** The importer's result read in pieces of `batchChars`, and importFromOtlp's on the parsed text (undefined: not read in pieces). */
function bothReadings(text: string, batchChars: number) {
  const pieces = importOtlpDocumentText(text, undefined, batchChars);
  const whole = importFromOtlp(detectText('trace.json', text).doc);
  return { pieces, whole };
}

afterEach(() => {
  mapTicks.onTick = undefined;
});

describe('one OTLP document, its spans read a batch at a time', () => {
  it('reads compact, pretty-printed and padded documents in pieces, under any batch size, as the whole text', () => {
    for (const value of [document(1, 40), blocks()]) {
      for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2), `\ufeff \r\n${JSON.stringify(value, null, '\t')}\n\n`]) {
        for (const batchChars of [1, 50, 333, 1000, 1 << 16]) {
          const { pieces, whole } = bothReadings(text, batchChars);
          expect(pieces).toBeDefined();
          expect(isDeepStrictEqual(pieces, whole), `batches of ${batchChars}`).toBe(true);
        }
        const got = expectSame(text) as { ok: { runs: unknown[]; format: string } };
        expect(got.ok.format).toBe('otlp');
      }
    }
  });

  it('keeps every per-span defect, note and drop where the whole text has them, with their spans indices', () => {
    const defects: unknown[] = [
      span(1, 0),
      { ...span(1, 1), traceId: '' },
      { ...span(1, 2), spanId: undefined },
      span(1, 3, { startTimeUnixNano: 'soon' }),
      span(1, 4, { attributes: [{ value: 1 }] }),
      span(1, 5, { events: { not: 'a list' } }),
      span(1, 6, { parentSpanId: 42 }),
      { ...span(1, 7), spanId: (16).toString(16).padStart(16, '0') },
      'not a span',
      [1, 2],
      span(1, 8),
    ];
    const text = JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: { name: 's' }, spans: defects }] }] });
    for (const batchChars of [1, 100, 700, 1 << 16]) {
      const { pieces, whole } = bothReadings(text, batchChars);
      expect(isDeepStrictEqual(pieces, whole), `batches of ${batchChars}`).toBe(true);
    }
    expect(JSON.stringify(expectSame(text))).toMatch(/spans\[3\]|span .*unreadable/);
  });

  it('leaves to the whole-text path every file it cannot read exactly, which then fails or reads as before', () => {
    const good = JSON.stringify(document(1, 5));
    const one = (rs: Record<string, unknown>) => JSON.stringify({ resourceSpans: [rs] });
    const scope = { scope: { name: 's' }, spans: [span(1, 0)] };
    const cases = [
      good.slice(0, -1), // no closing brace
      good.slice(0, good.length - 40), // cut in the last span
      `${good} x`, // text after the document
      good.replace('"spanId"', '"spanId" "'), // a syntax error in a span
      JSON.stringify({ ...document(1), more: 1 }), // another key at the top
      JSON.stringify({ more: 1, ...document(1) }),
      JSON.stringify({ resource_spans: (document(1) as { resourceSpans: unknown }).resourceSpans }),
      JSON.stringify({ resourceSpans: {} }),
      JSON.stringify({ resourceSpans: [] }),
      JSON.stringify({ resourceSpans: [3] }),
      one({ resource: {}, scopeSpans: [] }), // read from instrumentationLibrarySpans then
      one({ resource: {}, scope_spans: [scope] }),
      one({ scopeSpans: [scope], resource: { attributes: [{ key: 'service.name', value: { stringValue: 'late' } }] } }),
      one({ resource: {}, scopeSpans: [{ spans: [span(1, 0)], scope: { name: 'late' } }] }),
      one({ resource: {}, scopeSpans: [{ spans: null }] }),
      one({ resource: {}, scopeSpans: [{ scope: { name: 'a' } }] }),
      one({ resource: {}, scopeSpans: [scope], scopeSpans2: 1 }).replace('"scopeSpans2"', '"scopeSpans"'), // a key twice in a block
      one({ resource: {}, scopeSpans: [scope, 7] }),
      // Too deep: in a span, in a block's head, after a list, at the top.
      one({ resource: {}, scopeSpans: [{ scope: { name: 's' }, spans: [span(1, 0, { deep: nestedValue(MAX_JSON_DEPTH) })] }] }),
      one({ resource: nestedValue(MAX_JSON_DEPTH) as object, scopeSpans: [scope] }),
      one({ resource: {}, scopeSpans: [{ scope: nestedValue(MAX_JSON_DEPTH), spans: [span(1, 0)] }] }),
      one({ resource: {}, scopeSpans: [{ ...scope, after: nestedValue(MAX_JSON_DEPTH - 4) }] }),
      one({ resource: {}, scopeSpans: [scope], after: nestedValue(MAX_JSON_DEPTH - 2) }),
    ];
    for (const text of cases) {
      expect(importOtlpDocumentText(text, undefined, 64), text.slice(0, 200)).toBeUndefined();
      expectSame(text);
    }
    // Just within the limit, or a key twice inside a span (a batch's JSON.parse keeps the last, as the whole's does):
    // read in pieces.
    for (const text of [
      good.replace('"startTimeUnixNano"', '"startTimeUnixNano":1,"startTimeUnixNano"'),
      one({ resource: {}, scopeSpans: [{ ...scope, after: nestedValue(MAX_JSON_DEPTH - 5) }] }),
      one({ resource: {}, scopeSpans: [scope], after: nestedValue(MAX_JSON_DEPTH - 3) }),
      one({ resource: {}, scopeSpans: [{ scope: { name: 's' }, spans: [span(1, 0, { deep: nestedValue(MAX_JSON_DEPTH - 7) })] }] }),
    ]) {
      expect(importOtlpDocumentText(text, undefined, 64)).toBeDefined();
      expectSame(text);
    }
  });

  it('reads in pieces only where detection would pick OTLP for the document', () => {
    const text = JSON.stringify(document(1, 4));
    for (const [file, options] of [
      ['trace.json', {}],
      ['my-traces.json', {}],
      ['x.session.json', {}],
      ['trail-annotations.json', {}],
      ['langfuse.json', {}],
      ['conversation.json', {}],
      ['trace.json', { format: 'otlp' }],
      ['trace.json', { format: 'langfuse' }],
      ['trace.json', { format: 'span-attributes' }],
    ] as const) {
      expectSame(text, file, options);
    }
  });

  it('tells how far into the text its batches are, then the mapping with the total the whole path counts', () => {
    const text = JSON.stringify(document(1, 4000));
    const ends: number[] = [];
    const read = importOtlpDocumentText(text, (end, all) => ends.push(all ? -end : end), 4096);
    expect(read?.runs).toHaveLength(1);
    expect(ends.length).toBeGreaterThan(10);
    expect(ends.slice(0, -1).every((end, i, all) => end > 0 && (i === 0 || end > all[i - 1]))).toBe(true);
    expect(ends.at(-1)).toBe(-text.length);
    // The mapping's bar: the same total of five passes over the spans as importFromOtlp counts.
    const totals = new Set<number>();
    mapTicks.onTick = (_done, total) => totals.add(total);
    importOtlpDocumentText(JSON.stringify(document(1, 40_000)));
    expect([...totals]).toEqual([5 * 40_000]);
  });

  it('gives the whole text reading for arbitrary span lists and cuts (property)', () => {
    const text = fc.string({ maxLength: 12, unit: fc.constantFrom('a', '"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\n', 'é', '𝄞') });
    const spanArb = fc.record({
      id: fc.integer({ min: 0, max: 30 }),
      name: text,
      extra: fc.option(fc.dictionary(text, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 3 }), { nil: undefined }),
      odd: fc.constantFrom(0, 0, 0, 1, 2, 3),
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(spanArb, { maxLength: 12 }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 400 }),
        fc.constantFrom(0, 1, 2),
        (scopes, batchChars, indent) => {
          const value = {
            resourceSpans: [
              {
                resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
                scopeSpans: scopes.map((list, s) => ({
                  scope: { name: `s${s}` },
                  spans: list.map(({ id, name, extra, odd }) =>
                    odd === 1 ? name : odd === 2 ? { ...span(1, id), traceId: undefined } : odd === 3 ? [id] : { ...span(1 + (id % 2), id), name, ...(extra ? { extra } : {}) },
                  ),
                })),
              },
            ],
          };
          const json = JSON.stringify(value, null, indent);
          const { pieces, whole } = bothReadings(json, batchChars);
          expect(pieces).toBeDefined();
          expect(isDeepStrictEqual(pieces, whole)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe.skipIf(!HAVE_SHARED)(`real traces (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  it('reads each real OTLP document in pieces as the whole text', () => {
    const files = sharedFiles('otlp');
    expect(files.length).toBeGreaterThan(0);
    let read = 0;
    for (const file of files) {
      const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
      for (const doc of Array.isArray(value) ? value : [value]) {
        for (const text of [JSON.stringify(doc), JSON.stringify(doc, null, 2)]) {
          for (const batchChars of [200, 1 << 16]) {
            const { pieces, whole } = bothReadings(text, batchChars);
            if (pieces === undefined) continue; // a shape it leaves to the whole text (checked below to read the same)
            read++;
            expect(isDeepStrictEqual(pieces, whole), relative(SHARED_TRACES, file)).toBe(true);
          }
          expectSame(text, relative(SHARED_TRACES, file));
        }
      }
    }
    expect(read).toBeGreaterThan(0);
  });

  it('reads no other real file in pieces', () => {
    for (const file of sharedFiles('')) {
      if (file.includes('/otlp/')) continue;
      const text = readFileSync(file, 'utf8');
      expect(importOtlpDocumentText(text), relative(SHARED_TRACES, file)).toBeUndefined();
    }
  });
});
