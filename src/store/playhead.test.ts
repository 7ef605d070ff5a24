import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SPEED, SPEEDS, usePlayhead } from './playhead.ts';

const state = () => usePlayhead.getState();

describe('playhead store', () => {
  beforeEach(() => {
    state().load('run', 10, 0);
    state().setSpeed(DEFAULT_SPEED);
  });

  it('clamps moves to the run', () => {
    state().moveTo(4);
    expect(state().position).toBe(4);
    state().moveBy(100);
    expect(state().position).toBe(9);
    state().moveTo(-3);
    expect(state().position).toBe(0);
    state().load('other', 5, 12);
    expect(state()).toMatchObject({ runId: 'other', position: 4, playing: false });
  });

  it('plays from the start when started on the last step, and never plays a one-step run', () => {
    state().moveTo(9);
    state().togglePlaying();
    expect(state()).toMatchObject({ playing: true, position: 0 });
    state().togglePlaying();
    expect(state().playing).toBe(false);
    state().load('single', 1, 0);
    state().setPlaying(true);
    expect(state().playing).toBe(false);
  });

  it('steps through the speed table and stops at its ends', () => {
    state().changeSpeed(1);
    expect(state().speed).toBe(4);
    for (let i = 0; i < 20; i++) state().changeSpeed(1);
    expect(state().speed).toBe(SPEEDS[SPEEDS.length - 1]);
    for (let i = 0; i < 20; i++) state().changeSpeed(-1);
    expect(state().speed).toBe(SPEEDS[0]);
  });
});
