// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { act, cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeRun } from '../../testing/test-runs.ts';
import { useLibrary } from '../../store/library.ts';
import { useUrl } from '../../store/url.ts';
import { ForkHereButton } from './fork-here.tsx';

beforeEach(() => {
  useUrl.setState({ view: 'run', params: {} });
  useLibrary.setState({ files: [] });
});
afterEach(cleanup);

const chat = makeRun('c', {
  agents: [{ id: 'a', name: 'a' }, { id: 'b', name: 'b' }],
  steps: [
    { id: 'c:s0', index: 0, kind: 'message', agentId: 'a', output: 'hello' },
    { id: 'c:s1', index: 1, kind: 'message', agentId: 'b', output: 'hi' },
  ],
});

describe('ForkHereButton', () => {
  it('opens the fork tab at this step of a chat run', async () => {
    render(<ForkHereButton run={chat} step={chat.steps[1]} />);
    await userEvent.click(screen.getByRole('button', { name: 'Fork here' }));
    expect(useUrl.getState()).toMatchObject({ view: 'live', params: { tab: 'fork', forkOf: 'c', at: 'c:s1' } });
  });

  it('is disabled with the reason on a run of agent action steps', () => {
    const agentRun = makeRun('x');
    render(<ForkHereButton run={agentRun} step={agentRun.steps[0]} />);
    const button = screen.getByRole('button', { name: 'Fork here' });
    expect(button).toBeDisabled();
    expect(button).toHaveAttribute('title', expect.stringMatching(/action step/));
  });

  it('waits until a run received live is done', () => {
    const file = { id: 'live-otlp:c', name: 'live', format: 'otlp', formatLabel: 'OTLP (live)', runIds: ['c'], addedAt: 0, simulated: false, warnings: [] };
    useLibrary.setState({ files: [{ ...file, live: { state: 'receiving', lastSpanAt: 0, spans: 2 } }] });
    const { rerender } = render(<ForkHereButton run={chat} step={chat.steps[1]} />);
    const button = screen.getByRole('button', { name: 'Fork here' });
    expect(button).toBeDisabled();
    expect(button).toHaveAttribute('title', expect.stringMatching(/still arriving live/));
    act(() => useLibrary.setState({ files: [{ ...file, live: { state: 'done', lastSpanAt: 0, spans: 2 } }] }));
    rerender(<ForkHereButton run={chat} step={chat.steps[1]} />);
    expect(screen.getByRole('button', { name: 'Fork here' })).toBeEnabled();
  });
});
