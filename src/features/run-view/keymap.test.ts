import { describe, expect, it } from 'vitest';
import { actionForKey, KEY_BINDINGS, nextAfter, previousBefore, targetPosition } from './keymap.ts';

const targets = { errors: [3, 7], annotations: [0, 9], loops: Int32Array.from([2, 5, 8]) };

describe('keymap', () => {
  it('binds every key once and ignores presses with Ctrl, Meta or Alt', () => {
    const keys = KEY_BINDINGS.flatMap((b) => b.keys);
    expect(new Set(keys).size).toBe(keys.length);
    expect(actionForKey({ key: 'j' })).toBe('next');
    expect(actionForKey({ key: 'ArrowLeft' })).toBe('prev');
    expect(actionForKey({ key: ' ' })).toBe('toggle-play');
    expect(actionForKey({ key: 'E' })).toBe('prev-error');
    expect(actionForKey({ key: 'j', ctrlKey: true })).toBeUndefined();
    expect(actionForKey({ key: 'l', metaKey: true })).toBeUndefined();
    expect(actionForKey({ key: 'x' })).toBeUndefined();
  });

  it('finds neighbours in sorted positions', () => {
    expect(nextAfter([2, 5, 8], 5)).toBe(8);
    expect(nextAfter([2, 5, 8], 1)).toBe(2);
    expect(nextAfter([2, 5, 8], 8)).toBeUndefined();
    expect(previousBefore([2, 5, 8], 5)).toBe(2);
    expect(previousBefore([2, 5, 8], 9)).toBe(8);
    expect(previousBefore([2, 5, 8], 2)).toBeUndefined();
    expect(nextAfter([], 0)).toBeUndefined();
  });

  it('moves the playhead within the run and jumps between errors, annotations and loops', () => {
    expect(targetPosition('next', 9, 10, targets)).toBe(9);
    expect(targetPosition('prev', 0, 10, targets)).toBe(0);
    expect(targetPosition('next', 4, 10, targets)).toBe(5);
    expect(targetPosition('last', 4, 10, targets)).toBe(9);
    expect(targetPosition('first', 4, 10, targets)).toBe(0);
    expect(targetPosition('next-error', 3, 10, targets)).toBe(7);
    expect(targetPosition('next-error', 7, 10, targets)).toBeUndefined();
    expect(targetPosition('prev-annotation', 9, 10, targets)).toBe(0);
    expect(targetPosition('next-loop', 2, 10, targets)).toBe(5);
    expect(targetPosition('prev-loop', 2, 10, targets)).toBeUndefined();
    expect(targetPosition('toggle-play', 2, 10, targets)).toBeUndefined();
    expect(targetPosition('next', 0, 0, targets)).toBeUndefined();
  });
});
