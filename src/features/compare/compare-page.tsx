// The compare view (SPEC §4 Compare, §1 job 2): two runs side by side under one playhead. Deep link:
// ?view=compare&a=<runId>&b=<runId>&step=<n>&align=index|lcs — `step` is the 1-based aligned row, like `?step=` everywhere.
import { useEffect, useMemo } from 'react';
import type { Run } from '../../model/types.ts';
import { ownValue } from '../../model/record.ts';
import { stepNumber } from '../../model/steps.ts';
import { useLibrary } from '../../store/library.ts';
import { useUrl } from '../../store/url.ts';
import { OutcomeBadge, SimulatedBadge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { useOpeningLinked } from '../library/startup.tsx';
import { AlignedList } from './aligned-list.tsx';
import { AlignmentStrip } from './alignment-strip.tsx';
import { alignSlices, compareFigures, compareRunSlices, compareStep, rowAt, type Alignment, type AlignMode, type CompareRun } from './compare-model.ts';
import { phase, type Sliced } from '../../model/slices.ts';
import { useSliced, type SlicedValue } from '../../ui/use-sliced.ts';
import { Preparing } from '../../ui/preparing.tsx';
import { count, RUN_COLOR } from './compare-colors.ts';
import { StepDiff } from './step-diff.tsx';
import { TokenOverlay } from './token-overlay.tsx';
import { canShadow, EstimateBadge, ShadowCompareButton } from './shadow-compare.tsx';
import { ErrorBoundary } from '../../ui/error-boundary.tsx';
import { LibraryLoading } from '../library/library-loading.tsx';

const compared = new WeakMap<Run, CompareRun>();
/** Pairs with fewer steps in all are worked out within the render (a few milliseconds); larger ones a slice at a time. */
const SLICED_FROM = 20_000;

interface Comparison {
  a: CompareRun;
  b: CompareRun;
  alignment: Alignment;
}

/** Both runs as Compare shows them (each kept per run object), and their alignment. */
function* comparisonSlices(runA: Run, runB: Run, mode: AlignMode): Sliced<Comparison> {
  const side = function* (run: Run, from: number, to: number): Sliced<CompareRun> {
    let c = compared.get(run);
    if (!c) compared.set(run, (c = yield* phase(compareRunSlices(run), from, to)));
    return c;
  };
  const a = yield* side(runA, 0, 0.4);
  const b = yield* side(runB, 0.4, 0.8);
  return { a, b, alignment: yield* phase(alignSlices(a, b, mode), 0.8, 1) };
}

/**
 * What Compare shows of two runs: within the render when they are small, else built in slices after the first paint,
 * with its progress (0..1) meanwhile. Two 200k-message runs held the page ~800 ms in one render.
 */
function useComparison(runA: Run | undefined, runB: Run | undefined, mode: AlignMode): SlicedValue<Comparison> {
  const small = runA !== undefined && runB !== undefined && runA.steps.length + runB.steps.length < SLICED_FROM;
  return useSliced(runA && runB && (() => comparisonSlices(runA, runB, mode)), [runA, runB, mode], small);
}

/** The same task's run in the other arm (by the `task` tag, else the task text), for a one-click pair. */
export function counterpart(run: Run, runs: Run[]): Run | undefined {
  const key = (r: Run) => r.tags.task ?? r.task;
  const k = key(run);
  if (!k) return undefined;
  return runs.find((r) => r.id !== run.id && key(r) === k && (r.tags.arm ?? 'baseline') !== (run.tags.arm ?? 'baseline'));
}

function signedCount(n: number): string {
  return `${n > 0 ? '+' : n < 0 ? '−' : '±'}${count(Math.abs(n))}`;
}
function signedPercent(from: number, to: number): string {
  if (from === 0) return '';
  const p = ((to - from) / from) * 100;
  return ` (${p > 0 ? '+' : p < 0 ? '−' : '±'}${Math.abs(p).toFixed(1)}%)`;
}

/** A figure of A and of B and their difference; `approx`: the side's figure holds tokens a tokenizer counted (≈). */
function Delta({ label, a, b, testId, percent, n, approx }: { label: string; a: number; b: number; testId: string; percent?: boolean; n?: string; approx?: { a: boolean; b: boolean } }) {
  const d = b - a;
  const mark = (side: 'a' | 'b') => (approx?.[side] ? '≈' : '');
  const why = (side: 'a' | 'b') => (approx?.[side] ? 'some counted by a tokenizer (the trace recorded no usage for them)' : undefined);
  return (
    <div className="rounded border border-slate-200 bg-white px-2 py-1" data-testid={testId}>
      <div className="text-[11px] text-slate-500 uppercase">
        {label}
        {n && <span className="ml-1 normal-case" data-testid={`${testId}-n`}>{n}</span>}
      </div>
      <div className="text-sm tabular-nums">
        <span style={{ color: RUN_COLOR.a }} title={why('a')}>{mark('a')}{count(a)}</span> →{' '}
        <span style={{ color: RUN_COLOR.b }} title={why('b')}>{mark('b')}{count(b)}</span>{' '}
        <span className={d < 0 ? 'text-emerald-700' : d > 0 ? 'text-red-700' : 'text-slate-500'}>
          {signedCount(d)}
          {percent && signedPercent(a, b)}
        </span>
      </div>
    </div>
  );
}

function RunPicker({ side, value, runs, onChange }: { side: 'a' | 'b'; value: string; runs: Run[]; onChange(id: string): void }) {
  return (
    <label className="flex min-w-0 flex-1 flex-col text-xs font-semibold" style={{ color: RUN_COLOR[side] }}>
      Run {side.toUpperCase()}
      <select className="mt-0.5 w-full rounded border border-slate-300 bg-white px-1.5 py-1 text-sm font-normal text-slate-900" value={value} onChange={(e) => onChange(e.target.value)} aria-label={`Run ${side.toUpperCase()}`}>
        <option value="">choose a run…</option>
        {runs.map((r) => (
          <option key={r.id} value={r.id}>{r.title || r.id}{r.tags.arm ? ` [${r.tags.arm}]` : ''}</option>
        ))}
      </select>
    </label>
  );
}

export function ComparePage() {
  const storeRuns = useLibrary((s) => s.runs);
  const hydrated = useLibrary((s) => s.hydrated);
  const opening = useOpeningLinked();
  const params = useUrl((s) => s.params);
  const setParams = useUrl((s) => s.setParams);
  const runs = useMemo(() => Object.values(storeRuns).sort((x, y) => (x.title || x.id).localeCompare(y.title || y.id, 'en', { numeric: true })), [storeRuns]);
  const runA = params.a ? ownValue(storeRuns, params.a) : undefined;
  const runB = params.b ? ownValue(storeRuns, params.b) : undefined;
  const mode: AlignMode = params.align === 'index' ? 'index' : 'lcs';
  const { value: comparison, progress } = useComparison(runA, runB, mode);
  const a = comparison?.a;
  const b = comparison?.b;
  const figures = useMemo(() => (a && b ? compareFigures(a, b) : undefined), [a, b]);
  const approx = useMemo(() => (a && b ? { a: a.estimated, b: b.estimated } : undefined), [a, b]);
  const figuresN = figures && (figures.stops.length > 0 ? `steps 1–${count(figures.n.a)} of each` : `n = ${count(figures.n.a)} / ${count(figures.n.b)} steps`);
  const alignment = comparison?.alignment;
  const last = alignment ? Math.max(0, alignment.rows.length - 1) : 0;
  // The link names the row by its 1-based number (stepNumber), as every view's ?step= does.
  const requested = Number.parseInt(params.step ?? '1', 10) - 1;
  const row = Number.isFinite(requested) ? Math.max(0, Math.min(last, requested)) : 0;
  const setRow = (r: number) => setParams({ step: String(stepNumber(Math.max(0, Math.min(last, r)))) });

  useEffect(() => {
    if (!alignment) return;
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA' || target.isContentEditable)) return;
      const moves: Record<string, number> = { ArrowRight: row + 1, j: row + 1, ArrowLeft: row - 1, k: row - 1, Home: 0, End: last };
      if (e.key in moves) {
        e.preventDefault();
        setParams({ step: String(stepNumber(Math.max(0, Math.min(last, moves[e.key])))) });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [alignment, row, last, setParams]);

  const missing = [params.a && !runA ? params.a : null, params.b && !runB ? params.b : null].filter(Boolean);
  const pair = runA && !params.b ? counterpart(runA, runs) : undefined;
  const current = alignment && rowAt(alignment.rows, row);

  return (
    <div className="mx-auto flex max-w-[1400px] flex-col gap-3 p-4" data-testid="compare-page">
      <div className="flex flex-wrap items-end gap-3">
        <RunPicker side="a" value={runA ? runA.id : ''} runs={runs} onChange={(id) => setParams({ a: id || undefined, step: '1' })} />
        <Button onClick={() => setParams({ a: params.b, b: params.a, step: '1' })} disabled={!params.a && !params.b} aria-label="Swap A and B">⇄</Button>
        <RunPicker side="b" value={runB ? runB.id : ''} runs={runs} onChange={(id) => setParams({ b: id || undefined, step: '1' })} />
        <label className="flex flex-col text-xs text-slate-600">
          Align
          <select className="rounded border border-slate-300 bg-white px-1.5 py-1 text-sm" value={mode} onChange={(e) => setParams({ align: e.target.value, step: '1' })} aria-label="Alignment mode">
            <option value="lcs">by matching steps (agent + action)</option>
            <option value="index">by step index</option>
          </select>
        </label>
      </div>
      {((pair && !pair.derived) || (runA && !params.b && canShadow(runA))) && (
        <p className="flex flex-wrap gap-2 text-sm">
          {pair && !pair.derived && <Button size="sm" onClick={() => setParams({ b: pair.id, step: '1' })}>Compare with its {pair.tags.arm ?? 'baseline'} run</Button>}
          {runA && !params.b && <ShadowCompareButton run={runA} />}
        </p>
      )}
      {missing.length > 0 && hydrated && opening && (
        <p role="status" className="text-sm text-slate-600" data-testid="compare-opening">
          Opening the files the link names…
        </p>
      )}
      {missing.length > 0 && hydrated && !opening && (
        <p className="rounded border border-amber-200 bg-amber-50 p-2 text-sm text-amber-900" role="alert">
          The link names {missing.map((m) => `“${m}”`).join(' and ')}, which the library does not hold. Open the file that contains it, or choose another run.
        </p>
      )}
      {runs.length === 0 && !opening && <p className="text-sm text-slate-600">{hydrated ? 'No runs in the library yet: open trace files in the Library first.' : <LibraryLoading fallback="Reading the library…" />}</p>}
      {runs.length > 0 && !params.a && !params.b && (
        <div className="rounded-lg border-2 border-dashed border-slate-300 p-6 text-sm text-slate-600" data-testid="compare-empty">
          <p className="font-medium text-slate-800">Choose two runs to compare, A and B.</p>
          <p className="mt-1">
            Pick them above, or in the Library tick two runs and press “Open in Compare”. Steps are aligned by agent and
            action (or by index), with the token, step and outcome differences at the top.
          </p>
        </div>
      )}
      {runs.length > 0 && (params.a || params.b) && !(runA && runB) && missing.length === 0 && (
        <p className="text-sm text-slate-600" data-testid="compare-one-more">Now choose run {runA ? 'B' : 'A'} to compare with.</p>
      )}
      {runA && runB && !(a && b) && (
        <Preparing label={`Lining up ${count(runA.steps.length + runB.steps.length)} steps of A and B (tokens, interventions, matching actions)`} progress={progress} testId="compare-preparing" />
      )}
      {a && b && alignment && figures && (
        <>
          <header className="flex flex-wrap gap-2" data-testid="compare-deltas">
            <div className="flex min-w-0 flex-col gap-1 text-xs">
              {([['a', a], ['b', b]] as const).map(([side, c]) => (
                <div key={side} className="flex items-center gap-1">
                  <span className="font-semibold" style={{ color: RUN_COLOR[side] }}>{side.toUpperCase()}</span>
                  <span className="max-w-[28rem] truncate" title={c.run.title}>{c.run.title || c.run.id}</span>
                  {c.run.simulated && <SimulatedBadge />}
                  <EstimateBadge run={c.run} />
                  <OutcomeBadge outcome={c.run.outcome.status} />
                </div>
              ))}
            </div>
            <Delta label="Tokens" a={figures.tokens.a} b={figures.tokens.b} testId="delta-tokens" percent n={figuresN} approx={approx} />
            <Delta label="Tokens + overhead" a={figures.net.a} b={figures.net.b} testId="delta-net" percent n={figuresN} approx={approx} />
            {figures.stops.length > 0 ? (
              <div className="rounded border border-slate-200 bg-white px-2 py-1" data-testid="delta-full">
                <div className="text-[11px] text-slate-500 uppercase">Full runs (not a difference)</div>
                <div className="text-sm text-slate-700 tabular-nums">
                  <span style={{ color: RUN_COLOR.a }}>A</span> {count(figures.full.a.steps)} steps · {count(figures.full.a.tokens)} tokens;{' '}
                  <span style={{ color: RUN_COLOR.b }}>B</span> {count(figures.full.b.steps)} steps · {count(figures.full.b.tokens)} tokens
                </div>
              </div>
            ) : (
              <Delta label="Steps" a={a.units.length} b={b.units.length} testId="delta-steps" />
            )}
            <Delta label="Agents" a={a.agents} b={b.agents} testId="delta-agents" />
            <Delta label="Interventions" a={a.run.interventions.length} b={b.run.interventions.length} testId="delta-interventions" />
            <div className="rounded border border-slate-200 bg-white px-2 py-1" data-testid="delta-outcome">
              <div className="text-[11px] text-slate-500 uppercase">Outcome</div>
              <div className="text-sm">
                {a.run.outcome.status} → {b.run.outcome.status}
                {a.run.outcome.status !== b.run.outcome.status && <span className="ml-1 font-semibold text-amber-700">changed</span>}
              </div>
            </div>
          </header>
          {figures.stops.length > 0 && (
            <p className="rounded border border-amber-200 bg-amber-50 p-2 text-sm text-amber-900" role="status" data-testid="compare-early-stop">
              {figures.stops.map((stop) => `${stop.side.toUpperCase()} ${stop.label}`).join('. ')}. It made {count(figures.n.a)} steps, so the token figures above compare steps 1–{count(figures.n.a)} of both runs — what both did — and are not a saving of the steps it never made.
            </p>
          )}
          {(a.run.derived || b.run.derived) && (
            <p className="text-xs text-amber-800" data-testid="compare-estimate-note">
              {b.run.derived ? 'B' : 'A'} is a shadow-supervised estimate: the supervisor's verdicts applied to the recorded run by{' '}
              {(b.run.derived ?? a.run.derived)!.method === 'endpoint' ? "the endpoint's recorded answers" : 'the LLM-free heuristics'}; its token figures are
              counterfactual estimates (SPEC §5.1) and its outcome is unknown, so the deltas above compare a measurement with an estimate.
            </p>
          )}
          {alignment.fallback && <p className="text-sm text-amber-800">{alignment.fallback}</p>}
          <div className="flex items-center gap-2 text-sm">
            <Button size="sm" onClick={() => setRow(0)} aria-label="First row">«</Button>
            <Button size="sm" onClick={() => setRow(row - 1)} aria-label="Previous row" title="Previous (← or k)">◀</Button>
            <input type="range" min={0} max={last} value={row} onChange={(e) => setRow(Number(e.target.value))} className="w-64" aria-label="Playhead" />
            <Button size="sm" onClick={() => setRow(row + 1)} aria-label="Next row" title="Next (→ or j)">▶</Button>
            <Button size="sm" onClick={() => setRow(last)} aria-label="Last row">»</Button>
            <span className="tabular-nums text-slate-700" data-testid="compare-position">
              row {count(row + 1)} / {count(alignment.rows.length)} · A step {current?.a !== null && current?.a !== undefined ? count(current.a + 1) : '—'} · B step{' '}
              {current?.b !== null && current?.b !== undefined ? count(current.b + 1) : '—'}
            </span>
            <span className="text-xs text-slate-500">{count(alignment.matched)} matched steps</span>
          </div>
          <ErrorBoundary name="alignment strip" resetKey={`${a.run.id} ${b.run.id}`}><AlignmentStrip a={a} b={b} alignment={alignment} row={row} onRow={setRow} /></ErrorBoundary>
          <ErrorBoundary name="token overlay" resetKey={`${a.run.id} ${b.run.id}`}><TokenOverlay a={a} b={b} alignment={alignment} row={row} onRow={setRow} /></ErrorBoundary>
          <div className="grid gap-3 xl:grid-cols-2">
            <ErrorBoundary name="aligned step list" resetKey={`${a.run.id} ${b.run.id}`}><AlignedList a={a} b={b} alignment={alignment} row={row} onRow={setRow} /></ErrorBoundary>
            <ErrorBoundary name="step comparison" resetKey={`${a.run.id} ${b.run.id}`}>
              <StepDiff
                a={current?.a != null ? compareStep(a, current.a) : null}
                b={current?.b != null ? compareStep(b, current.b) : null}
                aLabel={`A · ${a.run.title || a.run.id}`}
                bLabel={`B · ${b.run.title || b.run.id}`}
              />
            </ErrorBoundary>
          </div>
        </>
      )}
    </div>
  );
}
