// The corpus view (SPEC §4 Corpus, §1 job 2): every run in the library as a table and as distributions, baseline vs
// supervised, grouped by any tag. Filters and grouping live in the URL, so a link reproduces the view.
import { useMemo, useState } from 'react';
import { runMetricsCsv } from '../../export/csv.ts';
import { defaultGroupBy, groupKey, hasTokenCount, runMetrics, tagNames, type RunMetrics } from '../../model/statistics.ts';
import { estimateRow } from '../../model/two-arms.ts';
import type { Run } from '../../model/types.ts';
import { useLibrary } from '../../store/library.ts';
import { useUrl } from '../../store/url.ts';
import { Button } from '../../ui/button.tsx';
import { BubbleChart } from './bubble-chart.tsx';
import { downloadBlob } from '../../ui/chart/chart-export.ts';
import { CorpusTable } from './corpus-table.tsx';
import { filterRuns, SORT_KEYS, type CorpusQuery, type SortKey } from './corpus-filter.ts';
import { GroupTable } from './group-table.tsx';
import { deriveShadowRun, derivedBySource } from '../compare/shadow-compare.tsx';
import { ResultCorpusView } from './result-corpus-view.tsx';
import { TwoArmView } from './two-arm-view.tsx';
import { useCorpusStatistics } from './statistics-client.ts';
import { VarianceChart } from './variance-chart.tsx';
import { ViolinChart } from './violin-chart.tsx';
import { RectifierStatisticsCard } from '../rectify/rectifier-statistics.tsx';
import { ErrorBoundary } from '../../ui/error-boundary.tsx';
import { LibraryLoading } from '../library/library-loading.tsx';

const metricsCache = new WeakMap<Run, RunMetrics>();

/** Runs are replaced, never mutated, in the store: one computation per run object. */
function metricsOf(run: Run): RunMetrics {
  let m = metricsCache.get(run);
  // A shadow-supervised run is an estimate-arm row (shadowOf its source): counterfactual tokens, outcome unknown.
  if (!m) metricsCache.set(run, (m = run.derived?.kind === 'shadow-supervised' ? estimateRow(run) : runMetrics(run)));
  return m;
}

const select = 'rounded border border-slate-300 bg-white px-1.5 py-1 text-sm';

export function CorpusPage() {
  const storeRuns = useLibrary((s) => s.runs);
  const hydrated = useLibrary((s) => s.hydrated);
  const params = useUrl((s) => s.params);
  const setParams = useUrl((s) => s.setParams);
  const navigate = useUrl((s) => s.navigate);
  const [selected, setSelected] = useState<string[]>([]);

  const [deriving, setDeriving] = useState<{ done: number; total: number } | null>(null);
  const [shadowError, setShadowError] = useState<string | null>(null);
  const mode = params.mode === 'arms' || params.mode === 'results' ? params.mode : 'runs';
  const runList = useMemo(() => Object.values(storeRuns), [storeRuns]);
  const derived = useMemo(() => derivedBySource(storeRuns), [storeRuns]);
  const includeShadow = params.shadow !== '0';
  const metrics = useMemo(() => runList.map(metricsOf), [runList]);
  const recorded = useMemo(() => metrics.filter((m) => !m.shadowOf), [metrics]);
  const shadowRows = useMemo(() => metrics.filter((m) => m.shadowOf), [metrics]);
  const all = useMemo(() => (includeShadow ? metrics : recorded), [metrics, recorded, includeShadow]);
  const tags = useMemo(() => tagNames(all), [all]);
  const fallbackGroup = useMemo(() => defaultGroupBy(recorded), [recorded]);
  const groupBy = params.group || fallbackGroup;
  const query: CorpusQuery = {
    groupBy,
    text: params.q ?? '',
    arm: (params.arm ?? '') as CorpusQuery['arm'],
    outcome: (params.outcome ?? '') as CorpusQuery['outcome'],
    group: params.value ?? '',
    sort: SORT_KEYS.includes(params.sort as SortKey) ? (params.sort as SortKey) : 'tokens',
    descending: params.dir !== 'asc',
  };
  const rows = useMemo(
    () => filterRuns(all, query),
    [all, query.groupBy, query.text, query.arm, query.outcome, query.group, query.sort, query.descending],
  );
  const logScale = params.scale === 'log';
  // Runs without steps (benchmark result lines) recorded no tokens: 0 is not a measurement, and pooled with runs that
  // have steps it would drag the baseline arm down. They stay in the table and are compared in the result view.
  const chartRows = useMemo(() => rows.filter(hasTokenCount), [rows]);
  const resultOnly = rows.length - chartRows.length;
  const stats = useCorpusStatistics(chartRows, groupBy, logScale);
  const groupValues = useMemo(() => [...new Set(all.map((r) => groupKey(r, groupBy)))].sort(), [all, groupBy]);
  const simulated = rows.filter((r) => r.simulated && !r.shadowOf).length;
  const estimatedRows = rows.filter((r) => r.shadowOf).length;
  const fromInterventions = rows.filter((r) => r.shadowOf && storeRuns[r.id]?.derived?.method === 'endpoint').length;
  // Recorded baseline runs on screen that have no estimate yet: what the shadow button would derive.
  const candidates = rows.filter((r) => r.arm === 'baseline' && !r.shadowOf && !r.simulated && r.steps > 0 && !derived.has(r.id));
  const deriveCandidates = async () => {
    const ids = candidates.map((m) => m.id);
    setShadowError(null);
    setDeriving({ done: 0, total: ids.length });
    for (const [i, id] of ids.entries()) {
      const run = useLibrary.getState().runs[id];
      if (run) await deriveShadowRun(run).catch((e: unknown) => setShadowError(`${run.title || id}: ${e instanceof Error ? e.message : String(e)}`));
      setDeriving({ done: i + 1, total: ids.length });
    }
    setDeriving(null);
  };

  const sortBy = (key: SortKey) =>
    setParams({ sort: key, dir: query.sort === key ? (query.descending ? 'asc' : undefined) : key === 'title' || key === 'task' ? 'asc' : undefined });
  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s.slice(-1), id]));

  if (all.length === 0)
    return (
      <div className="p-6 text-sm text-slate-600" data-testid="corpus-empty">
        {hydrated ? 'No runs in the library yet. Open trace files or load the samples in the Library, then come back here.' : <LibraryLoading fallback="Reading the library…" />}
      </div>
    );

  const tabs = (
    <nav className="flex gap-1 border-b border-slate-200" aria-label="Corpus views">
      {(
        [
          ['runs', 'All runs'],
          ['arms', 'Recorded runs in two arms'],
          ['results', 'Result corpora'],
        ] as const
      ).map(([m, label]) => (
        <button
          key={m}
          type="button"
          aria-current={mode === m ? 'page' : undefined}
          className={`-mb-px border-b-2 px-3 py-1 text-sm ${mode === m ? 'border-indigo-600 font-semibold text-indigo-700' : 'border-transparent text-slate-600 hover:text-slate-900'}`}
          onClick={() => setParams({ mode: m === 'runs' ? undefined : m })}
        >
          {label}
        </button>
      ))}
    </nav>
  );

  if (mode !== 'runs')
    return (
      <div className="mx-auto flex max-w-[1400px] flex-col gap-3 p-4" data-testid="corpus-page">
        <h2 className="text-lg font-semibold text-slate-900">Corpus</h2>
        {tabs}
        {mode === 'arms' ? (
          <TwoArmView runs={runList} groupBy={groupBy} onLogScale={(log) => setParams({ scale: log ? 'log' : undefined })} />
        ) : (
          <ResultCorpusView runs={runList} />
        )}
      </div>
    );

  return (
    <div className="mx-auto flex max-w-[1400px] flex-col gap-3 p-4" data-testid="corpus-page">
      {tabs}
      <header className="flex flex-wrap items-end gap-3">
        <div>
          <h2 className="text-lg font-semibold text-slate-900">Corpus</h2>
          <p className="text-xs text-slate-600" data-testid="corpus-count">
            {rows.length.toLocaleString('en')} of {all.length.toLocaleString('en')} runs
            {simulated > 0 && ` · ${simulated.toLocaleString('en')} simulated (made by the sample generator, not recorded)`}
            {resultOnly > 0 && (
              <span data-testid="result-only-note">
                {' '}· {resultOnly.toLocaleString('en')} without steps (benchmark results only) left out of the token charts: see Result corpora
              </span>
            )}
            {stats.stats && stats.stats.otherArm > 0 && ` · ${stats.stats.otherArm} with another arm tag left out of the charts`}
            {estimatedRows > 0 && (
              <span className="font-medium text-amber-800" data-testid="shadow-note">
                {' '}· {estimatedRows.toLocaleString('en')} shadow-supervised estimates in the supervised arm (counterfactual token estimates, not
                measured; outcome unknown;{' '}
                {fromInterventions === estimatedRows
                  ? "decided by the endpoint's verdicts recorded on the runs"
                  : `${estimatedRows - fromInterventions} decided by the offline LLM-free heuristics${fromInterventions > 0 ? `, ${fromInterventions} by the endpoint's verdicts recorded on the runs` : ''}`}
                ; each opens its pair in Compare
                )
              </span>
            )}
          </p>
        </div>
        <label className="flex flex-col text-xs text-slate-600">
          Group by
          <select className={select} value={groupBy} onChange={(e) => setParams({ group: e.target.value, value: undefined })} aria-label="Group by tag">
            {[...new Set([groupBy, ...tags])].map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </label>
        <label className="flex flex-col text-xs text-slate-600">
          {groupBy}
          <select className={select} value={query.group} onChange={(e) => setParams({ value: e.target.value || undefined })} aria-label={`Only this ${groupBy}`}>
            <option value="">all</option>
            {groupValues.map((v) => <option key={v} value={v}>{v}</option>)}
          </select>
        </label>
        <label className="flex flex-col text-xs text-slate-600">
          Arm
          <select className={select} value={query.arm} onChange={(e) => setParams({ arm: e.target.value || undefined })} aria-label="Arm">
            <option value="">both</option>
            <option value="baseline">baseline</option>
            <option value="supervised">supervised</option>
            <option value="other">other</option>
          </select>
        </label>
        <label className="flex flex-col text-xs text-slate-600">
          Outcome
          <select className={select} value={query.outcome} onChange={(e) => setParams({ outcome: e.target.value || undefined })} aria-label="Outcome">
            <option value="">any</option>
            <option value="success">success</option>
            <option value="failure">failure</option>
            <option value="unknown">unknown</option>
          </select>
        </label>
        <label className="flex flex-col text-xs text-slate-600">
          Search
          <input type="search" className={`${select} w-56`} value={query.text} onChange={(e) => setParams({ q: e.target.value || undefined })} placeholder="title, task or id" aria-label="Search runs" />
        </label>
        <span className="ml-auto flex flex-wrap items-center gap-2">
          <Button
            onClick={() => void deriveCandidates()}
            disabled={deriving !== null || candidates.length === 0}
            title="Derive the shadow-supervised run of each recorded baseline run shown (offline, LLM-free heuristics; endpoint verdicts already recorded on a run are reused) and keep it in the library as an estimate"
          >
            {deriving ? `Shadow-supervising ${deriving.done}/${deriving.total}…` : `Shadow-supervise ${candidates.length} baseline runs`}
          </Button>
          {shadowRows.length > 0 && (
            <label className="flex items-center gap-1 text-xs text-slate-700">
              <input type="checkbox" checked={includeShadow} onChange={(e) => setParams({ shadow: e.target.checked ? undefined : '0' })} />
              include {shadowRows.length} estimates
            </label>
          )}
          <Button
            variant="primary"
            disabled={selected.length !== 2}
            onClick={() => navigate('compare', { a: selected[0], b: selected[1] })}
            title="Tick two runs to compare them side by side"
          >
            Compare {selected.length}/2
          </Button>
          <Button onClick={() => downloadBlob(new Blob([runMetricsCsv(rows)], { type: 'text/csv' }), `corpus-runs.csv`)}>Runs CSV</Button>
        </span>
      </header>
      <p className="text-xs text-slate-500">
        Runs without an <code>arm</code> tag count as baseline. Tokens are each run's own model calls; overhead is what the supervisor spent on it.
      </p>
      <CorpusTable runs={rows} query={query} onSort={sortBy} selected={selected} onToggle={toggle} onOpen={(id) => {
        const source = storeRuns[id]?.derived?.sourceRunId;
        if (source) navigate('compare', { a: source, b: id });
        else navigate('run', { run: id });
      }} />
      {shadowError && <p className="text-sm text-red-700">The shadow replay stopped: {shadowError}</p>}
      {stats.error && <p className="text-sm text-red-700">The statistics could not be computed: {stats.error}</p>}
      {stats.stats && (
        <section className="grid gap-3 xl:grid-cols-2" aria-label="Corpus charts" aria-busy={stats.computing} data-testid="corpus-charts" data-ms={stats.ms?.toFixed(1)}>
          <ErrorBoundary name="violin chart"><ViolinChart stats={stats.stats} onLogScale={(log) => setParams({ scale: log ? 'log' : undefined })} /></ErrorBoundary>
          <ErrorBoundary name="variance chart"><VarianceChart stats={stats.stats} /></ErrorBoundary>
          <div className="xl:col-span-2">
            <ErrorBoundary name="group table"><GroupTable stats={stats.stats} /></ErrorBoundary>
          </div>
          <ErrorBoundary name="bubble chart"><BubbleChart stats={stats.stats} /></ErrorBoundary>
        </section>
      )}
      <ErrorBoundary name="rectifier statistics"><RectifierStatisticsCard hideWhenEmpty /></ErrorBoundary>
    </div>
  );
}
