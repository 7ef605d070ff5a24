// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { useLibrary } from '../../store/library.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { useUrl } from '../../store/url.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { RectifyRun } from './rectify-run.tsx';

afterEach(cleanup);

describe('Rectify and the run last viewed', () => {
  it('says why it does not take a span-tree run instead of switching silently', () => {
    const spans = makeRun('trail-1', { title: 'GAIA span tree', sourceFormat: 'span-tree', steps: [{ id: 's0', index: 0, kind: 'llm', agentId: 'a' }] });
    useLibrary.setState({ hydrated: true, files: [], runs: { 'trail-1': spans }, llmCalls: {}, failures: [] });
    useUrl.setState({ view: 'rectify', params: {} });
    usePlayhead.getState().load('trail-1', 1, 0);
    render(<RectifyRun />);
    expect(screen.getByTestId('rectify-not-current')).toHaveTextContent('“GAIA span tree”, is a span tree without messages from one agent to another');
  });
});
