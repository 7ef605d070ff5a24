import { describe, expect, it } from 'vitest';
import { replaySettings } from '../../llm/recorder.ts';
import type { Intervention, LlmCallRecord } from '../../model/types.ts';
import { compareReplay } from './replay-check.ts';

const iv = (stepId: string, action: string, details: Record<string, unknown> = {}, id = `iv-${stepId}`): Intervention => ({
  id,
  engine: 'supervisor',
  stepId,
  context: 'error',
  action,
  reason: 'step failed',
  heuristic: false,
  details,
});

describe('compareReplay', () => {
  it('counts identical decisions, whatever their ids, tokens or timing', () => {
    const a = [iv('s1', 'provide_guidance', { guidance: 'g' }), iv('s2', 'correct_observation', { newObservation: 'x' })];
    const b = [{ ...a[0], id: 'other', tokens: { input: 1, output: 1, total: 2 } }, { ...a[1] }];
    expect(compareReplay(a, b)).toEqual({ same: 2, differences: [] });
  });
  it('names what differs: another action, another text handed on, a decision missing on either side', () => {
    const recorded = [iv('s1', 'provide_guidance', { guidance: 'g' }), iv('s2', 'correct_observation', { newObservation: 'x' }), iv('s3', 'approve')];
    const replayed = [iv('s1', 'run_verification'), iv('s2', 'correct_observation', { newObservation: 'y' }), iv('s4', 'approve')];
    const { same, differences } = compareReplay(recorded, replayed);
    expect(same).toBe(0);
    expect(differences).toEqual([
      { stepId: 's1', recorded: 'error → provide_guidance', replayed: 'error → run_verification' },
      { stepId: 's2', recorded: 'error → correct_observation', replayed: 'error → correct_observation' },
      { stepId: 's3', recorded: 'error → approve', replayed: undefined },
      { stepId: 's4', recorded: undefined, replayed: 'error → approve' },
    ]);
  });
});

describe('replaySettings', () => {
  const call = (patch: Partial<LlmCallRecord>): LlmCallRecord => ({
    id: 'h#1',
    requestHash: 'h',
    model: 'm-1',
    request: { model: 'm-1', messages: [], temperature: 0.3, max_tokens: 512 },
    response: {},
    ...patch,
  });
  it('asks with the recorded model, temperature and maximum tokens, and never retries', () => {
    const s = replaySettings([call({})], 'supervisor')!;
    expect(s.models.supervisor).toBe('m-1');
    expect(s.temperature).toBe(0.3);
    expect(s.maxTokens).toBe(512);
    expect(s.retries).toBe(0);
    expect(s.baseUrl).toMatch(/^replay:/);
  });
  it('is undefined without a successful chat call to learn them from', () => {
    expect(replaySettings([], 'supervisor')).toBeUndefined();
    expect(replaySettings([call({ error: 'HTTP 500', response: undefined })], 'supervisor')).toBeUndefined();
    expect(replaySettings([call({ request: { model: 'e', input: ['x'] } })], 'embeddings')).toBeUndefined();
  });
});
