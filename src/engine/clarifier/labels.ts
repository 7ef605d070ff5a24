// Edge labels from several sources side by side (SPEC §5.3 labelling): a person's AgentAsk labels, the clarifier's and
// the flagger's verdicts, and the datasets' own labels (Who&When decisive agent/step, TRAIL and AgentRx categories)
// mapped to the four types only where the categories mean the same thing at a handoff, "unmapped" otherwise.
// Agreement between two sources: raw agreement and Cohen's kappa over the edges both labelled.
import { recordOf } from '../../model/record.ts';
import { handoffBySendingStep, stepsById } from '../../model/lookups.ts';
import type { Annotation, Run } from '../../model/types.ts';
import { clarificationsByHandoff } from './pass.ts';
import { CLARIFIER_TYPES, isClarifierType, type ClarifierType, type ErrorType } from './taxonomy.ts';

export const AGENTASK_TAXONOMY = 'AgentAsk';

export interface Mapping {
  type?: ErrorType;
  /** Why it maps (or why not), shown to the user. */
  why: string;
}

// Only categories that describe what a message carries across a handoff are mapped. Categories about the agent's own
// reasoning, the environment or the system (rate limits, timeouts, goal deviation…) have no edge-level counterpart.
const TRAIL_MAP: Record<string, Mapping> = recordOf({
  'Language-only': { type: 'SC', why: 'a hallucinated fact passed on as true is a corrupted signal' },
  'Tool-related': { type: 'SC', why: 'an invented tool result passed on as true is a corrupted signal' },
  'Tool Output Misinterpretation': { type: 'SC', why: 'a misread tool result reaches the next step as a wrong value' },
  'Formatting Errors': { type: 'SC', why: 'a malformed structure at the handoff is signal corruption' },
});

const AGENTRX_MAP: Record<string, Mapping> = recordOf({
  'Underspecified User Intent': { type: 'DG', why: 'the request leaves out what the user actually wants, so the next step works from a guess' },
  'Misinterpretation of Tool Output': { type: 'SC', why: 'a misread tool result is carried forward as a wrong value' },
  'Invalid Invocation': { type: 'SC', why: 'a malformed call (arguments, structure) handed to the tool' },
  'Intent Not Supported': { type: 'CG', why: 'the agent lacks the tool or permission the step needs' },
});

/** The AgentAsk type a dataset label corresponds to, or why it has none. */
export function mapDatasetLabel(a: Pick<Annotation, 'taxonomy' | 'code'>): Mapping {
  if (a.taxonomy === 'TRAIL') return TRAIL_MAP[a.code] ?? { why: `TRAIL “${a.code}” describes no handoff error of the four kinds` };
  if (a.taxonomy === 'AgentRx') return AGENTRX_MAP[a.code] ?? { why: `AgentRx “${a.code}” describes no handoff error of the four kinds` };
  if (a.taxonomy === 'WhoWhen') return { why: 'Who&When names the decisive agent and step, not a kind of error' };
  if (a.taxonomy === AGENTASK_TAXONOMY && isClarifierType(a.code)) return a.code === 'NONE' ? { why: 'labelled as no error' } : { type: a.code, why: 'already an AgentAsk label' };
  return { why: `no mapping from ${a.taxonomy}` };
}

export interface DatasetLabel {
  annotation: Annotation;
  mapping: Mapping;
  /** The handoff it is on, when it points at one (directly, through the sending step, or a step nested in it). */
  handoffId?: string;
}

/** The run's dataset annotations that point at a step or handoff, each with its mapping and its edge. */
export function datasetLabels(run: Run): DatasetLabel[] {
  // The run's lookups only when a label points at a step: most runs have no dataset labels, and their edge lists and
  // agreement reports ask at every render.
  const edgeOfStep = (stepId: string | undefined): string | undefined => {
    const byStep = handoffBySendingStep(run.handoffs);
    const stepById = stepsById(run.steps);
    for (let id = stepId, hops = 0; id !== undefined && hops < 50; hops++) {
      const h = byStep.get(id);
      if (h !== undefined) return h;
      id = stepById.get(id)?.parentStepId;
    }
    return undefined;
  };
  const out: DatasetLabel[] = [];
  for (const a of run.annotations) {
    if (a.source !== 'dataset' || (a.stepId === undefined && a.handoffId === undefined && a.agentId === undefined)) continue;
    const label: DatasetLabel = { annotation: a, mapping: mapDatasetLabel(a) };
    const h = a.handoffId ?? edgeOfStep(a.stepId);
    if (h !== undefined) label.handoffId = h;
    out.push(label);
  }
  return out;
}

export type LabelSource = 'human' | 'clarifier' | 'heuristic' | 'dataset';
export const LABEL_SOURCES: { id: LabelSource; label: string }[] = [
  { id: 'human', label: 'your labels' },
  { id: 'clarifier', label: 'clarifier (endpoint)' },
  { id: 'heuristic', label: 'heuristic flagger' },
  { id: 'dataset', label: 'dataset (mapped)' },
];

export const humanLabelId = (handoffId: string) => `human-agentask:${handoffId}`;

export function humanLabels(run: Run): Map<string, Annotation> {
  const out = new Map<string, Annotation>();
  for (const a of run.annotations) {
    if (a.source === 'human' && a.taxonomy === AGENTASK_TAXONOMY && a.handoffId !== undefined && isClarifierType(a.code)) out.set(a.handoffId, a);
  }
  return out;
}

/** The run with a person's label on a handoff set (replacing an earlier one), or removed when `code` is undefined. */
export function withHumanLabel(run: Run, handoffId: string, code: ClarifierType | undefined, note: string, at = Date.now()): Run {
  const id = humanLabelId(handoffId);
  const rest = run.annotations.filter((a) => a.id !== id);
  if (code === undefined) return { ...run, annotations: rest };
  const label: Annotation = { id, handoffId, source: 'human', taxonomy: AGENTASK_TAXONOMY, code, createdAt: at };
  const step = run.handoffs.find((h) => h.id === handoffId)?.stepId;
  if (step !== undefined) label.stepId = step;
  if (note.trim() !== '') label.description = note.trim();
  return { ...run, annotations: [...rest, label] };
}

/** Edge id → type, per source. The dataset gives only error types (an unlabelled edge is not a NONE). */
export function labelsBySource(run: Run, source: LabelSource): Map<string, ClarifierType> {
  const out = new Map<string, ClarifierType>();
  if (source === 'human') {
    for (const [h, a] of humanLabels(run)) out.set(h, a.code as ClarifierType);
  } else if (source === 'dataset') {
    for (const d of datasetLabels(run)) if (d.handoffId !== undefined && d.mapping.type && !out.has(d.handoffId)) out.set(d.handoffId, d.mapping.type);
  } else {
    for (const [handoff, c] of clarificationsByHandoff(run)) {
      if (c.malformed || c.heuristic !== (source === 'heuristic')) continue;
      out.set(handoff, c.type);
    }
  }
  return out;
}

export interface Agreement {
  /** Edges both sources labelled. */
  n: number;
  agree: number;
  /** agree / n in %, null when n = 0. */
  agreementPct: number | null;
  /** Cohen's kappa over the shared edges; null when n = 0 or chance agreement is total. */
  kappa: number | null;
  /** confusion[a][b]: edges source A labelled a and source B labelled b. */
  confusion: Record<ClarifierType, Record<ClarifierType, number>>;
  onlyA: number;
  onlyB: number;
}

export function agreement(a: ReadonlyMap<string, ClarifierType>, b: ReadonlyMap<string, ClarifierType>): Agreement {
  const confusion = Object.fromEntries(CLARIFIER_TYPES.map((t) => [t, Object.fromEntries(CLARIFIER_TYPES.map((u) => [u, 0]))])) as Agreement['confusion'];
  let n = 0;
  let agree = 0;
  for (const [edge, ta] of a) {
    const tb = b.get(edge);
    if (tb === undefined) continue;
    n++;
    confusion[ta][tb]++;
    if (ta === tb) agree++;
  }
  let chance = 0;
  if (n > 0) {
    for (const t of CLARIFIER_TYPES) {
      const rowA = CLARIFIER_TYPES.reduce((s, u) => s + confusion[t][u], 0);
      const colB = CLARIFIER_TYPES.reduce((s, u) => s + confusion[u][t], 0);
      chance += (rowA / n) * (colB / n);
    }
  }
  const observed = n > 0 ? agree / n : 0;
  const kappa = n === 0 || chance >= 1 ? null : Math.round(((observed - chance) / (1 - chance)) * 1000) / 1000;
  return {
    n,
    agree,
    agreementPct: n > 0 ? Math.round((1000 * agree) / n) / 10 : null,
    kappa,
    confusion,
    onlyA: [...a.keys()].filter((k) => !b.has(k)).length,
    onlyB: [...b.keys()].filter((k) => !a.has(k)).length,
  };
}
