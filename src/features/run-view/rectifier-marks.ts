// What rectify-or-reject did to the run on screen, by replay position: messages pruned (hidden from the agents after
// them) and messages rewritten after feedback. A run-level global fallback restores every message, so then nothing
// counts as pruned for the conversation (the marks still say what the audit decided). A live run's global restart
// (the team started over unaudited) is marked on its first restarted step.
import { rectifierFallback } from '../../engine/rectifier/details.ts';
import { rectifierEffects } from '../../engine/rectifier/replay.ts';
import type { RunView } from './run-view-model.ts';

export interface RectifierMarks {
  pruned: ReadonlySet<number>;
  rewritten: ReadonlySet<number>;
  fallback: boolean;
  /** A live run restarted without auditing (the runner's global fallback): the first restarted step and why. */
  restart?: { position: number; reason: string };
}

const cache = new WeakMap<RunView, RectifierMarks>();
const NONE: RectifierMarks = { pruned: new Set(), rewritten: new Set(), fallback: false };

export function rectifierMarks(view: RunView): RectifierMarks {
  let marks = cache.get(view);
  if (marks) return marks;
  const run = view.run;
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
    const restart = run.interventions.find((i) => i.engine === 'rectifier' && i.action === 'global-restart');
    const restartStep = restart && rectifierFallback(restart)?.restartStep;
    const at = restartStep !== undefined ? run.steps[restartStep]?.id : undefined;
    const position = at === undefined ? -1 : view.steps.findIndex((s) => s.id === at);
    if (restart && position >= 0) marks.restart = { position, reason: restart.reason };
  }
  cache.set(view, marks);
  return marks;
}
