// The Taxonomy view's derivations: edges with their labels, gallery cases promoted from real traces, the library
// statistics behind the charts, and labels travelling with an exported native session.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clarifyRun, toIntervention, withHumanLabel, type EdgeClarification } from '../../engine/clarifier/index.ts';
import { exportSession } from '../../export/native.ts';
import { HAVE_SHARED, SKIP_REASON, sharedFiles } from '../../testing/fixture-kit.ts';
import { importBytes } from '../../import/index.ts';
import { edgeRows, libraryStats, traceCases, withGalleryMark } from './taxonomy-model.ts';

describe.skipIf(!HAVE_SHARED)(`on a real Who&When run (${HAVE_SHARED ? 'shared traces present' : SKIP_REASON})`, () => {
  const file = sharedFiles('who-and-when/hand-crafted')[0];
  const load = () => importBytes(file, readFileSync(file)).runs[0];

  it('edge rows carry the person’s label, the clarifier’s verdict and the dataset labels of each handoff', async () => {
    let run = load();
    const h = run.handoffs[2];
    run = withHumanLabel(run, h.id, 'SC', 'numbers look off');
    run = { ...run, interventions: (await clarifyRun(run)).interventions };
    const rows = edgeRows(run);
    expect(rows).toHaveLength(run.handoffs.length);
    const row = rows.find((r) => r.state.id === h.id)!;
    expect(row.human?.code).toBe('SC');
    expect(row.clarification?.heuristic).toBe(true);
    expect(rows.filter((r) => r.dataset.length > 0)).toHaveLength(1);
  });

  it('a gallery mark makes a trace case; labels and marks survive a native session round trip', () => {
    let run = withHumanLabel(load(), load().handoffs[1].id, 'DG', 'which school?');
    expect(traceCases([run])).toEqual([]);
    run = withGalleryMark(run, run.handoffs[1].id, true);
    const [c] = traceCases([run]);
    expect(c).toMatchObject({ type: 'DG', note: 'which school?', handoffId: run.handoffs[1].id, sender: 'Orchestrator' });
    const reread = importBytes('session.json', new TextEncoder().encode(exportSession({ runs: [run] }))).runs[0];
    expect(reread.annotations).toEqual(run.annotations);
    expect(traceCases([reread])).toEqual([c]);
    expect(traceCases([withGalleryMark(reread, run.handoffs[1].id, false)])).toEqual([]);
  });

  it('library statistics count error labels and endpoint asks per type, and one-shot resolutions', () => {
    const run = load();
    const c = (edgeId: string, type: 'DG' | 'SC', resolved: boolean | null, heuristic = false): EdgeClarification => ({
      edgeId, type, toAgent: 'sender', question: 'q?', originalMessage: 'm', revisedMessage: 'm2', changed: true,
      tokens: { input: 1, output: 1, total: 2 }, latencyMs: 1, resolved, heuristic, repairs: [], llmCallIds: [],
    });
    const [a, b, d, e] = run.handoffs;
    let labelled = withHumanLabel(run, a.id, 'RD', '');
    labelled = withHumanLabel(labelled, b.id, 'NONE', '');
    labelled = { ...labelled, interventions: [toIntervention(c(a.id, 'DG', true), a.stepId), toIntervention(c(b.id, 'DG', false), b.stepId), toIntervention(c(d.id, 'SC', null), d.stepId), toIntervention(c(e.id, 'SC', null, true), e.stepId)] };
    const s = libraryStats([labelled, run]);
    expect(s.human).toEqual({ counts: { DG: 0, RD: 1, SC: 0, CG: 0 }, total: 1 });
    expect(s.clarifier.counts).toEqual({ DG: 2, RD: 0, SC: 1, CG: 0 });
    expect(s.heuristic.counts.SC).toBe(1);
    expect(s.secondChecked).toEqual({ DG: 2, RD: 0, SC: 0, CG: 0 });
    expect(s.resolved.DG).toBe(1);
    expect(s).toMatchObject({ runsWithLabels: 1, runsClarified: 1 });
  });
});
