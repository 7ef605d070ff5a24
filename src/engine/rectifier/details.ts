// The rectifier's intervention details (SPEC §5.2, ADR 0016): one message's audit (`gateIntervention`, the live gate
// adds what it delivered) or the run-level global fallback / restart. Read only through these two readers.
import { numberIn, textIn } from '../../model/intervention-details.ts';
import type { Intervention } from '../../model/types.ts';
import type { Attempt, GateState } from './gate.ts';

export interface RectifierAuditDetails {
  engine: 'rectifier';
  kind: 'audit';
  agent?: string;
  state: GateState;
  /** 1-based attempt that passed. */
  passedAt?: number;
  originalOutput?: string;
  /** What is delivered; null when rejected. */
  finalOutput?: string | null;
  attempts: Attempt[];
  droppedAudits?: number;
  calls?: number;
  retrieval?: string;
  /** Live gate: zero-shot (the general indicator, no pool), `rejected` or `pass@N`, and the revised text delivered. */
  zeroShot?: boolean;
  finalState?: string;
  revisedMessage?: string;
}

export interface RectifierFallbackDetails {
  engine: 'rectifier';
  kind: 'fallback';
  /** Messages that survived, the γ they fell short of, and how many were audited. */
  valid?: number;
  gamma?: number;
  audited?: number;
  /** Live runs (`global-restart`): index of the first step of the restarted conversation. */
  restartStep?: number;
}

const GATE_STATES = new Set<string>(['pass', 'rejected', 'not-audited']);

/**
 * Each intervention's audit, read once: interventions are replaced, never changed, and the views read every audit of a
 * run again when its results change (the Rectify view, the run view's marks). At 87,500 results of an offline pass,
 * reading them was ~10 ms at every kept batch.
 */
const audits = new WeakMap<Intervention, RectifierAuditDetails | null>();

/** One message's audit, or undefined (another engine, or the run-level fallback). Shared: read it, do not change it. */
export function rectifierAudit(iv: Intervention): RectifierAuditDetails | undefined {
  let audit = audits.get(iv);
  if (audit === undefined) audits.set(iv, (audit = readAudit(iv) ?? null));
  return audit ?? undefined;
}

function readAudit(iv: Intervention): RectifierAuditDetails | undefined {
  if (iv.engine !== 'rectifier' || iv.action === 'global-fallback' || iv.action === 'global-restart') return undefined;
  const d = iv.details ?? {};
  const state = textIn(d, 'state') ?? (d.finalState === 'rejected' ? 'rejected' : undefined);
  if (state === undefined || !GATE_STATES.has(state)) return undefined;
  const out: RectifierAuditDetails = { engine: 'rectifier', kind: 'audit', state: state as GateState, attempts: [] };
  // Attempts are the engine's own records, shown as they are; only the list itself is checked.
  if (Array.isArray(d.attempts)) out.attempts = (d.attempts as unknown[]).filter((a): a is Attempt => a !== null && typeof a === 'object' && Array.isArray((a as Attempt).audits) && Array.isArray((a as Attempt).retrieved));
  for (const k of ['agent', 'originalOutput', 'retrieval', 'finalState', 'revisedMessage'] as const) {
    const v = textIn(d, k);
    if (v !== undefined) out[k] = v;
  }
  for (const k of ['passedAt', 'droppedAudits', 'calls'] as const) {
    const v = numberIn(d, k);
    if (v !== undefined) out[k] = v;
  }
  if (typeof d.finalOutput === 'string' || d.finalOutput === null) out.finalOutput = d.finalOutput;
  if (d.zeroShot === true) out.zeroShot = true;
  return out;
}

/** The run-level global fallback (recorded runs) or restart (live runs), or undefined. */
export function rectifierFallback(iv: Intervention): RectifierFallbackDetails | undefined {
  if (iv.engine !== 'rectifier' || (iv.action !== 'global-fallback' && iv.action !== 'global-restart')) return undefined;
  const d = iv.details ?? {};
  const out: RectifierFallbackDetails = { engine: 'rectifier', kind: 'fallback' };
  for (const k of ['valid', 'gamma', 'audited', 'restartStep'] as const) {
    const v = numberIn(d, k);
    if (v !== undefined) out[k] = v;
  }
  return out;
}
