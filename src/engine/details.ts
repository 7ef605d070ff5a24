// `Intervention.details` as a discriminated union by engine (ADR 0016). Each engine writes its own shape and owns its
// reader; `detailsOf` picks the reader by `engine` (and, for the rectifier, by action), so views switch on `engine`
// instead of reading keys. Details of a shape no reader knows come back as `other`, with the bag as stored. Views that
// need one engine's details import that engine's reader (smaller chunks); this module is for code that meets them all.
import type { Intervention } from '../model/types.ts';
import { clarificationOf } from './clarifier/pass.ts';
import type { EdgeClarification } from './clarifier/clarify-edge.ts';
import { rectifierAudit, rectifierFallback, type RectifierAuditDetails, type RectifierFallbackDetails } from './rectifier/details.ts';
import { forkEditDetails, type ForkEditDetails } from './runner/edit-details.ts';
import { supervisorDetails, type SupervisorDetails } from './supervisor/details.ts';

export type ClarifierDetails = EdgeClarification & { engine: 'clarifier' };

export type InterventionDetails =
  | SupervisorDetails
  | RectifierAuditDetails
  | RectifierFallbackDetails
  | ClarifierDetails
  | ForkEditDetails
  | { engine: 'other'; details: Readonly<Record<string, unknown>> };

export function detailsOf(iv: Intervention): InterventionDetails {
  const typed: InterventionDetails | undefined =
    supervisorDetails(iv) ?? rectifierFallback(iv) ?? rectifierAudit(iv) ?? forkEditDetails(iv) ?? clarifierDetails(iv);
  return typed ?? { engine: 'other', details: iv.details ?? {} };
}

function clarifierDetails(iv: Intervention): ClarifierDetails | undefined {
  const c = clarificationOf(iv);
  return c && { ...c, engine: 'clarifier' };
}
