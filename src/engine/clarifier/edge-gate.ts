// Which edges of a recorded run go to the model (issue 21): all of them, only those the LLM-free flagger flags, or
// the flagged ones plus a seeded sample of the rest. The sample is a hash of the seed and the edge id, so the same
// settings pick the same edges on every pass (resumes included) and on every machine.
import type { EdgeState } from './edges.ts';
import { flagEdge, type HeuristicFlag } from './heuristic.ts';

import { EDGE_GATE_MODES, type EdgeGateMode } from '../../model/engine-params.ts';
import { hash32 } from '../../model/hash.ts';

export { EDGE_GATE_MODES, type EdgeGateMode };

export interface EdgeGate {
  mode: EdgeGateMode;
  /** Share of the unflagged edges sampled in `flagged+sample` (0..1). */
  sampleRate: number;
  seed: number;
}

export const DEFAULT_SAMPLE_RATE = 0.1;
export const DEFAULT_EDGE_GATE: EdgeGate = { mode: 'all', sampleRate: DEFAULT_SAMPLE_RATE, seed: 1 };

/** Why an edge went to the model, or `skipped` when the flagger's verdict stands. */
export type EdgeRoute = 'all' | 'flagged' | 'sampled' | 'skipped';

/** `all`, `flagged`, `flagged+sample` or `flagged+sample:0.2`; undefined when the text is none of them. */
export function parseEdgeGate(text: string, seed = DEFAULT_EDGE_GATE.seed): EdgeGate | undefined {
  const m = /^(all|flagged|flagged\+sample)(?::(\d*\.?\d+))?$/.exec(text.trim());
  if (!m) return undefined;
  const mode = m[1] as EdgeGateMode;
  if (m[2] !== undefined && mode !== 'flagged+sample') return undefined;
  const rate = m[2] !== undefined ? Number(m[2]) : DEFAULT_SAMPLE_RATE;
  if (!(rate >= 0 && rate <= 1)) return undefined;
  return { mode, sampleRate: rate, seed };
}

export function edgeGateLabel(gate: EdgeGate): string {
  return gate.mode === 'flagged+sample' ? `flagged+sample:${gate.sampleRate}` : gate.mode;
}

/** A number in [0, 1) from the seed and the edge id (hash32: FNV-1a, then a 32-bit avalanche so similar ids spread out). */
export function sampleValue(edgeId: string, seed: number): number {
  return (hash32(`${seed}:${edgeId}`) >>> 0) / 4294967296;
}

export function routeEdge(state: EdgeState, gate: EdgeGate): { route: EdgeRoute; flag?: HeuristicFlag } {
  const flag = flagEdge(state);
  if (gate.mode === 'all') return { route: 'all', flag };
  if (flag) return { route: 'flagged', flag };
  if (gate.mode === 'flagged+sample' && sampleValue(state.id, gate.seed) < gate.sampleRate) return { route: 'sampled' };
  return { route: 'skipped' };
}
