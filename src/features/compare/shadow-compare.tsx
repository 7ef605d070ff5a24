// "Compare with supervised (estimate)" (issue 15): from any recorded run, derive its shadow-supervised run in the
// supervisor worker (offline: the LLM-free heuristics, reusing the endpoint verdicts the run already carries), keep it
// in the library as a run of its own (a file of its own, so it persists, exports and can be removed like any run) and
// open Compare with the recorded run as A and the estimate as B. A derived run is badged "estimate" wherever it
// appears, with a link to the run it was made from.
import { useMemo } from 'react';
import { create } from 'zustand';
import { emptyRecord, ownValue, recordOf } from '../../model/record.ts';
import type { Run } from '../../model/types.ts';
import { useEngineSettings } from '../../store/engine-settings.ts';
import { useLibrary } from '../../store/library.ts';
import { useUrl } from '../../store/url.ts';
import { Badge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { deriveShadowInWorker } from '../../workers/supervisor-client.ts';
import { expectStoredRuns, flushLibrary, runStorageTarget } from '../../store/library-db.ts';

export const SHADOW_FORMAT = 'shadow-supervised';

export function isDerived(run: Run): boolean {
  return run.derived?.kind === 'shadow-supervised';
}

/** Source run id → its shadow-supervised run, over the library's runs (the last one found wins). */
export function derivedBySource(runs: Record<string, Run>): Map<string, Run> {
  const out = new Map<string, Run>();
  for (const run of Object.values(runs)) if (run.derived?.kind === 'shadow-supervised') out.set(run.derived.sourceRunId, run);
  return out;
}

export function useDerivedBySource(): Map<string, Run> {
  const runs = useLibrary((s) => s.runs);
  return useMemo(() => derivedBySource(runs), [runs]);
}

/** A recorded run can be shadow-supervised: not simulated (simulated pairs exist already) and not itself derived. */
export function canShadow(run: Run): boolean {
  return !run.simulated && !isDerived(run) && run.steps.length > 0;
}

interface ShadowJobs {
  /** Source run ids being derived. */
  running: Record<string, true>;
  errors: Record<string, string>;
}

export const useShadowJobs = create<ShadowJobs>(() => ({ running: emptyRecord(), errors: emptyRecord() }));

function setJob(id: string, state: 'running' | 'done' | { error: string }): void {
  const { running, errors } = useShadowJobs.getState();
  const r = recordOf(running);
  const e = recordOf(errors);
  delete r[id];
  delete e[id];
  if (state === 'running') r[id] = true;
  else if (state !== 'done') e[id] = state.error;
  useShadowJobs.setState({ running: r, errors: e });
}

/**
 * Derive the shadow-supervised run of `source` and put it in the library (replacing an earlier one: its id is stable
 * per source). Resolves with the derived run.
 */
export async function deriveShadowRun(source: Run): Promise<Run> {
  const s = useEngineSettings.getState().supervisor;
  setJob(source.id, 'running');
  try {
    // The worker writes the run into the library's database, as an import does: not this page, on its own thread.
    const { run, durable } = await deriveShadowInWorker(source, { tauStep: s.tauStep, tauLoop: s.tauLoop, tauLen: s.tauLen }, [...s.nonCriticalErrors], runStorageTarget());
    // Registered before it enters the library, so this page never writes it too; shown as saving until durable.
    const stored = durable && expectStoredRuns([run], durable);
    useLibrary.getState().addLoaded({
      file: `${source.title || source.id} (shadow-supervised estimate)`,
      format: SHADOW_FORMAT,
      formatLabel: 'Shadow-supervised estimate',
      runs: [run],
      warnings: [],
    });
    // Durable before it is reported done, as an import is: a reload right after must still find it.
    await stored;
    await flushLibrary();
    setJob(source.id, 'done');
    return run;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    setJob(source.id, { error: message });
    throw e;
  }
}

/** Derive (every time: the source may have gained recorded verdicts since) and open Compare with the pair. */
export async function compareWithShadow(source: Run): Promise<void> {
  const run = await deriveShadowRun(source);
  useUrl.getState().navigate('compare', { a: source.id, b: run.id });
}

export function ShadowCompareButton({ run, size = 'sm' }: { run: Run; size?: 'sm' | 'md' }) {
  const running = useShadowJobs((s) => ownValue(s.running, run.id) === true);
  const error = useShadowJobs((s) => ownValue(s.errors, run.id));
  if (!canShadow(run)) return null;
  return (
    <span className="inline-flex items-center gap-1">
      <Button
        size={size}
        disabled={running}
        onClick={() => void compareWithShadow(run).catch(() => undefined)}
        data-testid="shadow-compare"
        title="Replay the supervisor on this recorded run (offline: LLM-free heuristics; endpoint verdicts already recorded on the run are reused), keep the result as a derived run, and compare the two. Its tokens are an estimate and its outcome unknown."
      >
        {running ? 'Deriving the supervised estimate…' : 'Compare with supervised (estimate)'}
      </Button>
      {error && (
        <span role="alert" className="text-xs text-red-700">
          could not derive: {error}
        </span>
      )}
    </span>
  );
}

/** The "estimate" badge of a derived run, with how it was made and a link to its source run. */
export function EstimateBadge({ run, link = true }: { run: Run; link?: boolean }) {
  const navigate = useUrl((s) => s.navigate);
  const source = useLibrary((s) => (run.derived ? ownValue(s.runs, run.derived.sourceRunId) : undefined));
  if (run.derived?.kind !== 'shadow-supervised') return null;
  const how = run.derived.method === 'endpoint' ? "the endpoint's recorded verdicts" : 'the LLM-free heuristics (offline)';
  return (
    <span className="inline-flex items-center gap-1" data-testid="estimate-badge">
      <Badge tone="warning" title={`Shadow-supervised estimate: the supervisor replayed on a recorded run by ${how}; tokens are a counterfactual estimate (SPEC §5.1), the outcome is unknown. Not a measurement.`}>
        estimate
      </Badge>
      {link && (
        <button
          type="button"
          className="truncate text-xs text-indigo-700 hover:underline disabled:text-slate-400 disabled:no-underline"
          disabled={!source}
          onClick={() => navigate('run', { run: run.derived!.sourceRunId })}
          title={source ? `Open the recorded run this estimate was made from: ${source.title || source.id}` : `The recorded run ${run.derived.sourceRunId} is no longer in the library`}
          data-testid="estimate-source"
        >
          of the recorded run
        </button>
      )}
    </span>
  );
}
