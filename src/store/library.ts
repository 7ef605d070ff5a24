// The library: every file the user has opened and the runs it holds, shared by all views.
// Persistence to IndexedDB is done by ./library-db.ts, which subscribes to this store.
// Runs are replaced, never mutated, so `useLibrary((s) => s.runs[id])` re-renders exactly when that run changes.
// `runs` and `llmCalls` are keyed by ids from files and links, so they are always records without a prototype
// (../model/record.ts): `runs['constructor']` is undefined and a run with id `__proto__` is stored like any other.
import { create } from 'zustand';
import type { LoadedFile } from '../import/format.ts';
import type { LiveTraceDoc } from '../import/live-otlp.ts';
import { withAnnotationSets, type AnnotationSet } from '../model/annotations.ts';
import { emptyRecord, ownValue, recordOf } from '../model/record.ts';
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
  /** Annotation files keep their sets: they attach to matching runs whenever those are opened, before or after. */
  annotationSets?: AnnotationSet[];
  /** Recorded LLM calls that came with this file (native sessions). */
  llmCallIds?: string[];
  /**
   * Engine settings saved in this file (a native session from "Export all"). Never applied on open: a file from
   * someone else could name their own endpoint; the person applies them from the file's card.
   */
  engineSettings?: Record<string, unknown>;
  /** A run received live over OTLP (issue 19): still receiving or done. */
  live?: LiveFile;
}

export interface LiveFile {
  state: 'receiving' | 'done';
  /** When the page received the trace's latest span (ms since the epoch). */
  lastSpanAt: number;
  spans: number;
  /** Files stored before the live worker kept the spans itself (in its own database) held them here. */
  otlp?: LiveTraceDoc;
}

export interface ImportFailure {
  id: string;
  file: string;
  format: string;
  location: string;
  detail: string;
  at: number;
}

/** What the import worker returns for one file (declared with the importers' contract). */
export type { LoadedFile };

export interface StoredLibrary {
  files: LibraryFile[];
  runs: Record<string, Run>;
  llmCalls?: Record<string, LlmCallRecord>;
}

/** What a removal took out of the library: enough to put it back as it was. */
export interface RemovedRuns {
  runs: Run[];
  /** Every file the removal changed, as it was before, with its position in the list. */
  files: { index: number; file: LibraryFile }[];
  llmCalls: LlmCallRecord[];
}

interface LibraryStore {
  /** false until the stored library has been read back from IndexedDB (or found empty or unavailable). */
  hydrated: boolean;
  files: LibraryFile[];
  runs: Record<string, Run>;
  llmCalls: Record<string, LlmCallRecord>;
  failures: ImportFailure[];
  /** Add a loaded file; a run whose id is already present is replaced by the newer one. */
  addLoaded(loaded: LoadedFile, addedAt?: number): LibraryFile;
  /** Remove a file and its runs; returns what was removed, for an undo. */
  removeFile(fileId: string): RemovedRuns | undefined;
  /** Remove these runs (files left with no run go too); returns what was removed, for an undo. */
  removeRuns(runIds: Iterable<string>): RemovedRuns;
  /** Put back what `removeFile` or `removeRuns` took out (runs opened again since then are kept, not replaced). */
  restoreRemoved(removed: RemovedRuns): void;
  /** Replace one run (after an engine added interventions, a person added a label…). */
  updateRun(run: Run): void;
  addFailure(failure: Omit<ImportFailure, 'id' | 'at'>): void;
  dismissFailure(id: string): void;
  /**
   * Restore the stored library. Files opened before the stored library was read (a `?src=` link, samples) are kept
   * and win over stored runs with the same id, since they are newer.
   */
  hydrate(state: StoredLibrary): void;
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export const useLibrary = create<LibraryStore>((set, get) => ({
  hydrated: false,
  files: [],
  runs: emptyRecord(),
  llmCalls: emptyRecord(),
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
    if (loaded.annotationSets && loaded.annotationSets.length > 0) file.annotationSets = loaded.annotationSets;
    if (loaded.llmCalls && loaded.llmCalls.length > 0) file.llmCallIds = loaded.llmCalls.map((c) => c.id);
    if (loaded.engineSettings) file.engineSettings = loaded.engineSettings;
    const state = get();
    const runs = recordOf(state.runs);
    for (const run of loaded.runs) runs[run.id] = run;
    const llmCalls = recordOf(state.llmCalls);
    for (const call of loaded.llmCalls ?? []) llmCalls[call.id] = call;
    // A file that re-imports the same runs replaces the earlier entry rather than listing them twice.
    const replaced = new Set(file.runIds);
    const files = state.files
      .map((f) => (f.runIds.some((id) => replaced.has(id)) ? { ...f, runIds: f.runIds.filter((id) => !replaced.has(id)) } : f))
      .filter((f) => f.runIds.length > 0 || (f.annotationSets?.length ?? 0) > 0);
    // Annotation files opened earlier attach to the new runs; this file's sets attach to runs already here.
    withAnnotationSets(runs, file.runIds, files.flatMap((f) => f.annotationSets ?? []));
    withAnnotationSets(runs, Object.keys(state.runs), file.annotationSets ?? []);
    set({ files: [...files, file], runs, llmCalls });
    return file;
  },
  removeFile(fileId) {
    const file = get().files.find((f) => f.id === fileId);
    if (!file) return undefined;
    return removeFrom(get(), new Set(file.runIds), new Set([fileId]), set);
  },
  removeRuns(runIds) {
    return removeFrom(get(), new Set(runIds), new Set(), set);
  },
  restoreRemoved(removed) {
    const state = get();
    const runs = recordOf(state.runs);
    const back = new Set<string>();
    for (const run of removed.runs) {
      if (Object.hasOwn(runs, run.id)) continue;
      runs[run.id] = run;
      back.add(run.id);
    }
    const llmCalls = recordOf(state.llmCalls);
    for (const call of removed.llmCalls) if (!Object.hasOwn(llmCalls, call.id)) llmCalls[call.id] = call;
    const files = [...state.files];
    for (const { index, file } of removed.files) {
      const at = files.findIndex((f) => f.id === file.id);
      if (at >= 0) {
        const kept = new Set(files[at].runIds);
        files[at] = { ...file, runIds: file.runIds.filter((id) => kept.has(id) || back.has(id)) };
      } else {
        files.splice(Math.min(index, files.length), 0, { ...file, runIds: file.runIds.filter((id) => back.has(id)) });
      }
    }
    set({ files, runs, llmCalls });
  },
  updateRun(run) {
    const runs = recordOf(get().runs);
    runs[run.id] = run;
    set({ runs });
  },
  addFailure(failure) {
    set({ failures: [...get().failures, { ...failure, id: nextId('failure'), at: Date.now() }] });
  },
  dismissFailure(id) {
    set({ failures: get().failures.filter((f) => f.id !== id) });
  },
  hydrate(stored) {
    const state = get();
    const newer = new Set(state.files.flatMap((f) => f.runIds));
    const storedFiles = stored.files
      .map((f) => (f.runIds.some((id) => newer.has(id)) ? { ...f, runIds: f.runIds.filter((id) => !newer.has(id)) } : f))
      .filter((f) => f.runIds.length > 0 || (f.annotationSets?.length ?? 0) > 0);
    set({
      files: [...storedFiles, ...state.files],
      runs: recordOf(stored.runs, state.runs),
      llmCalls: recordOf(stored.llmCalls, state.llmCalls),
      hydrated: true,
    });
  },
}));

/** Take runs (and whole files) out of the library state; the LLM calls no remaining file names go too. */
function removeFrom(
  state: Pick<LibraryStore, 'files' | 'runs' | 'llmCalls'>,
  runIds: Set<string>,
  fileIds: Set<string>,
  set: (patch: Pick<LibraryStore, 'files' | 'runs' | 'llmCalls'>) => void,
): RemovedRuns {
  const removed: RemovedRuns = { runs: [], files: [], llmCalls: [] };
  const files: LibraryFile[] = [];
  state.files.forEach((f, index) => {
    const touched = fileIds.has(f.id) || f.runIds.some((id) => runIds.has(id));
    if (!touched) {
      files.push(f);
      return;
    }
    removed.files.push({ index, file: f });
    const left = fileIds.has(f.id) ? [] : f.runIds.filter((id) => !runIds.has(id));
    if (left.length > 0) files.push({ ...f, runIds: left });
  });
  const runs = recordOf(state.runs);
  for (const id of runIds) {
    const run = ownValue(runs, id);
    if (!run) continue;
    removed.runs.push(run);
    delete runs[id];
  }
  const llmCalls = recordOf(state.llmCalls);
  const stillUsed = new Set(files.flatMap((f) => f.llmCallIds ?? []));
  for (const { file } of removed.files) {
    for (const id of file.llmCallIds ?? []) {
      const call = ownValue(llmCalls, id);
      if (!call || stillUsed.has(id)) continue;
      removed.llmCalls.push(call);
      delete llmCalls[id];
    }
  }
  set({ files, runs, llmCalls });
  return removed;
}

/** How many of a file's annotation sets found their run in the library (a set naming `constructor` finds none). */
export function attachedSetCount(file: LibraryFile, runs: Record<string, Run>): number {
  return (file.annotationSets ?? []).filter((s) => Object.hasOwn(runs, s.runId)).length;
}

/** The runs of a file in the file's order (runs missing from the store, e.g. set aside as corrupt, are skipped). */
export function runsOfFile(file: LibraryFile, runs: Record<string, Run>): Run[] {
  return file.runIds.flatMap((id) => {
    const run = ownValue(runs, id);
    return run ? [run] : [];
  });
}
