// The edges of one run (SPEC §5.3): every handoff with its labels, a person's labelling, the clarifier over the run
// (progress, cancel, per-edge result with the original and revised message side by side), the dataset's own labels
// with their mapping, and the agreement between two label sources.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type CSSProperties } from 'react';
import {
  agreement,
  CLARIFIER_TYPES,
  DEFAULT_WINDOW,
  LABEL_SOURCES,
  labelsBySource,
  summarize,
  TYPE_INFO,
  withHumanLabel,
  datasetLabels,
  type ClarifierType,
  type LabelSource,
} from '../../engine/clarifier/index.ts';
import type { Run } from '../../model/types.ts';
import { CLARIFIER_GATES, effectiveMode, useEngineSettings, type ClarifierGate } from '../../store/engine-settings.ts';
import { isActive } from '../../store/job-store.ts';
import { useLibrary } from '../../store/library.ts';
import { useUrl } from '../../store/url.ts';
import { Badge, SimulatedBadge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { ErrorBanner } from '../../ui/error-banner.tsx';
import { CostEstimateLine, EngineCostView, useCostEstimate } from '../../ui/cost-view.tsx';
import { EngineControlBar } from '../../ui/engine-control-bar.tsx';
import { estimateClarifierInWorker } from '../../workers/clarifier-client.ts';
import { RunPicker, usePickedRun } from '../../ui/run-picker.tsx';
import { LlmExchange } from '../supervisor/intervention-card.tsx';
import { usePacedRun } from '../../ui/use-at-most-every.ts';
import { clarifierInterventions, gateOf, reusableResults, useClarifierJob, useGateResults, type GateResult } from './clarifier-job.ts';
import { edgeRowsSlices, isGalleryLabel, withGalleryMark, type EdgeRow, type EdgeRows } from './taxonomy-model.ts';
import { useSliced } from '../../ui/use-sliced.ts';
import { Preparing } from '../../ui/preparing.tsx';
import { Panel, TextBlock, TypeBadge } from './type-ui.tsx';
import { plural } from '../../ui/format.ts';
import { LibraryLoading } from '../library/library-loading.tsx';

/** History window H: a link's `h` (0–10), else the clarifier's setting (by default 3, the paper's). */
function useWindow(): number {
  const h = useUrl((s) => s.params.h);
  const setting = useEngineSettings((s) => s.clarifier.window);
  const n = h === undefined ? NaN : Number(h);
  return Number.isInteger(n) && n >= 0 && n <= 10 ? n : setting;
}


const oneLine = (text: string, n = 110) => {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n)}…` : t || '(empty message)';
};

const hasHandoffs = (run: Run) => run.handoffs.length > 0;

export function EdgesPanel() {
  const { candidates: runList, hydrated, runId, run } = usePickedRun(hasHandoffs);

  if (!hydrated) return <p className="p-4 text-sm text-slate-600"><LibraryLoading /></p>;
  if (runList.length === 0) {
    return (
      <Panel title="Edges" testId="edges-panel">
        <p className="text-sm text-slate-600">No run in the library has handoffs between agents. Open a multi-agent trace (e.g. a Who&amp;When chat log) in the Library first.</p>
      </Panel>
    );
  }
  return (
    <div className="space-y-3" data-testid="edges-panel">
      <div className="flex flex-wrap items-end gap-3">
        <RunPicker className="flex-1" runs={runList} runId={runId} missing={run === undefined} drop={['edge']} describe={(r) => plural(r.handoffs.length, 'handoff')} />
        {run?.simulated && <SimulatedBadge />}
      </div>
      {run ? <RunEdges run={run} /> : <ErrorBanner title="Run not found">Run “{runId}” is not in the library.</ErrorBanner>}
    </div>
  );
}

/** Edge lists of fewer handoffs are worked out within the render; longer ones a slice at a time, with a progress bar. */
const SLICED_FROM = 5_000;

/**
 * The edges of `run` once worked out: a 200k-message chat log's took one task of ~0.8 s. A large run's are built a
 * slice at a time, from its edge states when known (kept per handoffs array): after a label is saved, the list built
 * before stays on screen, the same edges, until the rows with the new label are ready.
 */
function RunEdges({ run: latest }: { run: Run }) {
  const historyWindow = useWindow();
  // Paced on a large run while a clarifier pass keeps results in it: each new run object works out every edge again.
  const passing = useClarifierJob((s) => s.status === 'running' && s.runId === latest.id);
  const run = usePacedRun(latest, passing);
  const { value: rows, progress } = useSliced(() => edgeRowsSlices(run, historyWindow), [run, historyWindow], run.handoffs.length < SLICED_FROM, run.handoffs);
  if (!rows) return <Preparing label={`Working out the ${plural(run.handoffs.length, 'edge')} of the run (senders, receivers, recent history)`} progress={progress} testId="edges-preparing" />;
  return <EdgeList run={run} rows={rows} />;
}

function EdgeList({ run, rows }: { run: Run; rows: EdgeRows }) {
  const params = useUrl((s) => s.params);
  const setParams = useUrl((s) => s.setParams);
  // The chosen edge's place, looked for once per edge named, first where the last one was (a key moves it by one: at
  // 1M edges a look from the start was a pass over every handoff at every press).
  const lastIndex = useRef<number | undefined>(undefined);
  const selectedIndex = useMemo(() => {
    const i = params.edge ? rows.indexOf(params.edge, lastIndex.current) : -1;
    return i >= 0 ? i : rows.length > 0 ? 0 : -1;
  }, [rows, params.edge]);
  lastIndex.current = selectedIndex >= 0 ? selectedIndex : undefined;
  const selected: EdgeRow | undefined = selectedIndex >= 0 ? rows.at(selectedIndex) : undefined;
  const selectedId = selected?.state.id;
  const listRef = useRef<HTMLOListElement>(null);
  // A long list draws only the rows in view (a 200k-message chat log has 200k edges: all drawn, then scrolled to, the
  // tab froze the page for 68 s; 4.6 s at 20k). A short one draws them all, as before. Each row is made when drawn.
  const windowed = rows.length > WINDOWED_FROM;
  const virtualizer = useVirtualizer({
    count: windowed ? rows.length : 0,
    getScrollElement: () => listRef.current,
    estimateSize: () => EDGE_ROW_HEIGHT,
    // Rows are keyed by their place (the virtualizer's default): it asks every row's key each time it places them, and
    // looked a million handoff ids up in its size cache, hashing each (~300 ms in one task when the list first showed).
    overscan: 8,
  });

  useEffect(() => {
    if (windowed) {
      if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
    } else listRef.current?.querySelector('[aria-current="true"]')?.scrollIntoView({ block: 'nearest' });
    // The virtualizer is the same object across renders; the rows change with the run.
  }, [selectedId, windowed]);

  // A key pressed on a row (focused by a click) moves the focus with the current edge, so the focus ring and the
  // current row stay one row; a key pressed on the list itself leaves the focus there.
  const focusCurrent = useRef(false);
  const move = (delta: number) => {
    if (rows.length === 0) return;
    const to = Math.max(0, Math.min(rows.length - 1, selectedIndex + delta));
    // At either end nothing moves, and nothing is left to do for a later change of edge.
    if (to === selectedIndex) return;
    const focused = document.activeElement;
    focusCurrent.current = focused instanceof HTMLElement && focused !== listRef.current && listRef.current?.contains(focused) === true;
    setParams({ edge: rows.states.idAt(to) });
  };
  useLayoutEffect(() => {
    if (!focusCurrent.current) return;
    focusCurrent.current = false;
    // The next row is drawn already in a windowed list (its overscan); if not, the list keeps the focus.
    const row = listRef.current?.querySelector<HTMLElement>('[aria-current="true"]') ?? listRef.current;
    row?.focus({ preventScroll: true });
  }, [selectedId]);

  if (rows.length === 0) {
    return (
      <div className="space-y-3">
        <Panel title="Edges (0)" testId="edge-list">
          <p className="text-sm text-slate-600">This run records no handoff between agents (a single agent, or only tool calls), so it has no edge to label or clarify.</p>
        </Panel>
        <UnplacedDatasetLabels run={run} />
      </div>
    );
  }
  return (
    <div className="space-y-3">
      <ClarifierControls run={run} />
      <div className="grid gap-3 lg:grid-cols-[minmax(0,22rem)_minmax(0,1fr)]">
        <Panel title={`Edges (${rows.length.toLocaleString('en')})`} testId="edge-list">
          <p className="mb-1 text-[11px] text-slate-500">j / k or ↑ / ↓ move between edges.</p>
          <ol
            ref={listRef}
            className={`max-h-[70vh] overflow-auto pr-1 ${windowed ? 'relative' : 'space-y-1'}`}
            tabIndex={0}
            aria-label="Edges of the run"
            data-windowed={windowed ? 'true' : undefined}
            onKeyDown={(e) => {
              if (e.key === 'j' || e.key === 'ArrowDown') {
                e.preventDefault();
                move(1);
              } else if (e.key === 'k' || e.key === 'ArrowUp') {
                e.preventDefault();
                move(-1);
              }
            }}
          >
            {windowed ? (
              <>
                {/* The list's full height, so that its scroll bar says where the rows in view are. */}
                <li aria-hidden="true" style={{ height: virtualizer.getTotalSize() }} />
                {virtualizer.getVirtualItems().map((item) => {
                  const row = rows.at(item.index);
                  return (
                    <EdgeListItem
                      key={item.key}
                      fixed
                      style={{ position: 'absolute', top: 0, left: 0, right: 4, height: EDGE_ROW_HEIGHT, transform: `translateY(${item.start}px)`, paddingBottom: 4 }}
                      row={row}
                      current={row.state.id === selectedId}
                      onSelect={() => setParams({ edge: row.state.id })}
                    />
                  );
                })}
              </>
            ) : (
              rows.all().map((row) => <EdgeListItem key={row.state.id} row={row} current={row.state.id === selectedId} onSelect={() => setParams({ edge: row.state.id })} />)
            )}
          </ol>
        </Panel>
        <div className="min-w-0 space-y-3">{selected && <EdgeDetail run={run} row={selected} />}</div>
      </div>
      <AgreementReport run={run} />
      <UnplacedDatasetLabels run={run} />
    </div>
  );
}

/** Edges drawn all up to this many; past it, only those in view (TanStack Virtual, as the library and span tree). */
const WINDOWED_FROM = 500;
/**
 * A row's height in a windowed list: one line of names and badges, one of message, each cut to the row's width (the
 * whole text is in the row's title). Rows of one height are placed without measuring them: measured, each row whose
 * height differed from the estimate made the virtualizer place every row after it again, at 1M edges tasks of
 * 0.4–1.2 s when the list jumped to its end or back to its start.
 */
const EDGE_ROW_HEIGHT = 52;

interface EdgeListItemProps {
  row: EdgeRow;
  current: boolean;
  onSelect: () => void;
  /** In a windowed list: the row's place, and `fixed`: one line each of names and message (EDGE_ROW_HEIGHT). */
  style?: CSSProperties;
  fixed?: boolean;
}

function EdgeListItem({ row, current, onSelect, style, fixed = false }: EdgeListItemProps) {
  const s = row.state;
  const c = row.clarification;
  const names = `${s.sender.name} → ${s.receivers.map((r) => r.name).join(', ')}`;
  const message = oneLine(s.message);
  return (
    <li style={style}>
      <button
        type="button"
        data-testid="edge-row"
        data-edge-id={s.id}
        aria-current={current ? 'true' : undefined}
        onClick={onSelect}
        title={fixed ? `${names}\n${message}` : undefined}
        className={`block w-full rounded border px-2 py-1 text-left text-xs ${fixed ? 'h-full overflow-hidden' : ''} ${current ? 'border-indigo-400 bg-indigo-50' : 'border-slate-200 hover:bg-slate-50'}`}
      >
        <span className={`flex items-center gap-1 ${fixed ? 'flex-nowrap overflow-hidden' : 'flex-wrap'}`}>
          <span className="shrink-0 font-mono text-slate-500">#{(s.position ?? 0) + 1}</span>
          <span className={`font-medium text-slate-800 ${fixed ? 'min-w-0 truncate' : ''}`}>{names}</span>
          {row.human && <TypeBadge type={row.human.code as ClarifierType} prefix="you:" />}
          {c && c.type !== 'NONE' && <TypeBadge type={c.type} prefix={c.heuristic ? 'flag:' : 'ask:'} />}
          {row.dataset.length > 0 && <Badge tone="info">dataset</Badge>}
        </span>
        <span className={`mt-0.5 block text-slate-600 ${fixed ? 'truncate' : ''}`}>{message}</span>
      </button>
    </li>
  );
}

function EdgeDetail({ run, row }: { run: Run; row: EdgeRow }) {
  const navigate = useUrl((s) => s.navigate);
  const s = row.state;
  return (
    <>
      <Panel
        title={
          <span>
            Edge #{(s.position ?? 0) + 1}: {s.sender.name} → {s.receivers.map((r) => r.name).join(', ')} <span className="font-normal text-slate-500">({s.kind})</span>
          </span>
        }
        testId="edge-detail"
        actions={
          s.stepId ? (
            <Button size="sm" onClick={() => navigate('run', { run: run.id, step: s.stepId! })}>
              Open in run view →
            </Button>
          ) : undefined
        }
      >
        <div className="space-y-2 text-xs">
          {s.task && <p className="text-slate-600"><span className="font-medium text-slate-700">Task:</span> {oneLine(s.task, 300)}</p>}
          {s.subgoal && <p className="text-slate-600"><span className="font-medium text-slate-700">Subgoal:</span> {oneLine(s.subgoal, 300)}</p>}
          <TextBlock label="Message" testId="edge-message">{s.message || '(empty message)'}</TextBlock>
          {s.history.length > 0 && (
            <details>
              <summary className="cursor-pointer text-slate-600">Local history (the last {plural(s.history.length, 'related handoff')})</summary>
              <ol className="mt-1 space-y-1">
                {s.history.map((h, i) => (
                  <li key={i} className="text-slate-600">
                    <span className="font-medium">{h.from} → {h.to}:</span> {oneLine(h.message, 240)}
                  </li>
                ))}
              </ol>
            </details>
          )}
        </div>
      </Panel>
      <LabelForm key={s.id} run={run} row={row} />
      <DatasetLabelsOnEdge row={row} />
      <ClarificationView run={run} row={row} />
    </>
  );
}

function LabelForm({ run, row }: { run: Run; row: EdgeRow }) {
  const updateRun = useLibrary((s) => s.updateRun);
  const [code, setCode] = useState<ClarifierType | undefined>(row.human?.code as ClarifierType | undefined);
  const [note, setNote] = useState(row.human?.description ?? '');
  const saved = row.human;
  const dirty = code !== (saved?.code as ClarifierType | undefined) || note.trim() !== (saved?.description ?? '');
  const save = () => {
    if (code === undefined) return;
    let next = withHumanLabel(run, row.state.id, code, note);
    // A label already in the gallery stays there when it is edited.
    if (saved && isGalleryLabel(saved)) next = withGalleryMark(next, row.state.id, true);
    updateRun(next);
  };
  return (
    <Panel title="Your label" testId="label-form">
      <div
        role="radiogroup"
        aria-label="Error type"
        className="flex flex-wrap gap-1"
        onKeyDown={(e) => {
          const n = Number(e.key);
          if (n >= 1 && n <= CLARIFIER_TYPES.length) setCode(CLARIFIER_TYPES[n - 1]);
        }}
      >
        {CLARIFIER_TYPES.map((t, i) => (
          <button
            key={t}
            type="button"
            role="radio"
            aria-checked={code === t}
            title={`${TYPE_INFO[t].definition} (key ${i + 1})`}
            onClick={() => setCode(t)}
            className={`rounded border px-2 py-1 text-xs ${code === t ? 'border-indigo-500 bg-indigo-600 text-white' : 'border-slate-300 bg-white text-slate-800 hover:bg-slate-50'}`}
          >
            {t} · {TYPE_INFO[t].name}
          </button>
        ))}
      </div>
      {code && <p className="mt-1 text-[11px] text-slate-600">{TYPE_INFO[code].definition}</p>}
      <label className="mt-2 block text-xs font-medium text-slate-700">
        Note
        <textarea
          className="mt-0.5 block w-full rounded border border-slate-300 px-2 py-1 text-sm"
          rows={2}
          value={note}
          placeholder="What is wrong at this handoff, and what question would fix it?"
          onChange={(e) => setNote(e.target.value)}
        />
      </label>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <Button variant="primary" size="sm" disabled={code === undefined || !dirty} onClick={save}>
          Save label
        </Button>
        {saved && (
          <>
            <Button size="sm" variant="danger" onClick={() => { updateRun(withHumanLabel(run, row.state.id, undefined, '')); setCode(undefined); setNote(''); }}>
              Remove label
            </Button>
            <label className="inline-flex items-center gap-1 text-xs text-slate-700">
              <input type="checkbox" checked={isGalleryLabel(saved)} onChange={(e) => updateRun(withGalleryMark(run, row.state.id, e.target.checked))} />
              Show in the gallery
            </label>
            <span role="status" data-testid="saved-label" className="text-xs text-emerald-800">
              Saved: {saved.code}
              {saved.description ? ` — ${oneLine(saved.description, 60)}` : ''}
            </span>
          </>
        )}
      </div>
    </Panel>
  );
}

function DatasetLabelsOnEdge({ row }: { row: EdgeRow }) {
  if (row.dataset.length === 0) return null;
  return (
    <Panel title={`Dataset labels on this edge (${row.dataset.length})`} testId="dataset-labels">
      <ul className="space-y-1 text-xs">
        {row.dataset.map((d) => (
          <DatasetLabelLine key={d.annotation.id} label={d} />
        ))}
      </ul>
    </Panel>
  );
}

function DatasetLabelLine({ label: d }: { label: ReturnType<typeof datasetLabels>[number] }) {
  const a = d.annotation;
  const what = a.taxonomy === 'WhoWhen' ? `Who&When decisive error${a.agentId ? ` by ${a.agentId}` : ''}` : `${a.taxonomy}: ${a.code}`;
  return (
    <li className="rounded bg-slate-50 p-1.5" data-testid="dataset-label">
      <span className="font-medium text-slate-800">{what}</span>{' '}
      {d.mapping.type ? <TypeBadge type={d.mapping.type} prefix="→" /> : <Badge tone="neutral">unmapped</Badge>} <span className="text-slate-500">({d.mapping.why})</span>
      {a.description && <span className="mt-0.5 block text-slate-600">{oneLine(a.description, 400)}</span>}
    </li>
  );
}

function ClarifyEdgeButton({ run, edgeId, again }: { run: Run; edgeId: string; again: boolean }) {
  const job = useClarifierJob();
  const historyWindow = useWindow();
  const active = isActive(job);
  const busyHere = active && job.edgeId === edgeId;
  return (
    <Button size="sm" disabled={active} onClick={() => void job.start(run.id, { edge: edgeId, window: historyWindow })}>
      {busyHere ? 'Clarifying…' : again ? 'Clarify this edge again' : 'Clarify this edge'}
    </Button>
  );
}

function ClarificationView({ run, row }: { run: Run; row: EdgeRow }) {
  const c = row.clarification;
  if (!c) {
    return (
      <Panel title="Clarifier" testId="clarification-none" actions={<ClarifyEdgeButton run={run} edgeId={row.state.id} again={false} />}>
        <p className="text-xs text-slate-600">Not run on this edge yet: run it on all edges above, or on this one alone.</p>
      </Panel>
    );
  }
  return (
    <Panel
      title={
        <span className="flex items-center gap-2">
          Clarifier {c.heuristic && <Badge tone="warning">heuristic</Badge>}
        </span>
      }
      testId="clarification"
      actions={<ClarifyEdgeButton run={run} edgeId={row.state.id} again />}
    >
      <div className="space-y-2 text-xs">
        {c.malformed && (
          <ErrorBanner title="The clarifier's answer could not be read">
            {c.malformed.problem}; the message passed unchanged. Raw answer: {oneLine(c.malformed.rawAnswer, 300)}
          </ErrorBanner>
        )}
        <p className="flex flex-wrap items-center gap-2">
          <TypeBadge type={c.type} full />
          {c.type !== 'NONE' && (
            <span>
              {c.heuristic ? 'would ask' : 'asked'} <span className="font-medium">{c.addressee?.name}</span> ({c.toAgent})
            </span>
          )}
          {c.signal && <span className="text-slate-500">signal: {c.signal}</span>}
        </p>
        {c.question && <p data-testid="clarifier-question"><span className="font-medium">Question:</span> {c.question}</p>}
        {c.reply !== undefined && <p><span className="font-medium">Answer:</span> {c.reply}</p>}
        <dl className="flex flex-wrap gap-x-4 gap-y-1 text-slate-600">
          <div><dt className="inline">extra tokens: </dt><dd className="inline tabular-nums">{c.tokens.total.toLocaleString('en')}{c.tokens.estimated ? ' (estimated)' : ''}</dd></div>
          <div><dt className="inline">latency: </dt><dd className="inline tabular-nums">{c.latencyMs.toLocaleString('en')} ms</dd></div>
          <div>
            <dt className="inline">resolved in one shot: </dt>
            <dd className="inline">{c.resolved === null ? (c.type === 'NONE' ? 'n/a' : c.heuristic ? 'not checked (offline)' : 'not checked') : c.resolved ? 'yes' : `no (second check: ${c.secondType})`}</dd>
          </div>
        </dl>
        {c.repairs.length > 0 && <p className="rounded bg-amber-50 px-2 py-1 text-amber-900">Answer repaired: {c.repairs.join('; ')}</p>}
        {c.llmCallIds.length > 0 && <LlmExchange ids={c.llmCallIds} engine="clarifier" />}
        {c.changed ? (
          <div className="grid gap-2 md:grid-cols-2" data-testid="message-compare">
            <TextBlock label="Original message" tone="faulty" testId="original-message">{c.originalMessage}</TextBlock>
            <TextBlock label="Revised message (delivered)" tone="fixed" testId="revised-message">{c.revisedMessage}</TextBlock>
          </div>
        ) : (
          <p className="text-slate-500">The message {c.type === 'NONE' ? 'passed' : 'would pass'} unchanged{c.heuristic && c.type !== 'NONE' ? ' (offline: nobody is asked)' : ''}.</p>
        )}
      </div>
    </Panel>
  );
}

function ClarifierControls({ run }: { run: Run }) {
  const job = useClarifierJob();
  const historyWindow = useWindow();
  const setParams = useUrl((s) => s.setParams);
  const endpoint = useEngineSettings((s) => s.endpoint);
  const setClarifier = useEngineSettings((s) => s.setClarifier);
  const navigate = useUrl((s) => s.navigate);
  const mode = effectiveMode(endpoint);
  const previous = useMemo(() => clarifierInterventions(run), [run]);
  const summary = useMemo(() => (previous.length > 0 ? summarize(run, previous) : undefined), [run, previous]);
  const mine = job.runId === run.id;
  const active = isActive(job);
  const progress = job.progress;
  const reusable = reusableResults(run, mode);
  const redo = previous.length - reusable.length;
  const unfinished = reusable.length > 0 && reusable.length < run.handoffs.length;
  const gatePrefs = useEngineSettings((s) => s.clarifier);
  const gate = gateOf(gatePrefs);
  const estimate = useCostEstimate(`${run.id}\u0000${run.handoffs.length}\u0000${historyWindow}\u0000${gate.mode}\u0000${gate.sampleRate}\u0000${endpoint.maxTokens}`, () =>
    estimateClarifierInWorker([run], historyWindow, gate, endpoint.maxTokens),
  );
  const allGateResults = useGateResults((s) => s.results);
  useEffect(() => {
    void useGateResults.getState().load(run.id);
  }, [run.id]);
  const gateResults = useMemo(() => allGateResults.filter((r) => r.runId === run.id), [allGateResults, run.id]);
  return (
    <Panel title="Edge clarifier" testId="clarifier-controls">
      <p className="text-xs text-slate-600" data-testid="clarifier-mode">
        {mode === 'offline' ? (
          <>
            <Badge tone="warning">heuristic</Badge> Offline: an LLM-free flagger marks obvious Data Gap and Signal Corruption signals (placeholders, mixed units, broken JSON or tables); nobody is asked. Set an
            endpoint in{' '}
            <button type="button" className="text-indigo-700 underline" onClick={() => navigate('engines')}>
              Engines
            </button>{' '}
            to run the clarifier model.
          </>
        ) : (
          <>
            <Badge tone="info">endpoint</Badge> Clarifier model “{endpoint.models.clarifier ?? endpoint.models.supervisor}”, addressees played by “{endpoint.models.agents ?? endpoint.models.supervisor}” at {endpoint.baseUrl}
          </>
        )}
      </p>
      <div className="mt-2">
        <EngineControlBar
          testPrefix="clarifier"
          job={job}
          mine={mine}
          leading={
            <>
              <label className="text-xs font-medium text-slate-700">
                History window H{' '}
                <select
                  className="rounded border border-slate-300 px-1 py-0.5 text-xs"
                  value={historyWindow}
                  disabled={active}
                  onChange={(e) => {
                    setClarifier({ window: Number(e.target.value) });
                    setParams({ h: Number(e.target.value) === DEFAULT_WINDOW ? undefined : e.target.value });
                  }}
                  title="How many earlier handoffs of the sender or receiver the clarifier sees (the paper's default is 3)"
                >
                  {[0, 1, 2, 3, 4, 5].map((n) => (
                    <option key={n} value={n}>
                      {n}
                      {n === DEFAULT_WINDOW ? ' (default)' : ''}
                    </option>
                  ))}
                </select>
              </label>
            <GateSelect disabled={active} />
            </>
          }
          actions={[
            {
              label: unfinished ? `Resume (${reusable.length} of ${run.handoffs.length} edges done)` : reusable.length > 0 ? 'Run again (reuses results)' : gatePrefs.gate === 'all' ? 'Run clarifier on all edges' : 'Run clarifier',
              onClick: () => void (mine && job.status === 'interrupted' ? job.resume() : job.start(run.id, { window: historyWindow })),
            },
            ...(previous.length > 0
              ? [{ label: 'Start over', title: "Remove this run's clarifier results and start from the first edge", onClick: () => void job.start(run.id, { fresh: true, window: historyWindow }) }]
              : []),
          ]}
          busyElsewhere="The clarifier is busy with another run."
          estimate={<CostEstimateLine state={estimate} testId="clarifier-estimate" note={mode === 'offline' ? 'offline the flagger decides and nothing is sent; this is the price with the endpoint' : `gate ${gatePrefs.gate === 'flagged+sample' ? `flagged + ${Math.round(gatePrefs.sampleRate * 100)}% sample` : gatePrefs.gate}`} />}
          progress={progress && { label: 'Edges checked', done: progress.done, total: progress.total, text: `${progress.done} / ${progress.total} edges checked · ${progress.asked} asked` }}
          failure={{
            title: job.failure ? `Clarifier call failed on edge ${job.failure.sender} → ${job.failure.receiver}` : 'The clarifier stopped',
            message: job.failure?.message ?? job.error,
            note: 'Edges finished before it are kept; fix the cause and press Resume.',
          }}
          interrupted={`The page was closed or reloaded while the clarifier was working on this run; ${plural(reusable.length, 'edge')} kept. Resume continues from there.`}
        >
          {mine && !active && job.cost && <EngineCostView cost={job.cost} testId="clarifier-cost" />}
          {redo > 0 && !active && (
            <p className="text-xs text-slate-600" data-testid="clarifier-redo">
              {plural(redo, 'edge')} checked offline by the flagger will be asked again through the endpoint.
            </p>
          )}
        </EngineControlBar>
      </div>
      {summary && (
        <dl className="mt-3 grid grid-cols-2 gap-2 text-xs sm:grid-cols-5" data-testid="clarifier-summary">
          <Stat label="Edges checked" value={`${summary.checked} / ${summary.edges}`} />
          <Stat label="Asked" value={String(summary.asked)} note={(['DG', 'RD', 'SC', 'CG'] as const).map((t) => `${t} ${summary.byType[t]}`).join(' · ')} />
          <Stat label="Resolved in one shot" value={summary.oneShotPct === null ? '–' : `${summary.oneShotPct}%`} note={summary.heuristic ? 'needs the endpoint (second check)' : 'second check said NONE'} />
          <Stat
            label="Extra cost"
            value={summary.extraCostPct === null ? '–' : `${summary.extraCostPct}%`}
            note={`${summary.extraTokens.toLocaleString('en')} tokens of ${summary.runTokens.toLocaleString('en')}${summary.runTokensEstimated ? ' (run tokens estimated)' : ''}`}
            testId="extra-cost"
          />
          <Stat label="Added latency" value={`${(summary.latencyMs / 1000).toFixed(1)} s`} note={summary.extraLatencyPct === null ? 'run duration not recorded' : `${summary.extraLatencyPct}% of the run`} />
        </dl>
      )}
      {gateResults.length > 0 && <GateTable results={gateResults} />}
      {summary && summary.malformed > 0 && <p className="mt-1 text-xs text-amber-800">{summary.malformed} clarifier answers could not be read; those messages passed unchanged.</p>}
    </Panel>
  );
}

const GATE_WORDS: Record<ClarifierGate, string> = { all: 'all edges', flagged: 'flagged only', 'flagged+sample': 'flagged + sample' };

/** Which edges go to the model: all, only those the LLM-free flagger flags, or those plus a seeded sample of the rest. */
function GateSelect({ disabled }: { disabled: boolean }) {
  const { gate, sampleRate } = useEngineSettings((s) => s.clarifier);
  const setClarifier = useEngineSettings((s) => s.setClarifier);
  return (
    <>
      <label className="text-xs font-medium text-slate-700">
        Edges sent to the model{' '}
        <select
          className="rounded border border-slate-300 px-1 py-0.5 text-xs"
          value={gate}
          disabled={disabled}
          data-testid="clarifier-gate"
          title="The LLM-free flagger decides which edges go to the model; the others keep its verdict and cost nothing"
          onChange={(e) => setClarifier({ gate: e.target.value as ClarifierGate })}
        >
          {CLARIFIER_GATES.map((g) => (
            <option key={g} value={g}>
              {GATE_WORDS[g]}
            </option>
          ))}
        </select>
      </label>
      {gate === 'flagged+sample' && (
        <label className="text-xs font-medium text-slate-700">
          sample{' '}
          <input
            type="number"
            className="w-16 rounded border border-slate-300 px-1 py-0.5 text-xs"
            min={0}
            max={100}
            step={5}
            value={Math.round(sampleRate * 100)}
            disabled={disabled}
            data-testid="clarifier-sample-rate"
            onChange={(e) => {
              const pct = Number(e.target.value);
              if (Number.isFinite(pct) && pct >= 0 && pct <= 100) setClarifier({ sampleRate: pct / 100 });
            }}
          />
          % of the unflagged edges
        </label>
      )}
    </>
  );
}

/** The figures of complete endpoint passes on this run, one row per gate setting, to trade cost for coverage. */
function GateTable({ results }: { results: GateResult[] }) {
  const order = [...results].sort((a, b) => a.gate.localeCompare(b.gate));
  return (
    <div className="mt-3 overflow-x-auto">
      <table className="w-full text-left text-xs" data-testid="clarifier-gate-table">
        <caption className="mb-1 text-left text-slate-600">Per gate setting (the last complete pass through the endpoint under each)</caption>
        <thead className="text-slate-500">
          <tr>
            <th className="pr-2 font-medium">Gate</th>
            <th className="pr-2 font-medium">Sent to model</th>
            <th className="pr-2 font-medium">Asked: DG · RD · SC · CG</th>
            <th className="pr-2 font-medium">One-shot resolution</th>
            <th className="pr-2 font-medium">Extra tokens</th>
            <th className="pr-2 font-medium">Extra cost (of the run's tokens)</th>
          </tr>
        </thead>
        <tbody>
          {order.map((r) => (
            <tr key={r.gate} data-testid="clarifier-gate-row" data-gate={r.gate} data-sent={r.summary.sentToModel} data-extra-pct={r.summary.extraCostPct ?? ''} className="border-t border-slate-100 tabular-nums">
              <td className="pr-2">{r.gate}</td>
              <td className="pr-2">
                {r.summary.sentToModel} / {r.summary.edges}
              </td>
              <td className="pr-2">{(['DG', 'RD', 'SC', 'CG'] as const).map((t) => r.summary.byType[t]).join(' · ')}</td>
              <td className="pr-2">{r.summary.oneShotPct === null ? '–' : `${r.summary.oneShotPct}%`}</td>
              <td className="pr-2">
                {r.cost.perRun.tokens.total.toLocaleString('en')}
                {r.cost.perRun.estimated ? ' (estimated)' : ''}
              </td>
              <td className="pr-2">{r.summary.extraCostPct === null ? '–' : `${r.summary.extraCostPct}%`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Stat({ label, value, note, testId }: { label: string; value: string; note?: string; testId?: string }) {
  return (
    <div className="rounded bg-slate-50 p-2" data-testid={testId}>
      <dt className="text-slate-500">{label}</dt>
      <dd className="text-base font-semibold tabular-nums text-slate-900">{value}</dd>
      {note && <dd className="text-[11px] text-slate-500">{note}</dd>}
    </div>
  );
}

function AgreementReport({ run }: { run: Run }) {
  const [a, setA] = useState<LabelSource>('human');
  const [b, setB] = useState<LabelSource>('dataset');
  const result = useMemo(() => agreement(labelsBySource(run, a), labelsBySource(run, b)), [run, a, b]);
  const used = CLARIFIER_TYPES.filter((t) => CLARIFIER_TYPES.some((u) => result.confusion[t][u] > 0 || result.confusion[u][t] > 0));
  const select = (value: LabelSource, set: (v: LabelSource) => void, label: string) => (
    <label className="text-xs font-medium text-slate-700">
      {label}{' '}
      <select className="rounded border border-slate-300 px-1 py-0.5 text-xs" value={value} onChange={(e) => set(e.target.value as LabelSource)}>
        {LABEL_SOURCES.map((s) => (
          <option key={s.id} value={s.id}>
            {s.label}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <Panel title="Agreement between label sources" testId="agreement">
      <div className="flex flex-wrap gap-3">
        {select(a, setA, 'Source A')}
        {select(b, setB, 'Source B')}
      </div>
      <p className="mt-2 text-xs text-slate-700" data-testid="agreement-result">
        {result.n === 0
          ? 'No edge carries a label from both sources yet.'
          : `${plural(result.n, 'edge')} labelled by both: ${result.agree} agree (${result.agreementPct}%), Cohen's κ = ${result.kappa ?? 'n/a'}.`}{' '}
        {plural(result.onlyA, 'edge')} only in A, {result.onlyB} only in B. Dataset labels count only where they map to a type.
      </p>
      {result.n > 0 && (
        <table className="mt-2 text-xs">
          <thead>
            <tr>
              <th className="px-2 text-left text-slate-500">A \ B</th>
              {used.map((t) => (
                <th key={t} className="px-2">{t}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {used.map((t) => (
              <tr key={t}>
                <th className="px-2 text-left">{t}</th>
                {used.map((u) => (
                  <td key={u} className={`px-2 text-center tabular-nums ${t === u ? 'font-semibold text-emerald-800' : ''}`}>{result.confusion[t][u]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

function UnplacedDatasetLabels({ run }: { run: Run }) {
  const unplaced = useMemo(() => datasetLabels(run).filter((d) => d.handoffId === undefined), [run]);
  if (unplaced.length === 0) return null;
  return (
    <Panel title={`Dataset labels not on a handoff (${unplaced.length})`} testId="unplaced-labels">
      <p className="mb-1 text-xs text-slate-500">These point at steps that send no message to another agent (a tool call, a model call, the run as a whole).</p>
      <ul className="space-y-1 text-xs">
        {unplaced.slice(0, 50).map((d) => (
          <DatasetLabelLine key={d.annotation.id} label={d} />
        ))}
      </ul>
    </Panel>
  );
}
