// @vitest-environment jsdom
// useAtMostEvery: while active, a value that changes often is shown at most once per interval, the latest one, and the
// last change is never lost; when not active, every value is shown at once.
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { PACED_ABOVE_STEPS, useAtMostEvery, usePacedRun } from './use-at-most-every.ts';

afterEach(cleanup);

let rendered: number[] = [];

function Shown({ n, active }: { n: number; active: boolean }) {
  const shown = useAtMostEvery(n, 200, active);
  rendered.push(shown);
  return <p>shown {shown}</p>;
}

const wait = (ms: number) => act(() => new Promise((resolve) => setTimeout(resolve, ms)));

describe('useAtMostEvery', () => {
  it('shows every value at once when not active', () => {
    const { rerender } = render(<Shown n={1} active={false} />);
    for (let n = 2; n <= 5; n++) rerender(<Shown n={n} active={false} />);
    expect(screen.getByText('shown 5')).toBeTruthy();
  });

  it('while active: the first value at once, later ones at most once per interval, and the last one in the end', async () => {
    rendered = [];
    const { rerender } = render(<Shown n={1} active />);
    expect(screen.getByText('shown 1')).toBeTruthy();
    // Ten quick changes within the interval: none shown yet.
    for (let n = 2; n <= 11; n++) rerender(<Shown n={n} active />);
    expect(screen.getByText('shown 1')).toBeTruthy();
    await wait(260);
    expect(screen.getByText('shown 11')).toBeTruthy();
    // Of 2..10, none was ever rendered.
    expect(rendered.filter((n) => n > 1 && n < 11)).toEqual([]);
  });

  it('shows the value at once when the pass ends (not active any more)', () => {
    const { rerender } = render(<Shown n={1} active />);
    rerender(<Shown n={2} active />);
    expect(screen.getByText('shown 1')).toBeTruthy();
    rerender(<Shown n={3} active={false} />);
    expect(screen.getByText('shown 3')).toBeTruthy();
  });
});

function ShownRun({ run, passing }: { run: { steps: number[]; n: number }; passing: boolean }) {
  return <p>run {usePacedRun(run, passing).n}</p>;
}

describe('usePacedRun', () => {
  const small = Array.from({ length: 10 }, (_, i) => i);
  const large = Array.from({ length: PACED_ABOVE_STEPS + 1 }, (_, i) => i);

  it('shows each new object of a small run at once, even while a pass keeps results in it', () => {
    const { rerender } = render(<ShownRun run={{ steps: small, n: 1 }} passing />);
    for (let n = 2; n <= 4; n++) rerender(<ShownRun run={{ steps: small, n }} passing />);
    expect(screen.getByText('run 4')).toBeTruthy();
  });

  it('paces a large run while a pass keeps results in it, and shows it at once when the pass ends', () => {
    const { rerender } = render(<ShownRun run={{ steps: large, n: 1 }} passing />);
    for (let n = 2; n <= 4; n++) rerender(<ShownRun run={{ steps: large, n }} passing />);
    expect(screen.getByText('run 1')).toBeTruthy();
    rerender(<ShownRun run={{ steps: large, n: 5 }} passing={false} />);
    expect(screen.getByText('run 5')).toBeTruthy();
  });
});
