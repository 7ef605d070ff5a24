import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importText } from '../../import/index.ts';
import { join } from 'node:path';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON } from '../../testing/fixture-kit.ts';
import { tallyAt } from './bus-section.tsx';
import { runViewOf } from './run-view-model.ts';

describe.skipIf(!HAVE_SHARED)(`poll tally up to the playhead (${HAVE_SHARED ? 'real bus run 023f7ac8' : SKIP_REASON})`, () => {
  it('counts only the votes at or before the position, as they arrive in the raw log', () => {
    const path = join(SHARED_TRACES, 'smolagents-bus/runs/023f7ac8/messages.jsonl');
    const [run] = importText('messages.jsonl', readFileSync(path, 'utf8')).runs;
    const view = runViewOf(run);
    const raw = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
    const opening = view.steps.find((s) => s.bus?.kind === 'poll' && !s.bus.pollStepId)!;
    const poll = opening.bus!.kind === 'poll' ? opening.bus : undefined;
    expect(poll).toBeDefined();
    // Votes on this poll in the raw file, in order.
    const rawVotes = raw.filter((m) => m.type === 'vote' && JSON.stringify(m).includes(poll!.pollId));
    expect(poll!.voteStepIds).toHaveLength(rawVotes.length);
    const at = (id: string) => view.positionOf.get(id)!;
    expect(tallyAt(view, poll!, at(opening.id)).votes).toHaveLength(0);
    expect(tallyAt(view, poll!, at(opening.id)).tally.every((t) => t.votes === 0)).toBe(true);
    poll!.voteStepIds.forEach((id, i) => {
      const { votes, tally } = tallyAt(view, poll!, at(id));
      expect(votes).toHaveLength(i + 1);
      let total = 0;
      for (const t of tally) total += t.votes;
      expect(total).toBe(i + 1);
    });
  });
});
