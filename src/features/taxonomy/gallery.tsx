// The gallery of annotated cases: ours (written for the product, per type and domain) and cases a person promoted
// from labelled edges of loaded real traces. Each case shows the task, the faulty handoff, the question that fixes
// it, whom it goes to, the answer and the revised handoff. All text is rendered as text.
import { useMemo } from 'react';
import { TYPE_INFO, type ClarifierType } from '../../engine/clarifier/index.ts';
import { useLibrary } from '../../store/library.ts';
import { useUrl } from '../../store/url.ts';
import { Badge, SimulatedBadge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { DOMAIN_LABEL, TEACHING_CASES, type TeachingCase } from './teaching-cases.ts';
import { traceCases, type TraceCase } from './taxonomy-model.ts';
import { Panel, TextBlock, TypeBadge } from './type-ui.tsx';

const FILTERS: (ClarifierType | 'all')[] = ['all', 'DG', 'RD', 'SC', 'CG', 'NONE'];

export function Gallery() {
  const params = useUrl((s) => s.params);
  const setParams = useUrl((s) => s.setParams);
  const runs = useLibrary((s) => s.runs);
  const fromTraces = useMemo(() => traceCases(Object.values(runs)), [runs]);
  const filter = (FILTERS as string[]).includes(params.type ?? '') ? (params.type as ClarifierType) : 'all';
  const ours = TEACHING_CASES.filter((c) => filter === 'all' || c.type === filter);
  const theirs = fromTraces.filter((c) => filter === 'all' || c.type === filter);
  const open = TEACHING_CASES.find((c) => c.id === params.case);
  const openTrace = fromTraces.find((c) => c.id === params.case);

  if (open) return <CaseView c={open} onBack={() => setParams({ case: undefined })} />;
  if (openTrace) return <TraceCaseView c={openTrace} onBack={() => setParams({ case: undefined })} />;

  return (
    <div className="space-y-3" data-testid="gallery">
      <TypeGuide />
      <div className="flex flex-wrap items-center gap-1" role="group" aria-label="Filter by type">
        {FILTERS.map((f) => (
          <button
            key={f}
            type="button"
            aria-pressed={filter === f}
            onClick={() => setParams({ type: f === 'all' ? undefined : f })}
            className={`rounded border px-2 py-0.5 text-xs ${filter === f ? 'border-indigo-500 bg-indigo-600 text-white' : 'border-slate-300 bg-white text-slate-700 hover:bg-slate-50'}`}
          >
            {f === 'all' ? 'All types' : `${f} · ${TYPE_INFO[f].name}`}
          </button>
        ))}
      </div>
      <Panel title={`Our annotated cases (${ours.length})`}>
        <p className="mb-2 text-xs text-slate-500">Written for this studio to teach the types; illustrations, not recorded traces.</p>
        <ul className="grid gap-2 sm:grid-cols-2 xl:grid-cols-3">
          {ours.map((c) => (
            <li key={c.id}>
              <button
                type="button"
                data-testid="case-card"
                data-case-id={c.id}
                onClick={() => setParams({ case: c.id })}
                className="block h-full w-full rounded border border-slate-200 bg-white p-2 text-left hover:border-indigo-300 hover:bg-indigo-50/40"
              >
                <span className="flex flex-wrap items-center gap-1">
                  <TypeBadge type={c.type} />
                  <Badge>{DOMAIN_LABEL[c.domain]}</Badge>
                  <span className="text-sm font-medium text-slate-800">{c.title}</span>
                </span>
                <span className="mt-1 block text-xs text-slate-600">
                  {c.sender} → {c.receiver}: “{c.message.length > 120 ? `${c.message.slice(0, 120)}…` : c.message}”
                </span>
              </button>
            </li>
          ))}
        </ul>
      </Panel>
      <Panel title={`From your traces (${theirs.length})`} testId="trace-cases">
        {fromTraces.length === 0 ? (
          <p className="text-xs text-slate-600">
            None yet. In the Edges tab, label an edge of a loaded trace and tick “Show in the gallery” to add it here. It is stored with the run, so it survives a reload and travels with an
            exported session.
          </p>
        ) : (
          <ul className="grid gap-2 sm:grid-cols-2 xl:grid-cols-3">
            {theirs.map((c) => (
              <li key={c.id}>
                <button type="button" data-testid="trace-case-card" onClick={() => setParams({ case: c.id })} className="block h-full w-full rounded border border-slate-200 bg-white p-2 text-left hover:bg-slate-50">
                  <span className="flex flex-wrap items-center gap-1">
                    <TypeBadge type={c.type} />
                    <Badge tone="info">real trace</Badge>
                    {c.simulated && <SimulatedBadge />}
                    <span className="text-sm font-medium text-slate-800">{c.runTitle.length > 60 ? `${c.runTitle.slice(0, 60)}…` : c.runTitle}</span>
                  </span>
                  <span className="mt-1 block text-xs text-slate-600">
                    {c.sender} → {c.receiver}
                    {c.note ? `: ${c.note}` : ''}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </Panel>
    </div>
  );
}

function TypeGuide() {
  return (
    <Panel title="The four edge-level error types">
      <dl className="grid gap-2 text-xs md:grid-cols-2 xl:grid-cols-4">
        {(['DG', 'RD', 'SC', 'CG'] as const).map((t) => {
          const info = TYPE_INFO[t];
          return (
            <div key={t} className="rounded bg-slate-50 p-2">
              <dt>
                <TypeBadge type={t} full />
              </dt>
              <dd className="mt-1 text-slate-700">{info.definition}</dd>
              <dd className="mt-1 text-slate-600">
                <span className="font-medium">Signals:</span> {info.signals.join('; ')}.
              </dd>
              <dd className="mt-1 text-slate-600">
                <span className="font-medium">Ask:</span> {info.howToAsk} {info.whom}
              </dd>
            </div>
          );
        })}
      </dl>
    </Panel>
  );
}

export function CaseView({ c, onBack }: { c: TeachingCase; onBack?: () => void }) {
  const addressee = c.toAgent === 'sender' ? c.sender : c.toAgent === 'receiver' ? c.receiver : undefined;
  return (
    <article className="space-y-3" data-testid="case-view" data-case-id={c.id}>
      {onBack && (
        <Button size="sm" onClick={onBack}>
          ← All cases
        </Button>
      )}
      <Panel
        title={
          <span className="flex flex-wrap items-center gap-2">
            <TypeBadge type={c.type} full />
            <Badge>{DOMAIN_LABEL[c.domain]}</Badge>
            <span>{c.title}</span>
          </span>
        }
      >
        <div className="space-y-2 text-xs">
          <TextBlock label="Task">{c.task}</TextBlock>
          <p className="text-slate-700">
            <span className="font-medium">Handoff:</span> {c.sender} → {c.receiver}
            {c.receiverRole ? ` (${c.receiver}: ${c.receiverRole})` : ''}
          </p>
          {c.earlier && <TextBlock label="Earlier on this link">{c.earlier}</TextBlock>}
          <TextBlock label={c.type === 'NONE' ? 'Handoff' : 'Faulty handoff'} tone={c.type === 'NONE' ? 'plain' : 'faulty'} testId="case-message">
            {c.message}
          </TextBlock>
          {c.question && (
            <div className="rounded border border-indigo-200 bg-indigo-50 p-2" data-testid="case-question">
              <p>
                <span className="font-medium">Clarifier asks {addressee}</span> ({c.toAgent}): {c.question}
              </p>
              {c.reply && (
                <p className="mt-1">
                  <span className="font-medium">{addressee} answers:</span> {c.reply}
                </p>
              )}
            </div>
          )}
          {c.revised && (
            <TextBlock label="Revised handoff" tone="fixed" testId="case-revised">
              {c.revised}
            </TextBlock>
          )}
          <p className="rounded bg-slate-50 p-2 text-slate-700" data-testid="case-explanation">
            <span className="font-medium">Why {c.type}:</span> {c.explanation}
          </p>
        </div>
      </Panel>
    </article>
  );
}

function TraceCaseView({ c, onBack }: { c: TraceCase; onBack: () => void }) {
  const navigate = useUrl((s) => s.navigate);
  const cl = c.clarification;
  return (
    <article className="space-y-3" data-testid="trace-case-view">
      <Button size="sm" onClick={onBack}>
        ← All cases
      </Button>
      <Panel
        title={
          <span className="flex flex-wrap items-center gap-2">
            <TypeBadge type={c.type} full />
            <Badge tone="info">real trace</Badge>
            {c.simulated && <SimulatedBadge />}
            <span>{c.runTitle}</span>
          </span>
        }
        actions={
          <Button size="sm" onClick={() => navigate('taxonomy', { tab: 'edges', run: c.runId, edge: c.handoffId })}>
            Open the edge →
          </Button>
        }
      >
        <div className="space-y-2 text-xs">
          <TextBlock label="Task">{c.task || '(not recorded)'}</TextBlock>
          <p>
            <span className="font-medium">Handoff:</span> {c.sender} → {c.receiver}
          </p>
          <TextBlock label="Handoff as recorded" tone={c.type === 'NONE' ? 'plain' : 'faulty'}>{c.message}</TextBlock>
          {c.note && <p className="rounded bg-slate-50 p-2"><span className="font-medium">Labeller’s note:</span> {c.note}</p>}
          {cl && cl.type !== 'NONE' ? (
            <>
              <p className="rounded border border-indigo-200 bg-indigo-50 p-2">
                <span className="font-medium">Clarifier{cl.heuristic ? ' (heuristic)' : ''} asks {cl.addressee?.name}</span> ({cl.toAgent}), as {cl.type}: {cl.question}
                {cl.reply && (
                  <>
                    <br />
                    <span className="font-medium">{cl.addressee?.name} answers:</span> {cl.reply}
                  </>
                )}
              </p>
              {cl.changed && <TextBlock label="Revised handoff" tone="fixed">{cl.revisedMessage}</TextBlock>}
            </>
          ) : (
            <p className="text-slate-500">{cl ? 'The clarifier let this message pass.' : 'The clarifier has not been run on this edge yet.'}</p>
          )}
        </div>
      </Panel>
    </article>
  );
}
