// The OTLP importer checks the nesting depth of a JSON document as it reads it (DepthCheckInParts, issue 14) instead
// of parseText walking the whole parsed document first: every file must be refused exactly as before, with the same
// error (the first value too deep in document order, its path), and every other file read as before.
import { describe, expect, it } from 'vitest';
import { ImportError } from './errors.ts';
import { importParsed, importText, type ImportedFile } from './index.ts';
import { DepthCheckInParts, MAX_JSON_DEPTH } from './json-depth.ts';
import { parseText } from './parse-input.ts';
import { nestedValue } from '../testing/otlp-docs.ts';


function span(i: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: `00000000000000${(i + 16).toString(16)}`,
    parentSpanId: i > 0 ? '0000000000000010' : undefined,
    name: `s${i}`,
    startTimeUnixNano: String(1_750_000_000_000_000_000 + i * 1000),
    attributes: [
      { key: 'openinference.span.kind', value: { stringValue: i % 2 ? 'TOOL' : 'LLM' } },
      { key: 'input.value', value: { stringValue: `in ${i}` } },
    ],
    ...extra,
  };
}

function document(spans: unknown[], extra: { doc?: object; resource?: object; scope?: object } = {}): Record<string, unknown> {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }], ...extra.resource },
        scopeSpans: [{ scope: { name: 'openinference.instrumentation.smolagents' }, spans, ...extra.scope }],
      },
    ],
    ...extra.doc,
  };
}

/** The runs and warnings `run` gives, or its error's fields. */
function outcome(run: () => ImportedFile): unknown {
  try {
    const { runs, warnings } = run();
    return { runs, warnings };
  } catch (e) {
    if (!(e instanceof ImportError)) throw e;
    return { error: [e.format, e.location, e.detail] };
  }
}

const FILE = 't.otlp.json';
/** Now: parsed without the depth check, checked by the OTLP reader as it reads. */
const now = (text: string) => outcome(() => importText(FILE, text));
/** As before: the whole document checked by parseText, then detected and imported. */
const before = (text: string) => outcome(() => importParsed(FILE, parseText(FILE, text)));

describe('the nesting depth checked as the OTLP reader reads', () => {
  const limit = MAX_JSON_DEPTH;
  // Just past the limit wherever it sits, and just within it.
  const cases: Array<[string, unknown]> = [];
  const firstAttrs = span(0).attributes as object[];
  for (const levels of [limit - 6, limit - 7, limit - 8, limit - 9, limit - 10, limit]) {
    cases.push(
      [`a span attribute value, ${levels} levels`, document([span(0), span(1, { attributes: [{ key: 'k', value: { kvlistValue: nestedValue(levels) } }] })])],
      [`a span's unread field, ${levels} levels`, document([span(0, { links: [nestedValue(levels)] }), span(1)])],
      [`a dropped span (no trace id), ${levels} levels`, document([span(0), { ...span(1, { extra: nestedValue(levels) }), traceId: '' }])],
      [`a span entry that is an array, ${levels} levels`, document([span(0), [nestedValue(levels)]])],
      [`the resource, ${levels} levels`, document([span(0)], { resource: { extra: nestedValue(levels) } })],
      [`the scope block, ${levels} levels`, document([span(0)], { scope: { extra: nestedValue(levels) } })],
      [`the document, ${levels} levels`, document([span(0)], { doc: { extra: nestedValue(levels) } })],
      [`a document in an array, ${levels} levels`, [document([span(0)]), document([span(1, { links: nestedValue(levels) })])]],
      [`after a span with unreadable attributes, ${levels} levels`, document([span(0, { attributes: 'bad' }), span(1, { links: nestedValue(levels) })])],
      [`after a malformed scope block, ${levels} levels`, { resourceSpans: [{ scopeSpans: ['not a block'] }, { extra: nestedValue(levels) }] }],
      // Spans with the same attribute keys: the reader copies the first one's record and checks each item as it reads it.
      [`an attribute value read from a template, ${levels} levels`, document([span(0), span(2), span(4, { attributes: [firstAttrs[0], { key: 'input.value', value: { stringValue: 'x', extra: nestedValue(levels) } }] })])],
      [`an attribute item's unread field read from a template, ${levels} levels`, document([span(0), span(2, { attributes: [{ ...firstAttrs[0], more: [nestedValue(levels)] }, firstAttrs[1]] })])],
      [`a kvlist attribute read from a template, ${levels} levels`, document([span(1, { attributes: [{ key: 'k', value: { stringValue: 'x' } }] }), span(3, { attributes: [{ key: 'k', value: { kvlistValue: nestedValue(levels) } }] })])],
      [`the attributes of a span without an id, ${levels} levels`, document([span(0), { ...span(2), spanId: '', attributes: [{ key: 'k', value: { arrayValue: nestedValue(levels) } }] }])],
      [`the attributes of a span without a trace id, ${levels} levels`, document([span(0), { ...span(2), traceId: 7, attributes: [{ key: 'k', value: nestedValue(levels) }] }])],
      [`unreadable attributes with a deep item, ${levels} levels`, document([span(0), span(2, { attributes: ['bad', { key: 'k', value: nestedValue(levels) }] })])],
      [`the attributes list itself, ${levels} levels`, document([span(0), span(2, { attributes: [nestedValue(levels)] })])],
      [`in a second resource block, ${levels} levels`, { resourceSpans: [document([span(0)]).resourceSpans, { scopeSpans: [{ spans: [span(1, { x: nestedValue(levels) })] }] }].flat() }],
    );
  }

  for (const [name, doc] of cases) {
    it(`refuses or reads as before: ${name}`, () => {
      const text = JSON.stringify(doc);
      const expected = before(text);
      if (name.endsWith(`, ${limit} levels`)) expect(expected).toHaveProperty('error', expect.arrayContaining(['json']));
      expect(now(text)).toEqual(expected);
    });
  }

  it('a document past the limit in two places is refused for the first one in document order', () => {
    const text = JSON.stringify(document([span(0, { links: nestedValue(limit) }), span(1)], { doc: { before: nestedValue(limit) } }));
    const expected = before(text);
    expect(expected).toEqual({ error: ['json', expect.stringMatching(/^\$\.resourceSpans/), expect.any(String)] });
    expect(now(text)).toEqual(expected);
  });

  it('the parts and the rest answer as the whole-document check', () => {
    const doc = document([span(0), span(1, { links: [nestedValue(limit - 7)] })]);
    const parts = new DepthCheckInParts();
    const spans = (doc.resourceSpans as Array<{ scopeSpans: Array<{ spans: object[] }> }>)[0].scopeSpans[0].spans;
    // The second span sits at level 7: its links reach level 7 + 1 + 1 + (limit − 7) = limit + 2.
    expect(parts.deeper(spans[0], 7)).toBe(false);
    expect(parts.deeper(spans[1], 7)).toBe(true);
    expect(parts.restDeeper(doc, new Set([spans]))).toBe(false);
    expect(parts.restDeeper(doc, new Set())).toBe(true);
  });
});
