// A person's change at a fork step (engine `human`, context `fork`; ADR 0010, 0016): the text before and after.
import { observationChangeIn, type ObservationChange } from '../../model/intervention-details.ts';
import type { Intervention } from '../../model/types.ts';
import { supervisorDetails } from '../supervisor/details.ts';

export interface ForkEditDetails extends ObservationChange {
  engine: 'human';
}

export function forkEditDetails(iv: Intervention): ForkEditDetails | undefined {
  if (iv.engine !== 'human') return undefined;
  return { engine: 'human', ...observationChangeIn(iv.details ?? {}) };
}

/** The observation (or message) an intervention replaced, for the engines that replace one: supervisor, fork edit. */
export function observationChangeOf(iv: Intervention): ObservationChange {
  const d = supervisorDetails(iv) ?? forkEditDetails(iv);
  return d ? { originalObservation: d.originalObservation, newObservation: d.newObservation } : {};
}
