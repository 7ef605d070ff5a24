// Vote edges of message-bus runs (issue 15): voter → the agent that proposed the poll, counted from the raw logs.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importText } from '../import/index.ts';
import { HAVE_SHARED, SKIP_REASON, sharedFiles } from '../testing/fixture-kit.ts';
import { runViewOf } from '../features/run-view/run-view-model.ts';

const LOGS = sharedFiles('smolagents-bus/runs', /^messages\.jsonl$/);

describe.skipIf(!HAVE_SHARED)(`vote edges (${HAVE_SHARED ? 'real bus runs' : SKIP_REASON})`, () => {
  it('finds the bus logs', () => expect(LOGS.length).toBeGreaterThan(0));
  for (const path of LOGS) {
    it(path.split('/').at(-2)!, () => {
      const raw = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
      const proposer = new Map<string, string>();
      for (const m of raw) if (m.type === 'poll' && !proposer.has(m.content.poll_id)) proposer.set(m.content.poll_id, m.content.proposer ?? m.sender);
      const expected = new Map<string, number>();
      for (const m of raw) {
        if (m.type !== 'vote') continue;
        const to = proposer.get(m.content.poll_id);
        const from = m.content.voter ?? m.sender;
        if (to === undefined || to === from) continue;
        const key = `agent:${from}=vote=>agent:${to}`;
        expected.set(key, (expected.get(key) ?? 0) + 1);
      }
      const [run] = importText('messages.jsonl', readFileSync(path, 'utf8')).runs;
      const { graph } = runViewOf(run);
      const votes = new Map(graph.edges.filter((e) => e.kind === 'vote').map((e) => [e.id, e.messages]));
      expect(votes).toEqual(expected);
    });
  }
});
