// Endpoint settings (SPEC §6): offline heuristics or an OpenAI-compatible endpoint, its models, key and limits, a
// connection test, and how to let a local server accept requests from this page.
import { useState } from 'react';
import { Badge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { endpointProblem, toLlmSettings, useEngineSettings } from '../../store/engine-settings.ts';
import { originOf, testConnection, type ConnectionResult, type LlmRole } from '../../store/endpoint.ts';
import { Card, NumberField, TextField } from '../../ui/fields.tsx';

const ROLES: { role: LlmRole; label: string; hint?: string }[] = [
  { role: 'supervisor', label: 'Supervisor model', hint: 'required; the other roles fall back to it' },
  { role: 'rectifier', label: 'Rectifier model' },
  { role: 'clarifier', label: 'Clarifier model' },
  { role: 'embeddings', label: 'Embeddings model' },
  { role: 'agents', label: 'Agents model (live runs)' },
];

export function EndpointSettings() {
  const s = useEngineSettings();
  const e = s.endpoint;
  const offline = e.mode === 'offline';
  const problem = offline ? undefined : endpointProblem(e);
  const origin = originOf(e.baseUrl);
  const [testing, setTesting] = useState(false);
  const [result, setResult] = useState<ConnectionResult | undefined>();

  const runTest = async () => {
    setTesting(true);
    setResult(undefined);
    try {
      setResult(await testConnection(toLlmSettings(e, s.apiKey)));
    } finally {
      setTesting(false);
    }
  };

  return (
    <Card title="LLM endpoint" testId="endpoint-settings">
      <fieldset className="mb-3 space-y-1">
        <legend className="sr-only">Mode</legend>
        <label className="flex items-start gap-2 text-sm">
          <input type="radio" name="engine-mode" className="mt-1" checked={offline} onChange={() => s.setEndpoint({ mode: 'offline' })} />
          <span>
            <span className="font-medium">Offline (LLM-free heuristics)</span> <Badge tone="warning">heuristic</Badge>
            <span className="block text-xs text-slate-500">
              Deterministic purification, templated loop guidance and error hints. No network; every intervention is marked heuristic.
            </span>
          </span>
        </label>
        <label className="flex items-start gap-2 text-sm">
          <input type="radio" name="engine-mode" className="mt-1" checked={!offline} onChange={() => s.setEndpoint({ mode: 'endpoint' })} />
          <span>
            <span className="font-medium">OpenAI-compatible endpoint</span>
            <span className="block text-xs text-slate-500">Ollama, vLLM, llama.cpp, or a hosted API: chat completions and embeddings.</span>
          </span>
        </label>
      </fieldset>

      <div className={`space-y-3 ${offline ? 'opacity-60' : ''}`}>
        <TextField
          label="Base URL"
          type="url"
          value={e.baseUrl}
          disabled={offline}
          placeholder="http://127.0.0.1:11434/v1"
          onChange={(v) => s.setEndpoint({ baseUrl: v })}
          hint="Requests go to {base}/chat/completions, {base}/embeddings and {base}/models."
        />
        <div className="grid grid-cols-2 gap-2">
          {ROLES.map((r) => (
            <TextField key={r.role} label={r.label} value={e.models[r.role] ?? ''} disabled={offline} hint={r.hint} onChange={(v) => s.setModel(r.role, v)} />
          ))}
        </div>
        <div className="space-y-1">
          <TextField
            label="API key"
            type="password"
            value={s.apiKey?.key ?? ''}
            disabled={offline || origin === undefined}
            autoComplete="new-password"
            onChange={(v) => s.setApiKey(v)}
            hint={
              origin === undefined
                ? 'Set the base URL first: a key belongs to the endpoint it is entered for.'
                : `For ${origin} only: sent there as a bearer token, never elsewhere; a base URL on another origin clears it. Never exported or recorded.`
            }
          />
          {s.keyNotice && (
            <p role="alert" data-testid="api-key-notice" className="rounded bg-amber-50 px-2 py-1 text-xs text-amber-900">
              {s.keyNotice}
            </p>
          )}
          <label className="flex items-center gap-2 text-xs text-slate-700">
            <input type="checkbox" checked={s.rememberKey} disabled={offline} onChange={(ev) => s.setRememberKey(ev.target.checked)} />
            Remember the key on this device (stored in this browser’s localStorage; otherwise it lives only in this tab’s memory and is gone after a reload)
          </label>
        </div>
        <div className="grid grid-cols-3 gap-2">
          <NumberField label="Temperature" value={e.temperature} min={0} max={2} step={0.1} disabled={offline} onChange={(v) => s.setEndpoint({ temperature: v })} />
          <NumberField label="Max tokens" value={e.maxTokens} min={1} disabled={offline} onChange={(v) => s.setEndpoint({ maxTokens: v })} />
          <NumberField label="Timeout (s)" value={e.timeoutMs / 1000} min={1} max={3600} disabled={offline} onChange={(v) => s.setEndpoint({ timeoutMs: v * 1000 })} />
          <NumberField label="Concurrency" value={e.concurrency} min={1} max={64} disabled={offline} onChange={(v) => s.setEndpoint({ concurrency: v })} />
          <NumberField label="Retries" value={e.retries} min={0} max={20} disabled={offline} onChange={(v) => s.setEndpoint({ retries: v })} />
          <NumberField
            label="Token budget per run"
            value={e.tokenBudgetPerRun}
            min={0}
            disabled={offline}
            hint="0 = no limit"
            onChange={(v) => s.setEndpoint({ tokenBudgetPerRun: v })}
          />
        </div>
        <label className="flex items-center gap-2 text-xs text-slate-700">
          <input type="checkbox" checked={e.jsonMode} disabled={offline} onChange={(ev) => s.setEndpoint({ jsonMode: ev.target.checked })} />
          Ask for JSON mode (dropped automatically when the server refuses it)
        </label>
        {problem && (
          <p role="status" className="rounded bg-amber-50 px-2 py-1 text-xs text-amber-900">
            Not usable yet: {problem}. Until then the supervisor runs offline, with the heuristics.
          </p>
        )}
        <div className="flex flex-wrap items-center gap-2">
          <Button onClick={runTest} disabled={offline || testing || e.baseUrl.trim() === ''}>
            {testing ? 'Testing…' : 'Test connection'}
          </Button>
          {result && <ConnectionOutcome result={result} />}
        </div>
      </div>
      <CorsHelp />
    </Card>
  );
}

function ConnectionOutcome({ result }: { result: ConnectionResult }) {
  if (result.ok) {
    return (
      <p role="status" data-testid="connection-result" className="text-xs text-emerald-800">
        Connected ({result.via === 'models' ? 'GET /models' : 'test chat call'}, {result.latencyMs} ms): {result.detail}
      </p>
    );
  }
  return (
    <div role="alert" data-testid="connection-result" className="w-full rounded border border-red-200 bg-red-50 px-2 py-1 text-xs text-red-900">
      <p className="font-semibold">{result.problem}</p>
      {result.hint && <p className="mt-0.5">{result.hint}</p>}
    </div>
  );
}

function CorsHelp() {
  return (
    <details className="mt-4 rounded border border-slate-200 bg-slate-50 p-2 text-xs text-slate-700">
      <summary className="cursor-pointer font-semibold">Local servers and CORS</summary>
      <div className="mt-2 space-y-2">
        <p>
          This page calls your endpoint straight from the browser. A browser sends such a cross-origin request only when
          the server says, in its CORS headers, that pages from this page’s origin may call it. Most local model servers
          refuse by default, and the browser then reports a bare “Failed to fetch” with no status: the request never
          reached your code.
        </p>
        <ul className="list-disc space-y-1 pl-5">
          <li>
            <b>Ollama</b>: start it with the environment variable <code>OLLAMA_ORIGINS</code> listing this page’s origin (for
            example <code>OLLAMA_ORIGINS=http://127.0.0.1:5173 ollama serve</code>); the base URL is{' '}
            <code>http://127.0.0.1:11434/v1</code>.
          </li>
          <li>
            <b>vLLM</b>: pass <code>--allowed-origins</code> with a JSON list of origins to its OpenAI server (for example{' '}
            <code>--allowed-origins '["http://127.0.0.1:5173"]'</code>); the base URL is <code>http://host:8000/v1</code>.
          </li>
          <li>
            <b>llama.cpp</b> (<code>llama-server</code>): recent builds answer cross-origin requests themselves; where yours
            does not, put a small reverse proxy in front of it that adds the headers, or serve both from one origin.
          </li>
          <li>
            The <b>studio's own proxy</b> avoids CORS entirely: start the studio with the model server's address in{' '}
            <code>MAS_REPLAY_LLM_PROXY</code> (for example <code>MAS_REPLAY_LLM_PROXY=http://127.0.0.1:11434 npm start</code>) and
            use the base URL <code>{`${typeof location === 'undefined' ? 'http://127.0.0.1:5173' : location.origin}/llm/v1`}</code>: the
            browser then sees a same-origin request, which the studio's server forwards. Any reverse proxy on this page's
            origin does the same.
          </li>
        </ul>
        <p>
          Allow only the origins you use rather than <code>*</code>: any page you visit could otherwise use your local
          model. The API key is sent only to the origin of the base URL it was entered for.
        </p>
      </div>
    </details>
  );
}
