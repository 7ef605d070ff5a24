import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ShadowEstimate } from '../model/statistics.ts';
import type { Run } from '../model/types.ts';
import { clearEstimates, closeShadowDb, loadEstimates, runStamp, saveEstimates } from './shadow-db.ts';
import { makeRun } from '../testing/test-runs.ts';

let dbCount = 0;
const fresh = () => `shadow-test-${++dbCount}`;
afterEach(() => closeShadowDb());

function estimate(runId: string, supervisedEstimate: number): ShadowEstimate {
  return {
    runId,
    status: 'complete',
    baseline: 1000,
    supervisedEstimate,
    supervisorOverhead: 0,
    interventions: 2,
    triggers: 2,
    heuristic: true,
    source: 'replay',
  };
}

const withStep = (run: Run, id: string): Run => ({ ...run, steps: [...run.steps, { id, index: run.steps.length, kind: 'action', agentId: 'a' }] });

describe('shadow estimates in IndexedDB', () => {
  it('come back for the same runs and the same preset', async () => {
    const name = fresh();
    const runs = { r1: withStep(makeRun('r1'), 's1'), r2: makeRun('r2') };
    await saveEstimates(runs, [estimate('r1', 700), estimate('r2', 900)], 'gaia', name);
    expect(await loadEstimates(runs, 'gaia', name)).toEqual({ r1: estimate('r1', 700), r2: estimate('r2', 900) });
    expect(await loadEstimates(runs, 'mbpp', name)).toEqual({});
  });

  it('are not served for a run that changed since, nor for a run no longer in the library', async () => {
    const name = fresh();
    const r1 = withStep(makeRun('r1'), 's1');
    await saveEstimates({ r1, r2: makeRun('r2') }, [estimate('r1', 700), estimate('r2', 900)], 'gaia', name);
    const changed: Run = { ...r1, interventions: [{ id: 'iv1', engine: 'supervisor', action: 'approve', reason: 'x', heuristic: true }] };
    expect(runStamp(changed)).not.toBe(runStamp(r1));
    expect(await loadEstimates({ r1: changed }, 'gaia', name)).toEqual({});
    expect(await loadEstimates({ r1 }, 'gaia', name)).toEqual({ r1: estimate('r1', 700) });
  });

  it('are gone after a clear', async () => {
    const name = fresh();
    const runs = { r1: makeRun('r1') };
    await saveEstimates(runs, [estimate('r1', 700)], 'gaia', name);
    await clearEstimates(name);
    expect(await loadEstimates(runs, 'gaia', name)).toEqual({});
  });
});
