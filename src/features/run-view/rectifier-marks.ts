// What rectify-or-reject did to the run on screen, by replay position: messages pruned (hidden from the agents after
// them) and messages rewritten after feedback. A run-level global fallback restores every message, so then nothing
// counts as pruned for the conversation (the marks still say what the audit decided).
import { rectifierEffects } from '../../engine/rectifier/replay.ts';
import type { RunView } from './run-view-model.ts';

export interface RectifierMarks {
  pruned: ReadonlySet<number>;
  rewritten: ReadonlySet<number>;
  fallback: boolean;
}

const cache = new WeakMap<RunView, RectifierMarks>();
const NONE: RectifierMarks = { pruned: new Set(), rewritten: new Set(), fallback: false };

export function rectifierMarks(view: RunView): RectifierMarks {
  let marks = cache.get(view);
  if (marks) return marks;
  const run = view.index.run;
  if (!run.interventions.some((i) => i.engine === 'rectifier')) marks = NONE;
  else {
    const effects = rectifierEffects(run);
    const pruned = new Set<number>();
    const rewritten = new Set<number>();
    view.steps.forEach((s, i) => {
      if (effects.pruned.has(s.id)) pruned.add(i);
      if (effects.rewritten.has(s.id)) rewritten.add(i);
    });
    marks = { pruned, rewritten, fallback: effects.fallback };
  }
  cache.set(view, marks);
  return marks;
}
