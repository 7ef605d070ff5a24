// @vitest-environment jsdom
import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { usePersistence } from '../../store/library-db.ts';
import { describeLoad, useLoadBoxShown } from './library-loading.tsx';

describe("the saved library's load, as the progress bar says it", () => {
  it('names the parts read, then the share of the steps checked (never 100% before it is done)', () => {
    expect(describeLoad({ phase: 'reading', done: 12, total: 1050 })).toBe('reading its runs: 12 of 1,050 parts');
    expect(describeLoad({ phase: 'checking', done: 400_000, total: 1_000_001 })).toBe('checking its runs: 39%');
    expect(describeLoad({ phase: 'checking', done: 999, total: 1000 })).toBe('checking its runs: 99%');
    expect(describeLoad({ phase: 'checking', done: 0, total: 0 })).toBe('checking its runs: 0%');
  });
});

describe('the box in place of the list while the library loads', () => {
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    usePersistence.setState({ status: 'loading', loading: undefined });
  });

  it('a short load shows none (it would flash); one that lasts shows it after 300 ms', () => {
    vi.useFakeTimers();
    usePersistence.setState({ status: 'loading', loading: { phase: 'checking', done: 0, total: 40 } });
    const { result } = renderHook(() => useLoadBoxShown());
    expect(result.current).toBe(false);
    act(() => void vi.advanceTimersByTime(299));
    expect(result.current).toBe(false);
    act(() => void vi.advanceTimersByTime(1));
    expect(result.current).toBe(true);
  });

  it('a load with many steps to check waits the same delay: their check takes milliseconds (ADR 0076)', () => {
    vi.useFakeTimers();
    usePersistence.setState({ status: 'loading', loading: { phase: 'reading', done: 1, total: 6 } });
    const { result } = renderHook(() => useLoadBoxShown());
    act(() => usePersistence.setState({ loading: { phase: 'checking', done: 0, total: 45_001 } }));
    expect(result.current).toBe(false);
    act(() => void vi.advanceTimersByTime(300));
    expect(result.current).toBe(true);
  });
});
