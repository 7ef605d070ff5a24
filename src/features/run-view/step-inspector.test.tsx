// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { usePlayhead } from '../../store/playhead.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { runViewOf } from './run-view-model.ts';
import { chatMessageOf, StepInspector } from './step-inspector.tsx';

afterEach(cleanup);

const message = JSON.stringify({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_order', arguments: '{"order_id":"#W1"}' } }] });

describe('step inspector as a conversation', () => {
  it('reads a serialised chat message as a message with its tool calls; other text is not one', () => {
    expect(chatMessageOf(message)).toEqual({ role: 'assistant', content: undefined, toolCalls: [{ name: 'get_order', arguments: '{"order_id":"#W1"}' }], toolCallId: undefined });
    expect(chatMessageOf('{"answer": 4}')).toBeUndefined();
    expect(chatMessageOf('plain text')).toBeUndefined();
  });

  it('shows the output as a turn with a call, the prompt as turns, and the step’s labels before them', () => {
    const run = makeRun('r1', {
      steps: [
        {
          id: 's0',
          index: 0,
          kind: 'llm',
          agentId: 'a',
          output: message,
          input: [
            { role: 'system', content: 'You help with orders.' },
            { role: 'user', content: '<script>alert(1)</script> where is my order?' },
          ],
        },
      ],
      annotations: [{ id: 'x', stepId: 's0', source: 'human', taxonomy: 'TRAIL', code: 'Tool Selection Errors' }],
    });
    const view = runViewOf(run);
    usePlayhead.getState().load('r1', view.steps.length, 0);
    render(<StepInspector view={view} />);
    const output = screen.getByTestId('inspector-output');
    expect(within(output).getByTestId('chat-turn')).toHaveAttribute('data-role', 'assistant');
    expect(output).toHaveTextContent('call get_order(…)');
    const turns = within(screen.getByTestId('inspector-prompt')).getAllByTestId('chat-turn');
    expect(turns.map((t) => t.getAttribute('data-role'))).toEqual(['system', 'user']);
    expect(turns[1]).toHaveTextContent('<script>alert(1)</script> where is my order?');
    expect(document.querySelector('script')).toBeNull();
    const text = screen.getByTestId('inspector').textContent!;
    expect(text.indexOf('Tool Selection Errors')).toBeLessThan(text.indexOf('call get_order'));
  });
});
