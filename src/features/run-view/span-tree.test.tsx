// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateAgentTrace } from '../../../bench/gen-agent-otlp.ts';
import { importText } from '../../import/index.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { runViewOf } from './run-view-model.ts';
import { SpanTree, visibleSpanRows } from './span-tree.tsx';

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
