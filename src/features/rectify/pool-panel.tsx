// Loading the indicator pool (the published format, from a file the user picks), its embeddings status (computed once
// per pool text and embeddings model, cached in IndexedDB), export, and the zero-shot alternative.
import { useEffect, useMemo, useRef, useState } from 'react';
import { embeddingKey, parsePool, PoolFormatError, serializePool, sourceOf, triggerText } from '../../engine/rectifier/index.ts';
import { effectiveMode, toLlmSettings, useEngineSettings } from '../../store/engine-settings.ts';
import { modelFor } from '../../store/endpoint.ts';
import { usePool } from '../../store/indicator-pool.ts';
import { idbEmbeddingCache } from '../../store/pool-db.ts';
import { Badge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { ErrorBanner } from '../../ui/error-banner.tsx';
import { embedPoolInWorker } from '../../workers/rectifier-client.ts';
import { downloadBlob } from '../../ui/chart/chart-export.ts';
import { Card } from '../../ui/fields.tsx';

const MAX_POOL_BYTES = 64 * 1024 * 1024;

export function PoolPanel() {
  const pool = usePool((s) => s.pool);
  const hydrated = usePool((s) => s.hydrated);
  const storeError = usePool((s) => s.storeError);
  const setPool = usePool((s) => s.setPool);
  const [error, setError] = useState<string>();
  const input = useRef<HTMLInputElement>(null);

  const open = async (file: File) => {
    setError(undefined);
    if (file.size > MAX_POOL_BYTES) return setError(`${file.name}: larger than the ${MAX_POOL_BYTES / 1048576} MB limit for a pool`);
    try {
      setPool(parsePool(await file.text(), file.name));
    } catch (e) {
      setError(e instanceof PoolFormatError ? `${file.name}: indicator pool at ${e.message}` : `${file.name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const sources = useMemo(() => {
    const c = new Map<string, number>();
    for (const i of pool?.indicators ?? []) c.set(sourceOf(i), (c.get(sourceOf(i)) ?? 0) + 1);
    return [...c];
  }, [pool]);

  return (
    <Card title="Indicator pool" testId="pool-panel">
      <div className="space-y-2 text-sm">
        <input
          ref={input}
          type="file"
          accept=".json,application/json"
          className="hidden"
          data-testid="pool-file-input"
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) void open(f);
            e.target.value = '';
          }}
        />
        <div className="flex flex-wrap gap-2">
          <Button variant="primary" onClick={() => input.current?.click()}>
            {pool ? 'Open another pool…' : 'Open indicator pool…'}
          </Button>
          {pool && (
            <>
              <Button variant="secondary" onClick={() => downloadBlob(new Blob([serializePool(pool)], { type: 'application/json' }), pool.name.replace(/\.json$/i, '') + '-edited.json')}>
                Export pool
              </Button>
              <Button variant="ghost" onClick={() => setPool(undefined)}>
                Close pool
              </Button>
            </>
          )}
        </div>
        {error && (
          <ErrorBanner title="The pool could not be read">
            <p data-testid="pool-error">{error}</p>
          </ErrorBanner>
        )}
        {storeError && <p className="text-xs text-amber-800">The pool could not be stored in this browser ({storeError}); it holds until the page is closed.</p>}
        {!hydrated ? (
          <p className="text-xs text-slate-500">Reading the stored pool…</p>
        ) : pool ? (
          <p data-testid="pool-summary" data-size={pool.indicators.length}>
            <span className="font-medium">{pool.name}</span>: {pool.indicators.length.toLocaleString('en')} indicators{' '}
            {sources.map(([s, n]) => (
              <Badge key={s} tone={s === 'pool' ? 'neutral' : 'info'}>
                {s} {n}
              </Badge>
            ))}
          </p>
        ) : (
          <p className="text-xs text-slate-600">
            No pool yet. Open one in the published format (a JSON array of {'{name, detailed_definition, evaluator_prompt{trigger_condition, risk_alert}, metadata}'}),
            e.g. the AgentDropoutV2 math pool, or use zero-shot mode below.
          </p>
        )}
        {pool && <EmbeddingStatus />}
      </div>
    </Card>
  );
}

function EmbeddingStatus() {
  const pool = usePool((s) => s.pool)!;
  const endpoint = useEngineSettings((s) => s.endpoint);
  const apiKey = useEngineSettings((s) => s.apiKey);
  const mode = effectiveMode(endpoint);
  const settings = mode === 'endpoint' ? toLlmSettings(endpoint, apiKey) : undefined;
  const model = settings ? modelFor(settings, 'embeddings') : undefined;
  const key = useMemo(() => (model ? embeddingKey('trigger', pool.indicators.map(triggerText), model) : undefined), [pool, model]);
  const [cached, setCached] = useState<{ key: string; cached: boolean }>();
  const [progress, setProgress] = useState<{ done: number; total: number }>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [spent, setSpent] = useState<number>();

  useEffect(() => {
    if (!key) return;
    let live = true;
    idbEmbeddingCache.has(key).then(
      (has) => live && setCached({ key, cached: has }),
      () => live && setCached({ key, cached: false }),
    );
    return () => {
      live = false;
    };
  }, [key]);

  if (!settings || !key) {
    return (
      <p className="text-xs text-slate-600" data-testid="pool-embeddings" data-state="offline">
        <Badge tone="warning">offline</Badge> No endpoint: retrieval falls back to BM25 over the trigger conditions, and nothing can be audited.
      </p>
    );
  }
  const isCached = cached?.key === key && cached.cached;
  const compute = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const r = await embedPoolInWorker(pool, settings, (done, total) => setProgress({ done, total }));
      setCached({ key, cached: true });
      setSpent(r.fromCache ? 0 : r.tokens);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="space-y-1 text-xs" data-testid="pool-embeddings" data-state={isCached ? 'cached' : busy ? 'computing' : 'missing'}>
      <p>
        Embeddings of the {pool.indicators.length.toLocaleString('en')} trigger conditions with “{model}”:{' '}
        {isCached ? <Badge tone="success">cached in this browser</Badge> : busy ? <Badge tone="info">computing</Badge> : <Badge tone="neutral">not computed yet</Badge>}
        {spent !== undefined && spent > 0 && <span className="ml-1 text-slate-500">({spent.toLocaleString('en')} tokens)</span>}
      </p>
      {busy && progress && (
        <p className="text-slate-600" data-testid="pool-embedding-progress">
          {progress.done.toLocaleString('en')} / {progress.total.toLocaleString('en')} embedded
        </p>
      )}
      {!isCached && !busy && (
        <Button size="sm" variant="secondary" onClick={() => void compute()}>
          Compute embeddings
        </Button>
      )}
      {!isCached && !busy && <p className="text-slate-500">They are also computed on the first replay; a pool or model change computes them again.</p>}
      {error && <p className="text-red-700" role="alert">Embedding failed: {error}</p>}
    </div>
  );
}
