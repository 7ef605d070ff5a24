// The loop panel (issue 13): every loop the one loop analysis (model/loops.ts) found, with its agents, what repeats,
// its occurrences as 1-based step numbers (a button each that moves the playhead there), its window, the tokens spent
// inside it, and the framework verdicts about it as evidence badges labelled by source. The verdicts never decide
// what is a loop; a verdict with no loop near it is listed on its own so it is not lost.
import { memo, useState } from 'react';
import type { Loop, LoopVerdict } from '../../model/loops.ts';
import { VERDICT_REACH } from '../../model/loops.ts';
import { usePlayhead } from '../../store/playhead.ts';
import type { RunView } from './run-view-model.ts';
import { formatCount } from '../../ui/format.ts';

/** Shown at first; the rest behind "show all" so a huge run's panel stays cheap to render. */
const FIRST_LOOPS = 50;
const FIRST_OCCURRENCES = 24;

const KIND_LABELS: Record<Loop['kind'], [string, string]> = {
  calls: ['repeated call', 'repeated calls'],
  messages: ['repeated message', 'repeated messages'],
  cycle: ['cycle between agents', 'cycles between agents'],
};

/** "3 loops (2 repeated calls, 1 cycle between agents)"; the kinds are left out when there is only one loop. */
export function loopCountLabel(loops: readonly Loop[]): string {
  if (loops.length === 0) return 'no loops';
  const counts = new Map<Loop['kind'], number>();
  for (const l of loops) counts.set(l.kind, (counts.get(l.kind) ?? 0) + 1);
  const kinds = [...counts].map(([kind, n]) => `${n} ${KIND_LABELS[kind][n === 1 ? 0 : 1]}`);
  if (loops.length === 1) return `1 loop (${kinds[0].slice(2)})`;
  return `${loops.length} loops (${kinds.join(', ')})`;
}

/** Verdicts in or just after the loop's window (see verdictsFor); `verdicts` is sorted by position. */
function verdictsNear(loop: Loop, verdicts: readonly LoopVerdict[]): LoopVerdict[] {
  let lo = 0;
  let hi = verdicts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (verdicts[mid].position < loop.first) lo = mid + 1;
    else hi = mid;
  }
  const out: LoopVerdict[] = [];
  for (let i = lo; i < verdicts.length && verdicts[i].position <= loop.last + VERDICT_REACH; i++) out.push(verdicts[i]);
  return out;
}

const moveTo = (position: number) => usePlayhead.getState().moveTo(position);

export const LoopPanel = memo(function LoopPanel({ view }: { view: RunView }) {
  const { loops, loopVerdicts } = view;
  const [open, setOpen] = useState(loops.length > 0);
  const [all, setAll] = useState(false);
  const nameOf = (id: string) => view.index.agentById.get(id)?.name ?? id;
  const covered = new Set<LoopVerdict>();
  const perLoop = loops.map((loop) => {
    const near = verdictsNear(loop, loopVerdicts);
    for (const v of near) covered.add(v);
    return near;
  });
  const alone = loopVerdicts.filter((v) => !covered.has(v));
  const shown = all ? loops : loops.slice(0, FIRST_LOOPS);
  return (
    <section data-testid="loop-panel" aria-label="Loops" className="shrink-0 rounded border border-slate-200 bg-white text-xs will-change-transform">
      <button
        type="button"
        className="flex w-full items-center gap-2 px-3 py-1.5 text-left hover:bg-slate-50"
        aria-expanded={open}
        aria-controls="loop-panel-list"
        onClick={() => setOpen((o) => !o)}
        data-testid="loop-panel-toggle"
      >
        <span className="font-semibold text-slate-800">Loops</span>
        <span className="text-slate-600" data-testid="loop-panel-count">
          {loopCountLabel(loops)}
          {loopVerdicts.length > 0 && ` · ${loopVerdicts.length} framework verdict${loopVerdicts.length > 1 ? 's' : ''}`}
        </span>
        <span className="ml-auto text-slate-400" aria-hidden>
          {open ? '▾' : '▸'}
        </span>
      </button>
      {open && (
        <div id="loop-panel-list" className="max-h-56 overflow-y-auto border-t border-slate-100">
          {loops.length === 0 && <p className="px-3 py-2 text-slate-500">No repeated work found in this run.</p>}
          <ol className="divide-y divide-slate-100">
            {shown.map((loop, i) => (
              <LoopRow key={`${loop.first}-${i}`} loop={loop} verdicts={perLoop[i]} nameOf={nameOf} />
            ))}
          </ol>
          {!all && loops.length > FIRST_LOOPS && (
            <button type="button" className="m-2 rounded border border-slate-300 px-2 py-0.5 hover:bg-slate-50" onClick={() => setAll(true)}>
              Show all {formatCount(loops.length)} loops
            </button>
          )}
          {alone.length > 0 && (
            <div className="border-t border-slate-100 px-3 py-2" data-testid="loop-verdicts-alone">
              <p className="text-slate-600">Framework verdicts with no loop found near them:</p>
              <p className="mt-1 flex flex-wrap gap-1">
                {alone.slice(0, FIRST_OCCURRENCES).map((v, i) => (
                  <VerdictBadge key={i} label={v.sourceLabel} verdicts={[v]} />
                ))}
              </p>
            </div>
          )}
        </div>
      )}
    </section>
  );
});

function LoopRow({ loop, verdicts, nameOf }: { loop: Loop; verdicts: LoopVerdict[]; nameOf: (id: string) => string }) {
  const [all, setAll] = useState(false);
  const occurrences = all ? loop.positions : loop.positions.slice(0, FIRST_OCCURRENCES);
  const bySource = new Map<string, LoopVerdict[]>();
  for (const v of verdicts) {
    const list = bySource.get(v.sourceLabel);
    if (list) list.push(v);
    else bySource.set(v.sourceLabel, [v]);
  }
  const steps = loop.last - loop.first + 1;
  return (
    <li data-testid="loop-item" data-kind={loop.kind} data-first={loop.first + 1} data-last={loop.last + 1} className="space-y-1 px-3 py-2">
      <p className="flex items-baseline gap-2">
        <span className="shrink-0 rounded bg-amber-100 px-1 text-[10px] text-amber-900">{KIND_LABELS[loop.kind][0]}</span>
        <span className="min-w-0 break-words font-mono text-slate-800" data-testid="loop-label">
          {loop.label}
        </span>
      </p>
      <p className="text-slate-600">
        {loop.agentIds.map(nameOf).join(' ⇄ ')} · steps {loop.first + 1}–{loop.last + 1} ({steps} step{steps > 1 ? 's' : ''}) ·{' '}
        {loop.tokens.toLocaleString('en-US')} tokens in the window
        {loop.routing.length > 0 && ` · ${loop.routing.length} routing line${loop.routing.length > 1 ? 's' : ''} beside it`}
      </p>
      <div className="flex flex-wrap items-center gap-1" role="group" aria-label={`Occurrences of ${loop.label}`}>
        <span className="text-slate-500">{formatCount(loop.positions.length)} occurrences:</span>
        {occurrences.map((p) => (
          <button
            key={p}
            type="button"
            data-testid="loop-occurrence"
            data-position={p}
            className="rounded border border-slate-300 px-1.5 tabular-nums hover:bg-indigo-50 focus:outline-2 focus:outline-indigo-500"
            onClick={() => moveTo(p)}
            aria-label={`Go to step ${p + 1}`}
            title={`Go to step ${p + 1}`}
          >
            {p + 1}
          </button>
        ))}
        {!all && loop.positions.length > FIRST_OCCURRENCES && (
          <button type="button" className="text-indigo-700 underline" onClick={() => setAll(true)}>
            +{formatCount(loop.positions.length - FIRST_OCCURRENCES)} more
          </button>
        )}
      </div>
      {bySource.size > 0 && (
        <p className="flex flex-wrap items-center gap-1">
          <span className="text-slate-500">Evidence:</span>
          {[...bySource].map(([label, list]) => (
            <VerdictBadge key={label} label={label} verdicts={list} />
          ))}
        </p>
      )}
    </li>
  );
}

/** One source's verdicts: its label, the steps it speaks at, its reasons on hover; a click goes to the first. */
function VerdictBadge({ label, verdicts }: { label: string; verdicts: LoopVerdict[] }) {
  const steps = verdicts.map((v) => v.position + 1);
  const reasons = verdicts
    .map((v) => v.reason)
    .filter((r) => r !== '')
    .slice(0, 3);
  return (
    <button
      type="button"
      data-testid="loop-evidence"
      data-source={verdicts[0].source}
      onClick={() => moveTo(verdicts[0].position)}
      title={`${label}, said at step${steps.length > 1 ? 's' : ''} ${steps.join(', ')}${reasons.length > 0 ? `: ${reasons.join(' · ')}` : ''} (evidence from the framework or dataset; not used to find loops)`}
      className="rounded bg-violet-100 px-1.5 text-violet-900 hover:bg-violet-200"
    >
      {label}
      {verdicts.length > 1 && ` ×${verdicts.length}`} · step {steps.length > 3 ? `${steps.slice(0, 3).join(', ')}…` : steps.join(', ')}
    </button>
  );
}
