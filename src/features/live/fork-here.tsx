// "Fork here" in the run view's step inspector: opens the Live page's fork tab at this step.
import { forkProblem } from '../../engine/runner/forkable.ts';
import type { Run, Step } from '../../model/types.ts';
import { useLibrary } from '../../store/library.ts';
import { useUrl } from '../../store/url.ts';
import { Button } from '../../ui/button.tsx';

const problems = new WeakMap<Run, string | undefined>();

/** forkProblem scans the run; runs are immutable values, so once per run object is enough. */
export function cachedForkProblem(run: Run): string | undefined {
  if (!problems.has(run)) problems.set(run, forkProblem(run));
  return problems.get(run);
}

export function ForkHereButton({ run, step }: { run: Run; step: Step }) {
  const navigate = useUrl((s) => s.navigate);
  // A run still arriving over OTLP (issue 19) is forked once it is done: its steps may still change.
  const receiving = useLibrary((s) => s.files.some((f) => f.live?.state === 'receiving' && f.runIds.includes(run.id)));
  const problem =
    cachedForkProblem(run) ??
    (step.parentStepId !== undefined ? 'fork at the turn that holds this call' : receiving ? 'the run is still arriving live; fork it once it is done' : undefined);
  return (
    <Button size="sm" disabled={problem !== undefined} title={problem ?? 'Copy the run up to this step, change it, and continue against the endpoint'} onClick={() => navigate('live', { tab: 'fork', forkOf: run.id, at: step.id })}>
      Fork here
    </Button>
  );
}
