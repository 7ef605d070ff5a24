// "Removed N runs · Undo": a removal from the library can be taken back for a while.
import { useEffect, useRef } from 'react';
import { useLibrary, type RemovedRuns } from '../../store/library.ts';
import { Button } from '../../ui/button.tsx';

/** How long the undo stays offered. */
const UNDO_MS = 20_000;

export function UndoToast({ removed, onClose }: { removed: RemovedRuns; onClose(): void }) {
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const timer = setTimeout(() => close.current(), UNDO_MS);
    return () => clearTimeout(timer);
  }, [removed]);
  const n = removed.runs.length;
  const files = removed.files.filter((f) => f.file.runIds.every((id) => removed.runs.some((r) => r.id === id))).length;
  const what = n > 0 ? `${n.toLocaleString('en')} run${n === 1 ? '' : 's'}` : `${files} file${files === 1 ? '' : 's'}`;
  return (
    <div role="status" aria-live="polite" data-testid="undo-toast" className="fixed bottom-4 left-1/2 z-20 flex -translate-x-1/2 items-center gap-3 rounded-lg bg-slate-800 px-4 py-2 text-sm text-white shadow-lg">
      <span>Removed {what}</span>
      <span aria-hidden>·</span>
      <Button
        size="sm"
        onClick={() => {
          useLibrary.getState().restoreRemoved(removed);
          onClose();
        }}
      >
        Undo
      </Button>
      <button type="button" className="text-slate-300 hover:text-white" onClick={onClose} aria-label="Dismiss">
        ×
      </button>
    </div>
  );
}
