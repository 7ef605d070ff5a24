import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFixture, HAVE_SHARED, importShared, SHARED_TRACES, SKIP_REASON } from '../../testing/fixture-kit.ts';
import { importText } from '../index.ts';
import { attachAnnotationSets } from '../../model/annotations.ts';

const DUMPS = join(import.meta.dirname, 'dumps');
const GROUND_TRUTH = join(SHARED_TRACES, 'tau-bench/tau_ground_truth.json');
const TAU = join(SHARED_TRACES, 'tau-bench/tau_dataset_failed.json');

describe.skipIf(!HAVE_SHARED)(`AgentRx ground truth (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  it('imports tau_ground_truth.json as annotation sets', async () => {
    const imported = await checkFixture(GROUND_TRUTH, 'agentrx-ground-truth', DUMPS);
    const raw = JSON.parse(readFileSync(GROUND_TRUTH, 'utf8'));
    expect(imported.runs).toEqual([]);
    expect(imported.annotationSets.map((s) => s.annotations.length)).toEqual(raw.map((g: { failures: unknown[] }) => g.failures.length));
  });

  it('attaches every failure to the step AgentRx names in the tau-bench runs', () => {
    const runs = importShared(TAU).runs;
    const sets = importShared(GROUND_TRUTH).annotationSets;
    const raw = JSON.parse(readFileSync(GROUND_TRUTH, 'utf8'));
    expect(attachAnnotationSets(runs, sets)).toEqual([]);
    let attached = 0;
    for (const g of raw) {
      const run = runs.find((r) => r.id === `tau-${g.trajectory_id}`)!;
      for (const f of g.failures) {
        const a = run.annotations.find((x) => x.id === `agentrx-${g.trajectory_id}-f${f.failure_id}`)!;
        expect(a).toMatchObject({ taxonomy: 'AgentRx', code: f.failure_category, source: 'dataset', agentId: f.failed_agent.toLowerCase(), evidence: f.step_reason });
        const step = run.steps.find((s) => s.id === a.stepId)!;
        expect(step.number).toBe(f.step_number);
        expect(a.rootCause === true).toBe(f.failure_id === g.root_cause.failure_id);
        attached++;
      }
      expect(run.annotations.filter((a) => a.rootCause)).toHaveLength(1);
    }
    expect(attached).toBe(39);
  });
});

describe('AgentRx ground truth on small inputs', () => {
  it('keys sets by tau run id and names the failing field', () => {
    const gt = [{ trajectory_id: 5, failures: [{ failure_id: 1, step_number: 3, failure_category: 'System Failure', failed_agent: 'Assistant' }], root_cause: { failure_id: 1 } }];
    const r = importText('x.json', JSON.stringify(gt));
    expect(r.format).toBe('agentrx-ground-truth');
    expect(r.annotationSets[0]).toMatchObject({ runId: 'tau-5', annotations: [{ stepId: 'tau-5:m3', agentId: 'assistant', rootCause: true, impact: 'root cause' }] });
    const bad = [{ trajectory_id: 5, failures: [{ failure_id: 1, step_number: 'three' }] }];
    expect(() => importText('x.json', JSON.stringify(bad))).toThrow(/\$\[0\]\.failures\[0\]\.step_number/);
  });
});
