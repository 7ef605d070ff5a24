// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { generateAgentTrace } from '../../../bench/gen-agent-otlp.ts';
import { importText } from '../../import/index.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { runViewOf } from './run-view-model.ts';
import { SpanTree, visibleSpanRows } from './span-tree.tsx';

const run = importText('agent.otlp.json', JSON.stringify(generateAgentTrace(20, 'custom'))).runs[0];

describe('span tree rows', () => {
  it('shows every span, leaves out a collapsed span’s descendants, and filters by attribute', () => {
    const spans = run.spans!;
    expect(visibleSpanRows(spans, new Set(), '')).toHaveLength(200);
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
