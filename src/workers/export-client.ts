// The page's side of the export worker (export.worker.ts): one worker, started on first export.
import type * as Comlink from 'comlink';
import type { SessionParts } from '../export/native.ts';
import type { Run } from '../model/types.ts';
import type { ExportWorkerApi } from './export.worker.ts';
import type { StoredSpans } from './import-storage.ts';
import { JobWorker } from './job-worker.ts';
import type { FerriedRun } from './run-ferry.ts';

export type { StoredSpans } from './import-storage.ts';

const exporter = new JobWorker<ExportWorkerApi>(() => new Worker(new URL('./export.worker.ts', import.meta.url), { type: 'module', name: 'export' }), 'export');

/** An export of these runs; the worker lets them go once it is made (an export is seldom asked twice in a row). */
async function exported(runs: readonly Run[], make: (api: Comlink.Remote<ExportWorkerApi>, ferried: FerriedRun[]) => Promise<Blob>): Promise<Blob> {
  try {
    return await exporter.job(undefined, () => exporter.withRuns(runs, make));
  } finally {
    await exporter.releaseRuns().catch(() => {});
  }
}

/** The runs as a native session file, made in the worker. */
export function sessionBlobInWorker(runs: readonly Run[], parts: Omit<SessionParts, 'runs'>, stored: StoredSpans): Promise<Blob> {
  return exported(runs, (api, ferried) => api.session(ferried, parts, stored));
}

/** The runs as OTLP/JSON, made in the worker. */
export function otlpBlobInWorker(runs: readonly Run[], stored: StoredSpans, indent: number): Promise<Blob> {
  return exported(runs, (api, ferried) => api.otlp(ferried, stored, indent));
}
