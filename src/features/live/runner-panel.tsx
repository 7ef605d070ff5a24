// Runner tab: one task, a team (chain or group chat, roles with their prompts, a decision agent, max turns), the
// engines, run in the worker with progress and cancel; the result opens in the run view.
import { useState } from 'react';
import { defaultTeam, teamProblem, type TeamConfig } from '../../engine/runner/runner.ts';
import type { TaskDomain } from '../../engine/runner/tasks.ts';
import { enginesOn } from '../../engine/runner/gates.ts';
import { hashText } from '../../model/hash.ts';
import { useUrl } from '../../store/url.ts';
import { Badge, OutcomeBadge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { ErrorBanner } from '../../ui/error-banner.tsx';
import { runTeamInWorker } from '../../workers/live-client.ts';
import { Card, NumberField, TextField } from '../../ui/fields.tsx';
import { EngineToggles } from './engine-toggles.tsx';
import { useEngineSwitches, useLiveEndpoint } from './live-endpoint.ts';
import { gateEffects } from './gate-effects.ts';
import { useLiveJob } from './use-live-job.ts';

const TEXTAREA = 'w-full rounded border border-slate-300 px-2 py-1 font-mono text-xs focus:border-indigo-500 focus:outline-none';

export function TeamEditor({ team, onChange, disabled }: { team: TeamConfig; onChange: (t: TeamConfig) => void; disabled: boolean }) {
  return (
    <fieldset className="space-y-2" disabled={disabled} aria-label="Team">
      <div className="flex flex-wrap gap-3 text-sm">
        <label className="flex items-center gap-1">
          Mode
          <select aria-label="Team mode" className="rounded border border-slate-300 px-1 py-0.5" value={team.mode} onChange={(e) => onChange({ ...team, mode: e.target.value as TeamConfig['mode'], maxTurns: e.target.value === 'chain' ? team.roles.length : Math.max(team.maxTurns, 6) })}>
            <option value="chain">sequential chain</option>
            <option value="group-chat">group chat</option>
          </select>
        </label>
        {team.mode === 'group-chat' && (
          <label className="flex items-center gap-1">
            Next speaker
            <select aria-label="Speaker selection" className="rounded border border-slate-300 px-1 py-0.5" value={team.selector} onChange={(e) => onChange({ ...team, selector: e.target.value as TeamConfig['selector'] })}>
              <option value="round-robin">round-robin</option>
              <option value="llm">LLM selector</option>
            </select>
          </label>
        )}
        <div className="w-28">
          <NumberField label="Max turns" value={team.maxTurns} min={1} max={50} onChange={(v) => onChange({ ...team, maxTurns: v })} />
        </div>
      </div>
      {team.roles.map((r, i) => (
        <div key={i} className="space-y-1 rounded border border-slate-200 p-2">
          <div className="flex items-center gap-2">
            <input aria-label={`Role ${i + 1} name`} className="w-40 rounded border border-slate-300 px-1 py-0.5 text-sm" value={r.id} onChange={(e) => onChange({ ...team, roles: team.roles.map((x, j) => (j === i ? { ...x, id: e.target.value.trim() } : x)) })} />
            <Button size="sm" variant="ghost" disabled={team.roles.length <= 1} onClick={() => onChange({ ...team, roles: team.roles.filter((_, j) => j !== i) })} aria-label={`Remove role ${r.id}`}>
              remove
            </Button>
          </div>
          <textarea aria-label={`${r.id} system prompt`} className={TEXTAREA} rows={3} value={r.prompt} onChange={(e) => onChange({ ...team, roles: team.roles.map((x, j) => (j === i ? { ...x, prompt: e.target.value } : x)) })} />
        </div>
      ))}
      <Button size="sm" onClick={() => onChange({ ...team, roles: [...team.roles, { id: `Agent${team.roles.length + 1}`, prompt: team.roles[0]?.prompt ?? '' }] })}>
        Add role
      </Button>
      <div className="space-y-1">
        <p className="text-xs font-medium text-slate-700">Decision agent</p>
        <textarea aria-label="Decision agent prompt" className={TEXTAREA} rows={3} value={team.decider} onChange={(e) => onChange({ ...team, decider: e.target.value })} />
      </div>
    </fieldset>
  );
}

export function RunnerPanel() {
  const endpoint = useLiveEndpoint();
  const [domain, setDomain] = useState<TaskDomain>('math');
  const engines = useEngineSwitches(!!endpoint.settings, domain);
  const navigate = useUrl((s) => s.navigate);
  const [question, setQuestion] = useState('');
  const [answer, setAnswer] = useState('');
  const [team, setTeam] = useState<TeamConfig>(() => defaultTeam('math'));
  const { busy, progress, error, setError, start: startJob, cancel } = useLiveJob();
  const [result, setResult] = useState<{ runId: string; status: string; outcome: 'success' | 'failure' | 'unknown'; answer?: string; effects: string[] }>();
  const problem = endpoint.problem ?? (question.trim() === '' ? 'write a task' : teamProblem(team));

  const start = async () => {
    if (!endpoint.settings) return;
    const llm = endpoint.settings;
    setResult(undefined);
    await startJob(
      (events, signal) => {
        const runId = `live-${hashText(`${question}\n${Date.now()}`)}`;
        const task = { id: runId, question, domain, ...(answer.trim() ? { answer: answer.trim() } : {}) };
        const on = enginesOn(engines);
        const tags: Record<string, string> = { dataset: 'runner', arm: on.length > 0 ? 'supervised' : 'baseline', domain, ...(on.length > 0 ? { engines: on.join('+') } : {}) };
        return runTeamInWorker({ task, team: { ...team, domain }, llm, engines, runId, tags }, events, signal);
      },
      (res) => {
        setResult({ runId: res.run.id, status: res.status, outcome: res.run.outcome.status, answer: res.run.outcome.finalAnswer, effects: gateEffects(res.run) });
        if (res.status === 'failed') setError(res.error);
      },
    );
  };

  return (
    <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_minmax(0,22rem)]">
      <Card title="Task and team" testId="runner-team">
        <div className="space-y-3">
          <label className="flex items-center gap-2 text-sm">
            Kind
            <select aria-label="Task kind" className="rounded border border-slate-300 px-1 py-0.5" value={domain} disabled={busy} onChange={(e) => {
              const d = e.target.value as TaskDomain;
              setDomain(d);
              setTeam(defaultTeam(d, team.mode));
            }}>
              <option value="math">math</option>
              <option value="code">code</option>
            </select>
          </label>
          <div>
            <label htmlFor="runner-task" className="block text-xs font-medium text-slate-700">Task</label>
            <textarea id="runner-task" className={TEXTAREA} rows={4} value={question} disabled={busy} onChange={(e) => setQuestion(e.target.value)} placeholder={domain === 'math' ? 'A pen costs 3 dollars. How much do 5 pens cost?' : 'def add(a: int, b: int) -> int:\n    """Return a + b."""'} />
          </div>
          {domain === 'math' && <TextField label="Reference answer (optional, for scoring)" value={answer} onChange={setAnswer} disabled={busy} />}
          <TeamEditor team={team} onChange={setTeam} disabled={busy} />
        </div>
      </Card>
      <div className="space-y-4">
        <Card title="Run" testId="runner-run">
          <div className="space-y-3 text-sm">
            <p className="text-xs text-slate-600">{endpoint.settings ? <>Agents call <span className="font-mono">{endpoint.agentsModel}</span> at <span className="font-mono">{endpoint.settings.baseUrl}</span>.</> : endpoint.problem}</p>
            <EngineToggles disabled={busy} hasEndpoint={!!endpoint.settings} domain={domain} />
            <div className="flex gap-2">
              <Button variant="primary" disabled={busy || problem !== undefined} onClick={() => void start()} title={problem}>
                Run team
              </Button>
              {busy && <Button onClick={cancel}>Cancel</Button>}
            </div>
            {problem && !busy && <p className="text-xs text-slate-500">To run: {problem}.</p>}
            {busy && <p role="status" className="text-xs text-slate-700">Running… {progress}</p>}
            {error && <ErrorBanner title="The run did not finish">{error}</ErrorBanner>}
            {result && (
              <div className="space-y-1" data-testid="runner-result">
                <p>
                  <Badge>{result.status}</Badge> <OutcomeBadge outcome={result.outcome} /> {result.answer !== undefined && <span className="font-mono text-xs">answer: {result.answer}</span>}
                </p>
                {result.effects.length > 0 && (
                  <ul className="list-disc pl-5 text-xs text-slate-700" aria-label="What the engines did" data-testid="runner-effects">
                    {result.effects.map((e) => (
                      <li key={e}>{e}</li>
                    ))}
                  </ul>
                )}
                <Button size="sm" onClick={() => navigate('run', { run: result.runId })}>Open in run view</Button>
              </div>
            )}
          </div>
        </Card>
      </div>
    </div>
  );
}
