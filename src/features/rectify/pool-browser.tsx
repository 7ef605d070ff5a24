// The pool browser: search, filter by domain tag and source, edit, add and delete indicators. Edits go to the stored
// pool at once (and change its hash, so embeddings are recomputed for the edited pool when next needed).
import { useMemo, useState } from 'react';
import { domainTagOf, sourceOf, type Indicator } from '../../engine/rectifier/index.ts';
import { usePool } from '../../store/indicator-pool.ts';
import { Badge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { Card } from '../../ui/fields.tsx';

const PAGE = 50;
const INPUT = 'w-full rounded border border-slate-300 px-2 py-1 text-xs';

export function PoolBrowser() {
  const pool = usePool((s) => s.pool);
  const [query, setQuery] = useState('');
  const [tag, setTag] = useState('');
  const [source, setSource] = useState('');
  const [page, setPage] = useState(0);
  const [open, setOpen] = useState<number | 'new'>();
  const { tags, sources } = useMemo(() => {
    const t = new Set<string>();
    const s = new Set<string>();
    for (const i of pool?.indicators ?? []) {
      const d = domainTagOf(i);
      if (d) t.add(d);
      s.add(sourceOf(i));
    }
    return { tags: [...t].sort(), sources: [...s].sort() };
  }, [pool]);
  const matches = useMemo(() => {
    const q = query.trim().toLowerCase();
    const out: number[] = [];
    (pool?.indicators ?? []).forEach((i, index) => {
      if (tag && domainTagOf(i) !== tag) return;
      if (source && sourceOf(i) !== source) return;
      if (q && !`${i.name}\n${i.detailed_definition}\n${i.evaluator_prompt.trigger_condition}`.toLowerCase().includes(q)) return;
      out.push(index);
    });
    return out;
  }, [pool, query, tag, source]);
  if (!pool) return null;
  const pages = Math.max(1, Math.ceil(matches.length / PAGE));
  const current = Math.min(page, pages - 1);
  const shown = matches.slice(current * PAGE, (current + 1) * PAGE);

  return (
    <Card
      title="Pool browser"
      testId="pool-browser"
      actions={
        <Button size="sm" variant="secondary" onClick={() => setOpen('new')}>
          Add indicator
        </Button>
      }
    >
      <div className="mb-2 grid gap-2 sm:grid-cols-[1fr_auto_auto]">
        <input
          aria-label="Search indicators"
          placeholder="Search name, definition, trigger…"
          className={INPUT}
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setPage(0);
          }}
        />
        <select aria-label="Domain tag" className={INPUT} value={tag} onChange={(e) => (setTag(e.target.value), setPage(0))}>
          <option value="">any domain tag</option>
          {tags.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <select aria-label="Source" className={INPUT} value={source} onChange={(e) => (setSource(e.target.value), setPage(0))}>
          <option value="">any source</option>
          {sources.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </div>
      {open === 'new' && <IndicatorEditor onDone={() => setOpen(undefined)} />}
      <p className="mb-1 text-xs text-slate-600" data-testid="pool-matches" data-count={matches.length}>
        {matches.length.toLocaleString('en')} of {pool.indicators.length.toLocaleString('en')} indicators
        {pages > 1 && ` · page ${current + 1} of ${pages}`}
      </p>
      <ul className="divide-y divide-slate-100 rounded border border-slate-200">
        {shown.map((index) => {
          const i = pool.indicators[index];
          return (
            <li key={index} data-testid="pool-row" className="px-2 py-1 text-xs">
              <button type="button" className="flex w-full items-start gap-2 text-left" aria-expanded={open === index} onClick={() => setOpen(open === index ? undefined : index)}>
                <span className="font-mono font-medium text-slate-900">{i.name}</span>
                <span className="min-w-0 flex-1 truncate text-slate-600">{i.evaluator_prompt.trigger_condition}</span>
                {domainTagOf(i) && <Badge>{domainTagOf(i)}</Badge>}
                {sourceOf(i) !== 'pool' && <Badge tone="info">{sourceOf(i)}</Badge>}
              </button>
              {open === index && <IndicatorEditor index={index} onDone={() => setOpen(undefined)} />}
            </li>
          );
        })}
      </ul>
      {pages > 1 && (
        <div className="mt-2 flex gap-2">
          <Button size="sm" variant="secondary" disabled={current === 0} onClick={() => setPage(current - 1)}>
            Previous
          </Button>
          <Button size="sm" variant="secondary" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>
            Next
          </Button>
        </div>
      )}
    </Card>
  );
}

function IndicatorEditor({ index, onDone }: { index?: number; onDone: () => void }) {
  const pool = usePool((s) => s.pool)!;
  const { update, add, remove } = usePool.getState();
  const original: Indicator | undefined = index !== undefined ? pool.indicators[index] : undefined;
  const [name, setName] = useState(original?.name ?? '');
  const [definition, setDefinition] = useState(original?.detailed_definition ?? '');
  const [trigger, setTrigger] = useState(original?.evaluator_prompt.trigger_condition ?? '');
  const [risk, setRisk] = useState(original?.evaluator_prompt.risk_alert ?? '');
  const [tag, setTag] = useState(original ? (domainTagOf(original) ?? '') : '');
  const valid = name.trim() !== '' && trigger.trim() !== '';
  const save = () => {
    const metadata: Record<string, unknown> = { ...(original?.metadata ?? { source: 'manual' }) };
    if (tag.trim()) metadata.domain_tag = tag.trim();
    else delete metadata.domain_tag;
    const next: Indicator = {
      ...(original ?? {}),
      name: name.trim(),
      detailed_definition: definition,
      evaluator_prompt: { ...(original?.evaluator_prompt ?? {}), trigger_condition: trigger, risk_alert: risk },
      metadata,
    };
    if (original?.domain_tag !== undefined) next.domain_tag = tag.trim() || undefined;
    if (index === undefined) add(next);
    else update(index, next);
    onDone();
  };
  const field = (label: string, value: string, set: (v: string) => void, rows = 1) => (
    <label className="block">
      <span className="text-[11px] font-medium text-slate-700">{label}</span>
      {rows > 1 ? <textarea className={INPUT} rows={rows} value={value} onChange={(e) => set(e.target.value)} /> : <input className={INPUT} value={value} onChange={(e) => set(e.target.value)} />}
    </label>
  );
  return (
    <div className="my-2 space-y-1.5 rounded bg-slate-50 p-2" data-testid="indicator-editor">
      {field('Name', name, setName)}
      {field('Detailed definition', definition, setDefinition, 3)}
      {field('Trigger condition', trigger, setTrigger, 2)}
      {field('Risk alert', risk, setRisk, 2)}
      {field('Domain tag', tag, setTag)}
      {original?.metadata && <p className="font-mono text-[11px] text-slate-500">metadata: {JSON.stringify(original.metadata)}</p>}
      <div className="flex gap-2">
        <Button size="sm" variant="primary" disabled={!valid} onClick={save}>
          {index === undefined ? 'Add' : 'Save'}
        </Button>
        <Button size="sm" variant="ghost" onClick={onDone}>
          Cancel
        </Button>
        {index !== undefined && (
          <Button
            size="sm"
            variant="danger"
            className="ml-auto"
            onClick={() => {
              remove(index);
              onDone();
            }}
          >
            Delete
          </Button>
        )}
      </div>
    </div>
  );
}
