// The decentralised team's real message-bus logs (runs/<id>/messages.jsonl): each imports as one run whose messages,
// polls, votes and who-messaged-whom edges are counted here again from the raw lines.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentNodeId, deriveGraph } from '../../model/graph.ts';
import { indexRun } from '../../model/run-index.ts';
import type { BusStepData, Run } from '../../model/types.ts';
import { checkFixture, HAVE_SHARED, SHARED_TRACES, SKIP_REASON, sharedFiles } from '../../testing/fixture-kit.ts';
import { importText } from '../index.ts';

const DUMPS = join(import.meta.dirname, 'dumps');
const BUS_RUNS = sharedFiles('smolagents-bus/runs');

interface RawMessage {
  sender: string;
  type: string;
  content: unknown;
  recipients: string[] | null;
}

const raw = (path: string): RawMessage[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));

const busOf = <K extends BusStepData['kind']>(run: Run, kind: K) =>
  run.steps.flatMap((s) => (s.bus?.kind === kind ? [{ step: s, bus: s.bus as Extract<BusStepData, { kind: K }> }] : []));

describe.skipIf(!HAVE_SHARED)(`message-bus logs of real runs (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  it('finds the six logs', () => {
    expect(BUS_RUNS).toHaveLength(6);
  });

  for (const path of BUS_RUNS) {
    it(`imports ${path.slice(SHARED_TRACES.length + 1)}: messages, polls, votes and edges as in the raw file`, async () => {
      const imported = await checkFixture(path, 'message-bus-log', DUMPS);
      expect(imported.runs).toHaveLength(1);
      const [run] = imported.runs;
      const lines = raw(path);
      const count = (type: string) => lines.filter((m) => m.type === type).length;
      expect(run.steps).toHaveLength(lines.length);
      expect(run.steps.map((s) => s.name)).toEqual(lines.map((m) => m.type));
      expect(busOf(run, 'poll')).toHaveLength(count('poll'));
      expect(busOf(run, 'vote')).toHaveLength(count('vote'));
      expect(busOf(run, 'final_answer')).toHaveLength(count('final_answer'));
      expect(run.task).toBe(lines.find((m) => m.type === 'task')!.content);

      // Who messaged whom: private messages to their named recipients, everything for @all to every participant
      // but the sender and the task's sender.
      const participants = new Set<string>();
      for (const m of lines) {
        participants.add(m.sender);
        for (const r of m.recipients ?? []) if (r !== '@all') participants.add(r);
      }
      const system = new Set(lines.filter((m) => m.type === 'task').map((m) => m.sender));
      const expected = new Map<string, number>();
      for (const m of lines) {
        const all = !m.recipients || m.recipients.length === 0 || m.recipients.includes('@all');
        const to = all ? [...participants].filter((p) => p !== m.sender && !system.has(p)) : m.recipients!;
        for (const t of to) expected.set(`${m.sender}->${t}`, (expected.get(`${m.sender}->${t}`) ?? 0) + 1);
      }
      const got = new Map<string, number>();
      for (const h of run.handoffs) for (const t of h.to) got.set(`${h.from}->${t}`, (got.get(`${h.from}->${t}`) ?? 0) + 1);
      expect(got).toEqual(expected);
      expect(run.handoffs.filter((h) => h.kind === 'message')).toHaveLength(lines.filter((m) => m.recipients && m.recipients.length > 0 && !m.recipients.includes('@all')).length);
      // The graph draws those edges between the agents.
      const index = indexRun(run);
      const graph = deriveGraph(run, index.replaySteps, index.childrenOf);
      for (const key of expected.keys()) {
        const [from, to] = key.split('->');
        expect(graph.edges.some((e) => e.source === agentNodeId(from) && e.target === agentNodeId(to)), key).toBe(true);
      }

      // Votes: each linked to the step that opened its poll; the tally after each vote counted from the raw votes.
      const openers = new Map<string, string>();
      const votes = new Map<string, Map<string, string>>();
      run.steps.forEach((step, i) => {
        const m = lines[i];
        const c = m.content as { poll_id: string; voter: string; vote: string };
        if (m.type === 'poll' && !openers.has(c.poll_id)) openers.set(c.poll_id, step.id);
        if (m.type !== 'vote') return;
        const bus = step.bus;
        expect(bus?.kind).toBe('vote');
        if (bus?.kind !== 'vote') return;
        expect(bus.pollStepId).toBe(openers.get(c.poll_id));
        const v = votes.get(c.poll_id) ?? new Map<string, string>();
        v.set(c.voter, c.vote);
        votes.set(c.poll_id, v);
        const yes = [...v.values()].filter((x) => x === 'YES').length;
        const no = [...v.values()].filter((x) => x === 'NO').length;
        expect(bus.tally).toEqual([{ option: 'YES', votes: yes }, { option: 'NO', votes: no }]);
      });
      for (const { step, bus } of busOf(run, 'poll')) {
        if (bus.pollStepId !== undefined) continue;
        expect(step.id).toBe(openers.get(bus.pollId));
        expect(bus.voteStepIds).toHaveLength([...lines].filter((m) => m.type === 'vote' && (m.content as { poll_id: string }).poll_id === bus.pollId).length);
        expect(bus.question).toBeTruthy();
        expect(bus.proposal).toBeTruthy();
        expect(bus.threshold).toBe(3);
      }
      // The coordinator's reported YES count is what the votes add up to when it closes the poll.
      for (const { step, bus } of busOf(run, 'final_answer')) {
        expect(bus.pollStepId).toBe(openers.get(bus.pollId!));
        const before = run.steps.slice(0, step.index).filter((s) => s.bus?.kind === 'vote' && s.bus.pollId === bus.pollId).pop();
        const yes = before?.bus?.kind === 'vote' ? before.bus.tally.find((t) => t.option === 'YES')!.votes : 0;
        expect(bus.reportedTally.find((t) => t.option === 'YES')!.votes).toBe(yes);
      }

      // A final answer closes the run.
      const first = lines.find((m) => m.type === 'final_answer');
      if (first) {
        expect(run.outcome.finalAnswer).toBe((first.content as { answer: string }).answer);
        expect(run.endTime).toBe(run.steps[lines.indexOf(first)].startTime);
        expect(run.steps[lines.indexOf(first)].kind).toBe('final');
      } else expect(run.outcome).toEqual({ status: 'failure' });
    });
  }

  it('no longer reads a log as a result file', () => {
    for (const path of BUS_RUNS) {
      const r = importText('unknown.jsonl', readFileSync(path, 'utf8'));
      expect(r.format).toBe('message-bus-log');
      expect(r.runs[0].benchmark).toBeUndefined();
    }
  });
});
