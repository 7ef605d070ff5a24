// A run where the supervisor intervenes on every other step (bench/engine-flood, e2e/supervisor-many): agent action
// steps, half of them failed. Deterministic. Run alone: npx tsx bench/gen-failing-session.ts <out.json> [steps]
import { writeFileSync } from 'node:fs';
import { SESSION_FORMAT, SESSION_VERSION } from '../src/model/session-format.ts';

/**
 * A native session (as JSON text) of one run of `steps` agent action steps (8 agents, a sub-task of 20 steps each),
 * every other step failed with a tool timeout: the supervisor's filter fires on each failed step (SPEC §5.1, the error
 * context), and offline its heuristics intervene on each.
 */
export function failingSession(steps: number): string {
  const agents = Array.from({ length: 8 }, (_, i) => ({ id: `a${i}`, name: `worker-${i}` }));
  const perRun = 20;
  const runSteps: unknown[] = [];
  const agentRuns: unknown[] = [];
  const t0 = 1_760_000_000_000;
  for (let i = 0; i < steps; i++) {
    const agent = agents[Math.floor(i / perRun) % agents.length];
    const agentRunId = `r${Math.floor(i / perRun)}`;
    if (i % perRun === 0) agentRuns.push({ id: agentRunId, agentId: agent.id, task: `Sub-task ${i / perRun + 1}: collect the figures.` });
    const failed = i % 2 === 1;
    runSteps.push({
      id: `s${i}`, index: i, kind: 'action', agentId: agent.id, agentRunId, number: (i % perRun) + 1,
      thought: `Look up the figure for item ${i}.`,
      toolCalls: [{ id: `c${i}`, name: 'lookup', arguments: `{"key":"k${i % 7}"}` }],
      observation: failed ? '' : `Item ${i}: ${i % 97} units.`,
      ...(failed ? { error: { message: `Tool failed: timeout after 30 s (step ${i})`, type: 'TimeoutError' } } : {}),
      usage: { input: 400 + (i % 50), output: 30, total: 430 + (i % 50) },
      startTime: t0 + i * 100, endTime: t0 + i * 100 + 80,
    });
  }
  const run = {
    id: 'failing-steps', title: `${steps.toLocaleString('en')} action steps, half failed`, task: 'Collect the quarterly figures.', sourceFormat: 'native',
    models: ['gpt-4o'], outcome: { status: 'failure' }, tags: {}, agents, agentRuns, steps: runSteps, handoffs: [], annotations: [], interventions: [], orphanSpans: 0,
  };
  return JSON.stringify({ format: SESSION_FORMAT, version: SESSION_VERSION, id: 'failing-steps', runs: [run], engineSettings: {}, llmCalls: [] });
}

if (process.argv[1] && process.argv[1].endsWith('gen-failing-session.ts')) {
  const [out, steps] = process.argv.slice(2);
  if (!out) throw new Error('usage: npx tsx bench/gen-failing-session.ts <out.json> [steps]');
  writeFileSync(out, failingSession(Number(steps ?? 20_000)));
}
