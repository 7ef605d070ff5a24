// Exports off the page (SPEC §8): a session or an OTLP/JSON document of large runs took one task of a second or more
// on the page (a 200k-message chat log's session: 1,044 ms), and an OTLP document past one string's limit failed. Here
// the runs arrive through the run ferry, their spans kept apart in IndexedDB are read here, and the text is made in
// parts (export/json-parts.ts) into a Blob, which reaches the page without a copy of its bytes.
import * as Comlink from 'comlink';
import { exportSessionParts, type SessionParts } from '../export/native.ts';
import { exportOtlpParts } from '../export/otlp.ts';
import { withStoredSpans, type StoredSpans } from './import-storage.ts';
import { ferryHostApi, runOf } from './run-ferry-host.ts';
import type { FerriedRun } from './run-ferry.ts';

const json = (parts: string[]) => new Blob(parts, { type: 'application/json' });

const api = {
  ...ferryHostApi,

  /** Nothing here runs long enough to stop: an export is one call. */
  stop(): void {},

  async session(runs: FerriedRun[], parts: Omit<SessionParts, 'runs'>, stored: StoredSpans): Promise<Blob> {
    const full = await Promise.all(runs.map((r) => withStoredSpans(runOf(r), stored)));
    return json(exportSessionParts({ ...parts, runs: full }));
  },

  async otlp(runs: FerriedRun[], stored: StoredSpans, indent: number): Promise<Blob> {
    const full = await Promise.all(runs.map((r) => withStoredSpans(runOf(r), stored)));
    return json(exportOtlpParts(full, indent));
  },
};

export type ExportWorkerApi = typeof api;

Comlink.expose(api);
