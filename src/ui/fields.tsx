// Labelled form fields of the engines panel: every input has a visible label a test and a screen reader can find.
import { useEffect, useState, type ReactNode } from 'react';

const INPUT = 'w-full rounded border border-slate-300 px-2 py-1 text-sm focus:border-indigo-500 focus:outline-none disabled:bg-slate-50 disabled:text-slate-400';

export function Field({ label, hint, children }: { label: string; hint?: ReactNode; children: (id: string) => ReactNode }) {
  const id = `field-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <div className="space-y-0.5">
      <label htmlFor={id} className="block text-xs font-medium text-slate-700">
        {label}
      </label>
      {children(id)}
      {hint && <p className="text-[11px] text-slate-500">{hint}</p>}
    </div>
  );
}

export function TextField({ label, value, onChange, placeholder, hint, type = 'text', disabled, autoComplete = 'off' }: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  placeholder?: string;
  hint?: ReactNode;
  type?: 'text' | 'password' | 'url';
  disabled?: boolean;
  autoComplete?: string;
}) {
  return (
    <Field label={label} hint={hint}>
      {(id) => (
        <input id={id} type={type} className={INPUT} value={value} placeholder={placeholder} disabled={disabled} spellCheck={false} autoComplete={autoComplete} onChange={(e) => onChange(e.target.value)} />
      )}
    </Field>
  );
}

/**
 * A number that commits only when valid (within min..max, whole when `step` is 1), so a half-typed value never
 * reaches the settings; the field shows what is typed and says when it is not accepted.
 */
export function NumberField({ label, value, onChange, min, max, step = 1, hint, disabled }: {
  label: string;
  value: number;
  onChange: (v: number) => void;
  min: number;
  max?: number;
  step?: number;
  hint?: ReactNode;
  disabled?: boolean;
}) {
  const [text, setText] = useState(String(value));
  useEffect(() => setText(String(value)), [value]);
  const n = Number(text);
  const valid = text.trim() !== '' && Number.isFinite(n) && n >= min && (max === undefined || n <= max) && (step !== 1 || Number.isInteger(n));
  return (
    <Field label={label} hint={valid ? hint : <span className="text-red-700">{`needs a ${step === 1 ? 'whole ' : ''}number ≥ ${min}${max !== undefined ? ` and ≤ ${max}` : ''}`}</span>}>
      {(id) => (
        <input
          id={id}
          type="number"
          inputMode="decimal"
          className={`${INPUT} ${valid ? '' : 'border-red-400'}`}
          value={text}
          min={min}
          max={max}
          step={step}
          disabled={disabled}
          aria-invalid={!valid}
          onChange={(e) => {
            setText(e.target.value);
            const v = Number(e.target.value);
            if (e.target.value.trim() !== '' && Number.isFinite(v) && v >= min && (max === undefined || v <= max) && (step !== 1 || Number.isInteger(v))) onChange(v);
          }}
        />
      )}
    </Field>
  );
}

export function Card({ title, children, actions, testId }: { title: string; children: ReactNode; actions?: ReactNode; testId?: string }) {
  return (
    <section className="rounded border border-slate-200 bg-white p-4" aria-label={title} data-testid={testId}>
      <header className="mb-3 flex items-center justify-between gap-2">
        <h2 className="text-sm font-semibold text-slate-900">{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}
