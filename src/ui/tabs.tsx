// A row of tabs (WAI-ARIA tabs pattern): role=tablist/tab with aria-selected, one tab in the Tab order (the selected
// one), and the arrow keys, Home and End move between tabs and select the one reached. The caller owns the selection
// (pages keep it in the URL) and renders the panel.
import { useRef, type KeyboardEvent } from 'react';

export interface TabItem<Id extends string> {
  id: Id;
  label: string;
}

export interface TabsProps<Id extends string> {
  tabs: readonly TabItem<Id>[];
  current: Id;
  onSelect: (id: Id) => void;
  /** The tab list's accessible name. */
  label: string;
}

export function Tabs<Id extends string>({ tabs, current, onSelect, label }: TabsProps<Id>) {
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const at = tabs.findIndex((t) => t.id === current);
    const last = tabs.length - 1;
    const next = e.key === 'ArrowRight' ? (at >= last ? 0 : at + 1) : e.key === 'ArrowLeft' ? (at <= 0 ? last : at - 1) : e.key === 'Home' ? 0 : e.key === 'End' ? last : -1;
    if (next < 0 || last < 0) return;
    e.preventDefault();
    onSelect(tabs[next].id);
    buttons.current[next]?.focus();
  };
  return (
    <div role="tablist" aria-label={label} className="flex gap-1" onKeyDown={onKeyDown}>
      {tabs.map((t, i) => (
        <button
          key={t.id}
          ref={(el) => {
            buttons.current[i] = el;
          }}
          type="button"
          role="tab"
          aria-selected={current === t.id}
          tabIndex={current === t.id ? 0 : -1}
          onClick={() => onSelect(t.id)}
          className={`rounded px-3 py-1 text-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 ${current === t.id ? 'bg-white font-medium text-indigo-800 shadow-sm' : 'text-slate-600 hover:bg-white/60'}`}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}
