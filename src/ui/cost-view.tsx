// What an engine pass will cost before it runs, and what it spent after (issue 21). The estimate is computed by the
// engine's worker (it tokenizes the whole run), a moment after the settings stop changing; nothing is sent for it.
import { useEffect, useRef, useState } from 'react';
import type { CostEstimate, EngineCost } from '../llm/cost.ts';
import { Badge } from './badge.tsx';
import { estimateLine, estimateOneTimeLine, estimatePerRun, oneTimeLine, perRunLine } from './cost-format.ts';

export type EstimateState = { status: 'pending' } | { status: 'ready'; estimate: CostEstimate } | { status: 'error'; message: string };

/** The estimate for `key` (the run and every setting that changes it), recomputed when the key changes. */
export function useCostEstimate(key: string | undefined, compute: () => Promise<CostEstimate>): EstimateState | undefined {
  const [state, setState] = useState<{ key: string; state: EstimateState } | undefined>();
  const computeRef = useRef(compute);
  computeRef.current = compute;
  useEffect(() => {
    if (key === undefined) return;
    let current = true;
    setState({ key, state: { status: 'pending' } });
    const timer = setTimeout(() => {
      computeRef.current().then(
        (estimate) => current && setState({ key, state: { status: 'ready', estimate } }),
        (e: unknown) => current && setState({ key, state: { status: 'error', message: e instanceof Error ? e.message : String(e) } }),
      );
    }, 200);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [key]);
  return key !== undefined && state?.key === key ? state.state : key !== undefined ? { status: 'pending' } : undefined;
}

/**
 * The box every state of the estimate line is drawn in: the same border and padding while it is pending, failed or
 * ready, so the estimate arriving (a worker's answer, seconds later on a busy machine) does not move what is below it
 * under a pointer about to click (a label's radio button was clicked through such a shift). Lines of 20 px: the
 * ready line's badge is that tall, and the pending line is then as tall as the ready one (30 px, not 26).
 */
const ESTIMATE_BOX = 'rounded border px-2 py-1 text-xs leading-5';

/** One line under the run buttons: calls and tokens the chosen run and settings would cost. */
export function CostEstimateLine({ state, testId, note }: { state: EstimateState | undefined; testId: string; note?: string }) {
  if (!state) return null;
  if (state.status === 'pending') {
    return (
      <p className={`${ESTIMATE_BOX} border-slate-200 bg-slate-50 text-slate-500`} data-testid={testId} data-status="pending">
        Estimating the cost…
      </p>
    );
  }
  if (state.status === 'error') {
    return (
      <p className={`${ESTIMATE_BOX} border-amber-200 bg-amber-50 text-amber-800`} data-testid={testId} data-status="error">
        No estimate: {state.message}
      </p>
    );
  }
  const e = state.estimate;
  const perRun = estimatePerRun(e);
  const oneTime = estimateOneTimeLine(e);
  return (
    <div
      className={`${ESTIMATE_BOX} border-slate-200 bg-slate-50 text-slate-700`}
      data-testid={testId}
      data-status="ready"
      data-calls={perRun.calls}
      data-tokens={perRun.tokens.total}
      data-one-time-tokens={e.oneTime ? (e.oneTime.cached ? 0 : e.oneTime.tokens.total) : undefined}
      data-one-time-cached={e.oneTime ? String(e.oneTime.cached) : undefined}
      title={e.assumptions.join('\n')}
    >
      <span className="font-medium">Estimate before running:</span> <span data-testid={`${testId}-per-run`}>{estimateLine(e)}</span>
      {oneTime && (
        <>
          {' '}
          · <span data-testid={`${testId}-one-time`}>{oneTime}</span>
        </>
      )}
      {note && <span className="text-slate-500"> · {note}</span>}
      <span className="ml-1">
        <Badge tone="neutral" title={e.assumptions.join('\n')}>
          estimate
        </Badge>
      </span>
    </div>
  );
}

/** What a finished pass spent, per run and one-time, as the endpoint reported it (the CLI's `cost` says the same). */
export function EngineCostView({ cost, testId }: { cost: EngineCost; testId: string }) {
  const o = cost.oneTime;
  return (
    <dl
      className="space-y-0.5 text-xs text-slate-700"
      data-testid={testId}
      data-calls={cost.perRun.calls}
      data-tokens={cost.perRun.tokens.total}
      data-estimated={String(cost.perRun.estimated)}
      data-one-time-tokens={o ? o.tokens.total : undefined}
      data-one-time-cached={o ? String(o.cached) : undefined}
    >
      <div>
        <dt className="inline font-medium">Spent on this run: </dt>
        <dd className="inline tabular-nums" data-testid={`${testId}-per-run`}>
          {perRunLine(cost.perRun)}
        </dd>{' '}
        {cost.perRun.estimated ? <Badge tone="warning">estimated</Badge> : <Badge tone="info">usage from the endpoint</Badge>}
      </div>
      {o && (
        <div>
          <dt className="inline font-medium">One-time: </dt>
          <dd className="inline tabular-nums" data-testid={`${testId}-one-time`}>
            {oneTimeLine(o)}
          </dd>{' '}
          {o.cached && <Badge tone="success">served from cache</Badge>}
          {o.estimated && <Badge tone="warning">estimated</Badge>}
        </div>
      )}
    </dl>
  );
}
