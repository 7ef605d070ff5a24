// Issue 20: a session writes a step span's attributes once (as the step's raw); Run.spans points at the step and is
// filled again on import. The round trip gives the same run, and the session is smaller.
import { describe, expect, it } from 'vitest';
import { generateAgentTrace } from '../../bench/gen-agent-otlp.ts';
import { importText } from '../import/index.ts';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON, importShared, sharedFiles } from '../testing/fixture-kit.ts';
import type { Run } from '../model/types.ts';
import { buildSession, exportSession } from './native.ts';

/** Export → import of the runs; the sizes with and without the compaction. */
function roundTrip(runs: Run[]): { back: Run[]; size: number; plain: number } {
  const text = exportSession({ runs });
  const back = importText('x.session.json', text).runs;
  return { back, size: text.length, plain: JSON.stringify(buildSession({ runs })).length };
}

function expectSame(runs: Run[], back: Run[]): void {
  expect(back).toHaveLength(runs.length);
  for (let i = 0; i < runs.length; i++) {
    // Compared as JSON (what a session can hold): same steps, same spans with the same attributes.
    expect(JSON.parse(JSON.stringify(back[i]))).toEqual(JSON.parse(JSON.stringify(runs[i])));
    for (const span of back[i].spans ?? []) expect(span.attributesOf).toBeUndefined();
  }
}

describe('native session of span runs', () => {
  it('writes a step span’s attributes once and reads them back (generated 10k-span trace)', () => {
    const runs = importText('agent.otlp.json', JSON.stringify(generateAgentTrace(1000, 'genai'))).runs;
    const { back, size, plain } = roundTrip(runs);
    expectSame(runs, back);
    // The step span in memory shares its attributes object with the step again (no second copy).
    const step = back[0].steps.find((s) => s.spanId !== undefined)!;
    expect(back[0].spans!.find((s) => s.id === step.spanId)!.attributes).toBe(step.raw);
    // 2,000 of its 10,000 spans are steps: their attributes are no longer written twice.
    expect(size).toBeLessThan(plain * 0.97);
  });

  describe.skipIf(!HAVE_SHARED)('the shared OTLP and span-tree files', () => {
    if (!HAVE_SHARED) it.skip(SKIP_REASON, () => {});
    for (const path of [...sharedFiles('otlp'), ...sharedFiles('trail/gaia'), ...sharedFiles('trail/swe')]) {
      it(path.slice(SHARED_TRACES.length + 1), () => {
        const runs = importShared(path).runs;
        const { back } = roundTrip(runs);
        expectSame(runs, back);
      });
    }
  });
});
