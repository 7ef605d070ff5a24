// A JSON array of OTLP documents is read one document at a time from its text (importOtlpArrayText, issue 14): every
// file must give exactly what the whole-text path gives (parseText, detection, importFromOtlp), runs and warnings or
// the error, and the reading in pieces must be the one taken for the files it is meant for.
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { mapTicks } from '../model/run-builder.ts';
import { HAVE_SHARED, SKIP_REASON, sharedFiles } from '../testing/fixture-kit.ts';
import { agentTraceDocument, agentTraceSpan, nestedValue } from '../testing/otlp-docs.ts';
import { importOtlpArrayText } from './formats/otlp.ts';
import { detectText, importDetected, importText, type ImportOptions } from './index.ts';
import { MAX_JSON_DEPTH } from './json-depth.ts';


/** The names a reader must take as text: quotes, escapes and what looks like the next document's start. */
const HOSTILE = { tool: 'search "q\\"', agent: 'a]},{"resourceSpans":[' };
const span = (trace: number, i: number, extra: Record<string, unknown> = {}) => agentTraceSpan(trace, i, HOSTILE, extra);
const document = (trace: number, spans = 3, extra: Record<string, unknown> = {}) => agentTraceDocument(trace, spans, HOSTILE, extra);

/** What a call gives: its result, or the error's class and message. */
function outcome(run: () => unknown): unknown {
  try {
    return { ok: run() };
  } catch (e) {
    return { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

/** importText, and what the whole-text path gives for the same file. */
function bothPaths(text: string, file = 'bench.json', options: ImportOptions = {}) {
  return {
    inPieces: outcome(() => importText(file, text, options)),
    whole: outcome(() => importDetected(detectText(file, text, options))),
  };
}

function expectSame(text: string, file?: string, options?: ImportOptions) {
  const { inPieces, whole } = bothPaths(text, file, options);
  expect(isDeepStrictEqual(inPieces, whole)).toBe(true);
  return inPieces;
}

afterEach(() => {
  mapTicks.onTick = undefined;
});

describe('a JSON array of OTLP documents read one at a time', () => {
  const docs = [document(1), document(2, 4), document(3, 1)];

  it('reads compact, pretty-printed and padded arrays in pieces, as the whole text', () => {
    for (const text of [
      JSON.stringify(docs),
      JSON.stringify(docs, null, 2),
      `\ufeff \r\n${JSON.stringify(docs).replace(/},{"resourceSpans"/g, '} ,\n\t{"resourceSpans"')}\n\n`,
      JSON.stringify([document(1)]),
    ]) {
      expect(importOtlpArrayText(text)).toBeDefined();
      const got = expectSame(text) as { ok: { runs: unknown[] } };
      expect(got.ok.runs.length).toBeGreaterThan(0);
    }
  });

  it('finds where each document ends when the next begins otherwise, or the first key recurs inside one', () => {
    const snake = { resource_spans: (document(4) as { resourceSpans: unknown }).resourceSpans };
    const inner = document(5, 2, { extra: { resourceSpans: [{ resourceSpans: [] }] } });
    const text = JSON.stringify([document(1), snake, inner, document(6)]);
    expect(importOtlpArrayText(text)).toBeDefined();
    expectSame(text);
    expectSame(JSON.stringify([inner, inner, document(2)]));
  });

  it('finds each document when they differ in length (the next is first looked for past half the shortest read)', () => {
    const long = document(1, 12);
    const short = document(2, 1);
    const inner = document(5, 12, { extra: { resourceSpans: [{ resourceSpans: [] }] } });
    for (const list of [
      [long, long, short, long, short, short, long],
      [long, short],
      [short, long, long, long],
      [long, inner, long, short, inner],
      [long, long, document(3, 2), document(4, 12), document(6, 2)],
    ]) {
      const text = JSON.stringify(list);
      const read = importOtlpArrayText(text);
      expect(read).toBeDefined();
      expect(read!.runs.length).toBe(new Set(list).size);
      expectSame(text);
    }
  });

  it('leaves to the whole-text path every file it cannot read exactly, which then fails or reads as before', () => {
    const good = JSON.stringify(docs);
    const cases = [
      good.slice(0, -1), // no closing bracket
      good.slice(0, good.length - 40), // cut in the last document
      `${good} x`, // text after the array
      good.replace('"spanId"', '"spanId" "'), // a syntax error in a document
      JSON.stringify([...docs, { resourceSpans: {} }]), // not an array of spans
      JSON.stringify([...docs, { foo: 1 }]), // a document that is not OTLP
      JSON.stringify([...docs, 3]),
      '[]',
      '[ ]',
      JSON.stringify([document(1), { resourceSpans: [{ scopeSpans: [{ spans: [span(1, 0, { deep: nestedValue(MAX_JSON_DEPTH) })] }] }] }]),
      JSON.stringify([document(1), document(2, 1, { deep: nestedValue(MAX_JSON_DEPTH) })]),
      JSON.stringify([document(1), { resourceSpans: [{ resource: nestedValue(MAX_JSON_DEPTH), scopeSpans: [] }] }]),
      JSON.stringify([document(1, 2), document(2, 2, { more: [nestedValue(MAX_JSON_DEPTH - 2)] })]),
    ];
    for (const text of cases) {
      expect(importOtlpArrayText(text)).toBeUndefined();
      expectSame(text);
    }
    // Just within the limit: read in pieces.
    const within = JSON.stringify([document(1, 2), document(2, 2, { more: nestedValue(MAX_JSON_DEPTH - 2) })]);
    expect(importOtlpArrayText(within)).toBeDefined();
    expectSame(within);
  });

  it('reads in pieces only where detection would pick OTLP for an array', () => {
    const text = JSON.stringify(docs);
    for (const [file, options] of [
      ['bench.json', {}],
      ['my-traces.json', {}],
      ['x.session.json', {}],
      ['trail-annotations.json', {}],
      ['langfuse.json', {}],
      ['conversation.json', {}],
      ['bench.json', { format: 'otlp' }],
      ['bench.json', { format: 'langfuse' }],
    ] as const) {
      expectSame(text, file, options);
    }
  });

  it('reads in pieces while the mapping bar listens, telling it nothing (no total is counted before reading)', () => {
    // Enough spans for the mapping's progress to pass a tick (every 4,096 items) many times over.
    const text = JSON.stringify(Array.from({ length: 200 }, (_, t) => document(t + 1, 100)));
    const told: number[] = [];
    mapTicks.onTick = (_done, total) => told.push(total);
    const inPieces = importOtlpArrayText(text);
    expect(inPieces?.runs).toHaveLength(200);
    expect(told).toEqual([]);
    // The whole-text path counts its spans first and tells the bar against that total.
    importDetected(detectText('bench.json', text));
    expect(told.length).toBeGreaterThan(0);
    expect(told.every((total) => total > 0)).toBe(true);
  });
});

describe.skipIf(!HAVE_SHARED)(`real OTLP traces in arrays (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  it('read in pieces as the whole text, each file and its documents twice over', () => {
    const files = sharedFiles('otlp');
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const value: unknown = JSON.parse(text);
      const twice = JSON.stringify(Array.isArray(value) ? [...value, ...value] : [value, value], null, 1);
      for (const t of [text, twice]) {
        expect(importOtlpArrayText(t)).toBeDefined();
        expectSame(t, file);
      }
    }
  });
});
