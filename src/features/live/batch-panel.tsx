// Batch tab: a task set (`*.jsonl`: question/problem and answer) × {baseline, supervised}, with concurrency, a token
// budget, progress, pause/resume, scores per arm and per task; results are library runs the corpus view groups.
import { useEffect, useRef, useState } from 'react';
import { summarizeBatch, type Arm, type BatchState } from '../../engine/runner/batch.ts';
import { defaultTeam, type TeamConfig } from '../../engine/runner/runner.ts';
import { parseTaskSet, type LiveTask } from '../../engine/runner/tasks.ts';
import { hashText } from '../../model/hash.ts';
import { useEngineSettings } from '../../store/engine-settings.ts';
import { useUrl } from '../../store/url.ts';
import { Badge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { useCostEstimate } from '../../ui/cost-view.tsx';
import { estimateOneTimeLine } from '../../ui/cost-format.ts';
import { modelFor, type LlmSettings } from '../../store/endpoint.ts';
import { estimateBatchInWorker } from '../../workers/live-client.ts';
import { ErrorBanner } from '../../ui/error-banner.tsx';
import { Card, NumberField, TextField } from '../../ui/fields.tsx';
import { enginesOn } from '../../engine/runner/gates.ts';
import { useBatchJobs } from './batch-job.ts';
import { EngineToggles } from './engine-toggles.tsx';
import { useEngineSwitches, useLiveEndpoint } from './live-endpoint.ts';
import { formatCount } from '../../ui/format.ts';

function NewBatch({ disabled }: { disabled: boolean }) {
  const create = useBatchJobs((s) => s.create);
  const thresholds = useEngineSettings((s) => s.supervisor);
  const endpoint = useLiveEndpoint();
  const [tasks, setTasks] = useState<LiveTask[]>();
  const [fileError, setFileError] = useState<string>();
  const [dataset, setDataset] = useState('');
  const [limit, setLimit] = useState(20);
  const [arms, setArms] = useState<Record<Arm, boolean>>({ baseline: true, supervised: true });
  const [concurrency, setConcurrency] = useState(2);
  const [budget, setBudget] = useState(0);
  const [mode, setMode] = useState<TeamConfig['mode'] | 'group-chat-llm'>('chain');
  const [maxTurns, setMaxTurns] = useState(3);

  // A name typed while the chosen file is read is kept: the file's name was written over it once its text came (a CI
  // run of e2e/live.spec.ts created "gsm8k × 1" where "gsm8k-rect" had been typed).
  const datasetTyped = useRef(false);
  const onFile = async (file: File | undefined) => {
    setFileError(undefined);
    setTasks(undefined);
    if (!file) return;
    datasetTyped.current = false;
    try {
      const parsed = parseTaskSet(await file.text());
      if (parsed.length === 0) throw new Error('no tasks in the file');
      setTasks(parsed);
      if (!datasetTyped.current) setDataset(file.name.replace(/\.jsonl?$/i, ''));
    } catch (e) {
      setFileError(`${file.name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const chosenArms = (Object.keys(arms) as Arm[]).filter((a) => arms[a]);
  const picked = tasks?.slice(0, limit) ?? [];
  const engines = useEngineSwitches(!!endpoint.settings, picked[0]?.domain);
  const engineProblem = arms.supervised && enginesOn(engines).length === 0 ? 'switch at least one engine on for the engines-on arm' : undefined;
  const submit = async () => {
    if (!tasks) return;
    const domain = picked[0].domain;
    const team: TeamConfig = mode === 'group-chat-llm' ? { ...defaultTeam(domain, 'group-chat'), selector: 'llm', maxTurns } : { ...defaultTeam(domain, mode), maxTurns };
    const createdAt = Date.now();
    await create({
      id: `batch-${hashText(`${dataset}\n${createdAt}`)}`,
      name: `${dataset} × ${picked.length}`,
      dataset,
      tasks: picked,
      arms: chosenArms,
      team,
      concurrency,
      tokenBudget: budget,
      supervisor: { tauStep: thresholds.tauStep, tauLoop: thresholds.tauLoop, tauLen: thresholds.tauLen },
      ...(chosenArms.includes('supervised') ? { engines } : {}),
      createdAt,
    });
    setTasks(undefined);
  };
  return (
    <Card title="New batch" testId="batch-new">
      <div className="space-y-3 text-sm">
        <div>
          <label htmlFor="batch-file" className="block text-xs font-medium text-slate-700">Task set (.jsonl)</label>
          <input id="batch-file" type="file" accept=".jsonl,.json,application/jsonl" disabled={disabled} onChange={(e) => void onFile(e.target.files?.[0])} className="text-xs" />
          {tasks && <p className="text-xs text-slate-600">{tasks.length} tasks read ({tasks[0].domain}{tasks.some((t) => t.answer === undefined) ? '; some without a reference answer, left unscored' : ''}).</p>}
          {fileError && <ErrorBanner title="The task set cannot be read">{fileError}</ErrorBanner>}
        </div>
        <TextField
          label="Dataset name"
          value={dataset}
          onChange={(name) => {
            datasetTyped.current = true;
            setDataset(name);
          }}
          disabled={disabled}
        />
        <div className="grid grid-cols-2 gap-2">
          <NumberField label="Tasks (first N)" value={limit} min={1} max={tasks?.length ?? 100000} onChange={setLimit} />
          <NumberField label="Concurrency" value={concurrency} min={1} max={16} onChange={setConcurrency} />
          <NumberField label="Token budget (0 = none)" value={budget} min={0} onChange={setBudget} />
          <NumberField label="Max turns" value={maxTurns} min={1} max={30} onChange={setMaxTurns} />
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <label className="flex items-center gap-1">
            Team
            <select aria-label="Batch team mode" className="rounded border border-slate-300 px-1 py-0.5" value={mode} onChange={(e) => setMode(e.target.value as TeamConfig['mode'] | 'group-chat-llm')}>
              <option value="chain">sequential chain</option>
              <option value="group-chat">group chat (round-robin)</option>
              <option value="group-chat-llm">group chat (LLM selector)</option>
            </select>
          </label>
        </div>
        <div className="flex flex-wrap items-center gap-3" role="group" aria-label="Arms">
          <span className="text-xs font-medium text-slate-700">Arms</span>
          {(['baseline', 'supervised'] as const).map((a) => (
            <label key={a} className="flex items-center gap-1">
              <input type="checkbox" checked={arms[a]} onChange={(e) => setArms({ ...arms, [a]: e.target.checked })} /> {a === 'supervised' ? 'supervised (engines on)' : a}
            </label>
          ))}
        </div>
        {arms.supervised && (
          <div className="rounded border border-slate-200 p-2" data-testid="batch-engines">
            <EngineToggles disabled={disabled} hasEndpoint={!!endpoint.settings} domain={picked[0]?.domain} legend="Engines of the supervised arm (stored with the batch)" />
          </div>
        )}
        {engineProblem && <p className="text-xs text-slate-500">To create: {engineProblem}.</p>}
        <Button variant="primary" disabled={disabled || !tasks || chosenArms.length === 0 || dataset.trim() === '' || engineProblem !== undefined} onClick={() => void submit()}>
          Create batch
        </Button>
      </div>
    </Card>
  );
}

function embeddingsModel(settings: LlmSettings): string | undefined {
  try {
    return modelFor(settings, 'embeddings');
  } catch {
    return undefined;
  }
}

const pct = (n: number, d: number) => (d === 0 ? '–' : `${((100 * n) / d).toFixed(1)}%`);

function BatchCard({ state }: { state: BatchState }) {
  const { start, pause, remove } = useBatchJobs();
  const running = useBatchJobs((s) => s.running.includes(state.spec.id));
  const error = useBatchJobs((s) => s.errors[state.spec.id]);
  const endpoint = useLiveEndpoint();
  const navigate = useUrl((s) => s.navigate);
  const [open, setOpen] = useState(false);
  const summary = summarizeBatch(state);
  const interrupted = !running && state.status === 'running';
  const finished = state.status === 'complete';
  const label = running ? 'running' : interrupted ? 'interrupted' : state.status;
  // With an endpoint a rectifier pool is embedded once (the batch's one-time cost) with the embeddings model.
  const embedModel = endpoint.settings ? embeddingsModel(endpoint.settings) : undefined;
  const estimate = useCostEstimate(summary.done === 0 && !running ? `${state.spec.id}\u0000${embedModel ?? ''}` : undefined, () => estimateBatchInWorker(state.spec, undefined, embedModel));
  const oneTime = estimate?.status === 'ready' ? estimateOneTimeLine(estimate.estimate) : undefined;
  return (
    <section className="rounded border border-slate-200 bg-white p-3 text-sm" aria-label={`Batch ${state.spec.name}`} data-testid="batch-card" data-status={label}>
      <header className="flex flex-wrap items-center gap-2">
        <h3 className="font-semibold">{state.spec.name}</h3>
        <Badge tone={finished ? 'success' : label === 'stopped' || interrupted ? 'warning' : 'info'}>{label}</Badge>
        <span className="text-xs text-slate-500">
          {state.spec.arms.join(' vs ')}
          {state.spec.arms.includes('supervised') && ` (engines: ${state.spec.engines ? enginesOn(state.spec.engines).join(', ') : 'supervisor'})`} · {state.spec.team.mode === 'chain' ? 'chain' : `group chat (${state.spec.team.selector})`} · concurrency {state.spec.concurrency}
          {state.spec.tokenBudget > 0 && ` · budget ${state.spec.tokenBudget}`}
        </span>
        <div className="ml-auto flex gap-1">
          {running ? (
            <Button size="sm" onClick={() => pause(state.spec.id)}>Pause</Button>
          ) : (
            !finished && (
              <Button size="sm" variant="primary" disabled={!endpoint.settings} title={endpoint.problem} onClick={() => endpoint.settings && void start(state.spec.id, endpoint.settings)}>
                {summary.done + summary.failed > 0 || interrupted ? 'Resume' : 'Start'}
              </Button>
            )
          )}
          <Button size="sm" onClick={() => navigate('corpus', { q: state.spec.id, shadow: '0', group: 'dataset' })} disabled={summary.done === 0}>Open in corpus</Button>
          <Button size="sm" variant="ghost" onClick={() => setOpen(!open)} aria-expanded={open}>{open ? 'Hide tasks' : 'Tasks'}</Button>
          <Button size="sm" variant="danger" disabled={running} onClick={() => void remove(state.spec.id)}>Delete</Button>
        </div>
      </header>
      {/* The line is there from the moment the estimate is asked for: appearing when it is ready, it moved the
          progress bar and the table below it. */}
      {estimate && (estimate.status !== 'ready' || estimate.estimate.perArm) && (
        <p className="mt-1 text-xs text-slate-600" data-testid="batch-estimate" data-status={estimate.status} title={estimate.status === 'ready' ? estimate.estimate.assumptions.join('\n') : undefined}>
          Estimate before running:{' '}
          {estimate.status === 'pending' && <span className="text-slate-400">estimating…</span>}
          {estimate.status === 'error' && <span className="text-amber-800">none ({estimate.message})</span>}
          {estimate.status === 'ready' &&
            estimate.estimate.perArm?.map((a, k) => (
              <span key={a.arm} data-testid="batch-estimate-arm" data-arm={a.arm} data-calls={a.calls} data-tokens={a.tokens.total}>
                {k > 0 ? ' · ' : ''}
                {a.arm} {a.calls.toLocaleString('en')} calls, ~{a.tokens.total.toLocaleString('en')} tokens
              </span>
            ))}
          {oneTime && <span data-testid="batch-estimate-one-time"> · {oneTime}</span>}
        </p>
      )}
      <div className="mt-2">
        <div className="h-2 overflow-hidden rounded bg-slate-100" role="progressbar" aria-label="Batch progress" aria-valuemin={0} aria-valuemax={summary.total} aria-valuenow={summary.done}>
          <div className="h-full bg-indigo-500" style={{ width: `${(100 * summary.done) / Math.max(1, summary.total)}%` }} />
        </div>
        <p className="mt-1 text-xs text-slate-600" data-testid="batch-progress">
          {summary.done} of {summary.total} done{summary.failed > 0 && `, ${summary.failed} failed`} · {formatCount(state.tokensUsed)} tokens
        </p>
        {state.message && <p className="text-xs text-amber-800">{state.message}</p>}
        {error && <ErrorBanner title="The batch stopped">{error}</ErrorBanner>}
        <table className="mt-1 text-xs" aria-label="Scores per arm">
          <tbody>
            {Object.entries(summary.perArm).map(([arm, a]) => (
              <tr key={arm}>
                <th className="pr-2 text-left font-medium">{arm}</th>
                <td className="pr-3" data-testid={`accuracy-${arm}`}>{a.correct} / {a.scored} correct ({pct(a.correct, a.scored)})</td>
                <td className="pr-3">{a.done} done</td>
                <td>{a.done > 0 ? `${formatCount(Math.round(a.tokens / a.done))} tokens per task` : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {open && (
        <div className="mt-2 max-h-80 overflow-auto">
          <table className="w-full text-xs" aria-label="Tasks">
            <thead className="sticky top-0 bg-white text-left text-slate-500">
              <tr><th>task</th><th>arm</th><th>status</th><th>answer</th><th>score</th><th>tokens</th><th></th></tr>
            </thead>
            <tbody>
              {state.items.map((it) => (
                <tr key={it.key} className="border-t border-slate-100">
                  <td className="font-mono">{it.taskId}</td>
                  <td>{it.arm}</td>
                  <td title={it.error}>{it.status}{it.error ? `: ${it.error.slice(0, 60)}` : ''}</td>
                  <td className="max-w-40 truncate font-mono" title={it.finalAnswer}>{it.finalAnswer ?? ''}</td>
                  <td>{it.score === undefined ? '' : it.score === 1 ? '✓' : '✗'}</td>
                  <td>{it.tokens ?? ''}</td>
                  <td>{it.runId && <Button size="sm" variant="ghost" onClick={() => navigate('run', { run: it.runId! })}>open</Button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function BatchPanel() {
  const { loaded, load, batches, problems } = useBatchJobs();
  const endpoint = useLiveEndpoint();
  useEffect(() => void load(), [load]);
  const list = Object.values(batches).sort((a, b) => b.spec.createdAt - a.spec.createdAt);
  return (
    <div className="grid gap-4 lg:grid-cols-[minmax(0,22rem)_minmax(0,1fr)]">
      <NewBatch disabled={false} />
      <div className="space-y-3" data-testid="batch-list">
        {!endpoint.settings && <ErrorBanner title="Batches need an endpoint" tone="warning">{endpoint.problem}</ErrorBanner>}
        {problems.map((p) => <ErrorBanner key={p} title="Stored batches" tone="warning">{p}</ErrorBanner>)}
        {loaded && list.length === 0 && <p className="text-sm text-slate-500">No batches yet. Pick a task set to create one.</p>}
        {list.map((b) => <BatchCard key={b.spec.id} state={b} />)}
      </div>
    </div>
  );
}
