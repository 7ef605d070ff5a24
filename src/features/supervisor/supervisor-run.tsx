// Run / pause / cancel the supervisor's shadow replay on one library run, with its progress, what failed and why,
// the token summary (estimates labelled as such) and one card per intervention.
import { memo, useDeferredValue, useEffect, useMemo, useState } from 'react';
import type { TokenSummary } from '../../engine/supervisor/index.ts';
import { describeStepCounts, interventionsInRunOrderSlices, stepCounts } from '../../model/steps.ts';
import type { Intervention, Run, Step } from '../../model/types.ts';
import { effectiveMode, useEngineSettings } from '../../store/engine-settings.ts';
import { isActive } from '../../store/job-store.ts';
import { useUrl } from '../../store/url.ts';
import { Badge } from '../../ui/badge.tsx';
import { EngineControlBar } from '../../ui/engine-control-bar.tsx';
import { hasSteps, NO_RUN_WITH_STEPS, RunPicker, usePickedRun } from '../../ui/run-picker.tsx';
import { CostEstimateLine, EngineCostView, useCostEstimate } from '../../ui/cost-view.tsx';
import { accountInWorker, estimateSupervisorInWorker } from '../../workers/supervisor-client.ts';
import { Card } from '../../ui/fields.tsx';
import { InterventionCard } from './intervention-card.tsx';
import { ReplayCheckPanel } from './replay-check.tsx';
import { ShadowCompareButton } from '../compare/shadow-compare.tsx';
import { isSupervisorIntervention, supervisorInterventions, useSupervisorJob } from './supervisor-job.ts';
import { useSliced } from '../../ui/use-sliced.ts';
import { Preparing } from '../../ui/preparing.tsx';
import { plural } from '../../ui/format.ts';
import { LibraryLoading } from '../library/library-loading.tsx';
import { Pager, usePageInUrl } from '../../ui/pager.tsx';
import { usePacedRun } from '../../ui/use-at-most-every.ts';

export function SupervisorRun() {
  const { candidates: runList, hydrated, runId, run } = usePickedRun(hasSteps);

  if (!hydrated) return <Card title="Run the supervisor"><LibraryLoading /></Card>;
  if (runList.length === 0) {
    return (
      <Card title="Run the supervisor" testId="supervisor-run">
        <p className="text-sm text-slate-600">{NO_RUN_WITH_STEPS}</p>
      </Card>
    );
  }
  return (
    <div className="space-y-4">
      <Card title="Run the supervisor" testId="supervisor-run">
        <RunPicker runs={runList} runId={runId} missing={run === undefined} describe={(r) => describeStepCounts(stepCounts(r))} drop={['page']} />
        {run && (
          <p className="mt-2">
            <ShadowCompareButton run={run} />
          </p>
        )}
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
  const previous = useMemo(() => supervisorInterventions(run), [run]);
  const mine = job.runId === run.id;
  // Left part-way through on this run: stopped, failed, or interrupted by a reload (the job store's marker says so).
  // A pass that ended leaves no marker, so after a reload its results read as a finished pass's, not as one to resume.
  const unfinished = previous.length > 0 && mine && (job.status === 'paused' || job.status === 'cancelled' || job.status === 'failed' || job.status === 'interrupted');
  const progress = job.progress;
  const kept = plural(previous.length, 'intervention');
  const supervisor = useEngineSettings((s) => s.supervisor);
  const { tauStep, tauLoop, tauLen, nonCriticalErrors } = supervisor;
  const estimate = useCostEstimate(`${run.id}\u0000${run.steps.length}\u0000${tauStep}\u0000${tauLoop}\u0000${tauLen}\u0000${nonCriticalErrors.join('\u0001')}\u0000${endpoint.maxTokens}`, () =>
    estimateSupervisorInWorker([run], { tauStep, tauLoop, tauLen }, nonCriticalErrors, endpoint.maxTokens),
  );

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
      <EngineControlBar
        testPrefix="supervisor"
        job={job}
        mine={mine}
        pausable
        actions={[
          {
            label: unfinished ? `Resume (${kept} kept)` : previous.length > 0 ? 'Run again (reuses results)' : 'Run supervisor',
            onClick: () => void (mine && job.status === 'interrupted' ? job.resume() : job.start(run.id)),
          },
          ...(previous.length > 0
            ? [{ label: 'Start over', title: "Remove this run's supervisor interventions and replay from the start", onClick: () => void job.start(run.id, { fresh: true }) }]
            : []),
        ]}
        busyElsewhere="The supervisor is busy with another run; wait for it or cancel it there."
        estimate={<CostEstimateLine state={estimate} testId="supervisor-estimate" note={mode === 'offline' ? 'offline the heuristics decide and nothing is sent; this is the price with the endpoint' : undefined} />}
        progress={
          progress && {
            label: 'Trace records examined',
            done: progress.done,
            total: progress.total,
            text: (
              <>
                {progress.done.toLocaleString('en')} / {progress.total.toLocaleString('en')} trace records examined (steps and the calls nested in them) · {plural(progress.triggers, 'trigger')} · {plural(progress.interventions, 'intervention')} ·{' '}
                <span data-testid="tokens-spent">{job.spent.toLocaleString('en')}</span> supervisor LLM tokens spent
              </>
            ),
          }
        }
        failure={{
          title: job.failure ? `Supervisor call failed on ${job.failure.agent} step ${job.failure.stepNumber ?? '?'} (${job.failure.context})` : 'The supervisor stopped',
          message: job.failure?.message ?? job.error,
          note: `${previous.length === 0 ? 'No intervention was made before it.' : `The ${kept} made before it ${previous.length === 1 ? 'is' : 'are'} kept in the run.`} Fix the cause (endpoint, key, budget) and press Resume to continue from that step.`,
        }}
        interrupted={
          <>
            The page was closed or reloaded while the supervisor was working on this run
            {job.interruptedAt ? ` (started ${new Date(job.interruptedAt).toLocaleTimeString('en-GB')})` : ''}. {kept} {previous.length === 1 ? 'was' : 'were'} saved as{' '}
            {previous.length === 1 ? 'it was' : 'they were'} made; at most the call in flight was lost. Resume continues from there without asking the finished steps again.
          </>
        }
        stopped={`${job.status === 'paused' ? 'Paused' : 'Cancelled'}: ${kept} kept in the run; Resume continues from where it stopped.`}
      />
    </div>
  );
}

/**
 * The token summary of the run's supervisor interventions: the pass's own once it has ended, else worked out in the
 * worker. Not while a pass over the run keeps results (the pass brings its own at the end): each batch it kept sent
 * the run's interventions to the worker again.
 */
function useTokenSummary(run: Run, passing: boolean): TokenSummary | undefined {
  const job = useSupervisorJob();
  const interventions = useMemo(() => supervisorInterventions(run), [run]);
  const [computed, setComputed] = useState<{ for: Run; tokens: TokenSummary } | undefined>();
  const fromJob = job.runId === run.id && job.tokens && job.status !== 'running' ? job.tokens : undefined;
  useEffect(() => {
    if (fromJob || passing || interventions.length === 0) return;
    let current = true;
    accountInWorker(run, interventions).then(
      (tokens) => current && setComputed({ for: run, tokens }),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [run, interventions, fromJob, passing]);
  return fromJob ?? (computed?.for === run ? computed.tokens : undefined);
}

/** Interventions drawn at a time: offline, the heuristics intervene on every failed step, thousands in a long run. */
const INTERVENTIONS_PAGE = 50;

/** A run with at most this many steps and interventions has its list worked out within the render, else in slices. */
const LIST_AT_ONCE_MAX = 20_000;

function Results({ run: latest }: { run: Run }) {
  const busy = useSupervisorJob(isActive);
  const finishedHere = useSupervisorJob((s) => s.runId === latest.id && s.status === 'complete');
  const passing = useSupervisorJob((s) => s.status === 'running' && s.runId === latest.id);
  // Paced on a large run while a pass keeps results in it, and drawn at a lower priority than the controls, in slices
  // that let the page answer (React's deferred render): the first page of cards drawn in one task was ~80 ms.
  const run = useDeferredValue(usePacedRun(latest, passing));
  const tokens = useTokenSummary(run, passing);
  const cost = useSupervisorJob((s) => (s.runId === run.id && s.status !== 'running' ? s.cost : undefined));
  // In run order, with their steps only (a Map of every step was a 260 ms task at 200k steps, on every visit); in
  // slices on a large run, the list before shown meanwhile.
  const { value: list, progress } = useSliced(
    () => interventionsInRunOrderSlices(run, isSupervisorIntervention),
    [run],
    run.steps.length + run.interventions.length <= LIST_AT_ONCE_MAX,
    run.id,
  );
  if (!list) {
    return run.interventions.length > 0 ? <Preparing label="Putting the run's interventions in step order" progress={progress} testId="intervention-preparing" /> : null;
  }
  const { items: interventions, found } = list;
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
      {cost && (
        <Card title="Supervisor spending" testId="supervisor-cost-card">
          <EngineCostView cost={cost} testId="supervisor-cost" />
        </Card>
      )}
      <ReplayCheckPanel run={run} disabled={busy} />
      <InterventionList run={run} interventions={interventions} found={found} />
    </>
  );
}

/**
 * One page of the interventions, the page in the address: every card, drawn again at each kept batch, froze the page
 * for seconds over 10,000 interventions. Drawn again only when the (paced) run or the page changes: the view above
 * renders at each kept batch, and the cards with it made tasks of 50–100 ms over 200,000 steps.
 */
const InterventionList = memo(function InterventionList({ run, interventions, found }: { run: Run; interventions: readonly Intervention[]; found: ReadonlyMap<string, { step: Step }> }) {
  const navigate = useUrl((s) => s.navigate);
  const agentName = useMemo(() => new Map(run.agents.map((a) => [a.id, a.name])), [run]);
  const { shown, page, pages, setPage } = usePageInUrl(interventions, INTERVENTIONS_PAGE);
  return (
    <Card title={`Interventions (${interventions.length.toLocaleString('en')})`} testId="intervention-list">
      {pages > 1 && <Pager page={page} pages={pages} perPage={INTERVENTIONS_PAGE} total={interventions.length} noun="interventions" testPrefix="intervention" onPage={setPage} />}
      <ol className="space-y-3">
        {shown.map((iv) => {
          const step = iv.stepId ? found.get(iv.stepId)?.step : undefined;
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
      {pages > 1 && <Pager page={page} pages={pages} perPage={INTERVENTIONS_PAGE} total={interventions.length} noun="interventions" testPrefix="intervention" onPage={setPage} />}
    </Card>
  );
});

/** The net saving's basis: n (interventions counted, model calls changed) and the purifications left out. */
function netSavingNote(tokens: TokenSummary): string {
  const counted = Object.keys(tokens.affectedCalls).length - tokens.notShortened.length;
  let calls = 0;
  for (const n of Object.values(tokens.affectedCalls)) calls += n;
  const skipped = tokens.notShortened.length;
  return (
    `estimate: ${tokens.netSavingPct}% of the baseline · n = ${counted.toLocaleString('en')} changed observation${counted === 1 ? '' : 's'}, ` +
    `${calls.toLocaleString('en')} later model call${calls === 1 ? '' : 's'}` +
    (skipped > 0 ? ` · ${skipped.toLocaleString('en')} purification${skipped === 1 ? '' : 's'} did not shorten the text: counted as saving nothing` : '')
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
      note: netSavingNote(tokens),
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
