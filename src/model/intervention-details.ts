// Reading `Intervention.details` (ADR 0016): each engine's details have one typed reader in the engine's module; the
// helpers here check the shapes those readers share. Details come from files, so every field is checked, never cast.

export type Details = Readonly<Record<string, unknown>>;

export const textIn = (d: Details, key: string): string | undefined => (typeof d[key] === 'string' ? (d[key] as string) : undefined);
export const numberIn = (d: Details, key: string): number | undefined => (typeof d[key] === 'number' && Number.isFinite(d[key]) ? (d[key] as number) : undefined);
export const textsIn = (d: Details, key: string): string[] => (Array.isArray(d[key]) ? (d[key] as unknown[]).filter((x): x is string => typeof x === 'string') : []);

/** An observation or message replaced: by the supervisor's correction, or by a person's edit at a fork. */
export interface ObservationChange {
  originalObservation?: string;
  newObservation?: string;
}

export function observationChangeIn(d: Details): ObservationChange {
  const out: ObservationChange = {};
  const original = textIn(d, 'originalObservation');
  const changed = textIn(d, 'newObservation');
  if (original !== undefined) out.originalObservation = original;
  if (changed !== undefined) out.newObservation = changed;
  return out;
}
