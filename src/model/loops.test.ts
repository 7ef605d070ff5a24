import { describe, expect, it } from 'vitest';
import { callSignature, detectLoops } from './loops.ts';
import type { Step } from './types.ts';

let n = 0;
const step = (agentId: string, extra: Partial<Step> = {}): Step => ({ id: `s${n++}`, index: n, kind: 'message', agentId, ...extra });

describe('callSignature', () => {
  it('compares tool calls by name and arguments, ignoring whitespace', () => {
    const a = callSignature(step('a', { kind: 'action', toolCalls: [{ name: 'search', arguments: '{"q": "x"}' }] }));
    const b = callSignature(step('a', { kind: 'action', toolCalls: [{ name: 'search', arguments: '{"q":  "x"}\n' }] }));
    const c = callSignature(step('a', { kind: 'action', toolCalls: [{ name: 'search', arguments: '{"q": "y"}' }] }));
    expect(a?.key).toBe(b?.key);
    expect(a?.key).not.toBe(c?.key);
    expect(a?.label).toBe('search({"q": "x"})');
  });

  it('uses nested tool steps when the step records no tool calls', () => {
    const parent = step('a', { kind: 'action', output: 'thinking' });
    const child = step('a', { kind: 'tool', name: 'visit', inputText: 'http://x', parentStepId: parent.id });
    expect(callSignature(parent, [child])?.label).toBe('visit(http://x)');
  });

  it('uses the text of messages with their recipients, and ignores bare model calls', () => {
    expect(callSignature(step('o', { output: 'Next speaker WebSurfer' }))?.label).toBe('“Next speaker WebSurfer”');
    expect(callSignature(step('o', { output: 'go', recipients: ['w'] }))?.key).not.toBe(callSignature(step('o', { output: 'go' }))?.key);
    expect(callSignature(step('o', { kind: 'llm', output: 'x' }))).toBeUndefined();
    expect(callSignature(step('o', { output: '   ' }))).toBeUndefined();
  });
});

describe('detectLoops', () => {
  it('finds an orchestrator repeating one message between other turns', () => {
    const steps: Step[] = [];
    for (let i = 0; i < 4; i++) {
      steps.push(step('orch', { output: `ledger ${i}` }));
      steps.push(step('orch', { output: 'Next speaker WebSurfer' }));
      steps.push(step('web', { output: `page ${i}` }));
    }
    const loops = detectLoops(steps, new Map());
    expect(loops).toHaveLength(1);
    expect(loops[0].agentId).toBe('orch');
    expect(loops[0].positions).toEqual([1, 4, 7, 10]);
  });

  it('needs minRepeats occurrences and splits occurrences further apart than maxGap', () => {
    const same = () => step('a', { kind: 'action', toolCalls: [{ name: 't', arguments: '1' }] });
    const other = (i: number) => step('a', { kind: 'action', toolCalls: [{ name: 't', arguments: `x${i}` }] });
    const steps = [same(), same(), other(0), other(1), other(2), same()];
    expect(detectLoops(steps, new Map(), { minRepeats: 3, maxGap: 8 })[0].positions).toEqual([0, 1, 5]);
    expect(detectLoops(steps, new Map(), { minRepeats: 3, maxGap: 2 })).toEqual([]);
    expect(detectLoops(steps, new Map(), { minRepeats: 2, maxGap: 2 })[0].positions).toEqual([0, 1]);
  });

  it('does not join identical calls of different agents', () => {
    const steps = ['a', 'b', 'a', 'b'].map((agent) => step(agent, { output: 'same' }));
    expect(detectLoops(steps, new Map())).toEqual([]);
  });
});
