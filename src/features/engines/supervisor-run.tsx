// Run / pause / cancel the supervisor's shadow replay on one library run, with its progress, what failed and why,
// the token summary (estimates labelled as such) and one card per intervention.
import { useEffect, useMemo, useState } from 'react';
import type { TokenSummary } from '../../engine/supervisor/index.ts';
import type { Run } from '../../model/types.ts';
import { effectiveMode, useEngineSettings } from '../../store/engine-settings.ts';
import { useLibrary } from '../../store/library.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { useUrl } from '../../store/url.ts';
import { Badge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { ErrorBanner } from '../../ui/error-banner.tsx';
import { accountInWorker } from '../../workers/supervisor-client.ts';
import { Card, Field } from './fields.tsx';
import { InterventionCard } from './intervention-card.tsx';
import { ReplayCheckPanel } from './replay-check.tsx';
import { supervisorInterventions, useSupervisorJob, type JobStatus } from './supervisor-job.ts';

const ACTIVE: JobStatus[] = ['running', 'pausing', 'cancelling'];

const plural = (n: number, word: string) => `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;

export function SupervisorRun() {
  const runs = useLibrary((s) => s.runs);
  const hydrated = useLibrary((s) => s.hydrated);
  const urlRun = useUrl((s) => s.params.run);
  const setParams = useUrl((s) => s.setParams);
  const runList = useMemo(() => Object.values(runs), [runs]);
  // The run named in the URL, else the one last open in the run view, else the first in the library.
  const lastViewed = usePlayhead((s) => s.runId);
  const runId = urlRun ?? (lastViewed !== undefined && runs[lastViewed] ? lastViewed : runList[0]?.id);
  const run = runId !== undefined ? runs[runId] : undefined;

  // Name the run in the URL, so the address reproduces what is shown.
  useEffect(() => {
    if (urlRun === undefined && runId !== undefined) setParams({ run: runId });
  }, [urlRun, runId, setParams]);

  if (!hydrated) return <Card title="Run the supervisor">Loading the library…</Card>;
  if (runList.length === 0) {
    return (
      <Card title="Run the supervisor" testId="supervisor-run">
        <p className="text-sm text-slate-600">The library is empty: open a trace in the Library first.</p>
      </Card>
    );
  }
  return (
    <div className="space-y-4">
      <Card title="Run the supervisor" testId="supervisor-run">
        <Field label="Run">
          {(id) => (
            <select id={id} className="w-full rounded border border-slate-300 px-2 py-1 text-sm" value={runId ?? ''} onChange={(e) => setParams({ run: e.target.value })}>
              {run === undefined && <option value={runId}>not in the library: {runId}</option>}
              {runList.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.title ?? r.id} ({r.steps.length} steps{r.simulated ? ', simulated' : ''})
                </option>
              ))}
            </select>
          )}
        </Field>
        {run ? <Controls run={run} /> : <p className="mt-2 text-sm text-red-800">Run “{runId}” is not in the library.</p>}
      </Card>
      {run && <Results run={run} />}
    </div>
  );
}

function Controls({ run }: { run: Run }) {
  const job = useSupervisorJob();
  const endpoint = useEngineSettings((s) => s.endpoint);
  const mode = effectiveMode(endpoint);
  const previous = supervisorInterventions(run);
  const mine = job.runId === run.id;
  const active = ACTIVE.includes(job.status);
  const busyElsewhere = active && !mine;
  const unfinished = previous.length > 0 && !(mine && job.status === 'complete');
  const progress = mine ? job.progress : undefined;
  const pct = progress && progress.total > 0 ? Math.round((100 * progress.done) / progress.total) : 0;

  return (
    <div className="mt-3 space-y-3">
      <p className="text-xs text-slate-600" data-testid="supervisor-mode">
        {mode === 'offline' ? (
          <>
            <Badge tone="warning">heuristic</Badge> Offline: the LLM-free heuristics decide; no tokens are spent.
          </>
        ) : (
          <>
            <Badge tone="info">endpoint</Badge> Supervisor model “{endpoint.models.supervisor}” at {endpoint.baseUrl}
          </>
        )}
      </p>
      <div className="flex flex-wrap gap-2">
        {active && mine ? (
          <>
            <Button variant="secondary" onClick={job.pause} disabled={job.status !== 'running'}>
              {job.status === 'pausing' ? 'Pausing…' : 'Pause'}
            </Button>
            <Button variant="danger" onClick={job.cancel} disabled={job.status !== 'running'}>
              {job.status === 'cancelling' ? 'Cancelling…' : 'Cancel'}
            </Button>
          </>
        ) : (
          <>
            <Button variant="primary" disabled={busyElsewhere} onClick={() => void job.start(run.id)}>
              {unfinished ? `Resume (${plural(previous.length, 'intervention')} kept)` : previous.length > 0 ? 'Run again (reuses results)' : 'Run supervisor'}
            </Button>
            {previous.length > 0 && (
              <Button variant="secondary" disabled={busyElsewhere} onClick={() => void job.start(run.id, { fresh: true })} title="Remove this run's supervisor interventions and replay from the start">
                Start over
              </Button>
            )}
          </>
        )}
      </div>
      {busyElsewhere && <p className="text-xs text-slate-600">The supervisor is busy with another run; wait for it or cancel it there.</p>}
      {progress && (
        <div data-testid="supervisor-progress" data-status={job.status} data-done={progress.done} data-total={progress.total}>
          <div className="h-2 overflow-hidden rounded bg-slate-200" role="progressbar" aria-label="Steps examined" aria-valuemin={0} aria-valuemax={progress.total} aria-valuenow={progress.done}>
            <div className={`h-full ${job.status === 'failed' ? 'bg-red-500' : 'bg-indigo-500'}`} style={{ width: `${pct}%` }} />
          </div>
          <p className="mt-1 text-xs text-slate-700">
            <StatusWord status={job.status} /> · {progress.done.toLocaleString('en')} / {progress.total.toLocaleString('en')} steps examined · {plural(progress.triggers, 'trigger')} ·{' '}
            {plural(progress.interventions, 'intervention')} · <span data-testid="tokens-spent">{job.spent.toLocaleString('en')}</span> supervisor LLM tokens spent
          </p>
        </div>
      )}
      {mine && job.status === 'failed' && (
        <ErrorBanner title={job.failure ? `Supervisor call failed on ${job.failure.agent} step ${job.failure.stepNumber ?? '?'} (${job.failure.context})` : 'The supervisor stopped'}>
          <p data-testid="supervisor-failure">{job.failure?.message ?? job.error}</p>
          <p className="mt-1">
            {previous.length === 0 ? 'No intervention was made before it.' : `The ${plural(previous.length, 'intervention')} made before it ${previous.length === 1 ? 'is' : 'are'} kept in the run.`} Fix the cause (endpoint, key, budget) and press Resume to continue from
            that step.
          </p>
        </ErrorBanner>
      )}
      {mine && job.status === 'interrupted' && (
        <p role="status" className="rounded border border-amber-200 bg-amber-50 px-2 py-1 text-xs text-amber-900" data-testid="supervisor-interrupted">
          The page was closed or reloaded while the supervisor was working on this run
          {job.interruptedAt ? ` (started ${new Date(job.interruptedAt).toLocaleTimeString('en-GB')})` : ''}. {plural(previous.length, 'intervention')}{' '}
          {previous.length === 1 ? 'was' : 'were'} saved as {previous.length === 1 ? 'it was' : 'they were'} made; at most the call in flight was lost. Resume
          continues from there without asking the finished steps again.
        </p>
      )}
      {mine && (job.status === 'paused' || job.status === 'cancelled') && (
        <p role="status" className="text-xs text-slate-700">
          {job.status === 'paused' ? 'Paused' : 'Cancelled'}: {plural(previous.length, 'intervention')} kept in the run; Resume continues from where it stopped.
        </p>
      )}
    </div>
  );
}

function StatusWord({ status }: { status: JobStatus }) {
  const words: Record<JobStatus, string> = {
    idle: 'idle',
    running: 'running',
    pausing: 'pausing after the current call',
    paused: 'paused',
    cancelling: 'cancelling',
    cancelled: 'cancelled',
    failed: 'failed',
    complete: 'complete',
    interrupted: 'interrupted by a reload',
  };
  return <span className="font-medium">{words[status]}</span>;
}

function useTokenSummary(run: Run): TokenSummary | undefined {
  const job = useSupervisorJob();
  const interventions = useMemo(() => supervisorInterventions(run), [run]);
  const [computed, setComputed] = useState<{ for: Run; tokens: TokenSummary } | undefined>();
  const fromJob = job.runId === run.id && job.tokens && !ACTIVE.includes(job.status) ? job.tokens : undefined;
  useEffect(() => {
    if (fromJob || interventions.length === 0) return;
    let current = true;
    accountInWorker(run, interventions).then(
      (tokens) => current && setComputed({ for: run, tokens }),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [run, interventions, fromJob]);
  return fromJob ?? (computed?.for === run ? computed.tokens : undefined);
}

function Results({ run }: { run: Run }) {
  const navigate = useUrl((s) => s.navigate);
  const busy = useSupervisorJob((s) => ACTIVE.includes(s.status));
  const finishedHere = useSupervisorJob((s) => s.runId === run.id && s.status === 'complete');
  const tokens = useTokenSummary(run);
  const interventions = useMemo(() => {
    const position = new Map(run.steps.map((s, i) => [s.id, i]));
    return supervisorInterventions(run).sort((a, b) => (position.get(a.stepId ?? '') ?? 0) - (position.get(b.stepId ?? '') ?? 0));
  }, [run]);
  const stepById = useMemo(() => new Map(run.steps.map((s) => [s.id, s])), [run]);
  const agentName = useMemo(() => new Map(run.agents.map((a) => [a.id, a.name])), [run]);
  if (interventions.length === 0) {
    return finishedHere ? (
      <Card title="Interventions (0)" testId="intervention-list">
        <p className="text-sm text-slate-600">The filter found no step to supervise on this run with these parameters.</p>
      </Card>
    ) : null;
  }
  return (
    <>
      {tokens && <TokenSummaryView tokens={tokens} heuristicOnly={interventions.every((i) => i.heuristic)} />}
      <ReplayCheckPanel run={run} disabled={busy} />
      <Card title={`Interventions (${interventions.length})`} testId="intervention-list">
        <ol className="space-y-3">
          {interventions.map((iv) => {
            const step = iv.stepId ? stepById.get(iv.stepId) : undefined;
            return (
              <li key={iv.id}>
                <InterventionCard
                  iv={iv}
                  step={step}
                  agent={step ? (agentName.get(step.agentId) ?? step.agentId) : undefined}
                  onOpen={() => navigate('run', { run: run.id, ...(iv.stepId ? { step: iv.stepId } : {}) })}
                />
              </li>
            );
          })}
        </ol>
      </Card>
    </>
  );
}

function TokenSummaryView({ tokens, heuristicOnly }: { tokens: TokenSummary; heuristicOnly: boolean }) {
  const fmt = (n: number) => n.toLocaleString('en');
  const items: { key: string; label: string; value: number; note: string; tone?: string }[] = [
    { key: 'baseline', label: 'Baseline', value: tokens.baseline, note: 'recorded in the trace' },
    { key: 'supervised', label: 'Supervised', value: tokens.supervisedEstimate, note: 'estimate: later prompts with the changed observations' },
    {
      key: 'overhead',
      label: 'Supervisor overhead',
      value: tokens.supervisorOverhead,
      note: heuristicOnly ? 'heuristics spend no LLM tokens' : tokens.overheadEstimated ? 'partly counted with a tokenizer' : 'usage reported by the endpoint',
    },
    {
      key: 'net',
      label: 'Net saving',
      value: tokens.netSaving,
      note: `estimate: ${tokens.netSavingPct}% of the baseline`,
      tone: tokens.netSaving >= 0 ? 'text-emerald-800' : 'text-red-800',
    },
  ];
  return (
    <Card title="Tokens (estimate)" testId="token-summary">
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        {items.map((it) => (
          <div key={it.key} className="rounded bg-slate-50 p-2" data-testid={`summary-${it.key}`} data-value={it.value}>
            <dt className="text-xs text-slate-500">{it.label}</dt>
            <dd className={`text-lg font-semibold tabular-nums ${it.tone ?? 'text-slate-900'}`}>{fmt(it.value)}</dd>
            <dd className="text-[11px] text-slate-500">{it.note}</dd>
          </div>
        ))}
      </dl>
      <p className="mt-2 text-[11px] text-slate-500">
        The supervised figure and the net saving are counterfactual estimates from a shadow replay of the recorded run, not measurements: the
        agents never saw the supervisor’s changes.
      </p>
    </Card>
  );
}
