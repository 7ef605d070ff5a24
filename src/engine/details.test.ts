// `Intervention.details` read through one reader per engine: the union's tag says which shape it is, fields of the
// wrong type are dropped rather than trusted, and an unknown shape comes back as `other`.
import { describe, expect, it } from 'vitest';
import type { Intervention } from '../model/types.ts';
import { detailsOf } from './details.ts';
import { rectifierAudit, rectifierFallback } from './rectifier/details.ts';
import { observationChangeOf } from './runner/edit-details.ts';
import { supervisorDetails } from './supervisor/details.ts';

const iv = (engine: Intervention['engine'], action: string, details: Record<string, unknown>): Intervention => ({ id: 'i', engine, action, reason: 'r', heuristic: false, details });

describe('intervention details readers', () => {
  it('supervisor: typed fields, wrong types dropped', () => {
    const d = supervisorDetails(iv('supervisor', 'correct_observation', { guidance: 'g', originalObservation: 'long', newObservation: 'short', repairs: ['a', 3], n: 'x', unchanged: 'yes' }));
    expect(d).toEqual({ engine: 'supervisor', guidance: 'g', originalObservation: 'long', newObservation: 'short', repairs: ['a'] });
    expect(supervisorDetails(iv('rectifier', 'pass@1', { guidance: 'g' }))).toBeUndefined();
  });

  it('rectifier: a message audit and the run-level fallback are told apart', () => {
    const audit = iv('rectifier', 'rejected', { state: 'rejected', finalOutput: null, attempts: [{ attempt: 1, audits: [], retrieved: [] }, 'junk'], calls: 3, finalState: 'rejected' });
    expect(rectifierAudit(audit)).toMatchObject({ engine: 'rectifier', kind: 'audit', state: 'rejected', finalOutput: null, calls: 3, finalState: 'rejected' });
    expect(rectifierAudit(audit)?.attempts).toHaveLength(1);
    const restart = iv('rectifier', 'global-restart', { valid: 0, gamma: 1, audited: 3, restartStep: 4 });
    expect(rectifierAudit(restart)).toBeUndefined();
    expect(rectifierFallback(restart)).toEqual({ engine: 'rectifier', kind: 'fallback', valid: 0, gamma: 1, audited: 3, restartStep: 4 });
    expect(rectifierAudit(iv('rectifier', 'pass@1', { state: 'maybe' }))).toBeUndefined();
  });

  it('detailsOf switches on the engine; fork edits and supervisor corrections share the observation change', () => {
    expect(detailsOf(iv('supervisor', 'approve', {})).engine).toBe('supervisor');
    const edit = iv('human', 'edit_message', { originalObservation: 'a', newObservation: 'b' });
    expect(detailsOf(edit)).toEqual({ engine: 'human', originalObservation: 'a', newObservation: 'b' });
    expect(observationChangeOf(edit)).toEqual({ originalObservation: 'a', newObservation: 'b' });
    expect(observationChangeOf(iv('rectifier', 'pass@1', { state: 'pass', newObservation: 'x' }))).toEqual({});
    const clarifier = iv('clarifier', 'ask', { edgeId: 'h1', type: 'DG', originalMessage: 'm', revisedMessage: 'm2', question: 'q' });
    expect(detailsOf(clarifier)).toMatchObject({ engine: 'clarifier', edgeId: 'h1', revisedMessage: 'm2' });
    expect(detailsOf(iv('stages', 'x', { any: 1 }))).toEqual({ engine: 'other', details: { any: 1 } });
  });
});
