// The library: every file the user has opened and the runs it holds, shared by all views.
// Persistence to IndexedDB is done by ./library-db.ts, which subscribes to this store.
import { create } from 'zustand';
import type { LlmCallRecord, Run } from '../model/types.ts';

export interface LibraryFile {
  id: string;
  name: string;
  format: string;
  formatLabel: string;
  runIds: string[];
  addedAt: number;
  /** Made by the project's sample generator, not recorded from a real system. */
  simulated: boolean;
  warnings: string[];
}

export interface ImportFailure {
  id: string;
  file: string;
  format: string;
  location: string;
  detail: string;
  at: number;
}

/** What the import worker returns for one file (a structured-clone-safe subset of ImportedFile). */
export interface LoadedFile {
  file: string;
  format: string;
  formatLabel: string;
  runs: Run[];
  warnings: string[];
  llmCalls?: LlmCallRecord[];
}

interface LibraryStore {
  /** false until the stored library has been read back from IndexedDB (or found empty). */
  hydrated: boolean;
  files: LibraryFile[];
  runs: Record<string, Run>;
  llmCalls: Record<string, LlmCallRecord>;
  failures: ImportFailure[];
  /** Add a loaded file; a run whose id is already present is replaced by the newer one. */
  addLoaded(loaded: LoadedFile, addedAt?: number): LibraryFile;
  removeFile(fileId: string): void;
  /** Replace one run (after an engine added interventions, a person added a label…). */
  updateRun(run: Run): void;
  addFailure(failure: Omit<ImportFailure, 'id' | 'at'>): void;
  dismissFailure(id: string): void;
  /** Replace the whole state (used when restoring from IndexedDB). */
  hydrate(state: { files: LibraryFile[]; runs: Record<string, Run>; llmCalls?: Record<string, LlmCallRecord> }): void;
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export const useLibrary = create<LibraryStore>((set, get) => ({
  hydrated: false,
  files: [],
  runs: {},
  llmCalls: {},
  failures: [],
  addLoaded(loaded, addedAt = Date.now()) {
    const file: LibraryFile = {
      id: nextId('file'),
      name: loaded.file,
      format: loaded.format,
      formatLabel: loaded.formatLabel,
      runIds: loaded.runs.map((r) => r.id),
      addedAt,
      simulated: loaded.runs.length > 0 && loaded.runs.every((r) => r.simulated === true),
      warnings: loaded.warnings,
    };
    const runs = { ...get().runs };
    for (const run of loaded.runs) runs[run.id] = run;
    const llmCalls = { ...get().llmCalls };
    for (const call of loaded.llmCalls ?? []) llmCalls[call.id] = call;
    // A file that re-imports the same runs replaces the earlier entry rather than listing them twice.
    const replaced = new Set(file.runIds);
    const files = get()
      .files.map((f) => ({ ...f, runIds: f.runIds.filter((id) => !replaced.has(id)) }))
      .filter((f) => f.runIds.length > 0 || f.warnings.length > 0);
    set({ files: [...files, file], runs, llmCalls });
    return file;
  },
  removeFile(fileId) {
    const file = get().files.find((f) => f.id === fileId);
    if (!file) return;
    const runs = { ...get().runs };
    for (const id of file.runIds) delete runs[id];
    set({ files: get().files.filter((f) => f.id !== fileId), runs });
  },
  updateRun(run) {
    set({ runs: { ...get().runs, [run.id]: run } });
  },
  addFailure(failure) {
    set({ failures: [...get().failures, { ...failure, id: nextId('failure'), at: Date.now() }] });
  },
  dismissFailure(id) {
    set({ failures: get().failures.filter((f) => f.id !== id) });
  },
  hydrate(state) {
    set({ files: state.files, runs: state.runs, llmCalls: state.llmCalls ?? {}, hydrated: true });
  },
}));
