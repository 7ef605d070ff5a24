// Rectify-or-reject on one library run: parameters (K_act, T_max, γ, domain, zero-shot), run / cancel with progress,
// and one card per agent message with its attempts, verdicts, feedback and final state.
import { memo, useDeferredValue, useMemo } from 'react';
import { auditableCount, DOMAINS, RECTIFIER_ENGINE, rectifierEffects, type Domain } from '../../engine/rectifier/index.ts';
import { describeStepCounts, interventionsInRunOrderSlices, stepCounts, stepNumbersFor } from '../../model/steps.ts';
import { useSliced } from '../../ui/use-sliced.ts';
import { Preparing } from '../../ui/preparing.tsx';
import type { Intervention, Run, Step } from '../../model/types.ts';
import { effectiveMode, toLlmSettings, useEngineSettings } from '../../store/engine-settings.ts';
import { usePool } from '../../store/indicator-pool.ts';
import { useUrl } from '../../store/url.ts';
import { useLibrary } from '../../store/library.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { Badge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { ErrorBanner } from '../../ui/error-banner.tsx';
import { CostEstimateLine, EngineCostView, useCostEstimate } from '../../ui/cost-view.tsx';
import { EngineControlBar } from '../../ui/engine-control-bar.tsx';
import { estimateRectifyInWorker } from '../../workers/rectifier-client.ts';
import { RunPicker, usePickedRun } from '../../ui/run-picker.tsx';
import { TruncatedText } from '../../ui/truncated-text.tsx';
import { usePacedRun } from '../../ui/use-at-most-every.ts';
import { Pager, usePageInUrl } from '../../ui/pager.tsx';
import { Card, Field, NumberField } from '../../ui/fields.tsx';
import { RectifierDetails, RectifierStateBadge } from './message-card.tsx';
import { rectifierAudit } from '../../engine/rectifier/details.ts';
import { rectifierResults, useRectifyJob } from './rectify-job.ts';
import { plural } from '../../ui/format.ts';
import { LibraryLoading } from '../library/library-loading.tsx';

const hasAgentMessages = (run: Run) => auditableCount(run) > 0;

/** The picker names a run by its step count (as every view does) and says how many of those steps Rectify audits. */
function describePickable(run: Run): string {
  const n = auditableCount(run);
  return `${describeStepCounts(stepCounts(run))} · audits ${n.toLocaleString('en')} agent message${n === 1 ? '' : 's'}`;
}

export function RectifyParamsCard({ disabled }: { disabled: boolean }) {
  const params = useEngineSettings((s) => s.rectifier);
  const set = useEngineSettings((s) => s.setRectifier);
  return (
    <Card title="Rectifier parameters" testId="rectify-params">
      <div className="space-y-3">
        <div className="grid grid-cols-3 gap-2">
          <NumberField label="K_act" value={params.k} min={1} max={50} disabled={disabled || params.zeroShot} hint="indicators per attempt" onChange={(k) => set({ k })} />
          <NumberField label="T_max" value={params.tMax} min={1} max={10} disabled={disabled} hint="attempts before reject" onChange={(tMax) => set({ tMax })} />
          <NumberField label="γ (gamma)" value={params.gamma} min={0} max={1000} disabled={disabled} hint="fallback below this many survivors" onChange={(gamma) => set({ gamma })} />
        </div>
        <Field label="Domain" hint="Chooses the auditor’s wording (and the general indicator in zero-shot mode).">
          {(id) => (
            <select id={id} className="w-full rounded border border-slate-300 px-2 py-1 text-sm" value={params.domain} disabled={disabled} onChange={(e) => set({ domain: e.target.value as Domain })}>
              {DOMAINS.map((d) => (
                <option key={d}>{d}</option>
              ))}
            </select>
          )}
        </Field>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={params.zeroShot} disabled={disabled} onChange={(e) => set({ zeroShot: e.target.checked })} />
          Zero-shot: audit against one general indicator{params.domain === 'generic' ? '' : ` for ${params.domain}`} (no pool, no retrieval)
        </label>
        <p className="text-[11px] text-slate-500">Paper defaults: K_act 5, T_max 3, γ 1; audits at temperature 0; an unreadable audit is retried {plural(params.auditRetries, 'time')}, then dropped.</p>
      </div>
    </Card>
  );
}

export function RectifyRun() {
  const { candidates, hydrated, runId, run } = usePickedRun(hasAgentMessages, { lastViewed: false });
  // The run last open in the run view, when Rectify cannot take it: say why rather than switch silently.
  const viewedId = usePlayhead((s) => s.runId);
  const viewed = useLibrary((s) => (viewedId !== undefined && Object.hasOwn(s.runs, viewedId) ? s.runs[viewedId] : undefined));
  const notTaken = viewed && viewed.id !== runId && !hasAgentMessages(viewed) ? viewed : undefined;
  const why = notTaken && (
    <p className="mb-2 rounded bg-amber-50 px-2 py-1 text-sm text-amber-900" data-testid="rectify-not-current">
      The run you were viewing, “{notTaken.title || notTaken.id}”, is {notTaken.sourceFormat === 'span-tree' || notTaken.sourceFormat === 'otlp' ? 'a span tree' : 'a run'} without
      messages from one agent to another, which is what Rectify audits{candidates.length > 0 ? '; pick a chat-style run below' : ''}.
    </p>
  );

  if (!hydrated) return <Card title="Rectify a run"><LibraryLoading /></Card>;
  if (candidates.length === 0) {
    return (
      <Card title="Rectify a run" testId="rectify-run">
        {why}
        <p className="text-sm text-slate-600">No chat-style run with agent messages in the library: open a Who&amp;When, tau-bench or native session first.</p>
      </Card>
    );
  }
  return (
    <div className="space-y-4">
      <Card title="Rectify a run" testId="rectify-run">
        {why}
        <RunPicker runs={candidates} runId={runId} missing={run === undefined} describe={describePickable} drop={['page']} />
        {run ? <Controls run={run} /> : <p className="mt-2 text-sm text-red-800">Run “{runId}” is not in the library.</p>}
      </Card>
      {run && <Messages key={run.id} run={run} />}
    </div>
  );
}

function Controls({ run }: { run: Run }) {
  const job = useRectifyJob();
  const endpoint = useEngineSettings((s) => s.endpoint);
  const pool = usePool((s) => s.pool);
  const params = useEngineSettings((s) => s.rectifier);
  const mode = effectiveMode(endpoint);
  const mine = job.runId === run.id;
  // Read at every report of a pass: counted once per change of the run's interventions.
  const existing = useMemo(() => rectifierResults(run).length, [run.interventions]);
  const total = auditableCount(run);
  const unfinished = existing > 0 && existing < total;
  const noPool = !pool && !params.zeroShot;
  const progress = job.progress;
  const preparing = mine && job.status === 'running' && job.embedsPool && !progress;
  const estimatePool = pool ?? { name: 'general', indicators: [] };
  // The status is in the key: after a pass the pool's embeddings are cached, and the estimate says so.
  const estimate = useCostEstimate(
    noPool ? undefined : JSON.stringify([run.id, run.steps.length, estimatePool.name, estimatePool.indicators.length, params, mode, endpoint.models, endpoint.maxTokens, job.status]),
    () => estimateRectifyInWorker([run], estimatePool, params, mode === 'endpoint' ? toLlmSettings(endpoint, undefined) : undefined),
  );
  return (
    <div className="mt-3 space-y-3">
      <p className="text-xs text-slate-600" data-testid="rectify-mode">
        {mode === 'offline' ? (
          <>
            <Badge tone="warning">offline</Badge> No endpoint: retrieval only (BM25), showing which indicators would be audited; no verdicts are made up.
          </>
        ) : (
          <>
            <Badge tone="info">endpoint</Badge> Rectifier “{endpoint.models.rectifier ?? endpoint.models.supervisor}”, embeddings “{endpoint.models.embeddings ?? endpoint.models.supervisor}”, agents “
            {endpoint.models.agents ?? endpoint.models.supervisor}” at {endpoint.baseUrl}
          </>
        )}
      </p>
      <EngineControlBar
        testPrefix="rectify"
        job={job}
        mine={mine}
        blocked={noPool}
        actions={[
          { label: existing > 0 ? 'Rectify again' : 'Rectify run', onClick: () => void job.start(run.id, { fresh: true }) },
          ...(unfinished || (mine && job.status === 'interrupted')
            ? [{ label: `Resume (${existing} of ${total} kept)`, onClick: () => void (mine && job.status === 'interrupted' ? job.resume() : job.start(run.id)) }]
            : []),
        ]}
        busyElsewhere="The rectifier is busy with another run."
        estimate={<CostEstimateLine state={estimate} testId="rectify-estimate" note={mode === 'offline' ? 'offline nothing is sent (BM25 retrieval only); this is the price with the endpoint' : undefined} />}
        progress={
          progress && {
            label: 'Messages gated',
            done: progress.done,
            total: progress.total,
            text: (
              <>
                {progress.done} / {progress.total} messages · {progress.passed} passed · {progress.retried} retried · {progress.rejected} rejected ·{' '}
                <span data-testid="rectify-tokens">{job.spent.toLocaleString('en')}</span> rectifier LLM tokens
              </>
            ),
          }
        }
        failure={{
          title: job.result?.failure ? `Rectifier call failed on ${job.result.failure.agent} step ${job.result.failure.stepNumber ?? '?'}` : 'The rectifier stopped',
          message: job.error,
          note: 'Messages finished before it are kept in the run; fix the cause and press Resume.',
        }}
        stopped="Cancelled: finished messages are kept; Resume continues."
        interrupted={`The page was closed or reloaded while the rectifier was working on this run; ${existing} finished message(s) are kept. Resume continues from there.`}
      >
        {noPool && <p className="text-xs text-slate-600">Open an indicator pool first, or tick zero-shot mode.</p>}
        {mine && job.status !== 'running' && job.result && !job.result.offline && <EngineCostView cost={job.result.cost} testId="rectify-cost" />}
        {preparing && (
          <p className="text-xs text-slate-700" data-testid="rectify-preparing">
            Embedding the pool’s trigger conditions{job.poolProgress ? ` (${job.poolProgress.done} / ${job.poolProgress.total})` : ''}…
          </p>
        )}
      </EngineControlBar>
    </div>
  );
}

/** Audited messages shown at a time: an offline pass audits every message of a run, thousands of them. */
const MESSAGES_PAGE = 50;

/** A run with at most this many steps and interventions has its messages put in order within the render, else in slices. */
const LIST_AT_ONCE_MAX = 20_000;
const NO_MESSAGES: Intervention[] = [];
const isAuditedMessage = (i: Intervention) => i.engine === RECTIFIER_ENGINE && !!i.stepId;

function Messages({ run: latest }: { run: Run }) {
  const navigate = useUrl((s) => s.navigate);
  const passing = useRectifyJob((s) => s.status === 'running' && s.runId === latest.id);
  // Paced on a large run while a pass keeps results in it (the progress bar above counts them as they come). Drawn in
  // React's background lane, in slices of a few ms: drawn with the result that brought it, the first page of 50
  // audited messages was one task of 70–115 ms beside the keeping of that result (ADR 0108).
  const run = useDeferredValue(usePacedRun(latest, passing));
  const effects = useMemo(() => rectifierEffects(run), [run]);
  // The messages in run order, found in one pass over the steps (Maps of every step were a long task at a million); in
  // slices on a large run, the list before shown meanwhile.
  const { value: list, progress } = useSliced(() => interventionsInRunOrderSlices(run, isAuditedMessage), [run], run.steps.length + run.interventions.length <= LIST_AT_ONCE_MAX, run.id);
  const mine = list?.items ?? NO_MESSAGES;
  // One page of them drawn: all of them, drawn again at every result of a pass, made the pass quadratic on the page.
  // The page is in the address (`page`, from 1), so a link or a reload shows the same messages.
  const { shown, page: shownPage, pages, setPage } = usePageInUrl(mine, MESSAGES_PAGE);
  // Step numbers read the steps only: during a pass the run (its interventions) changes at each paced update, its steps
  // and the page's messages mostly do not, and each count was three passes over every step.
  // (The ids as one JSON text: equal when the same messages are shown, whatever characters the ids hold.)
  const shownIds = JSON.stringify(shown.map((i) => i.stepId!));
  const { steps } = run;
  const numbers = useMemo(() => stepNumbersFor({ steps }, JSON.parse(shownIds) as string[]), [steps, shownIds]);
  const fallback = run.interventions.find((i) => i.engine === RECTIFIER_ENGINE && i.action === 'global-fallback');
  if (!list) return run.interventions.length > 0 ? <Preparing label="Putting the audited messages in step order" progress={progress} testId="rectify-preparing" /> : null;
  const found = list.found;
  if (mine.length === 0) return null;
  return (
    <Card title={`Agent messages (${mine.length.toLocaleString('en')})`} testId="rectify-messages">
      {fallback && (
        <div className="mb-3">
          <ErrorBanner title="Global fallback" tone="warning">
            <p data-testid="rectify-fallback">{fallback.reason}</p>
          </ErrorBanner>
        </div>
      )}
      <p className="mb-2 text-xs text-slate-600">
        {effects.pruned.size} pruned · {effects.rewritten.size} rewritten after feedback. Pruned messages are hidden from the agents that speak after them; the run view marks them.
      </p>
      {pages > 1 && <Pager page={shownPage} pages={pages} perPage={MESSAGES_PAGE} total={mine.length} noun="messages" testPrefix="rectify" onPage={setPage} />}
      <ol className="space-y-3">
        {shown.map((iv) => (
          <MessageItem key={iv.id} iv={iv} step={found.get(iv.stepId!)?.step} number={numbers.get(iv.stepId!)} fallback={!!fallback} runId={run.id} navigate={navigate} />
        ))}
      </ol>
      {pages > 1 && <Pager page={shownPage} pages={pages} perPage={MESSAGES_PAGE} total={mine.length} noun="messages" testPrefix="rectify" onPage={setPage} />}
    </Card>
  );
}

/**
 * A message's card: laid out and painted only near the screen (`content-visibility: auto`, ~260 px meanwhile, then the
 * size it last had). Laid out at once, a page of 50 cards was a task of 50–65 ms of layout and paint (ADR 0108); they
 * stay in the DOM for find-in-page and assistive technology.
 */
const MESSAGE_CARD = 'rounded border p-3 [content-visibility:auto] [contain-intrinsic-size:auto_260px]';

/**
 * One audited message; `step` is its step, found with the others' in one pass (a search of the run per message was
 * messages × steps). Drawn again only when one of its props changes: a pass's next results leave the page's cards as they are.
 */
const MessageItem = memo(function MessageItem({
  iv,
  step,
  number,
  fallback,
  runId,
  navigate,
}: {
  iv: Intervention;
  step: Step | undefined;
  number: number | undefined;
  fallback: boolean;
  runId: string;
  navigate: ReturnType<typeof useUrl.getState>['navigate'];
}) {
  const onOpen = () => navigate('run', { run: runId, step: iv.stepId! });
  const d = rectifierAudit(iv);
  const final = typeof d?.finalOutput === 'string' && d.finalOutput !== d.originalOutput ? d.finalOutput : undefined;
  return (
    <li className={`${MESSAGE_CARD} ${iv.action === 'rejected' ? 'border-red-200 bg-red-50/40' : 'border-slate-200'}`} data-testid="rectify-message" data-state={iv.action} data-step={iv.stepId}>
      <header className="mb-1 flex flex-wrap items-center gap-2 text-sm">
        <span className="font-medium">{d?.agent ?? step?.agentId ?? ''}</span>
        <span className="text-xs text-slate-500" data-testid="rectify-step-number">
          step {number ?? '?'}
        </span>
        <RectifierStateBadge iv={iv} fallback={fallback} />
        <span className="text-xs text-slate-500">
          {d?.attempts.length ?? 0} attempt(s) · {d?.calls ?? 0} LLM calls{iv.tokens ? ` · ${iv.tokens.total.toLocaleString('en')} tokens` : ''}
          {d?.droppedAudits !== undefined && d.droppedAudits > 0 ? ` · ${d.droppedAudits} audit(s) dropped` : ''}
        </span>
        <Button size="sm" variant="ghost" className="ml-auto" onClick={onOpen}>
          Open in run view
        </Button>
      </header>
      <p className="mb-2 text-xs text-slate-600">{iv.reason}</p>
      {final && (
        <details className="mb-2 text-xs" data-testid="rectified-text">
          <summary className="cursor-pointer text-indigo-700">Delivered text (after feedback)</summary>
          <TruncatedText text={final} pre limit={1500} className="mt-1 rounded bg-emerald-50 p-1" />
        </details>
      )}
      <RectifierDetails iv={iv} />
    </li>
  );
});
