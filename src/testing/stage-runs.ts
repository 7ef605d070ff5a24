// Hand-made runs for the stage engine's tests: a manager with a managed agent (smolagents shape) and a group chat with
// an orchestrator (chat-log shape), small enough to check every stage by hand.
import type { Handoff, Run, Step } from '../model/types.ts';

function base(id: string, steps: Step[], patch: Partial<Run>): Run {
  return {
    id,
    title: id,
    task: 'Find the population of the town and give it in thousands.',
    sourceFormat: 'native',
    models: [],
    outcome: { status: 'unknown' },
    tags: {},
    agents: [],
    agentRuns: [],
    steps,
    handoffs: [],
    annotations: [],
    interventions: [],
    orphanSpans: 0,
    ...patch,
  };
}

/**
 * manager (m) with a managed agent (w):
 *   stage 1: plan p1, action a1 (web_search fails)
 *   stage 2: action a2 delegates to w (run rw1: w1, w2 fine)
 *   stage 3: plan p2, action a3 delegates to w again (run rw2: w3 ends on an error)
 *   stage 4: action a4 final_answer (+ a nested model call, not a replay step)
 */
export function managerRun(): Run {
  const steps: Step[] = [];
  const add = (s: Omit<Step, 'index'>) => steps.push({ ...s, index: steps.length } as Step);
  add({ id: 'p1', kind: 'planning', agentId: 'm', agentRunId: 'rm', output: 'Facts first.\n1. Search the web for the town.\n2. Read the census page.\n3. Answer.' });
  add({ id: 'a1', kind: 'action', agentId: 'm', agentRunId: 'rm', number: 1, thought: 'Thought: I will search.', toolCalls: [{ name: 'web_search', arguments: '{"query":"town population"}' }], error: { message: 'RateLimitError: too many requests\nmore' } });
  add({ id: 'a2', kind: 'action', agentId: 'm', agentRunId: 'rm', number: 2, thought: 'Ask the worker.', toolCalls: [{ name: 'ToolCallingAgent.run', arguments: '{"task":"x"}' }], observation: 'report one' });
  add({ id: 'w1', kind: 'action', agentId: 'w', agentRunId: 'rw1', number: 1, toolCalls: [{ name: 'visit_page', arguments: '{"url":"https://example.org"}' }], observation: 'page' });
  add({ id: 'w2', kind: 'action', agentId: 'w', agentRunId: 'rw1', number: 2, toolCalls: [{ name: 'final_answer', arguments: '{"answer":"about 12,000"}' }] });
  add({ id: 'p2', kind: 'planning', agentId: 'm', agentRunId: 'rm', output: '1. Check the figure.\n2. Answer.' });
  add({ id: 'a3', kind: 'action', agentId: 'm', agentRunId: 'rm', number: 3, toolCalls: [{ name: 'ToolCallingAgent.run', arguments: '{"task":"y"}' }], observation: 'report two' });
  add({ id: 'w3', kind: 'action', agentId: 'w', agentRunId: 'rw2', number: 1, error: { message: 'TimeoutError: page did not load' } });
  add({ id: 'a4', kind: 'action', agentId: 'm', agentRunId: 'rm', number: 4, toolCalls: [{ name: 'final_answer', arguments: '{"answer":"12"}' }], observation: '12' });
  add({ id: 'a4c', kind: 'llm', agentId: 'm', agentRunId: 'rm', parentStepId: 'a4', usage: { input: 10, output: 2, total: 12 } });
  const handoffs: Handoff[] = [
    { id: 'h1', from: 'm', to: ['w'], kind: 'delegation', stepId: 'a2', content: "You're a helpful agent named 'w'.\n---\nTask:\nFind the census page of the town.\n---\nMore." },
    { id: 'h2', from: 'w', to: ['m'], kind: 'report', stepId: 'a2', content: 'about 12,000' },
    { id: 'h3', from: 'm', to: ['w'], kind: 'delegation', stepId: 'a3', content: 'Check the census figure.' },
  ];
  return base('manager-run', steps, {
    agents: [
      { id: 'm', name: 'manager' },
      { id: 'w', name: 'worker', parentId: 'm' },
    ],
    agentRuns: [
      { id: 'rm', agentId: 'm' },
      { id: 'rw1', agentId: 'w', parentRunId: 'rm' },
      { id: 'rw2', agentId: 'w', parentRunId: 'rm' },
    ],
    handoffs,
  });
}

/** human gives the task; orchestrator (two messages a turn) delegates to surfer, then coder, then answers. */
export function chatRun(): Run {
  const speakers: [string, string][] = [
    ['human', 'What is the population?'],
    ['orch', 'Ledger: nothing known yet.'],
    ['orch', 'Surfer, please search for the census page.'],
    ['surfer', 'Found it: 12,000.'],
    ['orch', 'Coder, please convert to thousands.'],
    ['coder', '12'],
    ['orch', 'FINAL ANSWER: 12'],
  ];
  const steps: Step[] = speakers.map(([agentId, output], index) => ({ id: `c${index}`, index, kind: 'message', agentId, agentRunId: `run:${agentId}`, number: index, output }));
  return base('chat-run', steps, {
    agents: [
      { id: 'human', name: 'human', kind: 'human' },
      { id: 'orch', name: 'Orchestrator' },
      { id: 'surfer', name: 'WebSurfer' },
      { id: 'coder', name: 'Coder' },
    ],
    agentRuns: ['human', 'orch', 'surfer', 'coder'].map((a) => ({ id: `run:${a}`, agentId: a })),
    handoffs: [
      { id: 'd1', from: 'orch', to: ['surfer'], kind: 'delegation', stepId: 'c2', content: 'Surfer, please search for the census page.' },
      { id: 'd2', from: 'orch', to: ['coder'], kind: 'delegation', stepId: 'c4', content: 'Coder, please convert to thousands.' },
    ],
  });
}
