// Mining new indicators from failed library runs (Algorithm 2): a teacher model proposes indicators per agent message,
// deduplicated against the K_dedup most similar ones by a novelty check; the new ones can be added to the pool.
import { useMemo, useState } from 'react';
import { auditableCount, DOMAINS, type Domain, type MiningProgress, type MiningResult } from '../../engine/rectifier/index.ts';
import { effectiveMode, toLlmSettings, useEngineSettings } from '../../store/engine-settings.ts';
import { usePool } from '../../store/indicator-pool.ts';
import { useLibrary } from '../../store/library.ts';
import { Badge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { mineInWorker } from '../../workers/rectifier-client.ts';
import { Card, NumberField } from '../../ui/fields.tsx';

export function MiningPanel() {
  const runs = useLibrary((s) => s.runs);
  const pool = usePool((s) => s.pool);
  const endpoint = useEngineSettings((s) => s.endpoint);
  const apiKey = useEngineSettings((s) => s.apiKey);
  const mode = effectiveMode(endpoint);
  const eligible = useMemo(() => Object.values(runs).filter((r) => r.outcome.status === 'failure' && r.outcome.referenceAnswer?.trim() && auditableCount(r) > 0), [runs]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [domain, setDomain] = useState<Domain>('generic');
  const [kDedup, setKDedup] = useState(20);
  const [progress, setProgress] = useState<MiningProgress>();
  const [result, setResult] = useState<MiningResult>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<AbortController>();

  const mine = async () => {
    const controller = new AbortController();
    setBusy(controller);
    setError(undefined);
    setResult(undefined);
    try {
      const chosen = eligible.filter((r) => selected.has(r.id));
      setResult(await mineInWorker(chosen, pool ?? { name: 'mined-pool.json', indicators: [] }, toLlmSettings(endpoint, apiKey), domain, kDedup, setProgress, controller.signal));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(undefined);
    }
  };
  const added = result?.candidates.filter((c) => c.added).length ?? 0;
  return (
    <Card title="Mine indicators from failed runs" testId="mining-panel">
      {mode === 'offline' ? (
        <p className="text-sm text-slate-600">Mining needs an endpoint (a teacher model, embeddings and a novelty check). Set one in the Engines view.</p>
      ) : eligible.length === 0 ? (
        <p className="text-sm text-slate-600">No failed run with a reference answer and agent messages in the library.</p>
      ) : (
        <div className="space-y-2 text-sm">
          <fieldset className="max-h-40 overflow-auto rounded border border-slate-200 p-2 text-xs">
            <legend className="px-1 text-[11px] text-slate-600">Failed runs with a reference answer</legend>
            {eligible.map((r) => (
              <label key={r.id} className="flex items-center gap-2">
                <input
                  type="checkbox"
                  checked={selected.has(r.id)}
                  onChange={(e) => {
                    const next = new Set(selected);
                    if (e.target.checked) next.add(r.id);
                    else next.delete(r.id);
                    setSelected(next);
                  }}
                />
                <span className="truncate">{r.title}</span>
              </label>
            ))}
          </fieldset>
          <div className="grid grid-cols-2 gap-2">
            <label className="text-xs">
              <span className="block font-medium text-slate-700">Domain</span>
              <select className="w-full rounded border border-slate-300 px-2 py-1 text-sm" value={domain} onChange={(e) => setDomain(e.target.value as Domain)}>
                {DOMAINS.map((d) => (
                  <option key={d}>{d}</option>
                ))}
              </select>
            </label>
            <NumberField label="K_dedup" value={kDedup} min={1} max={200} hint="similar indicators shown to the novelty check" onChange={setKDedup} />
          </div>
          <div className="flex gap-2">
            <Button variant="primary" disabled={!!busy || selected.size === 0} onClick={() => void mine()}>
              Mine {selected.size} run(s)
            </Button>
            {busy && (
              <Button variant="danger" onClick={() => busy.abort()}>
                Cancel
              </Button>
            )}
          </div>
          {busy && progress && (
            <p className="text-xs text-slate-700" data-testid="mining-progress">
              {progress.messagesDone} / {progress.messages} messages · {progress.candidates} candidates · {progress.added} new
            </p>
          )}
          {error && <p className="text-xs text-red-700" role="alert">{error}</p>}
          {result && (
            <div className="space-y-1 text-xs" data-testid="mining-result">
              <p>
                {result.candidates.length} candidates from {result.runsMined.length} run(s); {added} new, {result.candidates.length - added} duplicates or unreadable;{' '}
                {result.tokens.total.toLocaleString('en')} tokens.
              </p>
              <ul className="max-h-60 space-y-1 overflow-auto">
                {result.candidates.map((c, i) => (
                  <li key={i}>
                    <Badge tone={c.added ? 'success' : 'neutral'}>{c.added ? 'new' : 'not added'}</Badge> <span className="font-mono">{c.indicator.name}</span>{' '}
                    <span className="text-slate-500">
                      ({c.agent}): {c.reason}
                    </span>
                  </li>
                ))}
              </ul>
              {result.unreadable.length > 0 && <p className="text-amber-800">{result.unreadable.length} teacher answer(s) could not be read fully.</p>}
              <Button size="sm" variant="primary" disabled={added === 0} onClick={() => usePool.getState().setPool(result.pool)}>
                Use the pool with {added} new indicator(s)
              </Button>
            </div>
          )}
        </div>
      )}
    </Card>
  );
}
