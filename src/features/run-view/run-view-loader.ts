// Building the run view of a large run without blocking the page (ADR 0024): the derivations (step tree, loop
// analysis, graph, per-position columns) run as a sliced generator (src/model/slices.ts), a few milliseconds per
// slice, in tasks of at most SLICE_BUDGET_MS that give the browser its thread back in between, so that it can paint
// the progress and take input. Every run whose view is not built yet is built so, small ones too: built within the
// click's task, even a run of 29 steps made it one of 100–170 ms with the panels' first render (ADR 0033). A run
// whose view is built already is shown at once.
import { useEffect, useMemo, useState } from 'react';
import { phase, PROGRESS_MS, runInSlices, SLICE_BUDGET_MS, type SliceStats, type Sliced } from '../../model/slices.ts';
import type { Run } from '../../model/types.ts';
import type { InteractionGraph } from '../../model/graph.ts';
import { cachedRunView, hasTraceView, graphSlices, runViewOf, runViewSlices, stepsIndexSlices, type RunView, type StepsIndex } from './run-view-model.ts';
import { initialTimelineMode, timelineGeometrySlices } from './timeline-geometry.ts';
import { graphInPart, takeTracePart, type TracePart } from './trace-parts.ts';

/**
 * Above this many steps a run is large: its preparing screen shows the progress bar at once (a small run's only if
 * its build outlasts PROGRESS_DELAY_MS), and a line says its panels are being drawn.
 */
export const LARGE_STEPS = 10_000;
/** How long a small run's build goes without a progress bar: most finish within a frame or two, the bar would flicker. */
export const PROGRESS_DELAY_MS = 300;
/**
 * The User Timing entry of the last run view built in slices (read by bench/open-run.bench.ts): its duration is the
 * wall time from the first slice to the view, `detail` the slices' own work and how many tasks they took.
 */
export const RUN_VIEW_BUILD_MEASURE = 'mas-replay:run-view-build';

/** Whether opening `run` shows its view at once (built already) rather than building it in slices. */
export function viewAtOnce(run: Run): boolean {
  return cachedRunView(run) !== undefined || hasTraceView(run);
}

/**
 * The run view built in slices, and with it what its panels' first render would otherwise work out from every step:
 * the timeline's geometry in its opening mode (a task of 50–150 ms at 1M steps in the timeline's first render).
 */
export function* runViewOpeningSlices(run: Run, given?: { steps?: StepsIndex; part?: TracePart; graph?: InteractionGraph }): Sliced<RunView> {
  const view = yield* phase(runViewSlices(run, given), 0, 0.96);
  yield* phase(timelineGeometrySlices(view, initialTimelineMode(view)), 0.96, 1);
  return view;
}

/**
 * A build of a run's view in slices, shared by whoever waits for it: the run page that opened the run, or the library
 * that started it ahead (prepareRunViewAhead) before anyone opened it. `progress` is 0..1; listeners hear of it at
 * most every PROGRESS_MS.
 */
interface Opening {
  view: Promise<RunView | undefined>;
  progress: number;
  listeners: Set<(progress: number) => void>;
  /** Run pages waiting for it: one started by a page is stopped once none waits (the page was left). */
  users: number;
  /** Started ahead of any page (prepareRunViewAhead): it runs to its end, whoever waits. */
  ahead: boolean;
  cancelled: boolean;
}

/** The builds under way, by run: a page opened meanwhile waits for the one started ahead rather than starting its own. */
const openings = new WeakMap<Run, Opening>();

function startOpening(run: Run, ahead: boolean): Opening {
  const opening: Opening = { view: Promise.resolve(undefined), progress: 0, listeners: new Set(), users: 0, ahead, cancelled: false };
  const cancelled = () => opening.cancelled;
  // The bar is drawn again at most every PROGRESS_MS: a render, style and paint per 12 ms slice is work taken from them.
  let shownAt = performance.now();
  const started = shownAt;
  const stats: SliceStats = { tasks: 0, workMs: 0 };
  const progressed = (progress: number) => {
    opening.progress = progress;
    const now = performance.now();
    if (now - shownAt < PROGRESS_MS) return;
    shownAt = now;
    for (const listener of opening.listeners) listener(progress);
  };
  const build = (given?: { steps?: StepsIndex; part?: TracePart; graph?: InteractionGraph }) =>
    runInSlices(runViewOpeningSlices(run, given), progressed, cancelled, SLICE_BUDGET_MS, stats);
  // A run just imported: the import worker computes the trace part of its view while the page takes its steps
  // (trace-parts.ts). The page indexes its own step objects meanwhile (and derives the graph of a run whose part
  // has none), then builds the rest from the part (all of it when none comes).
  const part = takeTracePart(run.steps);
  let fromWorker = false;
  const pageGraph = !graphInPart(run.steps.length);
  const graphOf = (steps: StepsIndex): Promise<InteractionGraph | undefined> =>
    pageGraph ? runInSlices(graphSlices(run, steps), (done) => progressed(0.3 + 0.2 * done), cancelled, SLICE_BUDGET_MS, stats) : Promise.resolve(undefined);
  const fromPart = async (part: Promise<TracePart | undefined>): Promise<RunView | undefined> => {
    const steps = await runInSlices(stepsIndexSlices(run), (done) => progressed((pageGraph ? 0.3 : 0.5) * done), cancelled, SLICE_BUDGET_MS, stats);
    if (steps === undefined || opening.cancelled) return undefined;
    const graph = await graphOf(steps);
    if (opening.cancelled || (pageGraph && graph === undefined)) return undefined;
    const received = await part;
    fromWorker = received !== undefined;
    return opening.cancelled ? undefined : build({ steps, part: received, graph });
  };
  const built = part ? fromPart(part) : build();
  opening.view = built.then(
    (view) => {
      if (openings.get(run) === opening) openings.delete(run);
      if (!view) return undefined;
      try {
        performance.measure(RUN_VIEW_BUILD_MEASURE, { start: started, end: performance.now(), detail: { ...stats, steps: run.steps.length, fromWorker, ahead } });
      } catch {
        // User Timing level 3 missing: the figure is for the bench only.
      }
      return view;
    },
    () => {
      if (openings.get(run) === opening) openings.delete(run);
      return undefined;
    },
  );
  openings.set(run, opening);
  return opening;
}

/**
 * Build the view of `run` now, in slices, before anyone opens it: the library asks this for the run of a file just
 * opened, once the page is idle after listing it (the run a person opens next, most likely). A page that opens the
 * run meanwhile waits for this build; one that opens it after shows it at once. Nothing when it is built or being built.
 */
export function prepareRunViewAhead(run: Run): void {
  if (openings.has(run) || viewAtOnce(run)) return;
  startOpening(run, true);
}

/** Whether a build of `run`'s view is under way (started ahead or by a run page). */
export function runViewBuilding(run: Run): boolean {
  return openings.has(run);
}

/**
 * The run view of `run`: at once when viewAtOnce, else built in slices after the first paint (or the build started
 * ahead, prepareRunViewAhead, waited for), with its progress (0..1) meanwhile. A new run object with the same steps
 * (a label, an engine result) reuses the built trace part at once.
 */
export function useRunView(run: Run): { view: RunView | undefined; progress: number } {
  // Decided once per run: the view is cached before the build's last slices (the timeline's geometry) are done, and
  // a render meanwhile must not take it for a view built already, cancel the build and draw the rest in one task.
  const atOnce = useMemo(() => !openings.has(run) && viewAtOnce(run), [run]);
  const [state, setState] = useState<{ run: Run; view?: RunView; progress: number }>(() => ({ run, progress: openings.get(run)?.progress ?? 0 }));
  useEffect(() => {
    if (atOnce) return;
    let left = false;
    // A build started ahead is joined where it is; a new one is drawn from 0 (its first slice runs in this call).
    const ahead = openings.get(run);
    const opening = ahead ?? startOpening(run, false);
    opening.users++;
    setState({ run, progress: ahead ? ahead.progress : 0 });
    const listener = (progress: number) => setState({ run, progress });
    opening.listeners.add(listener);
    void opening.view.then((view) => {
      if (!left && view) setState({ run, view, progress: 1 });
    });
    return () => {
      left = true;
      opening.listeners.delete(listener);
      opening.users--;
      // Nobody waits for it: stopped, unless it was started ahead (it finishes, and the run opens at once later).
      if (opening.users === 0 && !opening.ahead) {
        opening.cancelled = true;
        if (openings.get(run) === opening) openings.delete(run);
      }
    };
  }, [run, atOnce]);
  if (atOnce) return { view: runViewOf(run), progress: 1 };
  return state.run === run ? { view: state.view, progress: state.progress } : { view: undefined, progress: 0 };
}
