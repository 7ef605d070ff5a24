// @vitest-environment jsdom
// useSliced: a small input is worked out within the render; a large one after the first paint, a slice at a time,
// with its progress; new inputs start over, and a build overtaken by new inputs never shows its stale result.
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sliced } from '../model/slices.ts';
import { useSliced } from './use-sliced.ts';

afterEach(cleanup);

/** Sums 1..n in slices of 1,000, yielding its fraction done. */
function* sum(n: number): Sliced<number> {
  let total = 0;
  for (let i = 1; i <= n; i++) {
    total += i;
    if (i % 1000 === 0) yield i / n;
  }
  return total;
}

/** Every text the component rendered, in order. */
let rendered: string[] = [];

function Sum({ n, atOnce, staleKey }: { n: number; atOnce: boolean; staleKey?: string }) {
  const { value, progress, stale } = useSliced(() => sum(n), [n], atOnce, staleKey);
  const text = value === undefined ? `building ${Math.round(progress * 100)}%` : `sum ${value}${stale ? ' (stale)' : ''}`;
  rendered.push(text);
  return <p>{text}</p>;
}

const settle = () => act(() => new Promise((resolve) => setTimeout(resolve, 50)));

describe('useSliced', () => {
  it('works out a small input in the first render', () => {
    render(<Sum n={10} atOnce />);
    expect(screen.getByText('sum 55')).toBeTruthy();
  });

  it('builds a large input after the first render, then shows it; new inputs start over', async () => {
    const { rerender } = render(<Sum n={2_000_000} atOnce={false} />);
    expect(screen.getByText(/^building/)).toBeTruthy();
    expect(await screen.findByText('sum 2000001000000', undefined, { timeout: 10_000 })).toBeTruthy();
    rerender(<Sum n={3_000_000} atOnce={false} />);
    expect(screen.getByText(/^building/)).toBeTruthy();
    // Overtaken at once: the 3M build never shows.
    rerender(<Sum n={1000} atOnce={false} />);
    await settle();
    expect(screen.getByText('sum 500500')).toBeTruthy();
    await settle();
    expect(screen.getByText('sum 500500')).toBeTruthy();
  });

  it('shows the last result built under the same key while a new one is built, and nothing under another key', async () => {
    const { rerender } = render(<Sum n={1000} atOnce={false} staleKey="run 1" />);
    expect(await screen.findByText('sum 500500')).toBeTruthy();
    rendered = [];
    rerender(<Sum n={2_000_000} atOnce={false} staleKey="run 1" />);
    expect(screen.getByText('sum 500500 (stale)')).toBeTruthy();
    // Not one render without it: the list it feeds never blanks.
    expect(rendered.filter((t) => t.startsWith('building'))).toEqual([]);
    expect(await screen.findByText('sum 2000001000000', undefined, { timeout: 10_000 })).toBeTruthy();
    rerender(<Sum n={3_000_000} atOnce={false} staleKey="run 2" />);
    expect(screen.getByText(/^building/)).toBeTruthy();
  });
});
