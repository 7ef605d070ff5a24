// The keyboard shortcuts, listed from the same table the key handler uses.
import { useEffect, useRef } from 'react';

const KEY_NAMES: Record<string, string> = { ' ': 'Space', ArrowRight: '→', ArrowLeft: '←' };

/** `extra`: bindings a view adds on top of the run view's own (the stage view's stage keys). */
export interface HelpBinding {
  action: string;
  keys: string[];
  label: string;
}

export function HelpOverlay({ onClose, bindings, extra = [] }: { onClose: () => void; bindings: readonly HelpBinding[]; extra?: { id: string; keys: string[]; label: string }[] }) {
  const dialog = useRef<HTMLDivElement>(null);
  useEffect(() => {
    dialog.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <div className="fixed inset-0 z-20 flex items-center justify-center bg-slate-900/40" onClick={onClose}>
      <div
        ref={dialog}
        role="dialog"
        aria-modal="true"
        aria-label="Keyboard shortcuts"
        data-testid="help-overlay"
        tabIndex={-1}
        className="w-[26rem] rounded-lg bg-white p-4 shadow-xl outline-none"
        onClick={(e) => e.stopPropagation()}
      >
        <h2 className="mb-2 text-sm font-semibold text-slate-900">Keyboard shortcuts</h2>
        <table className="w-full text-sm">
          <tbody>
            {[...bindings.map((b) => ({ id: b.action, keys: b.keys, label: b.label })), ...extra].map((b) => (
              <tr key={b.id} className="border-t border-slate-100">
                <td className="py-1 pr-3 whitespace-nowrap">
                  {b.keys.map((k) => (
                    <kbd key={k} className="mr-1 rounded border border-slate-300 bg-slate-50 px-1.5 font-mono text-xs">
                      {KEY_NAMES[k] ?? k}
                    </kbd>
                  ))}
                </td>
                <td className="py-1 text-slate-700">{b.label}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="mt-3 text-xs text-slate-500">Esc or ? closes this panel. Click a step, a timeline block or a chart bar to move the playhead.</p>
      </div>
    </div>
  );
}
