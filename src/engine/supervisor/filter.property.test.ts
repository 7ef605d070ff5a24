// The optimised filter against a direct, slow transcription of SPEC §5.1 on random step sequences built from a
// small alphabet (so loops, markers, errors, surrogate pairs and code-only steps all occur often).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Step } from '../../model/types.ts';
import { filterParams, filterSteps, type FilterParams } from './filter.ts';

function referenceCode(output: string): string {
  const m = /```[^\n]*\n([\s\S]*?)(```|$)/.exec(output);
  return m ? m[1].trim() : output;
}

function referenceFilter(steps: Step[], p: FilterParams): [number, string][] {
  const runs = new Map<string, { sigs: string[]; ineff: number }>();
  const out: [number, string][] = [];
  steps.forEach((s, i) => {
    if (s.kind !== 'action') return;
    const key = s.agentRunId ?? s.agentId;
    const st = runs.get(key) ?? { sigs: [], ineff: 0 };
    runs.set(key, st);
    const calls = s.toolCalls ?? [];
    st.sigs.push(JSON.stringify(calls.length > 0 ? calls.map((c) => [c.name, c.arguments]) : [['python_interpreter', referenceCode(s.output ?? '')]]));
    const n = st.sigs.length;
    const obs = s.observation ?? '';
    const capped = st.ineff >= p.maxInefficientPerRun;
    const lastSame = n >= p.tauLoop && new Set(st.sigs.slice(-p.tauLoop)).size === 1;
    let ctx: string | undefined;
    if (obs.includes('<summary_of_work>')) ctx = 'subagent_completion';
    else if (s.error && !p.nonCriticalErrors.some((e) => typeof e === 'string' && s.error!.message.includes(e))) ctx = 'error';
    else if (!capped && n > 0 && n % p.tauStep === 0) ctx = 'inefficient';
    else if (!capped && lastSame) ctx = 'inefficient';
    else if ([...obs].length > p.tauLen) ctx = 'excessive';
    if (ctx === 'inefficient') st.ineff++;
    if (ctx) out.push([i, ctx]);
  });
  return out;
}

const observation = fc.oneof(
  fc.constantFrom('', 'ok', '<summary_of_work> done', 'x'.repeat(12), '😀'.repeat(7), 'a😀'.repeat(4)),
  fc.string({ maxLength: 16 }),
);
const output = fc.constantFrom('plain A', 'plain B', 'T1\n```py\nprint(1)\n```', 'T2\n```\nprint(1)\n```<end_code>', 'T\n```py\nprint(2)\n```', 'print(1)');
const call = fc.record({ name: fc.constantFrom('web_search', 'python_interpreter', 'page_down'), arguments: fc.constantFrom('{}', 'print(1)', '{"q":1}') });
const step = fc.record({
  kind: fc.constantFrom('action', 'action', 'action', 'llm'),
  agentRunId: fc.constantFrom('r1', 'r1', 'r2', 'r3'),
  observation,
  output,
  toolCalls: fc.oneof(fc.constant([]), fc.constant([]), fc.array(call, { minLength: 1, maxLength: 2 })),
  error: fc.option(fc.record({ message: fc.constantFrom('boom', 'soft fail') }), { nil: undefined }),
});

describe('adaptive filter matches the specification', () => {
  it('on random sequences and thresholds', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 14 }), fc.boolean(), (raw, tauStep, tauLoop, tauLen, soft) => {
        const steps = raw.map((r, i) => {
          const s: Step = { id: `s${i}`, index: i, kind: r.kind as Step['kind'], agentId: 'a', agentRunId: r.agentRunId, observation: r.observation, output: r.output, toolCalls: [...r.toolCalls] };
          if (r.error) s.error = r.error;
          return s;
        });
        const p = filterParams({ tauStep, tauLoop, tauLen }, { nonCriticalErrors: soft ? ['soft'] : [] });
        expect(filterSteps(steps, p).map((t) => [t.stepIndex, t.context])).toEqual(referenceFilter(steps, p));
      }),
      { numRuns: 1000 },
    );
  });
});
