// Labels, mappings, agreement and the heuristic flagger, on hand-made edges and on the real Who&When, TRAIL and
// tau-bench traces.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importBytes } from '../../import/index.ts';
import { attachAnnotationSets } from '../../model/annotations.ts';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON, sharedFiles } from '../../testing/fixture-kit.ts';
import type { Run } from '../../model/types.ts';
import { edgeStates, type EdgeState } from './edges.ts';
import { flagEdge } from './heuristic.ts';
import { agreement, datasetLabels, humanLabels, labelsBySource, mapDatasetLabel, withHumanLabel } from './labels.ts';
import { clarifyRun } from './pass.ts';
import type { ClarifierType } from './taxonomy.ts';

const edge = (message: string): EdgeState => ({
  id: 'e',
  task: 't',
  sender: { id: 'a', name: 'A' },
  receiver: { id: 'b', name: 'B' },
  receivers: [{ id: 'b', name: 'B' }],
  message,
  history: [],
});

describe('heuristic flagger', () => {
  it('flags obvious placeholders (DG), broken JSON, broken tables and mixed unit systems (SC); passes clean text', () => {
    expect(flagEdge(edge('Use account id [insert id here] for the refund.'))).toMatchObject({ type: 'DG', toAgent: 'sender' });
    expect(flagEdge(edge('Deadline: TBD'))?.type).toBe('DG');
    expect(flagEdge(edge('```json\n{"a": 1,, }\n```'))).toMatchObject({ type: 'SC', signal: expect.stringMatching(/JSON does not parse/) });
    expect(flagEdge(edge('| a | b | c |\n|---|---|---|\n| 1 | 2 |'))).toMatchObject({ type: 'SC', signal: expect.stringMatching(/2 cells under a 3-column/) });
    expect(flagEdge(edge('The trail is 5 km long, about 3 miles.'))).toMatchObject({ type: 'SC', signal: expect.stringMatching(/kilometres, miles/) });
    expect(flagEdge(edge('Bake at 180 °C, which is 356 °F.'))?.type).toBe('SC');
    for (const clean of ['The answer is 42.', '{"ok": true}', '| a | b |\n|---|---|\n| 1 | 2 |', 'Walk 5 km, then 300 metres more.', 'Updated Ledger: { "reason": "x" } more text']) {
      expect(flagEdge(edge(clean)), clean).toBeUndefined();
    }
  });
});

describe('agreement', () => {
  it('raw agreement and Cohen’s kappa over the edges both sources labelled', () => {
    const a = new Map<string, ClarifierType>([['1', 'DG'], ['2', 'DG'], ['3', 'SC'], ['4', 'NONE'], ['5', 'RD']]);
    const b = new Map<string, ClarifierType>([['1', 'DG'], ['2', 'SC'], ['3', 'SC'], ['4', 'NONE'], ['6', 'CG']]);
    const r = agreement(a, b);
    expect(r).toMatchObject({ n: 4, agree: 3, agreementPct: 75, onlyA: 1, onlyB: 1 });
    // p_o = 0.75; p_e = (2/4·1/4) + (1/4·2/4) + (1/4·1/4) = 0.3125; kappa = 0.4375 / 0.6875
    expect(r.kappa).toBeCloseTo(0.636, 3);
    expect(r.confusion.DG.SC).toBe(1);
    expect(agreement(a, new Map())).toMatchObject({ n: 0, agreementPct: null, kappa: null });
  });
});

describe('dataset mappings', () => {
  it('maps only categories with an edge-level meaning and says why the others are unmapped', () => {
    expect(mapDatasetLabel({ taxonomy: 'AgentRx', code: 'Underspecified User Intent' }).type).toBe('DG');
    expect(mapDatasetLabel({ taxonomy: 'TRAIL', code: 'Formatting Errors' }).type).toBe('SC');
    expect(mapDatasetLabel({ taxonomy: 'AgentRx', code: 'Intent Not Supported' }).type).toBe('CG');
    const rate = mapDatasetLabel({ taxonomy: 'TRAIL', code: 'Rate Limiting' });
    expect(rate.type).toBeUndefined();
    expect(rate.why).toMatch(/no handoff error/);
    expect(mapDatasetLabel({ taxonomy: 'WhoWhen', code: 'decisive-error' })).toEqual({ why: expect.stringMatching(/decisive agent and step/) });
  });
});

const load = (path: string): Run[] => importBytes(path, readFileSync(path)).runs;

describe.skipIf(!HAVE_SHARED)(`real traces (${HAVE_SHARED ? 'shared traces present' : SKIP_REASON})`, () => {
  it('Who&When: every handoff is an edge; the decisive step’s label sits on the edge that step sent, unmapped', () => {
    const files = sharedFiles('who-and-when');
    expect(files.length).toBeGreaterThan(10);
    let onEdge = 0;
    for (const f of files) {
      for (const run of load(f)) {
        const states = edgeStates(run);
        expect(states).toHaveLength(run.handoffs.length);
        for (const s of states) {
          expect(s.history.length).toBeLessThanOrEqual(3);
          expect(s.sender.name).not.toBe('');
        }
        for (const d of datasetLabels(run)) {
          expect(d.annotation.taxonomy).toBe('WhoWhen');
          expect(d.mapping.type).toBeUndefined();
          if (d.handoffId !== undefined) {
            onEdge++;
            expect(run.handoffs.find((h) => h.id === d.handoffId)?.stepId).toBe(d.annotation.stepId);
          }
        }
      }
    }
    expect(onEdge).toBeGreaterThan(0);
  });

  it('tau-bench + AgentRx: mapped labels land on edges and count as the dataset source', () => {
    const runs = load(join(SHARED_TRACES, 'tau-bench/tau_dataset_failed.json'));
    const sets = importBytes('gt.json', readFileSync(join(SHARED_TRACES, 'tau-bench/tau_ground_truth.json'))).annotationSets;
    attachAnnotationSets(runs, sets);
    let mapped = 0;
    for (const run of runs) {
      const labels = datasetLabels(run);
      const dataset = labelsBySource(run, 'dataset');
      for (const d of labels) if (d.mapping.type && d.handoffId) mapped++;
      expect(dataset.size).toBeLessThanOrEqual(labels.length);
    }
    expect(mapped).toBeGreaterThan(0);
  });

  it('a person’s label replaces the earlier one on that edge, removes cleanly, and is compared with the flagger', async () => {
    const [run] = load(sharedFiles('who-and-when/hand-crafted')[0]);
    const h = run.handoffs[1];
    let labelled = withHumanLabel(run, h.id, 'DG', 'no address given', 1);
    labelled = withHumanLabel(labelled, h.id, 'RD', 'which school?', 2);
    expect([...humanLabels(labelled).values()]).toEqual([
      { id: `human-agentask:${h.id}`, handoffId: h.id, stepId: h.stepId, source: 'human', taxonomy: 'AgentAsk', code: 'RD', description: 'which school?', createdAt: 2 },
    ]);
    expect(humanLabels(withHumanLabel(labelled, h.id, undefined, '')).size).toBe(0);
    const offline = await clarifyRun(labelled);
    const withFlags = { ...labelled, interventions: offline.interventions };
    const r = agreement(labelsBySource(withFlags, 'human'), labelsBySource(withFlags, 'heuristic'));
    expect(r.n).toBe(1);
    expect(offline.interventions).toHaveLength(run.handoffs.length);
  });
});
