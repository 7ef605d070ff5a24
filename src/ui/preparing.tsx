// The progress of a view's derivation built a slice at a time (use-sliced.ts, the run view's loader): a line saying
// what is being worked out, and a bar.
import { useId } from 'react';

export function Preparing({ label, progress, testId }: { label: string; progress: number; testId?: string }) {
  const id = useId();
  // Down: never 100% before it is done.
  const percent = Math.floor(progress * 100);
  return (
    <div className="py-4 text-sm text-slate-700" data-testid={testId}>
      <p id={id}>
        {label}… {percent}%
      </p>
      <div role="progressbar" aria-labelledby={id} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} className="mt-2 h-1.5 w-80 max-w-full overflow-hidden rounded bg-slate-200">
        <div className="h-full bg-indigo-600" style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}
