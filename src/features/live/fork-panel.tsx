// Fork tab: pick a run and a step, choose the change (none, an edit by hand, a prune, or an engine's intervention on
// that step), switch engines on, and continue in the worker. The fork enters the library linked to its parent and
// opens in the compare view against it.
import { replaySteps, stepNumber } from '../../model/steps.ts';
import { stepFacts } from '../../model/step-facts.ts';
import { emptyRecord, ownValue, recordOf } from '../../model/record.ts';
import { useMemo, useState } from 'react';
import { create } from 'zustand';
import { defaultTreatment, editFromIntervention, type ForkEdit, type ForkResult, type TurnTreatment } from '../../engine/runner/fork.ts';
import type { Run, Step } from '../../model/types.ts';
import { useLibrary } from '../../store/library.ts';
import { useUrl } from '../../store/url.ts';
import { Badge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { ErrorBanner } from '../../ui/error-banner.tsx';
import { forkInWorker } from '../../workers/live-client.ts';
import { Card } from '../../ui/fields.tsx';
import { EngineToggles } from './engine-toggles.tsx';
import { forkStyle } from '../../engine/runner/forkable.ts';
import { cachedForkProblem } from './fork-here.tsx';
import { useEngineSwitches, useLiveEndpoint } from './live-endpoint.ts';
import { useLiveJob } from './use-live-job.ts';

type ChangeKind = 'none' | 'edit' | 'prune' | `iv:${string}`;

interface LastFork {
  parentId: string;
  forkId: string;
  status: ForkResult['status'];
  reason?: string;
  stats: ForkResult['stats'];
}

const useLastFork = create<{ last?: LastFork }>(() => ({}));

const preview = (text: string | undefined, n = 70) => {
  const t = (text ?? '').replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};

/**
 * Above this many steps the step to fork at is picked by its number, not from a list: an option per step of a
 * million-message chat log was a task of 7.7 s when the run was chosen.
 */
export const STEP_OPTIONS_MAX = 1000;

const optionLabel = (s: Step, i: number) => `#${stepNumber(i)} ${s.agentId}${s.name ? ` (${s.name})` : ''}: ${preview(s.output)}`;

/** The step to fork at: a list of every step for a run of up to STEP_OPTIONS_MAX, else its number and what it says. */
function StepPicker({ steps, position, disabled, onPick }: { steps: readonly Step[]; position: number; disabled: boolean; onPick: (stepId: string) => void }) {
  const [typed, setTyped] = useState<string>();
  const select = 'rounded border border-slate-300 px-1 py-1 text-sm font-normal';
  if (steps.length <= STEP_OPTIONS_MAX) {
    return (
      <select aria-label="Fork step" className={select} value={steps[position].id} disabled={disabled} onChange={(e) => onPick(e.target.value)}>
        {steps.map((s, i) => (
          <option key={s.id} value={s.id}>{optionLabel(s, i)}</option>
        ))}
      </select>
    );
  }
  const shown = typed ?? String(stepNumber(position));
  const n = Number(shown);
  const valid = Number.isInteger(n) && n >= 1 && n <= steps.length;
  return (
    <span className="flex flex-col gap-1">
      <span className="flex items-center gap-2">
        <input
          type="number"
          aria-label="Fork step"
          aria-invalid={!valid}
          aria-describedby="fork-step-shown"
          className={`${select} w-40 tabular-nums`}
          min={1}
          max={steps.length}
          value={shown}
          disabled={disabled}
          onChange={(e) => {
            setTyped(e.target.value);
            const k = Number(e.target.value);
            if (Number.isInteger(k) && k >= 1 && k <= steps.length) onPick(steps[k - 1].id);
          }}
          onBlur={() => setTyped(undefined)}
        />
        <span className="font-normal text-slate-600" data-testid="fork-step-count">of {steps.length.toLocaleString('en')}</span>
      </span>
      <span id="fork-step-shown" data-testid="fork-step-shown" className={`font-normal ${valid ? 'text-slate-600' : 'text-red-700'}`}>
        {valid ? optionLabel(steps[position], position) : `a step number from 1 to ${steps.length.toLocaleString('en')}`}
      </span>
    </span>
  );
}

export function ForkPanel() {
  const params = useUrl((s) => s.params);
  const setParams = useUrl((s) => s.setParams);
  const navigate = useUrl((s) => s.navigate);
  const runs = useLibrary((s) => s.runs);
  const hydrated = useLibrary((s) => s.hydrated);
  const endpoint = useLiveEndpoint();
  const engines = useEngineSwitches(!!endpoint.settings);
  const forkable = useMemo(() => Object.values(runs).filter((r) => cachedForkProblem(r) === undefined), [runs]);
  const parent: Run | undefined = params.forkOf ? runs[params.forkOf] : undefined;
  const top: readonly Step[] = useMemo(() => (parent ? replaySteps(parent) : []), [parent]);
  const position = useMemo(() => Math.max(0, top.findIndex((s) => s.id === params.at)), [top, params.at]);
  const step: Step | undefined = top[position];
  const interventions = useMemo(() => (parent && step ? parent.interventions.filter((iv) => iv.stepId === step.id && editFromIntervention(iv)) : []), [parent, step]);
  const [change, setChange] = useState<ChangeKind>('edit');
  const [overrides, setOverrides] = useState<{ runId: string; map: Record<string, TurnTreatment> }>();
  /** Each speaking agent with the default treatment of its turns (from its kind and name). */
  const speakers = useMemo(() => {
    const seen = new Map<string, TurnTreatment>();
    // Read until every agent with a row of the step list (its step facts) is met: the rest of a long run adds none.
    let speaking = 0;
    if (parent) for (const { rows } of stepFacts(parent).agents.values()) if (rows > 0) speaking++;
    for (let i = 0; i < top.length && seen.size < speaking; i++) {
      const s = top[i];
      if (!seen.has(s.agentId)) seen.set(s.agentId, defaultTreatment(parent?.agents.find((a) => a.id === s.agentId), s));
    }
    return [...seen];
  }, [top, parent]);
  const treatments = overrides && parent && overrides.runId === parent.id ? overrides.map : emptyRecord<TurnTreatment>();
  const [text, setText] = useState<{ stepId: string; value: string }>();
  const { busy, progress, error, start: startJob, cancel } = useLiveJob();
  const last = useLastFork((s) => s.last);
  const edited = text && step && text.stepId === step.id ? text.value : (step?.output ?? step?.observation ?? '');
  const problem = parent ? cachedForkProblem(parent) : undefined;
  const style = useMemo(() => (parent ? forkStyle(parent) : undefined), [parent]);

  const start = async () => {
    if (!parent || !step) return;
    let edit: ForkEdit = { kind: 'none' };
    const iv = change.startsWith('iv:') ? parent.interventions.find((i) => i.id === change.slice(3)) : undefined;
    if (change === 'edit') edit = { kind: 'replace', text: edited };
    else if (change === 'prune') edit = { kind: 'prune' };
    else if (iv) edit = editFromIntervention(iv) ?? { kind: 'none' };
    await startJob(
      (events, signal) => forkInWorker({ parent, stepId: step.id, edit, fromIntervention: iv, treatments, llm: endpoint.settings, engines }, events, signal),
      (result) => {
        useLastFork.setState({ last: { parentId: parent.id, forkId: result.run.id, status: result.status, reason: result.reason, stats: result.stats } });
        navigate('compare', { a: parent.id, b: result.run.id, step: '1' });
      },
    );
  };

  return (
    <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_minmax(0,22rem)]">
      <Card title="Fork a run at a step" testId="fork-panel">
        <div className="space-y-3 text-sm">
          <label className="flex flex-col gap-1 text-xs font-medium text-slate-700">
            Run
            <select aria-label="Run to fork" className="rounded border border-slate-300 px-1 py-1 text-sm font-normal" value={parent?.id ?? ''} disabled={busy} onChange={(e) => setParams({ forkOf: e.target.value || undefined, at: undefined })}>
              <option value="">{forkable.length === 0 ? 'no chat-style run in the library' : 'choose a chat-style run…'}</option>
              {parent && problem !== undefined && <option value={parent.id}>{parent.title} (cannot fork)</option>}
              {forkable.map((r) => (
                <option key={r.id} value={r.id}>{r.title}</option>
              ))}
            </select>
          </label>
          {params.forkOf && !parent && hydrated && (
            <ErrorBanner title="Run not found" tone="warning">{`No run “${params.forkOf}” in the library; it may have been removed.`}</ErrorBanner>
          )}
          {parent && problem !== undefined && <ErrorBanner title="This run cannot be forked">{problem}</ErrorBanner>}
          {parent && problem === undefined && step && (
            <>
              <label className="flex flex-col gap-1 text-xs font-medium text-slate-700">
                Step
                <StepPicker key={parent.id} steps={top} position={position} disabled={busy} onPick={(at) => setParams({ at })} />
              </label>
              <fieldset className="space-y-1" disabled={busy}>
                <legend className="text-xs font-medium text-slate-700">Change at this step</legend>
                {([
                  ['none', 'no change (replays the recording; checks the fork reproduces the run)'],
                  ['edit', 'edit the message by hand'],
                  ['prune', 'prune the message (the others never see it)'],
                ] as const).map(([k, label]) => (
                  <label key={k} className="flex items-center gap-2">
                    <input type="radio" name="fork-change" checked={change === k} onChange={() => setChange(k)} /> {label}
                  </label>
                ))}
                {interventions.map((iv) => (
                  <label key={iv.id} className="flex items-center gap-2">
                    <input type="radio" name="fork-change" checked={change === `iv:${iv.id}`} onChange={() => setChange(`iv:${iv.id}`)} /> apply the {iv.engine}'s {iv.action.replace(/_/g, ' ')}
                    {iv.heuristic && <Badge tone="warning">heuristic</Badge>}
                  </label>
                ))}
              </fieldset>
              {style === 'prompts' && (
                <p className="text-xs text-slate-600">
                  This run is made of model calls with recorded prompts: a changed output is carried into every later prompt that contains it, by text. Prompts left identical are answered from the recording; a tool call after a change stops the fork.
                </p>
              )}
              {style === 'chat' && <details className="rounded border border-slate-200 p-2 text-xs">
                <summary className="cursor-pointer font-medium text-slate-700">How each agent's turns are replayed</summary>
                <p className="mt-1 text-slate-500">model: called again when its input changed; tool: acts on the world, replayed only when asked the same thing, else the fork stops; scripted: replayed as recorded (people).</p>
                <div className="mt-1 grid grid-cols-[auto_auto] gap-x-3 gap-y-1">
                  {speakers.map(([id, fallback]) => (
                    <label key={id} className="contents">
                      <span className="font-mono">{id}</span>
                      <select
                        aria-label={`Treatment of ${id}`}
                        className="rounded border border-slate-300 px-1"
                        value={ownValue(treatments, id) ?? fallback}
                        disabled={busy}
                        onChange={(e) => setOverrides({ runId: parent.id, map: recordOf(treatments, { [id]: e.target.value as TurnTreatment }) })}
                      >
                        <option value="model">model</option>
                        <option value="tool">tool</option>
                        <option value="scripted">scripted</option>
                      </select>
                    </label>
                  ))}
                </div>
              </details>}
              {change === 'edit' && (
                <div>
                  <label htmlFor="fork-text" className="block text-xs font-medium text-slate-700">Message at step {stepNumber(position)} ({step.agentId})</label>
                  <textarea id="fork-text" className="w-full rounded border border-slate-300 px-2 py-1 font-mono text-xs" rows={8} value={edited} disabled={busy} onChange={(e) => setText({ stepId: step.id, value: e.target.value })} />
                </div>
              )}
            </>
          )}
        </div>
      </Card>
      <Card title="Continue" testId="fork-run">
        <div className="space-y-3 text-sm">
          <p className="text-xs text-slate-600">
            Turns whose input is unchanged are answered from the recording; the first changed turn calls{' '}
            {endpoint.settings ? <span className="font-mono">{endpoint.agentsModel}</span> : 'the endpoint'}. Agents that act through tools (executors, browsers) are replayed only when asked the same thing; otherwise the fork stops there.
          </p>
          {!endpoint.settings && <p className="text-xs text-amber-800">{endpoint.problem}: the fork replays what it can and stops at the first changed call.</p>}
          <EngineToggles disabled={busy} hasEndpoint={!!endpoint.settings} />
          <div className="flex gap-2">
            <Button variant="primary" disabled={busy || !parent || !step || problem !== undefined} onClick={() => void start()}>
              Fork and continue
            </Button>
            {busy && <Button onClick={cancel}>Cancel</Button>}
          </div>
          {busy && <p role="status" className="text-xs">Forking… {progress}</p>}
          {error && <ErrorBanner title="The fork failed">{error}</ErrorBanner>}
          {last && (
            <div className="space-y-1 rounded border border-slate-200 p-2 text-xs" data-testid="fork-last">
              <p>
                Last fork: <Badge tone={last.status === 'complete' ? 'success' : 'warning'}>{last.status}</Badge> {last.stats.copied} copied, {last.stats.edited} edited, {last.stats.replayed} from the recording, {last.stats.toolReplayed} tool turns replayed, {last.stats.live} live calls
              </p>
              {last.reason && <p className="text-amber-800">{last.reason}</p>}
              <Button size="sm" onClick={() => navigate('compare', { a: last.parentId, b: last.forkId, step: '1' })}>Open in compare</Button>
            </div>
          )}
        </div>
      </Card>
    </div>
  );
}
