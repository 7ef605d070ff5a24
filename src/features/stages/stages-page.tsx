// The stage view (SPEC §4, §5.4, EvoMAS): a run as stages. The playhead of the run view drives it (same store, same
// `step` URL param, same keys): the stage holding the current step shows its task state as a subtask board and its
// layered workflow; a heatmap shows agent selection by stage and layer. Stages come from the run (recorded in a native
// session) or are derived here, offline or through the endpoint, and saved on the run.
import { recordOf } from '../../model/record.ts';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { describeStepCounts, stepCounts, stepNumber } from '../../model/steps.ts';
import type { Run } from '../../model/types.ts';
import { stageIndexAt } from '../../engine/stages/index.ts';
import { effectiveMode, useEngineSettings } from '../../store/engine-settings.ts';
import { isActive } from '../../store/job-store.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { useUrl } from '../../store/url.ts';
import { Badge } from '../../ui/badge.tsx';
import { CostEstimateLine, EngineCostView, useCostEstimate } from '../../ui/cost-view.tsx';
import { EngineControlBar, type ControlAction } from '../../ui/engine-control-bar.tsx';
import { estimateStagesInWorker } from '../../workers/stages-client.ts';
import { hasSteps, NO_RUN_WITH_STEPS, RunPicker, usePickedRun } from '../../ui/run-picker.tsx';
import { agentColors } from '../../ui/agent-colors.ts';
import { plural, stepPosition } from '../../ui/format.ts';
import { HelpOverlay } from '../../ui/help-overlay.tsx';
import { applyAction, usePlayTimer, useRunKeyboard, useStepInUrl } from '../run-view/playback.ts';
import type { RunView } from '../run-view/run-view-model.ts';
import { LARGE_STEPS, PROGRESS_DELAY_MS, useRunView } from '../run-view/run-view-loader.ts';
import { Preparing } from '../../ui/preparing.tsx';
import { useLater } from '../../ui/use-later.ts';
import { SelectionHeatmap } from './selection-heatmap.tsx';
import { stageCount, stageViewOf, type StageViewModel } from './stage-view-model.ts';
import { hasRecordedStages, llmStages, useStagesJob, type StagesOptions } from './stages-job.ts';
import { SubtaskBoard } from './subtask-board.tsx';
import { WorkflowGraph } from './workflow-graph.tsx';
import { KEY_BINDINGS } from '../run-view/keymap.ts';
import { ErrorBoundary } from '../../ui/error-boundary.tsx';
import { LibraryLoading } from '../library/library-loading.tsx';

export function StagesPage() {
  const { candidates: runList, hydrated, runId, run } = usePickedRun(hasSteps);

  if (!hydrated && !run) {
    return (
      <p role="status" className="p-6 text-sm text-slate-600">
        <LibraryLoading />
      </p>
    );
  }
  if (runList.length === 0) return <p className="p-6 text-sm text-slate-600">{NO_RUN_WITH_STEPS}</p>;
  return (
    <div data-testid="stages-view" className="flex h-full min-h-0 flex-col bg-slate-100">
      <div className="flex flex-wrap items-center gap-3 border-b border-slate-200 bg-white px-4 py-2">
        <RunPicker
          className="w-full max-w-[48rem]"
          runs={runList}
          runId={runId}
          missing={run === undefined}
          drop={['step']}
          describe={(r) => {
            const stages = stageCount(r.stages);
            return `${plural(stepCounts(r).steps, 'step')}${stages > 0 ? `, ${plural(stages, 'stage')}` : ''}`;
          }}
        />
        {run?.simulated && <Badge tone="simulated">simulated</Badge>}
      </div>
      {run ? (
        <StagesScreen key={run.id} run={run} />
      ) : (
        <p data-testid="run-not-found" className="p-6 text-sm text-slate-800">
          Run not found: “{runId}”. It may have been removed from the library, or the link comes from another browser.
        </p>
      )}
    </div>
  );
}

/**
 * The stage view once the run's view is built: in slices, as the run page builds it (run-view-loader.ts), and the same
 * build (a view built for one is the other's at once). Built in one task here, a run of a million steps held the page
 * for 1.2–1.6 s when the stage view was opened first.
 */
function StagesScreen({ run }: { run: Run }) {
  const { view, progress } = useRunView(run);
  const slow = useLater(PROGRESS_DELAY_MS, run);
  if (view) return <StagesOfView run={run} view={view} />;
  return (
    <div data-testid="stages-preparing" className="px-6 py-2">
      {(slow || run.steps.length > LARGE_STEPS) && <Preparing label={`Preparing the stage view of ${plural(stepCounts(run).steps, 'step')}`} progress={progress} />}
    </div>
  );
}

function StagesOfView({ run, view }: { run: Run; view: RunView }) {
  const model = useMemo(() => stageViewOf(view), [view]);
  const missingStep = useStepInUrl(view);
  usePlayTimer();
  const [help, setHelp] = useState(false);
  const toggleHelp = useCallback(() => setHelp((h) => !h), []);
  useRunKeyboard(view, toggleHelp);
  useStageKeys(model);
  const ready = usePlayhead((s) => s.runId === run.id);
  const position = usePlayhead((s) => s.position);
  // The closing state is shown on request (the "end" chip); any playhead move returns to the stage of the step.
  const [closingShown, setClosingShown] = useState(false);
  useEffect(() => setClosingShown(false), [position]);

  const placedIndex = ready ? stageIndexAt(model.placed, position) : -1;
  const column = closingShown && model.placed.closing ? model.columns.length - 1 : placedIndex;
  const stage = column >= 0 ? model.columns[column] : undefined;
  const previous = column > 0 ? model.columns[column - 1] : undefined;
  const colors = useMemo(() => agentColors(view), [view]);

  const pick = useCallback(
    (c: number) => {
      if (c < model.placed.stages.length) {
        usePlayhead.getState().moveTo(model.placed.starts[c]);
        setClosingShown(false);
      } else if (model.placed.closing) setClosingShown(true);
    },
    [model],
  );

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <Toolbar view={view} model={model} stageColumn={column} onHelp={toggleHelp} />
      {missingStep !== undefined && (
        <p role="alert" className="border-b border-amber-200 bg-amber-50 px-4 py-1 text-xs text-amber-900">
          The link names step “{missingStep}”, which this run does not have; showing the first step instead.
        </p>
      )}
      <div className="min-h-0 flex-1 space-y-2 overflow-y-auto p-2">
        <ErrorBoundary name="stage derivation panel" resetKey={run.id}><DerivePanel run={run} model={model} /></ErrorBoundary>
        {model.columns.length > 0 && <ErrorBoundary name="stage strip" resetKey={run.id}><StageStrip model={model} current={column} onPick={pick} /></ErrorBoundary>}
        {ready && view.steps.length > 0 && <ErrorBoundary name="current step" resetKey={run.id}><CurrentStep view={view} position={position} /></ErrorBoundary>}
        {model.columns.length > 0 &&
          (stage ? (
            <div className="grid grid-cols-1 gap-2 xl:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
              <ErrorBoundary name="subtask board" resetKey={run.id}><SubtaskBoard stage={stage} previous={previous} label={stage.closing ? 'closing state' : `stage ${column + 1} of ${model.placed.stages.length}`} /></ErrorBoundary>
              <ErrorBoundary name="workflow graph" resetKey={run.id}><WorkflowGraph stage={stage} agentName={model.agentName} colors={colors} /></ErrorBoundary>
            </div>
          ) : (
            <p data-testid="no-stage-here" className="rounded border border-slate-200 bg-white p-3 text-sm text-slate-600">
              The step at the playhead is in no stage{model.placed.stages.length < (run.stages?.length ?? 0) ? ' that has been derived yet' : ''}.
            </p>
          ))}
        {model.columns.length > 0 && <ErrorBoundary name="selection heatmap" resetKey={run.id}><SelectionHeatmap model={model} current={column} onPick={pick} /></ErrorBoundary>}
        {model.placed.unplaced.length > 0 && (
          <p className="text-xs text-amber-800">
            {plural(model.placed.unplaced.length, 'recorded stage')} name steps this run does not have and cannot be placed on the replay: {model.placed.unplaced.map((s) => s.id).join(', ')}.
          </p>
        )}
      </div>
      {help && <HelpOverlay onClose={toggleHelp} bindings={KEY_BINDINGS} extra={STAGE_KEYS} />}
    </div>
  );
}

const STAGE_KEYS = [
  { id: 'next-stage', keys: ['s'], label: 'Next stage (its first step)' },
  { id: 'prev-stage', keys: ['S'], label: 'Previous stage (its first step)' },
];

/** `s` / `S`: the first step of the next / previous stage. */
function useStageKeys(model: StageViewModel) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || (e.key !== 's' && e.key !== 'S')) return;
      const t = e.target;
      if (t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return;
      e.preventDefault();
      moveStage(model, e.key === 's' ? 1 : -1);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [model]);
}

function moveStage(model: StageViewModel, direction: 1 | -1) {
  const { starts } = model.placed;
  if (starts.length === 0) return;
  const playhead = usePlayhead.getState();
  const i = stageIndexAt(model.placed, playhead.position);
  let target: number | undefined;
  if (direction === 1) target = i === -1 ? Array.from(starts).find((s) => s > playhead.position) : starts[i + 1];
  else target = i === -1 ? Array.from(starts).reverse().find((s) => s < playhead.position) : i > 0 ? starts[i - 1] : undefined;
  if (target !== undefined) playhead.moveTo(target);
}

function Toolbar({ view, model, stageColumn, onHelp }: { view: RunView; model: StageViewModel; stageColumn: number; onHelp: () => void }) {
  const playing = usePlayhead((s) => s.playing);
  const position = usePlayhead((s) => s.position);
  const button = 'rounded border border-slate-300 bg-white px-2 py-0.5 text-sm hover:bg-slate-50 disabled:opacity-40';
  const count = model.placed.stages.length;
  return (
    <div className="flex flex-wrap items-center gap-x-4 gap-y-1 border-b border-slate-200 bg-white px-4 py-2">
      <div className="min-w-0 flex-1">
        <h2 className="truncate text-sm font-semibold text-slate-900" title={view.run.title}>
          Stages · {view.run.title}
        </h2>
        <p className="truncate text-xs text-slate-500" title={view.run.task}>
          {plural(view.run.agents.length, 'agent')} · {describeStepCounts(view.stepKinds)}{view.run.task ? ` · ${view.run.task}` : ''}
        </p>
      </div>
      <div className="flex items-center gap-1" role="group" aria-label="Playback">
        <button type="button" className={button} onClick={() => moveStage(model, -1)} disabled={count === 0} title="Previous stage (S)">
          ‹ stage
        </button>
        <button type="button" className={button} onClick={() => applyAction('prev', view)} title="Previous step (← or k)" aria-label="Previous step">
          ←
        </button>
        <button type="button" className={`${button} w-16`} data-testid="play-toggle" onClick={() => applyAction('toggle-play', view)} title="Play / pause (space)">
          {playing ? 'Pause' : 'Play'}
        </button>
        <button type="button" className={button} onClick={() => applyAction('next', view)} title="Next step (→ or j)" aria-label="Next step">
          →
        </button>
        <button type="button" className={button} onClick={() => moveStage(model, 1)} disabled={count === 0} title="Next stage (s)">
          stage ›
        </button>
      </div>
      <p className="text-xs text-slate-700 tabular-nums" data-testid="playhead-position">
        {stepPosition(position, view.steps.length)}
      </p>
      <p className="text-xs text-slate-700 tabular-nums" data-testid="stage-position">
        {count === 0 ? 'no stages' : stageColumn === -1 ? `no stage / ${count}` : stageColumn >= count ? 'closing state' : `stage ${stageColumn + 1} / ${count}`}
      </p>
      <button type="button" className={button} onClick={onHelp} title="Keyboard shortcuts (?); s / S: next / previous stage" aria-label="Keyboard shortcuts">
        ?
      </button>
    </div>
  );
}

const SOURCE_TEXT: Record<StageViewModel['source'], string> = {
  none: 'no stages yet',
  recorded: 'recorded by the system that ran',
  offline: 'derived offline (heuristic)',
  llm: 'derived by the Planner → Evaluator → Updater pass',
  mixed: 'mixed sources',
};

function DerivePanel({ run, model }: { run: Run; model: StageViewModel }) {
  const job = useStagesJob();
  const endpoint = useEngineSettings((s) => s.endpoint);
  const navigate = useUrl((s) => s.navigate);
  const endpointReady = effectiveMode(endpoint) === 'endpoint';
  const mine = job.runId === run.id;
  const recorded = hasRecordedStages(run);
  const partial = llmStages(run);
  const unfinished = partial.length > 0 && !partial.some((s) => s.closing) && !(mine && isActive(job));
  const finished = partial.some((s) => s.closing);
  const progress = job.progress;
  const estimate = useCostEstimate(recorded ? undefined : `${run.id}\u0000${run.steps.length}\u0000${endpoint.maxTokens}`, () => estimateStagesInWorker([run], endpoint.maxTokens));
  const derive = (options: StagesOptions) => void (mine && job.status === 'interrupted' && !options.fresh && options.mode === 'endpoint' ? job.resume() : job.start(run.id, options));

  const actions: ControlAction[] = [
    {
      label: 'Derive offline (heuristic)',
      variant: 'secondary',
      title: 'Segment at manager steps with fixed rules; no model, no tokens',
      onClick: () => {
        // The LLM pass cost tokens: replacing its stages is asked first.
        if (partial.length > 0 && !window.confirm(`Replace the ${plural(partial.length, 'stage')} derived by the LLM pass with offline ones?`)) return;
        derive({ mode: 'offline' });
      },
    },
  ];
  actions.push({
      label: unfinished ? `Resume LLM pass (${plural(partial.length, 'stage')} kept)` : finished ? 'Derive again with endpoint' : 'Derive with endpoint',
      variant: 'primary',
    disabled: !endpointReady,
    title: endpointReady ? `Planner → Evaluator → Updater with “${endpoint.models.supervisor}” at ${endpoint.baseUrl}` : 'Set an endpoint in Engines first',
    onClick: () => derive({ mode: 'endpoint', fresh: finished }),
  });
  if (unfinished) actions.push({ label: 'Start over', variant: 'secondary', disabled: !endpointReady, onClick: () => derive({ mode: 'endpoint', fresh: true }) });

  return (
    <section data-testid="derive-panel" className="space-y-2 rounded border border-slate-200 bg-white p-3 text-sm">
      <EngineControlBar
        testPrefix="stages"
        size="sm"
        job={job}
        mine={mine}
        blocked={recorded}
        leading={
          <>
            <span className="text-xs text-slate-700" data-testid="stage-source" data-source={model.source}>
              Stages: {model.source === 'offline' ? <Badge tone="warning">heuristic</Badge> : model.source === 'llm' ? <Badge tone="info">LLM pass</Badge> : null} {SOURCE_TEXT[model.source]}
              {model.placed.stages.length > 0 && ` · ${plural(model.placed.stages.length, 'stage')}`}
            </span>
            <span className="flex-1" />
          </>
        }
        actions={actions}
        busyElsewhere="Stages are being derived for another run."
        estimate={<CostEstimateLine state={estimate} testId="stages-estimate" note="the LLM pass; offline derivation sends nothing" />}
        progress={
          progress && {
            label: 'Stages derived',
            done: progress.done,
            total: progress.total,
            text: (
              <>
                {progress.done} / {progress.total} stages (closing state included)
                {job.mode === 'endpoint' ? (
                  <>
                    {' '}
                    · {plural(progress.calls, 'call')} in this pass · <span data-testid="stages-tokens">{job.spent.toLocaleString('en')}</span> LLM tokens spent on this run's stages
                  </>
                ) : (
                  ' · offline, no tokens spent'
                )}
              </>
            ),
          }
        }
        failure={{
          title: job.failure ? `The ${job.failure.role} call failed on ${job.failure.stage + 1 >= (progress?.total ?? Infinity) ? 'the closing state' : `stage ${job.failure.stage + 1}`}` : 'Deriving the stages stopped',
          message: job.failure?.message ?? job.error,
          note: job.failure && 'The stages derived before it are kept in the run; fix the cause (endpoint, key, budget) and press Resume.',
        }}
        stopped={`Cancelled: ${plural(partial.length, 'stage')} kept in the run; Resume continues from there.`}
        interrupted={`The page was closed or reloaded while the stages of this run were being derived; ${plural(partial.length, 'stage')} kept. Resume continues from there.`}
      >
        {mine && job.status !== 'running' && job.mode === 'endpoint' && job.cost && <EngineCostView cost={job.cost} testId="stages-cost" />}
        {recorded && <p className="text-xs text-slate-600">This run carries recorded stages; deriving is off so they are not replaced.</p>}
        {!recorded && !endpointReady && (
          <p className="text-xs text-slate-600">
            The LLM pass needs an endpoint and a supervisor model (the stage pass uses that role's model):{' '}
            <button type="button" className="text-indigo-700 underline" onClick={() => navigate('engines', { run: run.id })}>
              set one in Engines
            </button>
            .
          </p>
        )}
        {model.note && <p className="text-xs text-slate-600" data-testid="stage-note">{model.note}</p>}
      </EngineControlBar>
    </section>
  );
}

function StageStrip({ model, current, onPick }: { model: StageViewModel; current: number; onPick: (column: number) => void }) {
  const tone: Record<string, string> = recordOf({ success: 'border-b-emerald-500', 'needs refinement': 'border-b-amber-500', failure: 'border-b-red-500' });
  return (
    <nav aria-label="Stages" className="flex flex-wrap gap-1" data-testid="stage-strip">
      {model.columns.map((st, c) => {
        const active = st.subtasks.find((s) => s.id === st.nextSubtaskId);
        const range = st.closing ? 'after the last stage' : `steps ${model.placed.starts[c] + 1}–${model.placed.ends[c] + 1}`;
        // A stage's outcome is judged in the state that follows it.
        const outcome = model.columns[c + 1]?.verdict;
        return (
          <button
            key={st.id}
            type="button"
            data-testid="stage-chip"
            data-stage={st.id}
            aria-current={c === current ? 'step' : undefined}
            onClick={() => onPick(c)}
            data-outcome={outcome}
            title={`${range}${active ? ` · active: ${active.title}` : ''}${outcome ? ` · outcome: ${outcome}` : ''}`}
            className={`rounded border border-b-4 px-2 py-0.5 text-xs ${tone[outcome ?? ''] ?? 'border-b-slate-300'} ${c === current ? 'border-indigo-500 bg-indigo-50 font-semibold text-indigo-800' : 'border-slate-200 bg-white text-slate-700 hover:bg-slate-50'}`}
          >
            {st.closing ? 'end' : `S${c + 1}`}
          </button>
        );
      })}
    </nav>
  );
}

function CurrentStep({ view, position }: { view: RunView; position: number }) {
  const navigate = useUrl((s) => s.navigate);
  const step = view.steps[position];
  if (!step) return null;
  const agent = view.index.agentById.get(step.agentId)?.name ?? step.agentId;
  return (
    <p className="flex flex-wrap items-center gap-2 text-xs text-slate-700" data-testid="current-step" data-step-id={step.id}>
      <span>
        At the playhead: step {stepNumber(position).toLocaleString('en')} · <span className="font-medium">{agent}</span> · {step.kind}
        {step.name ? ` · “${step.name}”` : ''}
        {step.error ? ' · error' : ''}
      </span>
      <button type="button" className="text-indigo-700 underline" onClick={() => navigate('run', { run: view.run.id, step: step.id })}>
        open in the run view
      </button>
    </p>
  );
}
