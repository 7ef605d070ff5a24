// One supervisor intervention: why it fired, what it did, how (LLM-free heuristic, or the supervisor's exchange with
// the endpoint), what it cost, and the observation before and after. All trace and model text is rendered as text.
import { recordOf } from '../../model/record.ts';
import { didNotShorten, supervisorDetails, type SupervisorDetails } from '../../engine/supervisor/details.ts';
import { observationChangeOf } from '../../engine/runner/edit-details.ts';
import type { Intervention, LlmCallRecord, Step } from '../../model/types.ts';
import { Badge } from '../../ui/badge.tsx';
import { TruncatedText } from '../../ui/truncated-text.tsx';
import { useLibrary } from '../../store/library.ts';
import { ObservationDiff } from './observation-diff.tsx';

const CONTEXT_LABEL: Record<string, string> = recordOf({
  subagent_completion: 'sub-agent completion',
  error: 'error',
  inefficient: 'inefficient',
  excessive: 'excessive observation',
});

const AFTER_LABEL: Record<string, string> = recordOf({
  correct_observation: 'corrected',
  provide_guidance: 'with guidance',
  run_verification: 'with verification',
});

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The badges that say how an intervention was decided and what it cost. */
export function InterventionBadges({ iv }: { iv: Intervention }) {
  return (
    <span className="inline-flex flex-wrap gap-1">
      {iv.context && <Badge tone="info">{CONTEXT_LABEL[iv.context] ?? iv.context}</Badge>}
      <Badge tone="success">{iv.action.replace(/_/g, ' ')}</Badge>
      {iv.heuristic ? (
        <Badge tone="warning" title="Decided by the LLM-free heuristics (offline), not by a model">
          heuristic
        </Badge>
      ) : (
        <Badge tone="neutral" title="Decided by the supervisor model">
          LLM
        </Badge>
      )}
      {iv.tokens && (
        <Badge tone={iv.tokens.estimated ? 'warning' : 'neutral'} title={iv.tokens.estimated ? 'Counted with a tokenizer: the server reported no usage' : 'Usage reported by the server'}>
          {iv.tokens.total.toLocaleString('en')} tokens{iv.tokens.estimated ? ' (estimated)' : ''}
        </Badge>
      )}
    </span>
  );
}

/** Everything below an intervention's title; shared by the engines panel and the run view's step inspector. */
export function InterventionBody({ iv }: { iv: Intervention }) {
  const d: Partial<SupervisorDetails> = supervisorDetails(iv) ?? {};
  const { originalObservation: original, newObservation: changed } = observationChangeOf(iv);
  const repairs = d.repairs ?? [];
  return (
    <div className="space-y-2 text-xs">
      <p className="whitespace-pre-wrap break-words text-slate-800" data-testid="intervention-reason">
        <span className="font-medium text-slate-500">Trigger: </span>
        {iv.reason}
      </p>
      {str(d.analysis) && (
        <p className="whitespace-pre-wrap break-words text-slate-700">
          <span className="font-medium text-slate-500">Analysis: </span>
          {str(d.analysis)}
        </p>
      )}
      {str(d.guidance) && (
        <p className="whitespace-pre-wrap break-words text-slate-700">
          <span className="font-medium text-slate-500">Guidance: </span>
          {str(d.guidance)}
        </p>
      )}
      {str(d.verificationTask) && (
        <p className="whitespace-pre-wrap break-words text-slate-700">
          <span className="font-medium text-slate-500">Verified: </span>
          {str(d.verificationTask)} → {str(d.verificationFinding) ?? ''}
        </p>
      )}
      {str(d.fallback) && <p className="rounded bg-amber-50 px-2 py-1 text-amber-900">Fell back: {str(d.fallback)}</p>}
      {repairs.length > 0 && <p className="rounded bg-amber-50 px-2 py-1 text-amber-900">Answer repaired: {repairs.join('; ')}</p>}
      {d.unchanged === true && <p className="text-slate-500">The correction left the observation unchanged, so it was not applied.</p>}
      {iv.llmCallIds && iv.llmCallIds.length > 0 && <LlmExchange ids={iv.llmCallIds} engine={iv.engine} />}
      {original !== undefined && changed !== undefined && didNotShorten(iv, original, changed) && (
        <p className="rounded bg-amber-50 px-2 py-1 text-amber-900" data-testid="did-not-shorten">
          Did not shorten the observation ({original.length.toLocaleString('en')} → {changed.length.toLocaleString('en')} characters): it saves nothing, and the net
          saving leaves it out.
        </p>
      )}
      {original !== undefined && changed !== undefined && (
        <details open className="rounded border border-slate-200 p-2">
          <summary className="cursor-pointer font-semibold text-slate-600">Observation: raw vs {AFTER_LABEL[iv.action] ?? 'changed'}</summary>
          <div className="mt-1">
            <ObservationDiff before={original} after={changed} afterLabel={AFTER_LABEL[iv.action] ?? 'changed'} />
          </div>
        </details>
      )}
    </div>
  );
}

function responseText(record: LlmCallRecord): string | undefined {
  const content = (record.response as { choices?: { message?: { content?: unknown } }[] } | undefined)?.choices?.[0]?.message?.content;
  return typeof content === 'string' ? content : undefined;
}

function requestMessages(record: LlmCallRecord): { role: string; content: string }[] {
  const messages = (record.request as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return [];
  return messages.map((m: { role?: unknown; content?: unknown }) => ({ role: String(m.role ?? ''), content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) }));
}

const ENGINE_NAME: Record<Intervention['engine'], string> = { supervisor: 'Supervisor', rectifier: 'Rectifier', clarifier: 'Clarifier', stages: 'Stage planner', human: 'Human' };

/** The engine's recorded endpoint calls for one intervention: prompts, answers, usage and latency. */
export function LlmExchange({ ids, engine = 'supervisor' }: { ids: string[]; engine?: Intervention['engine'] }) {
  const calls = useLibrary((s) => s.llmCalls);
  return (
    <details className="rounded border border-slate-200 p-2" data-testid="llm-exchange">
      <summary className="cursor-pointer font-semibold text-slate-600">
        {ENGINE_NAME[engine]}’s LLM exchange ({ids.length} call{ids.length === 1 ? '' : 's'})
      </summary>
      <ol className="mt-1 space-y-2">
        {ids.map((id, n) => {
          const record = calls[id];
          if (!record) return <li key={`${id}-${n}`} className="text-slate-500">Call {id}: its record is not in this session.</li>;
          const answer = responseText(record);
          return (
            <li key={`${id}-${n}`} className="space-y-1">
              <p className="text-slate-500">
                {record.model}
                {record.usage && ` · ${record.usage.input.toLocaleString('en')} in + ${record.usage.output.toLocaleString('en')} out tokens${record.usage.estimated ? ' (estimated)' : ''}`}
                {record.latencyMs !== undefined && ` · ${record.latencyMs.toLocaleString('en')} ms`}
              </p>
              {requestMessages(record).map((m, i) => (
                <div key={i}>
                  <p className="font-medium text-slate-600">{m.role}</p>
                  <TruncatedText text={m.content} pre limit={800} className="rounded bg-slate-50 p-1" />
                </div>
              ))}
              <p className="font-medium text-slate-600">response</p>
              {record.error !== undefined ? (
                <p className="text-red-800">failed: {record.error}</p>
              ) : (
                <TruncatedText text={answer ?? JSON.stringify(record.response)} pre limit={1500} className="rounded bg-emerald-50 p-1" />
              )}
            </li>
          );
        })}
      </ol>
    </details>
  );
}

/**
 * A card is laid out and painted only near the screen (`content-visibility: auto`; ~240 px meanwhile, then the size it
 * last had), as the Rectify view's message cards (ADR 0108). A page of 50 cards with their observation diffs was one
 * frame of 80–96 ms of style, layout and paint whenever a pass's batch of results changed it (ADR 0110).
 */
const CARD = 'rounded border border-slate-200 bg-white p-3 shadow-sm [content-visibility:auto] [contain-intrinsic-size:auto_240px]';

export function InterventionCard({ iv, step, agent, onOpen }: { iv: Intervention; step?: Step; agent?: string; onOpen?: () => void }) {
  return (
    <article className={CARD} data-testid="intervention-card" data-step-id={iv.stepId}>
      <header className="mb-2 flex flex-wrap items-center gap-2">
        <button
          type="button"
          onClick={onOpen}
          className="text-left text-sm font-semibold text-indigo-800 hover:underline focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
          title="Move the run view's playhead to this step"
        >
          {agent ?? 'step'} · step {step?.number ?? (step ? step.index + 1 : '?')} →
        </button>
        <InterventionBadges iv={iv} />
      </header>
      <InterventionBody iv={iv} />
    </article>
  );
}
