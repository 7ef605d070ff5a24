// Everything recorded about the step under the playhead: thought, model output, tool calls, observation, error,
// tokens, timing, annotations and interventions on it, nested model/tool calls, and the raw source attributes.
import { memo, type ReactNode } from 'react';
import type { Annotation, Intervention, Step, TurnOrigin } from '../../model/types.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { InterventionBody } from '../supervisor/intervention-card.tsx';
import { HandoffLinks } from '../taxonomy/handoff-links.tsx';
import { RectifierDetails, RectifierStateBadge } from '../rectify/message-card.tsx';
import { ForkHereButton } from '../live/fork-here.tsx';
import type { RunView } from './run-view-model.ts';
import { TraceText } from './trace-text.tsx';
import { CallWithResult, OutputTurn, PromptTurns } from './conversation.tsx';
import { MessageText } from './message-text.tsx';
import { SpansSection } from './spans-section.tsx';
import { RawSection } from './raw-section.tsx';
import { BusSection } from './bus-section.tsx';
import { formatDuration, safeStringify, formatCount } from '../../ui/format.ts';
import { appendAll, lowerBound } from '../../model/large-arrays.ts';

export { chatMessageOf } from './conversation.tsx';

export function StepInspector({ view }: { view: RunView }) {
  const position = usePlayhead((s) => s.position);
  const step = view.steps[position];
  if (!step) return <section data-testid="inspector" className="p-3 text-sm text-slate-500">No steps in this run.</section>;
  return <InspectorBody view={view} step={step} position={position} />;
}

/** Where a live run's turn came from (runner and forks set `runner.origin`). */
const ORIGIN_LABELS: Record<TurnOrigin, string> = {
  live: 'live call',
  recorded: 'from the recording',
  edited: 'edited at the fork',
  scripted: 'replayed (human)',
  'tool-replay': 'tool turn replayed',
};

/**
 * The inspector paints as one paint chunk of fixed bounds while a step fits the panel: its background fills the panel
 * (`min-h-full`, opaque) whatever the step's height, and nothing inside it clips or scrolls (text boxes scroll only once
 * grown: trace-text.tsx). Chromium layerizes the whole page again whenever a chunk is added, removed or changes its
 * bounds; before, every playhead move did that here (ADR 0032). A step taller than the panel scrolls the panel, whose
 * scroll extent then follows the step, as it must.
 */
const InspectorBody = memo(function InspectorBody({ view, step, position }: { view: RunView; step: Step; position: number }) {
  const agent = view.index.agentById.get(step.agentId);
  const loop = view.loopAt[position] >= 0 ? view.loops[view.loopAt[position]] : undefined;
  const children = view.index.childrenOf.get(step.id) ?? [];
  return (
    <section data-testid="inspector" data-step-id={step.id} data-agent-id={step.agentId} data-position={position} aria-label="Step inspector" className="min-h-full space-y-3 bg-white p-3 text-sm">
      <header>
        <p className="text-xs text-slate-500">
          Step {formatCount(position + 1)} of {formatCount(view.steps.length)}
          {step.number !== undefined && ` · #${step.number} in its agent run`}
        </p>
        <h2 className="text-base font-semibold text-slate-900" data-testid="inspector-title">
          <span data-testid="inspector-agent">{agent?.name ?? step.agentId}</span>
          <span className="font-normal text-slate-500"> · {step.kind}</span>
          {step.name && <span className="font-normal text-slate-700"> · {step.name}</span>}
        </h2>
        <div className="mt-1 flex flex-wrap gap-1">
          {view.errorAt[position] === 1 && <Badge tone="red">error</Badge>}
          {loop && (
            <Badge tone="amber">
              repeated call ×{formatCount(loop.positions.length)} ({formatCount(ordinalIn(loop.positions, position) + 1)} of {formatCount(loop.positions.length)})
            </Badge>
          )}
          {step.usage?.estimated && <Badge tone="slate">tokens estimated</Badge>}
          {step.runner?.origin !== undefined && <Badge tone="violet">{ORIGIN_LABELS[step.runner.origin] ?? step.runner.origin}</Badge>}
          <span className="ml-auto">
            <ForkHereButton run={view.run} step={step} />
          </span>
        </div>
      </header>
      {loop && <p className="text-xs text-amber-800">Repeats {loop.label}</p>}
      {/* What people and engines said about this step comes first; then the conversation; raw records last, folded. */}
      <OnStep annotations={view.annotationsAt.get(position)} interventions={view.interventionsAt.get(position)} />
      <BusSection view={view} step={step} position={position} />
      <StepDetails view={view} step={step} />
      <HandoffLinks run={view.run} handoffs={view.handoffsByStep.get(step.id)} agentName={(id) => view.index.agentById.get(id)?.name ?? id} />
      {children.length > 0 && (
        <Section title={`Nested calls (${children.length})`}>
          <ol className="space-y-1">
            {children.map((child) => (
              <li key={child.id}>
                <details className="rounded border border-slate-200">
                  <summary className="cursor-pointer px-2 py-1 text-xs">
                    <span className="font-medium">{child.kind}</span> {child.name ?? ''}
                    {child.usage && <span className="text-slate-500"> · {formatCount(child.usage.total)} tokens</span>}
                    {child.error && <span className="text-red-700"> · error</span>}
                  </summary>
                  <div className="space-y-2 p-2">
                    <StepDetails view={view} step={child} />
                  </div>
                </details>
              </li>
            ))}
          </ol>
        </Section>
      )}
    </section>
  );
});

/**
 * Where `position` is in a loop's positions (ascending): a binary search, as a chat log's one loop can hold a million
 * positions and `indexOf` ran over them on every move onto one of its steps. -1 when it is not one of them.
 */
export function ordinalIn(positions: readonly number[], position: number): number {
  const at = lowerBound(positions, position);
  return positions[at] === position ? at : -1;
}

/** Steps nested in `step` at any depth (a tool call's own model calls count for the step too). */
function nestedSteps(view: RunView, step: Step): Step[] {
  const out: Step[] = [];
  const queue = [...(view.index.childrenOf.get(step.id) ?? [])];
  for (let i = 0; i < queue.length && i < 10_000; i++) {
    out.push(queue[i]);
    appendAll(queue, view.index.childrenOf.get(queue[i].id) ?? []);
  }
  return out;
}

function StepDetails({ view, step }: { view: RunView; step: Step }) {
  const nested = nestedSteps(view, step);
  const hasOutput = step.output !== undefined && step.output !== '';
  const prompt = step.input && step.input.length > 0 ? step.input : undefined;
  return (
    <>
      {step.thought && (
        <Section title="Thought">
          <MessageText text={step.thought} testId="inspector-thought" />
        </Section>
      )}
      {prompt ? (
        // A model call reads as one conversation: its input messages as turns, then its output turn.
        <Section title={`Conversation (${prompt.length} input message${prompt.length === 1 ? '' : 's'}${hasOutput ? ' and the output' : ''})`}>
          <div className="space-y-1.5" data-testid="inspector-conversation">
            <PromptTurns view={view} messages={prompt} />
            {hasOutput && <OutputTurn view={view} step={step} text={step.output!} />}
          </div>
        </Section>
      ) : (
        hasOutput && (
          <Section title={step.kind === 'message' ? 'Message' : 'Model output'}>
            <OutputTurn view={view} step={step} text={step.output!} />
          </Section>
        )
      )}
      {step.toolCalls && step.toolCalls.length > 0 && (
        <Section title={`Tool calls (${step.toolCalls.length})`}>
          {step.toolCalls.map((call, i) => (
            <CallWithResult key={call.id ?? i} view={view} call={call} />
          ))}
        </Section>
      )}
      {step.inputText !== undefined && step.inputText !== '' && (
        <Section title="Input">
          <TraceText text={step.inputText} json />
        </Section>
      )}
      {step.observation !== undefined && (
        <Section title={`Observation (${formatCount(step.observation.length)} characters)`} collapsible>
          <TraceText text={step.observation} testId="inspector-observation" />
        </Section>
      )}
      {step.error && (
        <Section title="Error">
          <div className="rounded border border-red-200 bg-red-50 p-2 text-xs text-red-900" data-testid="inspector-error">
            {step.error.type && <p className="font-semibold">{step.error.type}</p>}
            <TraceText text={step.error.message} />
          </div>
        </Section>
      )}
      <Usage step={step} nested={nested} />
      <Timing step={step} />
      <SpansSection run={view.run} step={step} />
      {step.runner && (
        <Section title="Runner record" collapsible closed>
          <TraceText text={safeStringify(step.runner)} limit={4000} />
        </Section>
      )}
      <RawSection run={view.run} step={step} />
    </>
  );
}

function Usage({ step, nested }: { step: Step; nested: readonly Step[] }) {
  const own = step.usage;
  const nestedUsage = nested.filter((c) => c.usage);
  if (!own && nestedUsage.length === 0) return null;
  let input = own?.input ?? 0;
  let output = own?.output ?? 0;
  let estimated = own?.estimated === true;
  for (const c of nestedUsage) {
    input += c.usage!.input;
    output += c.usage!.output;
    if (c.usage!.estimated) estimated = true;
  }
  return (
    <Section title="Tokens">
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 text-xs" data-testid="inspector-tokens">
        <dt className="text-slate-500">input</dt>
        <dd>{formatCount(input)}</dd>
        <dt className="text-slate-500">output</dt>
        <dd>{formatCount(output)}</dd>
        {own?.cached !== undefined && (
          <>
            <dt className="text-slate-500">cached</dt>
            <dd>{formatCount(own.cached)}</dd>
          </>
        )}
        <dt className="text-slate-500">total</dt>
        <dd>
          {formatCount(input + output)}{' '}
          <span className={estimated ? 'text-amber-700' : 'text-slate-500'}>{estimated ? '(estimated by a tokenizer)' : '(recorded)'}</span>
          {nestedUsage.length > 0 && <span className="text-slate-500"> · includes {nestedUsage.length} nested calls</span>}
        </dd>
        {own?.cost !== undefined && (
          <>
            <dt className="text-slate-500">cost</dt>
            <dd>{own.cost}</dd>
          </>
        )}
      </dl>
    </Section>
  );
}

function Timing({ step }: { step: Step }) {
  if (step.startTime === undefined) return null;
  const duration = step.endTime !== undefined ? step.endTime - step.startTime : undefined;
  return (
    <Section title="Timing">
      <p className="text-xs text-slate-700">
        {formatTime(step.startTime)}
        {duration !== undefined && ` · ${formatDuration(duration)}`}
      </p>
    </Section>
  );
}

function OnStep({ annotations, interventions }: { annotations?: Annotation[]; interventions?: Intervention[] }) {
  if (!annotations?.length && !interventions?.length) return null;
  return (
    <>
      {annotations && annotations.length > 0 && (
        <Section title={`Annotations (${annotations.length})`}>
          <ul className="space-y-2" data-testid="inspector-annotations">
            {annotations.map((a) => (
              <li key={a.id} className="rounded border border-violet-200 bg-violet-50 p-2 text-xs">
                <p className="font-semibold text-violet-900">
                  {a.taxonomy} · {a.code} <span className="font-normal text-violet-700">({a.source})</span>
                </p>
                {a.description && <p className="mt-1 whitespace-pre-wrap">{a.description}</p>}
                {a.evidence && <p className="mt-1 whitespace-pre-wrap text-slate-600">Evidence: {a.evidence}</p>}
                {a.impact && <p className="mt-1 text-slate-600">Impact: {a.impact}</p>}
              </li>
            ))}
          </ul>
        </Section>
      )}
      {interventions && interventions.length > 0 && (
        <Section title={`Interventions (${interventions.length})`}>
          <ul className="space-y-2">
            {interventions.map((iv) => (
              <li key={iv.id} className="rounded border border-emerald-200 bg-emerald-50 p-2 text-xs" data-testid="inspector-intervention">
                <p className="font-semibold text-emerald-900">
                  {iv.engine} · {iv.action}
                  {iv.context && ` · ${iv.context}`}
                  {iv.heuristic && <span className="font-normal"> (heuristic)</span>}
                </p>
                {/* Trigger, decision, the supervisor's exchange and the raw vs changed observation diff. */}
                <div className="mt-1">
                  {iv.engine === 'rectifier' ? (
                    <div className="space-y-1" data-testid="inspector-rectifier">
                      <RectifierStateBadge iv={iv} />
                      <p className="text-slate-700">{iv.reason}</p>
                      <RectifierDetails iv={iv} />
                    </div>
                  ) : (
                    <InterventionBody iv={iv} />
                  )}
                </div>
              </li>
            ))}
          </ul>
        </Section>
      )}
    </>
  );
}

function Section({ title, children, collapsible = false, closed = false }: { title: string; children: ReactNode; collapsible?: boolean; closed?: boolean }) {
  if (collapsible) {
    return (
      <details open={!closed} className="group">
        <summary className="cursor-pointer text-xs font-semibold tracking-wide text-slate-500 uppercase">{title}</summary>
        <div className="mt-1">{children}</div>
      </details>
    );
  }
  return (
    <div>
      <h3 className="mb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">{title}</h3>
      {children}
    </div>
  );
}

export function Badge({ tone, children }: { tone: 'red' | 'amber' | 'slate' | 'violet' | 'emerald'; children: ReactNode }) {
  const tones = {
    red: 'bg-red-100 text-red-800',
    amber: 'bg-amber-100 text-amber-900',
    slate: 'bg-slate-100 text-slate-700',
    violet: 'bg-violet-100 text-violet-800',
    emerald: 'bg-emerald-100 text-emerald-800',
  };
  return <span className={`rounded px-1.5 py-0.5 text-[11px] font-medium ${tones[tone]}`}>{children}</span>;
}

export function formatTime(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString().replace('T', ' ').replace('Z', ' UTC');
}
