// Export runs as a native session file and hand it to the browser as a download. The exporter (and zod with it) is
// loaded on first use, keeping it out of the JS shipped before first paint (SPEC §8).
import { ownValue } from '../../model/record.ts';
import { llmCallIdsOf } from '../../model/llm-calls.ts';
import { joinStepRaw } from '../../model/session-spans.ts';
import type { LlmCallRecord, Run } from '../../model/types.ts';
import { readStoredSpans, usePersistence } from '../../store/library-db.ts';
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

/**
 * The runs with their source spans: those kept apart in IndexedDB (ADR 0020) are read back for the export, and the
 * steps whose raw stayed with their spans get it back (ADR 0026), so the file is the one written before either.
 */
export async function withStoredSpans(runs: Run[]): Promise<Run[]> {
  const stored = usePersistence.getState().storedSpans;
  return Promise.all(
    runs.map(async (run) => {
      if (run.spans !== undefined || !stored.has(run.id)) return run;
      const spans = await readStoredSpans(run);
      return spans ? joinStepRaw({ ...run, spans }) : run;
    }),
  );
}

export async function sessionText(runs: Run[], llmCalls: LlmCallRecord[], title?: string, engineSettings?: Record<string, unknown>): Promise<string> {
  const { exportSession } = await import('../../export/native.ts');
  return exportSession({
    runs: await withStoredSpans(runs),
    llmCalls,
    title,
    engineSettings,
    simulated: runs.length > 0 && runs.every((r) => r.simulated === true),
    createdAt: Date.now(),
  });
}

export function downloadText(text: string, fileName: string): void {
  downloadBlob(new Blob([text], { type: 'application/json' }), fileName);
}

/** Runs as strict OTLP/JSON (lossy: see src/export/otlp.ts); the exporter loads on first use. */
export async function otlpText(runs: Run[]): Promise<string> {
  const { exportOtlp } = await import('../../export/otlp.ts');
  return exportOtlp(await withStoredSpans(runs), 2);
}
