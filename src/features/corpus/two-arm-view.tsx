// The corpus of recorded runs in two arms (issue 15, SPEC §1 job 2): the recorded runs are the baseline arm
// (measured) and their shadow-supervised runs the estimate arm (counterfactual). Violins, spread and net tokens over
// those two arms, each figure saying which arm is measured and which estimated, with its n. Simulated runs are a
// third group shown apart, never pooled with recorded ones. Each pair opens in Compare.
import { useMemo, useState } from 'react';
import { twoArmCorpus, type ArmFigures, type Figure } from '../../model/two-arms.ts';
import type { Run } from '../../model/types.ts';
import { useLibrary } from '../../store/library.ts';
import { useUrl } from '../../store/url.ts';
import { Badge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { pct, tokens } from '../../ui/chart/chart-style.ts';
import { deriveShadowRun } from '../compare/shadow-compare.tsx';
import { GroupTable } from './group-table.tsx';
import { VarianceChart } from './variance-chart.tsx';
import { ViolinChart } from './violin-chart.tsx';
import { ErrorBoundary } from '../../ui/error-boundary.tsx';

export const TWO_ARM_LABELS = { baseline: 'Baseline · measured', supervised: 'Supervised · estimated' } as const;

function Basis({ figure }: { figure: Figure }) {
  return (
    <span className={`ml-1 text-[10px] ${figure.basis === 'measured' ? 'text-emerald-700' : 'text-amber-700'}`} data-testid="figure-basis">
      {figure.basis} · n={figure.n}
    </span>
  );
}

function ArmCard({ figures }: { figures: ArmFigures }) {
  const measured = figures.arm === 'baseline';
  const row = (label: string, f: Figure, format = tokens) => (
    <div className="flex items-baseline justify-between gap-2">
      <dt className="text-slate-600">{label}</dt>
      <dd className="tabular-nums">
        {format(f.value)}
        <Basis figure={f} />
      </dd>
    </div>
  );
  return (
    <section className="rounded border border-slate-200 bg-white p-3 text-sm" data-testid={`arm-${figures.arm}`} aria-label={`${figures.arm} arm`}>
      <h3 className="mb-1 flex items-center gap-2 font-semibold text-slate-900">
        {measured ? 'Baseline arm: recorded runs' : 'Estimate arm: their shadow-supervised runs'}
        <Badge tone={measured ? 'success' : 'warning'}>{measured ? 'measured' : 'estimated'}</Badge>
        <span className="text-xs font-normal text-slate-500">n = {figures.n}</span>
      </h3>
      <dl className="space-y-0.5">
        {row('mean tokens per task', figures.meanTokens)}
        {row('standard deviation', figures.std)}
        {row('mean supervisor overhead', figures.meanOverhead)}
        {row('mean net tokens (tokens + overhead)', figures.meanNetTokens)}
      </dl>
      {figures.notes.map((n) => (
        <p key={n} className="mt-1 text-xs text-amber-800">{n}</p>
      ))}
    </section>
  );
}

export function TwoArmView({ runs, groupBy, onLogScale }: { runs: Run[]; groupBy: string; onLogScale(log: boolean): void }) {
  const navigate = useUrl((s) => s.navigate);
  // Result-only runs (benchmark lines without steps) have no tokens to compare: they belong to the result view.
  const withSteps = useMemo(() => runs.filter((r) => r.steps.length > 0), [runs]);
  const resultOnly = runs.length - withSteps.length;
  const corpus = useMemo(() => twoArmCorpus(withSteps, groupBy), [withSteps, groupBy]);
  const [deriving, setDeriving] = useState<{ done: number; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pairs = useMemo(() => corpus.rows.filter((r) => r.shadowOf), [corpus]);

  const missing = corpus.withoutEstimate;
  const deriveMissing = async () => {
    const ids = missing;
    setError(null);
    setDeriving({ done: 0, total: ids.length });
    for (const [i, id] of ids.entries()) {
      const run = useLibrary.getState().runs[id];
      if (run) {
        try {
          await deriveShadowRun(run);
        } catch (e) {
          setError(`${run.title || id}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      setDeriving({ done: i + 1, total: ids.length });
    }
    setDeriving(null);
  };

  return (
    <div className="flex flex-col gap-3" data-testid="two-arm-view">
      <p className="text-xs text-slate-600">
        Recorded runs (no <code>arm</code> tag or <code>arm=baseline</code>) are the baseline arm, measured as recorded. Their shadow-supervised runs are the
        estimate arm: the supervisor replayed on the recorded steps, tokens re-estimated by the counterfactual rule (SPEC §5.1) — an estimate, never a
        measurement, with no outcome. {corpus.otherRecorded > 0 && `${corpus.otherRecorded} recorded run(s) tagged with another arm are left out. `}
        {resultOnly > 0 && `${resultOnly} run(s) without steps (benchmark results only) are left to the Result corpora view. `}
        {corpus.withoutEstimate.length > 0 && `${corpus.withoutEstimate.length} recorded run(s) have no estimate yet: they count in the baseline arm only.`}
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <Button onClick={() => void deriveMissing()} disabled={deriving !== null || missing.length === 0} data-testid="derive-missing">
          {deriving ? `Deriving ${deriving.done}/${deriving.total}…` : `Derive the estimate of ${missing.length} recorded run${missing.length === 1 ? '' : 's'} without one`}
        </Button>
        <span className="text-xs text-slate-500">offline, LLM-free heuristics; endpoint verdicts already recorded on a run are reused</span>
        {error && <span role="alert" className="text-xs text-red-700">could not derive {error}</span>}
      </div>
      <div className="grid gap-3 md:grid-cols-3">
        <ArmCard figures={corpus.baseline} />
        <ArmCard figures={corpus.estimate} />
        <section className="rounded border border-slate-200 bg-white p-3 text-sm" data-testid="net-saving" aria-label="Net saving">
          <h3 className="mb-1 flex items-center gap-2 font-semibold text-slate-900">
            Net tokens saved per task <Badge tone="warning">estimated</Badge>
          </h3>
          <p className="tabular-nums">
            {tokens(corpus.netSaving.value)} ({pct(corpus.netSavingPct.value)}) <Basis figure={corpus.netSaving} />
          </p>
          <p className="mt-1 text-xs text-slate-600">
            Over the {corpus.netSaving.n} pairs: recorded tokens + overhead (measured) − estimated tokens − supervisor overhead; positive is a saving.
          </p>
        </section>
      </div>
      {corpus.rows.length > 0 && (
        <section className="grid gap-3 xl:grid-cols-2" aria-label="Two-arm charts">
          <ErrorBoundary name="violin chart"><ViolinChart stats={corpus.statistics} onLogScale={onLogScale} armLabels={TWO_ARM_LABELS} /></ErrorBoundary>
          <ErrorBoundary name="variance chart"><VarianceChart stats={corpus.statistics} armLabels={TWO_ARM_LABELS} /></ErrorBoundary>
          <div className="xl:col-span-2">
            <ErrorBoundary name="group table"><GroupTable stats={corpus.statistics} /></ErrorBoundary>
            <p className="mt-1 text-xs text-slate-500">In this table the supervised columns are the estimate arm (estimated; its outcomes are unknown).</p>
          </div>
        </section>
      )}
      <section className="rounded border border-slate-200 bg-white p-3 text-sm" aria-label="Pairs">
        <h3 className="mb-1 font-semibold text-slate-900">Pairs ({pairs.length})</h3>
        {pairs.length === 0 && <p className="text-slate-600">No recorded run has its estimate yet.</p>}
        <ul className="max-h-64 space-y-0.5 overflow-auto">
          {pairs.map((r) => (
            <li key={r.id} className="flex items-center gap-2" data-testid="two-arm-pair">
              <Button size="sm" onClick={() => navigate('compare', { a: r.shadowOf!, b: r.id })}>Compare</Button>
              <span className="truncate">{r.title}</span>
              <Badge tone="warning">estimate</Badge>
            </li>
          ))}
        </ul>
      </section>
      <section className="rounded border border-fuchsia-200 bg-fuchsia-50/40 p-3 text-sm" data-testid="simulated-group" aria-label="Simulated runs">
        <h3 className="font-semibold text-slate-900">Simulated runs: a third group, not pooled</h3>
        {corpus.simulated ? (
          <p className="text-slate-700">
            {corpus.simulated.overall.baseline.n + corpus.simulated.overall.supervised.n} simulated runs (made by the sample generator): baseline n ={' '}
            {corpus.simulated.overall.baseline.n}, mean {tokens(corpus.simulated.overall.baseline.meanTokens)} tokens; supervised n ={' '}
            {corpus.simulated.overall.supervised.n}, mean {tokens(corpus.simulated.overall.supervised.meanTokens)} tokens. Neither arm above includes them.
          </p>
        ) : (
          <p className="text-slate-600">None in the library.</p>
        )}
      </section>
    </div>
  );
}
