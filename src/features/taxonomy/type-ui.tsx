// Small shared pieces of the Taxonomy view: the colour and badge of each type, and text blocks for trace text.
import type { ReactNode } from 'react';
import { TYPE_INFO, type ClarifierType } from '../../engine/clarifier/index.ts';

export const TYPE_COLOR: Record<ClarifierType, string> = {
  DG: '#d97706',
  RD: '#7c3aed',
  SC: '#dc2626',
  CG: '#0891b2',
  NONE: '#64748b',
};

const TYPE_CLASS: Record<ClarifierType, string> = {
  DG: 'bg-amber-50 text-amber-900 ring-amber-300',
  RD: 'bg-violet-50 text-violet-900 ring-violet-300',
  SC: 'bg-red-50 text-red-900 ring-red-300',
  CG: 'bg-cyan-50 text-cyan-900 ring-cyan-300',
  NONE: 'bg-slate-100 text-slate-700 ring-slate-300',
};

export function TypeBadge({ type, full = false, prefix }: { type: ClarifierType; full?: boolean; prefix?: string }) {
  return (
    <span title={TYPE_INFO[type].name} data-type={type} className={`inline-flex items-center whitespace-nowrap rounded px-1.5 py-0.5 text-xs font-semibold ring-1 ring-inset ${TYPE_CLASS[type]}`}>
      {prefix ? `${prefix} ` : ''}
      {full ? `${type} · ${TYPE_INFO[type].name}` : type}
    </span>
  );
}

/** Trace or case text, always rendered as text (never HTML), wrapped and scrollable. */
export function TextBlock({ children, label, testId, tone = 'plain' }: { children: string; label?: ReactNode; testId?: string; tone?: 'plain' | 'faulty' | 'fixed' }) {
  const border = tone === 'faulty' ? 'border-red-200 bg-red-50/40' : tone === 'fixed' ? 'border-emerald-200 bg-emerald-50/40' : 'border-slate-200 bg-slate-50';
  return (
    <div className="min-w-0">
      {label && <div className="mb-0.5 text-[11px] font-medium uppercase tracking-wide text-slate-500">{label}</div>}
      <pre data-testid={testId} className={`max-h-72 overflow-auto whitespace-pre-wrap break-words rounded border p-2 font-sans text-xs text-slate-800 ${border}`}>
        {children}
      </pre>
    </div>
  );
}

export function Panel({ title, children, testId, actions }: { title: ReactNode; children: ReactNode; testId?: string; actions?: ReactNode }) {
  return (
    <section data-testid={testId} className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
      <div className="mb-2 flex items-center justify-between gap-2">
        <h3 className="text-sm font-semibold text-slate-800">{title}</h3>
        {actions}
      </div>
      {children}
    </section>
  );
}
