// "Does this session replay offline exactly?" for the supervisor on one run: the replay runs again in the worker,
// every call answered from the calls recorded with the run (nothing goes to any endpoint), and its decisions are
// compared with the recorded ones. Nothing is written to the run.
import { useMemo, useState } from 'react';
import { compareReplay, type ReplayCheck } from '../../engine/supervisor/replay-check.ts';
import type { Intervention, Run } from '../../model/types.ts';
import { stepNumbersFor } from '../../model/steps.ts';
import { useEngineSettings } from '../../store/engine-settings.ts';
import { replaySettings } from '../../store/endpoint.ts';
import { useLibrary } from '../../store/library.ts';
import { Button } from '../../ui/button.tsx';
import { runSupervisorInWorker } from '../../workers/supervisor-client.ts';
import { Card } from '../../ui/fields.tsx';
import { supervisorInterventions } from './supervisor-job.ts';

type Outcome = { kind: 'done'; check: ReplayCheck; calls: number; numbers: ReadonlyMap<string, number> } | { kind: 'failed'; message: string };

export function ReplayCheckPanel({ run, disabled }: { run: Run; disabled: boolean }) {
  const llmCalls = useLibrary((s) => s.llmCalls);
  const recorded = useMemo(() => supervisorInterventions(run), [run]);
  const records = useMemo(
    () => recorded.flatMap((iv) => iv.llmCallIds ?? []).flatMap((id) => (llmCalls[id] ? [llmCalls[id]] : [])),
    [recorded, llmCalls],
  );
  const [running, setRunning] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const settings = replaySettings(records, 'supervisor');
  if (!settings) return null;

  const replay = async () => {
    setRunning(true);
    setOutcome(undefined);
    const { tauStep, tauLoop, tauLen, nonCriticalErrors } = useEngineSettings.getState().supervisor;
    try {
      // The replay's decisions, as they come: the worker answers once the page has every one (ADR 0087).
      const replayed: Intervention[] = [];
      const result = await runSupervisorInWorker(
        {
          run: { ...run, interventions: run.interventions.filter((i) => i.engine !== 'supervisor') },
          thresholds: { tauStep, tauLoop, tauLen },
          nonCriticalErrors,
          llm: settings,
          cassette: records,
          previous: [],
        },
        { onProgress: () => {}, onItem: (iv) => void replayed.push(iv), onCall: () => {} },
        new AbortController().signal,
      );
      if (result.status === 'failed' && result.failure) {
        setOutcome({
          kind: 'failed',
          message: `${result.failure.message}. The recording does not hold this call: the run was supervised with other parameters or settings than those set now.`,
        });
      } else {
        const calls = replayed.reduce((n, iv) => n + (iv.llmCallIds?.length ?? 0), 0);
        const check = compareReplay(recorded, replayed);
        // The differing steps' numbers in the step list, found in one pass (a search of the run per difference was
        // differences × steps).
        const numbers = stepNumbersFor(run, check.differences.flatMap((d) => (d.stepId !== undefined ? [d.stepId] : [])));
        setOutcome({ kind: 'done', check, calls, numbers });
      }
    } catch (e) {
      setOutcome({ kind: 'failed', message: e instanceof Error ? e.message : String(e) });
    } finally {
      setRunning(false);
    }
  };

  return (
    <Card title="Replay from the recording" testId="replay-check">
      <p className="text-sm text-slate-600">
        This run carries {records.length} recorded supervisor call{records.length === 1 ? '' : 's'} (model “{settings.models.supervisor}”). Replaying
        answers every call from them — nothing is sent to any endpoint — and compares the decisions with those recorded.
      </p>
      <div className="mt-2 flex items-center gap-3">
        <Button onClick={() => void replay()} disabled={disabled || running}>
          {running ? 'Replaying…' : 'Replay recorded calls'}
        </Button>
      </div>
      {outcome?.kind === 'done' && (
        <div className="mt-2 text-sm" data-testid="replay-result" data-same={outcome.check.same} data-different={outcome.check.differences.length}>
          {outcome.check.differences.length === 0 ? (
            <p className="font-medium text-emerald-800">
              Reproduced exactly: {outcome.check.same} decision{outcome.check.same === 1 ? '' : 's'} as recorded, {outcome.calls} call
              {outcome.calls === 1 ? '' : 's'} answered from the recording, none sent.
            </p>
          ) : (
            <>
              <p className="font-medium text-amber-800">
                {outcome.check.same} decision{outcome.check.same === 1 ? '' : 's'} as recorded, {outcome.check.differences.length} different:
              </p>
              <ul className="mt-1 list-disc pl-5 text-slate-700">
                {outcome.check.differences.map((d) => (
                  <li key={d.stepId ?? '-'}>
                    step {(d.stepId !== undefined ? outcome.numbers.get(d.stepId) : undefined) ?? d.stepId ?? '?'}: recorded {d.recorded ?? 'nothing'}, replayed {d.replayed ?? 'nothing'}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      {outcome?.kind === 'failed' && (
        <p className="mt-2 text-sm text-red-800" data-testid="replay-result" role="alert">
          Replay stopped: {outcome.message}
        </p>
      )}
    </Card>
  );
}
