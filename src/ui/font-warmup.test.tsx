// @vitest-environment jsdom
// FontWarmup: nothing at first paint; once the page is idle, a few hidden monospace characters for one frame or two;
// then nothing again. Hidden from assistive technology and from the pointer all along.
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FontWarmup } from './font-warmup.tsx';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('FontWarmup', () => {
  it('shows hidden monospace text once the page is idle, then removes it after the frame that lays it out', () => {
    const idle: (() => void)[] = [];
    const frames: (() => void)[] = [];
    vi.stubGlobal('requestIdleCallback', (run: () => void) => idle.push(run));
    vi.stubGlobal('cancelIdleCallback', () => {});
    vi.stubGlobal('requestAnimationFrame', (run: () => void) => frames.push(run));
    vi.stubGlobal('cancelAnimationFrame', () => {});
    render(<FontWarmup />);
    expect(screen.queryByTestId('font-warmup')).toBeNull();
    expect(idle).toHaveLength(1);
    act(() => idle.shift()!());
    const warm = screen.getByTestId('font-warmup');
    expect(warm.getAttribute('aria-hidden')).toBe('true');
    expect(warm.className).toContain('invisible');
    expect(warm.className).toContain('pointer-events-none');
    expect([...warm.querySelectorAll('span')].every((s) => s.className.includes('font-mono'))).toBe(true);
    // Two frames: the one that lays it out, and the next.
    act(() => frames.shift()!());
    expect(screen.getByTestId('font-warmup')).toBeDefined();
    act(() => frames.shift()!());
    expect(screen.queryByTestId('font-warmup')).toBeNull();
    expect(idle).toHaveLength(0);
    expect(frames).toHaveLength(0);
  });

  it('without requestIdleCallback (Safari), waits for frames instead', () => {
    const frames: (() => void)[] = [];
    vi.stubGlobal('requestIdleCallback', undefined);
    vi.stubGlobal('cancelIdleCallback', undefined);
    vi.stubGlobal('requestAnimationFrame', (run: () => void) => frames.push(run));
    vi.stubGlobal('cancelAnimationFrame', () => {});
    render(<FontWarmup />);
    expect(screen.queryByTestId('font-warmup')).toBeNull();
    act(() => frames.shift()!());
    act(() => frames.shift()!());
    expect(screen.getByTestId('font-warmup')).toBeDefined();
    act(() => frames.shift()!());
    act(() => frames.shift()!());
    expect(screen.queryByTestId('font-warmup')).toBeNull();
  });
});

describe('FontWarmup without frames or idle callbacks', () => {
  it('falls back to a timer, and still comes and goes', async () => {
    vi.useFakeTimers();
    try {
      vi.stubGlobal('requestIdleCallback', undefined);
      vi.stubGlobal('cancelIdleCallback', undefined);
      vi.stubGlobal('requestAnimationFrame', undefined);
      vi.stubGlobal('cancelAnimationFrame', undefined);
      render(<FontWarmup />);
      expect(screen.queryByTestId('font-warmup')).toBeNull();
      await act(async () => {
        vi.advanceTimersByTime(60);
      });
      expect(screen.getByTestId('font-warmup')).toBeDefined();
      await act(async () => {
        vi.advanceTimersByTime(60);
      });
      expect(screen.queryByTestId('font-warmup')).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});
