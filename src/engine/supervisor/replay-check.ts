// Does a replay from recorded calls give what was recorded? The supervisor's decisions on a run, compared one by one
// (step, context, action and what the action hands on), so "this session replays offline exactly" can be checked by
// a person and by the CLI, not just asserted.
import type { Intervention } from '../../model/types.ts';
import { supervisorDetails } from './details.ts';

export interface ReplayDifference {
  stepId: string | undefined;
  recorded?: string;
  replayed?: string;
}

export interface ReplayCheck {
  /** Decisions found identical in both. */
  same: number;
  differences: ReplayDifference[];
}

/** What a decision amounts to: where, why, what it did and what it hands on (ids, tokens and timing left out). */
function decisionKey(iv: Intervention): string {
  const d = supervisorDetails(iv);
  return JSON.stringify([iv.context, iv.action, iv.heuristic, d?.newObservation ?? null, d?.guidance ?? null, d?.verificationFinding ?? null]);
}

function describeDecision(iv: Intervention): string {
  return `${iv.context ?? '?'} → ${iv.action}${iv.heuristic ? ' (heuristic)' : ''}`;
}

export function compareReplay(recorded: readonly Intervention[], replayed: readonly Intervention[]): ReplayCheck {
  const byStep = (list: readonly Intervention[]) => new Map(list.map((iv) => [iv.stepId ?? '', iv]));
  const a = byStep(recorded);
  const b = byStep(replayed);
  const differences: ReplayDifference[] = [];
  let same = 0;
  for (const step of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(step);
    const y = b.get(step);
    if (x && y && decisionKey(x) === decisionKey(y)) {
      same++;
      continue;
    }
    differences.push({ stepId: step || undefined, recorded: x && describeDecision(x), replayed: y && describeDecision(y) });
  }
  return { same, differences };
}
