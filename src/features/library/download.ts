// Export runs as a native session file or as OTLP/JSON and hand it to the browser as a download. The file is made in
// the export worker (a large run's took the page a second and more, and one past a string's size failed), which
// keeps the exporters out of the page's JS.
import { ownValue } from '../../model/record.ts';
import { llmCallIdsOf } from '../../model/llm-calls.ts';
import type { LlmCallRecord, Run } from '../../model/types.ts';
import { create } from 'zustand';
import { runStorageTarget, usePersistence } from '../../store/library-db.ts';
import { otlpBlobInWorker, sessionBlobInWorker, type StoredSpans } from '../../workers/export-client.ts';
import { downloadBlob } from '../../ui/chart/chart-export.ts';

/** A file name from an id: only safe characters, so trace content can never shape a path. */
export function safeFileName(base: string): string {
  const cleaned = base.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80);
  return cleaned || 'session';
}

/** The recorded LLM calls the runs refer to: a live run's own turns, its interventions and its derived stages. */
export function callsOfRuns(runs: Run[], calls: Record<string, LlmCallRecord>): LlmCallRecord[] {
  const ids = new Set(runs.flatMap((r) => [...llmCallIdsOf(r)]));
  return [...ids].flatMap((id) => {
    const call = ownValue(calls, id);
    return call ? [call] : [];
  });
}

/** Exports under way, and why the last one failed: an export of a large run takes seconds, and a click's promise is not awaited. */
export const useExports = create<{ running: number; failed?: string }>(() => ({ running: 0 }));

/** Where the runs whose source spans are kept apart (ADR 0020) have them, for the export worker to read them back. */
function storedSpansOf(runs: readonly Run[]): StoredSpans {
  const stored = usePersistence.getState().storedSpans;
  return { storage: runStorageTarget(), runIds: runs.filter((r) => r.spans === undefined && stored.has(r.id)).map((r) => r.id) };
}

/** Makes a file off the page (workers/export.worker.ts) and hands it to the browser; a failure is shown, never lost. */
async function exportFile(what: string, make: () => Promise<Blob>, fileName: string): Promise<void> {
  useExports.setState((s) => ({ running: s.running + 1, failed: undefined }));
  try {
    downloadBlob(await make(), fileName);
  } catch (e) {
    useExports.setState({ failed: `${what} could not be exported: ${e instanceof Error ? e.message : String(e)}` });
  } finally {
    useExports.setState((s) => ({ running: s.running - 1 }));
  }
}

/**
 * The runs as a native session file (lossless): their spans kept apart read back, the steps whose raw stayed with
 * their spans given it back (ADR 0026), so the file is the one written before either.
 */
export function exportSessionFile(runs: Run[], llmCalls: LlmCallRecord[], fileName: string, title?: string, engineSettings?: Record<string, unknown>): Promise<void> {
  const parts = { llmCalls, title, engineSettings, simulated: runs.length > 0 && runs.every((r) => r.simulated === true), createdAt: Date.now() };
  return exportFile(title ?? fileName, () => sessionBlobInWorker(runs, parts, storedSpansOf(runs)), fileName);
}

/** The runs as strict OTLP/JSON (lossy: see src/export/otlp.ts). */
export function exportOtlpFile(runs: Run[], fileName: string): Promise<void> {
  return exportFile(fileName, () => otlpBlobInWorker(runs, storedSpansOf(runs), 2), fileName);
}

export function downloadText(text: string, fileName: string): void {
  downloadBlob(new Blob([text], { type: 'application/json' }), fileName);
}
