// What the engines' gates did to a live run, in words, for the Runner's result (the run view shows each verdict on
// its step).
import { rectifierAudit } from '../../engine/rectifier/details.ts';
import type { Run } from '../../model/types.ts';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** What the gates did to a run, in words (the run view shows each verdict on its step). */
export function gateEffects(run: Run): string[] {
  const out: string[] = [];
  const by = (engine: string) => run.interventions.filter((i) => i.engine === engine && i.stepId);
  const rect = by('rectifier');
  if (rect.length > 0) {
    const audits = rect.map(rectifierAudit);
    const pruned = audits.filter((d) => d?.finalState === 'rejected').length;
    const revised = audits.filter((d) => d?.revisedMessage !== undefined).length;
    const zero = audits.some((d) => d?.zeroShot === true);
    out.push(`Rectify-or-reject audited ${plural(rect.length, 'message')}${zero ? ' (zero-shot, general indicator)' : ''}: ${plural(revised, 'message')} rewritten after feedback, ${plural(pruned, 'message')} pruned`);
  }
  const restart = run.interventions.find((i) => i.action === 'global-restart');
  if (restart) out.push(`Global fallback: ${restart.reason}`);
  const clar = by('clarifier');
  if (clar.length > 0) {
    const asked = clar.filter((i) => i.action === 'ask').length;
    out.push(`Edge clarifier checked ${plural(clar.length, 'message')}${clar.some((i) => i.heuristic) ? ' (LLM-free rules, labelled heuristic)' : ''}: ${asked} flagged${clar.some((i) => !i.heuristic && i.action === 'ask') ? ', answers delivered with the message' : ''}`);
  }
  const sup = run.interventions.filter((i) => i.engine === 'supervisor');
  if (sup.length > 0) out.push(`Runtime supervisor fired ${plural(sup.length, 'time')}`);
  return out;
}
