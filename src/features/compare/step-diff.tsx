// The two steps under the playhead, field by field, with the differences marked (the `diff` package's word diff,
// line diff for long texts). Trace text is rendered as React text, never as HTML.
import { diffLines, diffWordsWithSpace, type ChangeObject } from 'diff';
import { useMemo, useState } from 'react';
import { observationChangeOf } from '../../engine/runner/edit-details.ts';
import { supervisorDetails } from '../../engine/supervisor/details.ts';
import type { CompareStep } from './compare-model.ts';
import { count, INTERVENTION_COLOR, RUN_COLOR } from './compare-colors.ts';

const WORD_DIFF_LIMIT = 4000;
const SHOWN_CHARS = 6000;

function diffTexts(a: string, b: string): ChangeObject<string>[] | undefined {
  if (a.length + b.length <= WORD_DIFF_LIMIT) return diffWordsWithSpace(a, b);
  return diffLines(a, b, { timeout: 300 });
}

function DiffField({ label, a, b, legend = ['A only', 'B only'] }: { label: string; a: string; b: string; legend?: [string, string] }) {
  const [all, setAll] = useState(false);
  const changes = useMemo(() => (a === b ? null : diffTexts(a, b)), [a, b]);
  if (!a && !b) return null;
  let shown = 0;
  return (
    <div className="border-t border-slate-100 py-1.5" data-testid="diff-field" data-field={label}>
      <div className="mb-0.5 flex items-center gap-2 text-xs font-semibold text-slate-600">
        {label}
        {a === b ? <span className="font-normal text-emerald-700">identical</span> : <span className="font-normal text-slate-500"><span className="bg-red-100 px-0.5 line-through">{legend[0]}</span> <span className="bg-emerald-100 px-0.5">{legend[1]}</span></span>}
      </div>
      <pre className="max-h-64 overflow-auto rounded bg-slate-50 p-1.5 text-xs whitespace-pre-wrap break-words" data-testid="diff-text">
        {a === b || !changes
          ? (a === b ? a : `${a}\n──── B ────\n${b}`).slice(0, all ? undefined : SHOWN_CHARS)
          : changes.map((c, i) => {
              if (!all && shown > SHOWN_CHARS) return null;
              shown += c.value.length;
              return c.added ? (
                <ins key={i} className="bg-emerald-100 text-emerald-900 no-underline">{c.value}</ins>
              ) : c.removed ? (
                <del key={i} className="bg-red-100 text-red-900">{c.value}</del>
              ) : (
                <span key={i}>{c.value}</span>
              );
            })}
      </pre>
      {!changes && a !== b && <p className="text-xs text-slate-500">Too different to diff quickly; both texts shown.</p>}
      {a.length + b.length > SHOWN_CHARS && (
        <button type="button" className="text-xs text-indigo-700 hover:underline" onClick={() => setAll(!all)}>{all ? 'show less' : 'show all'}</button>
      )}
    </div>
  );
}

function Side({ step, side, label }: { step: CompareStep | null; side: 'a' | 'b'; label: string }) {
  return (
    <div className="min-w-0 text-xs" data-testid={`step-${side}`}>
      <div className="font-semibold" style={{ color: RUN_COLOR[side] }}>{label}</div>
      {step ? (
        <div className="text-slate-700">
          step {step.position + 1} · {step.agentName} · {step.action} · {count(step.tokens)} tokens (cumulative {count(step.cumulative)})
          {step.step.error && <div className="text-red-700">error: {step.step.error.message}</div>}
          {step.interventions.map((i) => (
            <div key={i.id} className="mt-0.5" data-testid="intervention">
              <span style={{ color: INTERVENTION_COLOR }}>▼</span> {i.engine}: {i.context ? `${i.context} → ` : ''}{i.action}
              {i.heuristic ? ' (heuristic)' : ''} — {i.reason}
              {i.tokens ? ` · ${count(i.tokens.total)} overhead tokens` : ''}
              {supervisorDetails(i)?.guidance !== undefined && <div className="ml-3 text-slate-600">guidance: {supervisorDetails(i)?.guidance}</div>}
            </div>
          ))}
        </div>
      ) : (
        <div className="text-slate-500 italic">no step at this row</div>
      )}
    </div>
  );
}

export function StepDiff({ a, b, aLabel, bLabel }: { a: CompareStep | null; b: CompareStep | null; aLabel: string; bLabel: string }) {
  const args = (s: CompareStep | null) => (s?.step.toolCalls ?? []).map((c) => `${c.name}(${c.arguments})`).join('\n');
  const field = (s: CompareStep | null, f: 'thought' | 'output' | 'observation') => s?.step[f] ?? '';
  return (
    <section className="rounded border border-slate-200 bg-white p-2" aria-label="Steps under the playhead" data-testid="step-diff">
      <div className="grid grid-cols-2 gap-3">
        <Side step={a} side="a" label={aLabel} />
        <Side step={b} side="b" label={bLabel} />
      </div>
      <DiffField label="Thought" a={field(a, 'thought')} b={field(b, 'thought')} />
      <DiffField label="Tool calls" a={args(a)} b={args(b)} />
      <DiffField label="Output / message" a={field(a, 'output')} b={field(b, 'output')} />
      <DiffField label="Observation" a={field(a, 'observation')} b={field(b, 'observation')} />
      {([['A', a], ['B', b]] as const).flatMap(([name, s]) =>
        (s?.interventions ?? []).flatMap((i) => {
          const change = observationChangeOf(i);
          const replaced = change.newObservation;
          if (replaced === undefined) return [];
          const original = change.originalObservation ?? s?.step.observation ?? '';
          return [
            <DiffField key={`${name}-${i.id}`} label={`${name}: observation the supervisor would hand on (${i.action}${i.heuristic ? ', heuristic' : ''})`} a={original} b={replaced} legend={['recorded only', 'supervised only']} />,
          ];
        }),
      )}
    </section>
  );
}
