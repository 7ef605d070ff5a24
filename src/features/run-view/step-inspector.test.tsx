// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { usePlayhead } from '../../store/playhead.ts';
import { makeRun } from '../../testing/test-runs.ts';
import { runViewOf } from './run-view-model.ts';
import { chatMessageOf, StepInspector } from './step-inspector.tsx';
import { pairToolMessages } from './conversation.tsx';

afterEach(cleanup);

const message = JSON.stringify({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_order', arguments: '{"order_id":"#W1"}' } }] });

describe('step inspector as a conversation', () => {
  it('reads a serialised chat message as a message with its tool calls; other text is not one', () => {
    expect(chatMessageOf(message)).toEqual({ role: 'assistant', content: undefined, toolCalls: [{ id: 'c1', name: 'get_order', arguments: '{"order_id":"#W1"}' }], toolCallId: undefined });
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

describe('step inspector: markdown, paired tool results, spans', () => {
  const HOSTILE = `## Plan\n- **bold** [click](javascript:window.__xss='md') <b onmouseover="window.__xss='md'">raw html</b>\n- ![pixel](http://xss.invalid/md.png) [site](https://example.org)`;

  it('renders markdown output lazily, raw HTML and unsafe links as literal text, images not loaded; plain on request', async () => {
    const run = makeRun('r2', { steps: [{ id: 's0', index: 0, kind: 'llm', agentId: 'a', output: HOSTILE }] });
    const view = runViewOf(run);
    usePlayhead.getState().load('r2', view.steps.length, 0);
    render(<StepInspector view={view} />);
    const md = await screen.findByTestId('markdown', {}, { timeout: 10_000 }); // its module loads on demand: slow on a loaded machine
    expect(within(md).getByRole('heading', { name: 'Plan' })).toBeInTheDocument();
    expect(md.querySelectorAll('li')).toHaveLength(2);
    expect(md.querySelector('strong')).toHaveTextContent('bold');
    // Raw HTML is text, never an element; the javascript: link is its markdown source, not a link.
    expect(md.querySelector('b')).toBeNull();
    expect(md).toHaveTextContent(`<b onmouseover="window.__xss='md'">raw html</b>`);
    expect(md).toHaveTextContent(`[click](javascript:window.__xss='md')`);
    // No image element; the image is a link to its address; links open safely.
    expect(md.querySelector('img')).toBeNull();
    const links = within(md).getAllByRole('link');
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['http://xss.invalid/md.png', 'https://example.org']);
    for (const a of links) {
      expect(a).toHaveAttribute('rel', 'noreferrer noopener');
      expect(a).toHaveAttribute('target', '_blank');
    }
    expect(document.querySelector('[href^="javascript"], [onmouseover], script')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'plain' }));
    expect(screen.queryByTestId('markdown')).toBeNull();
    expect(screen.getByTestId('inspector-output')).toHaveTextContent(HOSTILE.replace(/\n/g, ' '), { normalizeWhitespace: true });
  });

  it('shows a model call as one conversation, each tool answer under the call it answers', () => {
    const run = makeRun('r3', {
      steps: [
        {
          id: 's0',
          index: 0,
          kind: 'llm',
          agentId: 'a',
          output: 'It rains.',
          input: [
            { role: 'user', content: 'Weather in Paris?' },
            { role: 'assistant', content: '', toolCalls: [{ id: 'call-1', name: 'weather', arguments: '{"city":"Paris"}' }] },
            { role: 'tool', content: 'rainy, 12°C', toolCallId: 'call-1' },
          ],
          toolCalls: [{ id: 'call-2', name: 'forecast', arguments: '{}' }],
        },
        { id: 's1', index: 1, kind: 'tool', agentId: 'a', name: 'forecast', observation: 'rain all week', raw: { 'gen_ai.tool.call.id': 'call-2' } },
      ],
    });
    const view = runViewOf(run);
    usePlayhead.getState().load('r3', view.steps.length, 0);
    render(<StepInspector view={view} />);
    const conversation = screen.getByTestId('inspector-conversation');
    const text = conversation.textContent!;
    expect(text.indexOf('Weather in Paris?')).toBeLessThan(text.indexOf('It rains.'));
    // The prompt's tool message is under its call, not a turn of its own.
    const prompt = screen.getByTestId('inspector-prompt');
    expect(prompt.querySelectorAll(':scope > ol > li')).toHaveLength(2);
    const weather = within(prompt).getByTestId('tool-call');
    expect(within(weather).getByTestId('tool-result')).toHaveTextContent('rainy, 12°C');
    // The step's own call is answered by the tool step s1.
    const forecast = screen.getAllByTestId('tool-call').find((c) => c.getAttribute('data-call-id') === 'call-2')!;
    expect(within(forecast).getByTestId('tool-result')).toHaveTextContent('rain all week');
    fireEvent.click(within(forecast).getByRole('button', { name: 'go to step 2' }));
    expect(usePlayhead.getState().position).toBe(1);
  });

  it('pairs tool messages with calls recorded without ids by order (OpenInference prompts often name only the answer)', () => {
    const call = { name: 'search', arguments: '{}' };
    const { turns, results } = pairToolMessages([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '', toolCalls: [call, call] },
      { role: 'tool', content: 'first', toolCallId: 'call_a' },
      { role: 'tool', content: 'second', toolCallId: 'call_b' },
      { role: 'tool', content: 'stray' },
    ]);
    expect(turns).toEqual([0, 1, 4]);
    expect(results.get('#1:0')?.content).toBe('first');
    expect(results.get('#1:1')?.content).toBe('second');
  });

  it('lists the step’s source spans with attributes, events and status', () => {
    const run = makeRun('r4', {
      steps: [{ id: 's0', index: 0, kind: 'llm', agentId: 'a', output: 'ok', spanId: 'sp1' }],
      spans: [
        { id: 'sp0', name: 'agent.run', kind: 'agent', depth: 0, status: 'ok', attributes: {}, events: [] },
        { id: 'sp1', name: 'llm.chat', kind: 'model', depth: 1, status: 'ok', attributes: { 'gen_ai.request.model': 'gpt-x' }, events: [], stepId: 's0' },
        { id: 'sp2', name: 'HTTP POST', kind: 'span', depth: 2, status: 'error', statusMessage: 'timeout', attributes: { 'http.method': 'POST' }, events: [{ name: 'retry', attributes: { attempt: 2 } }], stepId: 's0' },
      ],
    });
    const view = runViewOf(run);
    usePlayhead.getState().load('r4', view.steps.length, 0);
    render(<StepInspector view={view} />);
    const section = screen.getByTestId('inspector-spans');
    expect(section).toHaveTextContent('Spans (2)');
    const spans = within(section).getAllByTestId('inspector-span');
    expect(spans.map((s) => s.getAttribute('data-span-id'))).toEqual(['sp1', 'sp2']);
    expect(spans[0]).toHaveTextContent('gen_ai.request.model');
    expect(spans[1]).toHaveTextContent('status error: timeout');
    expect(spans[1]).toHaveTextContent('retry');
  });
});

describe('step inspector: JSON is not markdown', () => {
  it('shows a JSON tool result that contains markdown-looking text pretty-printed, not rendered', () => {
    const json = JSON.stringify({ results: [{ url: 'https://example.org', raw_content: '# Title\n[link](https://example.org) **bold**' }] });
    const run = makeRun('r5', { steps: [{ id: 's0', index: 0, kind: 'llm', agentId: 'a', output: 'done', input: [{ role: 'tool', content: json }] }] });
    const view = runViewOf(run);
    usePlayhead.getState().load('r5', view.steps.length, 0);
    render(<StepInspector view={view} />);
    expect(screen.queryByRole('button', { name: 'plain' })).toBeNull();
    expect(screen.getByTestId('inspector-prompt')).toHaveTextContent('"raw_content": "# Title');
  });
});

describe('a loop occurrence’s ordinal', () => {
  it('is found by binary search in the ascending positions, as indexOf would find it', async () => {
    const { ordinalIn } = await import('./step-inspector.tsx');
    const positions = Array.from({ length: 1000 }, (_, i) => 3 * i + 7);
    for (const p of [0, 6, 7, 8, 10, 1500, 3003, 3004, 3005]) expect(ordinalIn(positions, p)).toBe(positions.indexOf(p));
    expect(ordinalIn([], 1)).toBe(-1);
  });
});
