// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateAgentTrace } from '../../../bench/gen-agent-otlp.ts';
import { importText } from '../../import/index.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { runViewOf } from './run-view-model.ts';
import { rowOfPlace, ROWS_AT_ONCE_MAX, SpanTree, visibleSpanRows, visibleSpanRowsSlices } from './span-tree.tsx';
import type { RunSpan } from '../../model/types.ts';

// How often the tree itself renders: once per call of its virtualizer hook.
const renders = vi.hoisted(() => ({ tree: 0 }));
vi.mock('@tanstack/react-virtual', async (original) => {
  const virtual = await original<typeof import('@tanstack/react-virtual')>();
  return {
    ...virtual,
    useVirtualizer: (options: Parameters<typeof virtual.useVirtualizer>[0]) => {
      renders.tree++;
      return virtual.useVirtualizer(options);
    },
  };
});

const run = importText('agent.otlp.json', JSON.stringify(generateAgentTrace(20, 'custom'))).runs[0];

describe('span tree rows', () => {
  it('shows every span, leaves out a collapsed span’s descendants, and filters by attribute', () => {
    const spans = run.spans!;
    expect(visibleSpanRows(spans, new Set(), '')).toEqual(spans.map((_, i) => i));
    // The root collapsed: only the root is left.
    expect(visibleSpanRows(spans, new Set([spans[0].id]), '')).toEqual([0]);
    // One agent.step collapsed: its 9 (or 8, for the first) descendants go.
    const step = spans.findIndex((s) => s.name === 'agent.step' && s.depth === 1);
    const hidden = 200 - visibleSpanRows(spans, new Set([spans[step].id]), '').length;
    expect(hidden).toBe(8);
    const redis = visibleSpanRows(spans, new Set(), 'redis');
    expect(redis).toHaveLength(40);
    for (const i of redis) expect(spans[i].attributes['db.system']).toBe('redis');
  });
});

describe('the row of a span shown', () => {
  it('is its place among the rows, found by halves, or none when it is not shown', () => {
    const rows = visibleSpanRows(run.spans!, new Set(), 'redis');
    for (let place = -1; place <= run.spans!.length; place++) {
      const row = rowOfPlace(rows, place);
      expect(row).toBe(rows.includes(place) ? rows.indexOf(place) : undefined);
    }
    expect(rowOfPlace([], 0)).toBeUndefined();
  });
});

describe('SpanTree', () => {
  afterEach(cleanup);
  it('counts the spans and the matches of the filter box', () => {
    const view = runViewOf(run);
    usePlayhead.getState().load(run.id, view.steps.length, 0);
    render(<SpanTree view={view} />);
    expect(screen.getByTestId('span-count')).toHaveTextContent('200 spans');
    fireEvent.change(screen.getByLabelText('Filter spans'), { target: { value: 'web_search' } });
    expect(screen.getByTestId('span-count')).toHaveTextContent('7 of 200 spans match');
  });
});

describe('SpanTree over many spans', () => {
  afterEach(cleanup);
  it('filters them in slices after the render, saying so meanwhile, with the rows a pass in one gives', async () => {
    const n = ROWS_AT_ONCE_MAX + 10_000;
    const spans: RunSpan[] = Array.from({ length: n }, (_, i) => ({ id: `s${i}`, name: i % 10 === 0 ? 'web_search' : 'chat', status: 'ok', attributes: { at: i }, events: [], depth: i === 0 ? 0 : 1 }));
    const big = { ...run, spans };
    const view = runViewOf(big);
    usePlayhead.getState().load(big.id, view.steps.length, 0);
    render(<SpanTree view={view} />);
    const count = screen.getByTestId('span-count');
    expect(count).toHaveTextContent(`${n.toLocaleString('en')} spans`);
    // A filter or a fold over them yields as it goes (every span and nothing folded: no pass over the spans at all).
    const slices = (work: Generator<number, number[], void>) => {
      let yields = 0;
      for (let r = work.next(); !r.done; r = work.next()) yields++;
      return yields;
    };
    expect(slices(visibleSpanRowsSlices(spans, new Set(), 'chat'))).toBeGreaterThan(20);
    expect(slices(visibleSpanRowsSlices(spans, new Set([spans[0].id]), ''))).toBeGreaterThan(20);
    expect(slices(visibleSpanRowsSlices(spans, new Set(), ''))).toBe(0);
    expect(visibleSpanRows(spans, new Set([spans[0].id]), '')).toEqual([0]);
    fireEvent.change(screen.getByLabelText('Filter spans'), { target: { value: 'web_search' } });
    // Not worked out in the render that took the key: the count says the filter is under way.
    expect(count).toHaveTextContent(`${n.toLocaleString('en')} spans (filtering…`);
    // The rows shown meanwhile (the last filter's) are said to be busy, and dimmed.
    expect(screen.getByTestId('span-rows')).toHaveAttribute('aria-busy', 'true');
    expect(screen.getByTestId('span-rows')).toHaveClass('opacity-50');
    const matching = visibleSpanRows(spans, new Set(), 'web_search').length;
    expect(matching).toBe(n / 10);
    await waitFor(() => expect(count).toHaveTextContent(`${matching.toLocaleString('en')} of ${n.toLocaleString('en')} spans match`), { timeout: 5000 });
    fireEvent.change(screen.getByLabelText('Filter spans'), { target: { value: 'chat' } });
    expect(count).toHaveTextContent('filtering…');
    await waitFor(() => expect(count).toHaveTextContent(`${(n - matching).toLocaleString('en')} of ${n.toLocaleString('en')} spans match`), { timeout: 5000 });
    expect(screen.getByTestId('span-rows')).toHaveAttribute('aria-busy', 'false');
    expect(screen.getByTestId('span-rows')).not.toHaveClass('opacity-50');
    expect(screen.queryByText(/No span matches/)).toBeNull();
    fireEvent.change(screen.getByLabelText('Filter spans'), { target: { value: 'zzzz' } });
    await waitFor(() => expect(count).toHaveTextContent(`0 of ${n.toLocaleString('en')} spans match`), { timeout: 5000 });
    expect(screen.getByText('No span matches “zzzz”.')).toBeInTheDocument();
  });
});

describe('SpanTree and the playhead', () => {
  afterEach(cleanup);
  it('a move highlights the current step’s spans without rendering the tree again', () => {
    // jsdom lays nothing out: the tree's scroller is given the height it has on a page, so rows are rendered.
    const height = vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(256);
    const view = runViewOf(run);
    usePlayhead.getState().load(run.id, view.steps.length, 0);
    render(<SpanTree view={view} />);
    height.mockRestore();
    const current = () => screen.getAllByTestId('span-row').filter((row) => row.hasAttribute('data-current')).map((row) => row.getAttribute('data-current'));
    const target = view.steps.findIndex((step, i) => i > 0 && step.spanId !== undefined && screen.getAllByTestId('span-row').some((row) => row.textContent?.includes(run.spans!.find((s) => s.id === step.spanId)!.name)));
    expect(target).toBeGreaterThan(0);
    const before = renders.tree;
    act(() => usePlayhead.getState().moveTo(target));
    // The step's own span is marked in the rows shown, and the tree did not render for the move.
    expect(current()).toContain('step');
    expect(renders.tree).toBe(before);
  });
});
