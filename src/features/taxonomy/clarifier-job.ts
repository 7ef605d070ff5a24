// The clarifier pass the Taxonomy view runs (SPEC §5.3), through the shared job store: over every edge of a run, or
// (`edge`) one edge again, whose earlier result is then replaced.
import { create } from 'zustand';
import type { Intervention, Run } from '../../model/types.ts';
import { DEFAULT_EDGE_GATE, DEFAULT_WINDOW, edgeGateLabel, type ClarifyFailure, type ClarifyProgress, type ClarifySummary, type EdgeGate } from '../../engine/clarifier/index.ts';
import type { ClarifierPreferences } from '../../store/engine-settings.ts';
import { keepInterventions } from '../../store/engine-results.ts';
import { loadGateResults, saveGateResult, type GateRecordOutline } from '../../store/gate-results-db.ts';
import { createJobStore, withoutEngine, type StartOptions } from '../../store/job-store.ts';
import { clarifyEdgeInWorker, runClarifierInWorker, type EngineCost } from '../../workers/clarifier-client.ts';

export interface ClarifierOptions extends StartOptions {
  window?: number;
  /** Clarify (again) this handoff only. */
  edge?: string;
}

export const clarifierInterventions = (run: Run): Intervention[] => run.interventions.filter((i) => i.engine === 'clarifier');

/** Results a pass in this mode keeps: with the endpoint, the offline flagger's verdicts are asked again. */
export const reusableResults = (run: Run, mode: 'offline' | 'endpoint'): Intervention[] =>
  clarifierInterventions(run).filter((i) => mode === 'offline' || !i.heuristic);

type Outcome = { status: 'complete' | 'cancelled' | 'failed'; failure?: ClarifyFailure; summary?: ClarifySummary; cost?: EngineCost };

/** The edge gate of the settings' clarifier section (seeded like the CLI's default, so both pick the same sample). */
export function gateOf(prefs: Pick<ClarifierPreferences, 'gate' | 'sampleRate'>): EdgeGate {
  return { mode: prefs.gate, sampleRate: prefs.sampleRate, seed: DEFAULT_EDGE_GATE.seed };
}

/** A finished pass's figures under one gate setting, kept beside those of the other settings (issue 21). */
export interface GateResult {
  runId: string;
  gate: string;
  summary: ClarifySummary;
  cost: EngineCost;
}

/** The results per run and gate: the last complete pass under each gate setting. */
export function withGateResult(results: readonly GateResult[], r: GateResult): GateResult[] {
  return [...results.filter((x) => !(x.runId === r.runId && x.gate === r.gate)), r];
}

/** A stored record that has a gate result's shape (the figures the table reads). */
function isGateResult(r: GateRecordOutline): r is GateResult {
  const s = r.summary as Partial<ClarifySummary>;
  const c = r.cost as Partial<EngineCost>;
  return (
    typeof s.edges === 'number' &&
    typeof s.sentToModel === 'number' &&
    !!s.byType &&
    typeof s.byType === 'object' &&
    (s.oneShotPct === null || typeof s.oneShotPct === 'number') &&
    (s.extraCostPct === null || typeof s.extraCostPct === 'number') &&
    typeof c.perRun?.tokens?.total === 'number'
  );
}

/**
 * Kept apart from the job's state, which every start resets: the figures of each gate setting, written to IndexedDB
 * as they arrive and read back per run when its panel opens, so the table survives a reload.
 */
export const useGateResults = create<{ results: GateResult[]; add(r: GateResult): void; load(runId: string): Promise<void> }>()((set) => {
  const loaded = new Set<string>();
  return {
    results: [],
    add: (r) => {
      set((s) => ({ results: withGateResult(s.results, r) }));
      saveGateResult(r).catch(() => {
        // Storage refused: the figures still hold for this session.
      });
    },
    async load(runId) {
      if (loaded.has(runId)) return;
      loaded.add(runId);
      let stored: GateResult[];
      try {
        stored = await loadGateResults(runId, isGateResult);
      } catch {
        return;
      }
      // A pass that finished while the records were read is newer than its stored copy.
      set((s) => ({ results: [...s.results, ...stored.filter((r) => !s.results.some((x) => x.runId === r.runId && x.gate === r.gate))] }));
    },
  };
});

interface ClarifierExtra {
  edgeId?: string;
  /** What the last pass spent (per run; the clarifier has no one-time cost). */
  cost?: EngineCost;
}

export const useClarifierJob = createJobStore<ClarifierOptions, ClarifyProgress, Intervention, Outcome, ClarifyFailure, ClarifierExtra>({
  name: 'clarifier',
  extra: { edgeId: undefined, cost: undefined },
  launch(run, { fresh, window = DEFAULT_WINDOW, edge }, { mode, llm, settings, updateRun }) {
    if (edge !== undefined) {
      const job = { run, window, llm, previous: clarifierInterventions(run) };
      return {
        extra: { edgeId: edge },
        start: (events, signal) =>
          clarifyEdgeInWorker(job, edge, { onCall: events.onCall }, signal).then(
            (iv): Outcome => {
              events.onItem(iv, false);
              return { status: 'complete' };
            },
            (e: unknown): Outcome => {
              const message = e instanceof Error ? e.message : String(e);
              const h = run.handoffs.find((x) => x.id === edge);
              const failure = h ? { edgeId: edge, position: run.handoffs.indexOf(h), sender: h.from, receiver: h.to.join(', '), message } : undefined;
              return { status: signal.aborted ? 'cancelled' : 'failed', failure };
            },
          ),
        finish: (result) => ({ edgeId: undefined, error: result.failure?.message }),
      };
    }
    if (fresh) updateRun((run = withoutEngine(run, 'clarifier')));
    const previous = reusableResults(run, mode);
    const gate = gateOf(settings.clarifier);
    const runId = run.id;
    return {
      progress: { done: 0, total: run.handoffs.length, asked: 0 },
      extra: { cost: undefined },
      start: (events, signal) => runClarifierInWorker({ run, window, llm, previous, gate }, events, signal),
      finish: (result) => {
        if (result.status === 'complete' && result.summary && result.cost && mode === 'endpoint') {
          useGateResults.getState().add({ runId, gate: edgeGateLabel(gate), summary: result.summary, cost: result.cost });
        }
        return { failure: result.failure, cost: result.cost };
      },
    };
  },
  keep: keepInterventions,
});
