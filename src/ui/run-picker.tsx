// The run an engine panel works on, and the select that picks it (one for the Engines, Rectify, Stages and Taxonomy
// views): the run named in the URL, else the one last open in the run view when it qualifies, else the first that
// does; the choice is written into the URL, so the address reproduces what is shown.
import { useEffect, useId, useMemo } from 'react';
import type { Run } from '../model/types.ts';
import { useLibrary } from '../store/library.ts';
import { usePlayhead } from '../store/playhead.ts';
import { useUrl } from '../store/url.ts';

/** A run with steps to work on: a benchmark's result line (no steps) has nothing to supervise or divide into stages. */
export const hasSteps = (run: Run): boolean => run.steps.length > 0;

/** What a view that needs steps says when no run of the library has any. */
export const NO_RUN_WITH_STEPS = 'No run in the library has steps (a benchmark result line has none): open a trace in the Library first.';

/**
 * The library's runs that `qualifies` (all by default; keep the function stable, e.g. module-level), whether the
 * library has loaded, and the run picked among them.
 */
export function usePickedRun(
  qualifies?: (run: Run) => boolean,
  { lastViewed = true }: { lastViewed?: boolean } = {},
): { candidates: Run[]; hydrated: boolean; runId?: string; run?: Run } {
  const runs = useLibrary((s) => s.runs);
  const hydrated = useLibrary((s) => s.hydrated);
  const candidates = useMemo(() => (qualifies ? Object.values(runs).filter(qualifies) : Object.values(runs)), [runs, qualifies]);
  const urlRun = useUrl((s) => s.params.run);
  const setParams = useUrl((s) => s.setParams);
  const viewed = usePlayhead((s) => s.runId);
  const runId = urlRun ?? (lastViewed && viewed !== undefined && candidates.some((r) => r.id === viewed) ? viewed : candidates[0]?.id);
  useEffect(() => {
    if (urlRun === undefined && runId !== undefined) setParams({ run: runId });
  }, [urlRun, runId, setParams]);
  return { candidates, hydrated, runId, run: runId !== undefined ? runs[runId] : undefined };
}

export interface RunPickerProps {
  runs: readonly Run[];
  runId?: string;
  /** The run named is not in the library (the option then says so). */
  missing?: boolean;
  /** What the option says about a run after its title, e.g. "12 steps". */
  describe(run: Run): string;
  /** URL parameters that belong to the previous run and are dropped on a change (a step, an edge). */
  drop?: string[];
  className?: string;
}

export function RunPicker({ runs, runId, missing, describe, drop = [], className = '' }: RunPickerProps) {
  const setParams = useUrl((s) => s.setParams);
  const id = useId();
  return (
    <div className={`min-w-0 ${className}`}>
      <label htmlFor={id} className="block text-xs font-medium text-slate-700">
        Run
      </label>
      <select
        id={id}
        className="mt-0.5 block w-full rounded border border-slate-300 px-2 py-1 text-sm"
        value={runId ?? ''}
        onChange={(e) => setParams({ run: e.target.value, ...Object.fromEntries(drop.map((k) => [k, undefined])) })}
      >
        {missing && <option value={runId}>not in the library: {runId}</option>}
        {runs.map((r) => (
          <option key={r.id} value={r.id}>
            {r.title ?? r.id} ({describe(r)}
            {r.simulated ? ', simulated' : ''})
          </option>
        ))}
      </select>
    </div>
  );
}
