import { describe, expect, it } from 'vitest';
import { handoffBySendingStep, stepsById } from './lookups.ts';
import type { Handoff, Step } from './types.ts';

const step = (id: string): Step => ({ id, index: 0, kind: 'message', agentId: 'a' });
const handoff = (id: string, stepId?: string): Handoff => ({ id, from: 'a', to: ['b'], kind: 'message', content: '', stepId });

describe('lookups kept per array', () => {
  it('are built once per array, and again for an array appended to in place (a live run growing)', () => {
    const steps = [step('s0'), step('s1')];
    const byId = stepsById(steps);
    expect(byId.get('s1')).toBe(steps[1]);
    expect(stepsById(steps)).toBe(byId);
    expect(stepsById(steps.slice())).not.toBe(byId);
    steps.push(step('s2'));
    expect(stepsById(steps).get('s2')).toBe(steps[2]);
  });

  it('name the first handoff each step sent', () => {
    const handoffs = [handoff('h0', 's0'), handoff('h1', 's0'), handoff('h2')];
    expect([...handoffBySendingStep(handoffs)]).toEqual([['s0', 'h0']]);
    handoffs.push(handoff('h3', 's3'));
    expect(handoffBySendingStep(handoffs).get('s3')).toBe('h3');
  });
});
