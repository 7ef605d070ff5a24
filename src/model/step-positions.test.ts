import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { handoffsByStepSlices, StepPositions, stepPositions } from './step-positions.ts';
import { hash32 } from './hash.ts';
import { finish } from './slices.ts';
import type { Handoff, Step } from './types.ts';

const step = (id: string, index: number): Step => ({ id, index, kind: 'message', agentId: 'a' }) as Step;

/** What the run view built before: a Map filled in position order (later positions win). */
function mapOf(steps: readonly Step[]): Map<string, number> {
  const m = new Map<string, number>();
  steps.forEach((s, i) => m.set(s.id, i));
  return m;
}

describe('StepPositions', () => {
  it('gives what a Map of the ids gives, for every id and for ids not there', () => {
    // Ids sharing long prefixes and suffixes, empty, non-ASCII, and a few that collide in the table's low bits.
    const ids = ['', 'a', 'b', 'é😀', ...Array.from({ length: 5000 }, (_, i) => `chat-3f9a8b7c:s${i}`), ...Array.from({ length: 500 }, (_, i) => `${i}-same-long-suffix-same-long-suffix`)];
    const steps = ids.map(step);
    const positions = stepPositions(steps);
    const map = mapOf(steps);
    expect(positions.size).toBe(map.size);
    for (const id of ids) expect(positions.get(id)).toBe(map.get(id));
    for (const id of ['c', 'chat-3f9a8b7c:s5000', 'chat-3f9a8b7c:s', ' a']) expect(positions.get(id)).toBeUndefined();
    expect([...positions]).toEqual([...map]);
    expect(positions.duplicates).toBe(false);
  });

  it('keeps the later position of an id two steps share, as Map.set in order did', () => {
    const steps = ['x', 'y', 'x', 'z', 'y'].map(step);
    const positions = stepPositions(steps);
    expect(positions.duplicates).toBe(true);
    expect(positions.get('x')).toBe(2);
    expect(positions.get('y')).toBe(4);
    expect(positions.near('x', 0)).toBe(2);
    expect(positions.size).toBe(3);
    expect(new Map(positions)).toEqual(mapOf(steps));
  });

  it('gives what a Map gives for runs of many table blocks, ids repeated anywhere (the build inserts by slot, not by position)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 0, maxLength: 6000 }), (picks) => {
        const steps = picks.map((k, i) => step(`id-${k}`, i));
        const positions = stepPositions(steps);
        const map = mapOf(steps);
        expect(positions.size).toBe(map.size);
        expect(positions.duplicates).toBe(map.size < steps.length);
        for (const [id, p] of map) expect(positions.get(id)).toBe(p);
        expect([...positions]).toEqual([...map].sort((a, b) => a[1] - b[1]));
        expect(positions.get('id-3001')).toBeUndefined();
      }),
      { numRuns: 60 },
    );
  });

  it('finds ids near a hint, and anywhere else through the table', () => {
    const steps = Array.from({ length: 100 }, (_, i) => step(`s${i}`, i));
    const positions = stepPositions(steps);
    expect(positions.near('s10', 9)).toBe(10);
    expect(positions.near('s90', 0)).toBe(90);
    expect(positions.near('s3', 50)).toBe(3);
    expect(positions.near('nope', 0)).toBeUndefined();
  });

  it('adds nested steps without moving ids already there', () => {
    const positions = stepPositions(['a', 'b'].map(step));
    positions.add('a.child', 0);
    positions.add('b', 0);
    expect(positions.get('a.child')).toBe(0);
    expect(positions.get('b')).toBe(1);
    expect(positions.replay('a.child')).toBeUndefined();
    expect([...positions.keys()]).toEqual(['a', 'b', 'a.child']);
  });

  it('spreads ids that differ in one character over the table', () => {
    const slots = new Set<number>();
    for (let i = 0; i < 4096; i++) slots.add(hash32(`step-${i}`) & 8191);
    expect(slots.size).toBeGreaterThan(2800);
  });
});

describe('HandoffsByStep', () => {
  it('lists the handoffs by the step they name, in order, like a Map of lists', () => {
    const steps = ['a', 'b', 'c', 'a'].map(step);
    steps.push({ ...step('n', 4), parentStepId: 'b' });
    const replay = steps.slice(0, 4);
    const h = (id: string, stepId?: string): Handoff => ({ id, from: 'a', to: ['b'], kind: 'message', stepId, content: '' });
    const handoffs = [h('1', 'b'), h('2', 'a'), h('3', 'n'), h('4', 'b'), h('5'), h('6', 'unknown'), h('7', 'c'), h('8', 'n'), h('9', 'a')];
    const positions = stepPositions(replay);
    const byStep = finish(handoffsByStepSlices(handoffs, positions, replay.length));
    const expected = new Map<string, Handoff[]>();
    for (const x of handoffs) if (x.stepId !== undefined) expected.set(x.stepId, [...(expected.get(x.stepId) ?? []), x]);
    expect(byStep.size).toBe(expected.size);
    for (const [id, list] of expected) expect(byStep.get(id)).toEqual(list);
    expect(byStep.get('zzz')).toBeUndefined();
    expect([...byStep.keys()]).toEqual([...expected.keys()]);
    expect(byStep.get('b')).toBe(byStep.get('b'));
  });

  it('keeps no array per step for a run without handoffs, and no last-handoff array once built', () => {
    const replay = Array.from({ length: 5_000 }, (_, i) => step(`s${i}`, i));
    const positions = stepPositions(replay);
    // The arrays of one number per step it keeps, whatever its fields are called.
    const perStep = (built: object) => Object.values(built).filter((v) => v instanceof Int32Array && v.length === replay.length).length;
    const none = finish(handoffsByStepSlices([], positions, replay.length));
    expect(perStep(none)).toBe(0);
    expect(none.get('s3')).toBeUndefined();
    expect(none.has('s3')).toBe(false);
    expect(none.size).toBe(0);
    expect([...none.entries()]).toEqual([]);
    const one: Handoff = { id: 'h', from: 'a', to: ['b'], kind: 'message', stepId: 's3', content: '' };
    const some = finish(handoffsByStepSlices([one], positions, replay.length));
    // The first handoff of each step only: the last one of each served the build, and is not kept.
    expect(perStep(some)).toBe(1);
    expect(some.get('s3')).toEqual([one]);
    expect(some.get('s4')).toBeUndefined();
  });

  it('builds no table entry per handoff named in step order', () => {
    const replay = Array.from({ length: 10_000 }, (_, i) => step(`s${i}`, i));
    const positions = new StepPositions(replay);
    finish(positions.build());
    let lookups = 0;
    const replayLookup = positions.replay.bind(positions);
    positions.replay = (id: string) => {
      lookups++;
      return replayLookup(id);
    };
    const handoffs = replay.map((s, i): Handoff => ({ id: `h${i}`, from: 'a', to: ['b'], kind: 'message', stepId: s.id, content: '' }));
    finish(handoffsByStepSlices(handoffs, positions, replay.length));
    expect(lookups).toBe(0);
  });
});
