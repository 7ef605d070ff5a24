// The supervisor's intervention details (SPEC §5.1, ADR 0016): written by `superviseTrigger`, read by the views, the
// shadow estimate and the replay check through `supervisorDetails` only.
import { numberIn, observationChangeIn, textIn, textsIn, type ObservationChange } from '../../model/intervention-details.ts';
import type { Intervention } from '../../model/types.ts';

export interface SupervisorDetails extends ObservationChange {
  engine: 'supervisor';
  /** The filter rule that fired, and its counters. */
  rule?: string;
  n?: number;
  repeated?: number;
  agent?: string;
  stepNumber?: number;
  allowedActions?: string[];
  /** What had to be repaired in the supervisor's answer. */
  repairs?: string[];
  /** Why the heuristic decided instead of the model. */
  fallback?: string;
  rawAnswer?: string;
  verificationTask?: string;
  verificationFinding?: string;
  /** A correction that left the observation as it was (not applied). */
  unchanged?: boolean;
  analysis?: string;
  guidance?: string;
}

/** What the supervisor recorded, or undefined for another engine's intervention. */
export function supervisorDetails(iv: Intervention): SupervisorDetails | undefined {
  if (iv.engine !== 'supervisor') return undefined;
  const d = iv.details ?? {};
  const out: SupervisorDetails = { engine: 'supervisor', ...observationChangeIn(d) };
  for (const k of ['rule', 'agent', 'fallback', 'rawAnswer', 'verificationTask', 'verificationFinding', 'analysis', 'guidance'] as const) {
    const v = textIn(d, k);
    if (v !== undefined) out[k] = v;
  }
  for (const k of ['n', 'repeated', 'stepNumber'] as const) {
    const v = numberIn(d, k);
    if (v !== undefined) out[k] = v;
  }
  if (Array.isArray(d.repairs)) out.repairs = textsIn(d, 'repairs');
  if (Array.isArray(d.allowedActions)) out.allowedActions = textsIn(d, 'allowedActions');
  if (d.unchanged === true) out.unchanged = true;
  return out;
}

/** What `superviseTrigger` stores (the engine tag is implied by `Intervention.engine`). */
export type StoredSupervisorDetails = Omit<SupervisorDetails, 'engine'>;

/**
 * A purification (correct_observation) whose new text is not shorter (in characters) than the observation it
 * replaced. It saves nothing: counting it would turn a longer observation into a negative saving.
 */
export function didNotShorten(iv: Pick<Intervention, 'action'>, original: string, changed: string): boolean {
  return iv.action === 'correct_observation' && changed.length >= original.length;
}
