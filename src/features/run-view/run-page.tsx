// The run view (SPEC §4): interaction graph, per-agent timeline, step list, step inspector and token charts, all
// driven by one playhead. The open run comes from the library by the `run` URL param; the step from `step`.
import { memo, useCallback, useEffect, useMemo, useState } from 'react';
import { stepFacts } from '../../model/step-facts.ts';
import { describeStepCounts } from '../../model/steps.ts';
import type { Run } from '../../model/types.ts';
import { useLibrary } from '../../store/library.ts';
import { usePersistence } from '../../store/library-db.ts';
import { SPEEDS, usePlayhead } from '../../store/playhead.ts';
import { useUrl } from '../../store/url.ts';
import { ErrorBoundary } from '../../ui/error-boundary.tsx';
import { Preparing } from '../../ui/preparing.tsx';
import { HelpOverlay } from '../../ui/help-overlay.tsx';
import { useOpeningLinked } from '../library/startup.tsx';
import { LibraryLoading } from '../library/library-loading.tsx';
import { InteractionGraphView } from './interaction-graph.tsx';
import { scoreCounts } from '../../model/annotations.ts';
import { preloadMarkdown } from './message-text.tsx';
import { RunResult } from './run-result.tsx';
import { applyAction, usePlayTimer, useRunKeyboard, useStepInUrl } from './playback.ts';
import type { RunView } from './run-view-model.ts';
import { LARGE_STEPS, PROGRESS_DELAY_MS, useRunView } from './run-view-loader.ts';
import { ScoresPanel } from './scores-panel.tsx';
import { StepInspector } from './step-inspector.tsx';
import { SpanTree } from './span-tree.tsx';
import { StepList } from './step-list.tsx';
import { Timeline } from './timeline.tsx';
import { TokenCharts } from './token-charts.tsx';
import { KEY_BINDINGS } from './keymap.ts';
import { EstimateBadge, ShadowCompareButton } from '../compare/shadow-compare.tsx';
import { LoopPanel, loopCountLabel } from './loop-panel.tsx';
import { formatCount, plural, stepPosition } from '../../ui/format.ts';
import { useLater } from '../../ui/use-later.ts';

export function RunPage() {
  const runId = useUrl((s) => s.params.run);
  const hydrated = useLibrary((s) => s.hydrated);
  const run = useLibrary((s) => (runId !== undefined ? s.runs[runId] : undefined));
  const navigate = useUrl((s) => s.navigate);
  const opening = useOpeningLinked();
  if (run) return <RunOpening run={run} />;
  if (!hydrated || (runId !== undefined && opening)) {
    return (
      <p role="status" data-testid="run-loading" className="p-6 text-sm text-slate-600">
        {hydrated ? 'Opening the files the link names…' : <LibraryLoading />}
      </p>
    );
  }
  return (
    <div data-testid="run-not-found" className="p-6 text-sm">
      <p className="text-slate-800">{runId === undefined ? 'No run is open yet.' : `Run not found: “${runId}”.`}</p>
      <p className="mt-1 text-slate-600">
        {runId === undefined
          ? 'Pick a run in the Library (click its title) to replay it here; open trace files there first if the library is empty.'
          : 'The library does not hold it: it may have been removed, or the link comes from another browser. Open the file that contains it in the Library.'}
      </p>
      <button type="button" className="mt-3 rounded bg-indigo-600 px-3 py-1.5 text-white hover:bg-indigo-700" onClick={() => navigate('library')}>
        Back to the library
      </button>
    </div>
  );
}

/**
 * The span tree, when the run has spans: inline, or kept in IndexedDB (a run opened from a file, ADR 0020), which is
 * known once its write has committed. Its own component, so that news re-renders only this slot.
 */
function SpanTreeSlot({ view }: { view: RunView }) {
  const run = view.run;
  const stored = usePersistence((p) => p.storedSpans.has(run.id));
  if (!(run.spans ? run.spans.length > 0 : stored)) return null;
  return (
    <ErrorBoundary name="span tree" resetKey={run.id}>
      <SpanTree view={view} />
    </ErrorBoundary>
  );
}

/**
 * The run view once its derivations are built, in slices (run-view-loader.ts) so that opening a run, of 30 steps or
 * of 1M, never blocks the page; meanwhile the run's title, and a progress bar for a large run or a slow build.
 */
function RunOpening({ run }: { run: Run }) {
  const { view, progress } = useRunView(run);
  // Counted once per run (by the import worker for a run it handed over; the library's summary reads the same).
  const steps = useMemo(() => stepFacts(run).rows, [run]);
  const slow = useLater(PROGRESS_DELAY_MS, run);
  if (view) return <RunScreen run={run} view={view} />;
  return (
    <div data-testid="run-preparing" className="flex h-full min-h-0 flex-col bg-slate-100">
      <div className="border-b border-slate-200 bg-white px-4 py-2">
        <h2 className="truncate text-sm font-semibold text-slate-900" title={run.title}>
          {run.title}
        </h2>
      </div>
      {(slow || run.steps.length > LARGE_STEPS) && (
        <div className="px-6 py-2">
          <Preparing label={`Preparing the run view of ${plural(steps, 'step')} (loops, graph, timeline)`} progress={progress} />
        </div>
      )}
    </div>
  );
}

function RunScreen({ run, view }: { run: Run; view: RunView }) {
  usePlayTimer();
  const [help, setHelp] = useState(false);
  const [scores, setScores] = useState(false);
  const toggleHelp = useCallback(() => setHelp((h) => !h), []);
  const toggleScores = useCallback(() => setScores((s) => !s), []);
  useRunKeyboard(view, toggleHelp);
  const ready = usePlayhead((s) => s.runId === run.id);
  return (
    <div data-testid="run-view" className="flex h-full min-h-0 flex-col bg-slate-100">
      <Toolbar view={view} onHelp={toggleHelp} scoresOpen={scores} onScores={toggleScores} />
      {scores && (
        <section aria-label="Scores and labels" className="max-h-[40vh] shrink-0 overflow-y-auto border-b border-slate-200 bg-white px-4 py-2">
          <ErrorBoundary name="scores panel" resetKey={run.id}><ScoresPanel view={view} /></ErrorBoundary>
        </section>
      )}
      <StepLink view={view} />
      {view.steps.length === 0 ? (
        <RunResult run={run} />
      ) : (
        ready && <Panels view={view} />
      )}
      {help && <HelpOverlay onClose={toggleHelp} bindings={KEY_BINDINGS} />}
    </div>
  );
}

/**
 * The step in the URL, kept in step with the playhead, and the notice when the link names a step the run does not
 * have. A component of its own: the URL is written after each move, and only this has to render again then.
 */
function StepLink({ view }: { view: RunView }) {
  const missingStep = useStepInUrl(view);
  if (missingStep === undefined) return null;
  return (
    <p role="alert" className="border-b border-amber-200 bg-amber-50 px-4 py-1 text-xs text-amber-900">
      The link names step “{missingStep}”, which this run does not have; showing the first step instead.
    </p>
  );
}

/**
 * The views of the open run. Memoised: opening the scores or the help, or a URL write, does not render them again.
 * What a playhead move never changes but is costly to paint (the graph, the token bars, the loop panel: ~2,800
 * elements) each have a compositing layer (`will-change-transform`), so a move does not paint them again: in an A/B
 * trace of key presses on 100k steps (bench/profile-view.ts), Paint and PrePaint fell from 3.6 to 2.3 ms per press.
 * Layers for the inspector and the step list too gave nothing measurable (more layerize and commit work).
 */
const Panels = memo(function Panels({ view }: { view: RunView }) {
  const { run } = view;
  const stage = usePanelStage();
  return (
    <div className="grid min-h-0 flex-1 grid-cols-[minmax(16rem,24rem)_minmax(0,1fr)_minmax(20rem,28rem)] gap-2 p-2">
      <ErrorBoundary name="step list" resetKey={run.id}><StepList view={view} /></ErrorBoundary>
      <div className="flex min-h-0 flex-col gap-2 overflow-y-auto pr-1">
        {stage >= Stage.Graph && <ErrorBoundary name="interaction graph" resetKey={run.id}><InteractionGraphView view={view} /></ErrorBoundary>}
        {stage >= Stage.Timeline && <ErrorBoundary name="timeline" resetKey={run.id}><Timeline view={view} /></ErrorBoundary>}
        {stage >= Stage.Charts && <ErrorBoundary name="token charts" resetKey={run.id}><TokenCharts view={view} /></ErrorBoundary>}
        {stage >= Stage.All && <SpanTreeSlot view={view} />}
        {/* Said for a large run only: a small run's panels follow within a few frames, the line would only flicker. */}
        {stage < Stage.All && view.steps.length > LARGE_STEPS && (
          <p role="status" data-testid="panels-drawing" className="rounded border border-slate-200 bg-white p-4 text-sm text-slate-600">
            Drawing {STILL_DRAWN[stage]}…
          </p>
        )}
      </div>
      <div className="flex min-h-0 flex-col gap-2">
        {stage >= Stage.All && <ErrorBoundary name="loop panel" resetKey={run.id}><LoopPanel view={view} /></ErrorBoundary>}
        <div data-testid="inspector-panel" className="min-h-0 flex-1 overflow-y-auto rounded border border-slate-200 bg-white [contain:strict]">
          <ErrorBoundary name="step inspector" resetKey={run.id}><StepInspector view={view} /></ErrorBoundary>
        </div>
      </div>
    </div>
  );
});

/** The panels drawn so far: each stage adds the panels named, after the ones before it. */
const Stage = { ListAndInspector: 0, Graph: 1, Timeline: 2, Charts: 3, All: 4 } as const;

/** What a large run's status line says is still to come, at each stage before the last (the panels already drawn are not named). */
const STILL_DRAWN = ['the graph, the timeline and the token charts', 'the timeline and the token charts', 'the token charts', 'the loop panel'];

/**
 * Which panels render: the step list and the inspector first, then the graph, the timeline, the token charts, and the
 * loop panel with the span tree, each in the task after the one before is painted. Drawn in one task they were one of
 * 300–550 ms at 1M steps, and of 160–180 ms even for a run of a few dozen steps (style and layout of its ~700
 * elements at once, each panel measuring its width); staged, a small run's panels appear within a few frames.
 * Once all are drawn, the markdown renderer is fetched ahead of the first text that needs it (message-text.tsx).
 */
function usePanelStage(): number {
  const [stage, setStage] = useState<number>(Stage.ListAndInspector);
  useEffect(() => {
    if (stage >= Stage.All) {
      preloadMarkdown();
      return;
    }
    let live = true;
    requestAnimationFrame(() => setTimeout(() => live && setStage((s) => s + 1), 0));
    return () => {
      live = false;
    };
  }, [stage]);
  return stage;
}

function Toolbar({ view, onHelp, scoresOpen, onScores }: { view: RunView; onHelp: () => void; scoresOpen: boolean; onScores: () => void }) {
  const playing = usePlayhead((s) => s.playing);
  const speed = usePlayhead((s) => s.speed);
  const setSpeed = usePlayhead((s) => s.setSpeed);
  const { run } = view;
  const outcome = run.outcome.status;
  const scoreCount = useMemo(() => scoreCounts(run), [run]);
  // Counted with the view's other columns (run-view-model.ts), not on each render of the toolbar (play, speed).
  const stepCounts = useMemo(() => describeStepCounts(view.stepKinds), [view]);
  const button = 'rounded border border-slate-300 bg-white px-2 py-0.5 text-sm hover:bg-slate-50 disabled:opacity-40';
  // A run without steps (a benchmark's result line) has nothing to move through: the transport is shown, disabled.
  const empty = view.steps.length === 0;
  return (
    <div className="flex flex-wrap items-center gap-x-4 gap-y-1 border-b border-slate-200 bg-white px-4 py-2">
      <div className="min-w-0 flex-1">
        <h2 className="truncate text-sm font-semibold text-slate-900" title={run.title}>
          {run.title}
          {run.simulated && <span className="ml-2 rounded bg-amber-100 px-1.5 text-[11px] font-medium text-amber-900">simulated</span>}
        </h2>
        <ShadowLine run={run} />
        <p className="truncate text-xs text-slate-500" title={run.task}>
          {run.sourceFormat}
          {run.framework && ` · ${run.framework}`} ·{' '}
          <span data-testid="run-step-counts" data-steps={view.steps.length}>
            {stepCounts}
          </span>{' '}
          · {plural(run.agents.length, 'agent')} · outcome{' '}
          <span className={outcome === 'success' ? 'text-emerald-700' : outcome === 'failure' ? 'text-red-700' : ''}>{outcome}</span>
          {view.loops.length > 0 && <span data-testid="loop-count"> · {loopCountLabel(view.loops)}</span>}
          {view.errorPositions.length > 0 && ` · ${plural(view.errorPositions.length, 'step')} with errors`}
          {run.orphanSpans > 0 && ` · ${plural(run.orphanSpans, 'orphan span')}`}
          {run.task && ` · ${run.task}`}
        </p>
      </div>
      <div className="flex items-center gap-1" role="group" aria-label="Playback">
        <button type="button" className={button} onClick={() => applyAction('first', view)} title="First step (Home)" aria-label="First step" disabled={empty}>
          <Icon d="M3 2v12M13 2 6 8l7 6z" />
        </button>
        <button type="button" className={button} onClick={() => applyAction('prev', view)} title="Previous step (← or k)" aria-label="Previous step" disabled={empty}>
          <Icon d="M12 2 4 8l8 6z" />
        </button>
        <button
          type="button"
          className={`${button} w-16`}
          data-testid="play-toggle"
          disabled={empty}
          onClick={() => applyAction('toggle-play', view)}
          title="Play / pause (space)"
        >
          {playing ? 'Pause' : 'Play'}
        </button>
        <button type="button" className={button} onClick={() => applyAction('next', view)} title="Next step (→ or j)" aria-label="Next step" disabled={empty}>
          <Icon d="M4 2l8 6-8 6z" />
        </button>
        <button type="button" className={button} onClick={() => applyAction('last', view)} title="Last step (End)" aria-label="Last step" disabled={empty}>
          <Icon d="M13 2v12M3 2l7 6-7 6z" />
        </button>
        <label className="ml-2 flex items-center gap-1 text-xs text-slate-600">
          speed
          <select className="rounded border border-slate-300 bg-white px-1 py-0.5 text-xs disabled:opacity-40" disabled={empty} value={speed} onChange={(e) => setSpeed(Number(e.target.value))}>
            {SPEEDS.map((s) => (
              <option key={s} value={s}>
                {s} steps/s
              </option>
            ))}
          </select>
        </label>
      </div>
      <PositionLabel length={view.steps.length} />
      <div className="flex items-center gap-1">
        <button type="button" className={button} onClick={() => applyAction('next-error', view)} disabled={view.errorPositions.length === 0} title="Next error (e)">
          error ›
        </button>
        <button type="button" className={button} onClick={() => applyAction('next-annotation', view)} disabled={view.annotationPositions.length === 0} title="Next annotation (a)">
          label ›
        </button>
        <button type="button" className={button} onClick={() => applyAction('next-loop', view)} disabled={view.loopPositions.length === 0} title="Next repeated call (l)">
          loop ›
        </button>
        <button
          type="button"
          className={`${button} ${scoresOpen ? 'bg-indigo-50' : ''}`}
          onClick={onScores}
          aria-expanded={scoresOpen}
          title="Every score and label of the run, with its source and value"
          data-testid="scores-toggle"
        >
          scores &amp; labels ({scoreCount.scores + scoreCount.labels})
        </button>
        <button type="button" className={button} onClick={onHelp} title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts">
          ?
        </button>
      </div>
    </div>
  );
}

/** Issue 15: a derived run says so (with its source); a recorded run offers its supervised estimate. */
function ShadowLine({ run }: { run: Run }) {
  if (run.derived) return <EstimateBadge run={run} />;
  return <ShadowCompareButton run={run} />;
}

function Icon({ d }: { d: string }) {
  return (
    <svg width="12" height="12" viewBox="0 0 16 16" aria-hidden className="inline-block align-[-1px]">
      <path d={d} fill="currentColor" stroke="currentColor" strokeWidth="1.5" strokeLinejoin="round" />
    </svg>
  );
}

/**
 * "step n / N". Its box has a fixed width (the longest label, in `ch` of tabular digits) and an opaque background, so a
 * move repaints it in place: a box whose width followed the text changed the page's paint chunks, and the toolbar's
 * flex row around it, which made Chromium re-layerize the whole page on every move (issue 14 goal 3).
 */
function PositionLabel({ length }: { length: number }) {
  const position = usePlayhead((s) => s.position);
  const total = useMemo(() => formatCount(length), [length]);
  // "step " + the widest n (as wide as N) + " / " + N; "no steps" fits in that for N = 0.
  const widthCh = 5 + 2 * total.length + 3;
  return (
    <p className="shrink-0 bg-white text-xs whitespace-nowrap text-slate-700 tabular-nums" style={{ width: `${widthCh}ch` }} data-testid="playhead-position">
      {stepPosition(position, length)}
    </p>
  );
}
