// Property tests (SPEC §9): arbitrary bytes, arbitrary JSON and mutated real span files either import or fail with
// an ImportError — never another exception, never a hang. Sizes are bounded so the suite stays within seconds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON } from '../testing/fixture-kit.ts';
import { ImportError, importBytes, importText } from './index.ts';

function importsOrFailsTyped(run: () => unknown): void {
  try {
    run();
  } catch (e) {
    if (!(e instanceof ImportError)) throw e;
  }
}

const RUNS = 150;

describe('span importers under arbitrary input', () => {
  it('random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => importsOrFailsTyped(() => importBytes('fuzz.json', bytes))),
      { numRuns: RUNS },
    );
  });

  it('random JSON, also under the span formats forced', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.constantFrom(undefined, 'otlp', 'span-tree', 'trail-annotations'), (value, format) => {
        importsOrFailsTyped(() => importText('fuzz.json', JSON.stringify(value) ?? 'null', format ? { format } : {}));
      }),
      { numRuns: RUNS },
    );
  });

  // Shapes close to the formats, so the importers' inner code is reached rather than rejected at the door.
  const anyJson = fc.jsonValue({ maxDepth: 3 });
  const spanLike = fc.dictionary(
    fc.constantFrom('spanId', 'span_id', 'traceId', 'trace_id', 'parentSpanId', 'parent_span_id', 'name', 'span_name', 'attributes', 'span_attributes', 'status', 'status_code', 'events', 'child_spans', 'startTimeUnixNano', 'timestamp', 'duration'),
    fc.oneof(anyJson, fc.constantFrom('Step 1', 'CodeAgent.run', 'AAAAAAAAAAE=', '0000000000000001', 'PT1.5S', 'Error')),
    { maxKeys: 10 },
  );
  it('format-shaped documents', () => {
    fc.assert(
      fc.property(fc.array(spanLike, { maxLength: 8 }), (spans) => {
        importsOrFailsTyped(() => importText('a.json', JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] })));
        importsOrFailsTyped(() => importText('b.json', JSON.stringify({ trace_id: 't', spans })));
        importsOrFailsTyped(() => importText('c.json', JSON.stringify({ trace_id: 't', errors: spans, scores: [] })));
      }),
      { numRuns: RUNS },
    );
  });
});

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every container path in a document, so a mutation can target any of them. */
function containerPaths(value: Json, path: Array<string | number> = [], out: Array<Array<string | number>> = [], limit = 4000): Array<Array<string | number>> {
  if (out.length >= limit || value === null || typeof value !== 'object') return out;
  out.push(path);
  if (Array.isArray(value)) value.forEach((v, i) => containerPaths(v, [...path, i], out, limit));
  else for (const [k, v] of Object.entries(value)) containerPaths(v, [...path, k], out, limit);
  return out;
}

function at(value: Json, path: Array<string | number>): Json {
  let v: Json = value;
  for (const key of path) v = (v as Record<string | number, Json>)[key];
  return v;
}

const REPLACEMENTS: Json[] = [null, 0, -1, 1e308, '', 'x', '12', true, [], {}, [null], { value: {} }];

function mutate(doc: Json, paths: Array<Array<string | number>>, pick: number, op: number, replacement: number): Json {
  const copy = structuredClone(doc);
  const target = at(copy, paths[pick % paths.length]) as Json[] | Record<string, Json>;
  const keys = Array.isArray(target) ? target.map((_, i) => i) : Object.keys(target);
  if (keys.length === 0) return copy;
  const key = keys[(pick >> 3) % keys.length];
  const container = target as Record<string | number, Json>;
  if (op === 0) {
    if (Array.isArray(target)) target.splice(key as number, 1);
    else delete container[key];
  } else {
    container[key] = REPLACEMENTS[replacement % REPLACEMENTS.length];
  }
  return copy;
}

const REAL_FILES = ['trail/gaia/41bbc898aa7de0f31d2382ff57700a76.json', 'trail/annotations/41bbc898aa7de0f31d2382ff57700a76.json', 'otlp/rag_earnings_agent.json'];

describe.skipIf(!HAVE_SHARED)(`mutated real span files (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  for (const file of REAL_FILES) {
    const text = HAVE_SHARED ? readFileSync(join(SHARED_TRACES, file), 'utf8') : '{}';
    const doc = JSON.parse(text) as Json;
    const paths = containerPaths(doc);

    it(`${file}: dropped keys and changed types`, () => {
      fc.assert(
        fc.property(fc.nat(), fc.integer({ min: 0, max: 1 }), fc.nat(), (pick, op, replacement) => {
          importsOrFailsTyped(() => importText('unknown', JSON.stringify(mutate(doc, paths, pick, op, replacement))));
        }),
        { numRuns: 60 },
      );
    });

    it(`${file}: truncated`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: text.length }), (cut) => importsOrFailsTyped(() => importText('unknown', text.slice(0, cut)))),
        { numRuns: 40 },
      );
    });
  }

  it('a real file still imports (the mutations above start from something valid)', () => {
    expect(importText('unknown', readFileSync(join(SHARED_TRACES, REAL_FILES[0]), 'utf8')).runs).toHaveLength(1);
  });
});
