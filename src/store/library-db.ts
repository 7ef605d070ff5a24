// The library in IndexedDB (SPEC §4, §9): it survives reloads. Every change to the store is written, debounced, in
// one transaction (all of it lands or none of it does). A stored run must pass the native import's schema (files and
// LLM calls a lighter shape check); one that does not is moved to the `quarantine` store with its path and reason, never
// deleted unasked, and listed in the Library. Hydration always ends with `hydrated: true`, even without IndexedDB.
// Runs opened from files are written by the import worker, not here (ADR 0020): the run without its source spans in
// `runs`, the spans in `runSpans` (read when the span tree asks); the page only waits for that write to commit.
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import { create } from 'zustand';
import { emptyRecord, recordFromEntries, recordOf } from '../model/record.ts';
import { migrateRun } from '../model/migrate.ts';
import { hydrateRun } from '../model/session-spans.ts';
import type { LlmCallRecord, Run, RunSpan } from '../model/types.ts';
import { useLibrary, type LibraryFile, type StoredLibrary } from './library.ts';

export const DB_NAME = 'mas-replay-studio';

export interface QuarantinedRecord {
  /** The store the record was found in. */
  store: string;
  key: string;
  value: unknown;
  reason: string;
  at: number;
}

export interface LibrarySchema extends DBSchema {
  files: { key: string; value: LibraryFile };
  runs: { key: string; value: Run };
  llmCalls: { key: string; value: LlmCallRecord };
  quarantine: { key: number; value: QuarantinedRecord };
  /** A run's source spans kept apart from it (written by the import worker; step spans compacted, model/session-spans). */
  runSpans: { key: string; value: RunSpan[] };
}

type Db = IDBPDatabase<LibrarySchema>;
type UpgradeTx = IDBPTransaction<LibrarySchema, StoreNames<LibrarySchema>[], 'versionchange'>;
/** Migration to version `v`: runs when a database older than `v` is opened. May read and rewrite records via `tx`. */
export type Migration = (db: Db, tx: UpgradeTx) => void | Promise<void>;

/** Index = target version. Add a function here (never edit an old one) when the stored shape changes. */
export const MIGRATIONS: Migration[] = [
  () => {},
  (db) => {
    db.createObjectStore('files', { keyPath: 'id' });
    db.createObjectStore('runs', { keyPath: 'id' });
    db.createObjectStore('llmCalls', { keyPath: 'id' });
    db.createObjectStore('quarantine', { autoIncrement: true });
  },
  // Version 2 (issue 14): a large run's spans apart from the run, so the page can load the run without them.
  (db) => {
    db.createObjectStore('runSpans');
  },
];

/** The database the import worker writes runs into: the page has opened (and migrated) it before handing it over. */
export interface RunStorageTarget {
  name: string;
  version: number;
}

export interface OpenOptions {
  name?: string;
  migrations?: Migration[];
}

export async function openLibraryDb({ name = DB_NAME, migrations = MIGRATIONS }: OpenOptions = {}): Promise<Db> {
  const version = migrations.length - 1;
  let migrationError: unknown;
  let opened: Db | undefined;
  try {
    opened = await openDB<LibrarySchema>(name, version, {
      async upgrade(db, oldVersion, newVersion, tx) {
        try {
          for (let v = oldVersion + 1; v <= (newVersion ?? version); v++) await migrations[v](db, tx);
        } catch (e) {
          // A half-applied migration must not stick: aborting the upgrade leaves the database as it was.
          migrationError = e;
          tx.done.catch(() => {}); // the open request reports the failure; the transaction's own rejection is expected
          tx.abort();
        }
      },
      // Another tab wants a newer version: step aside rather than block it.
      blocking() {
        opened?.close();
      },
    });
    return opened;
  } catch (e) {
    if (migrationError === undefined) throw e;
    throw new Error(`upgrading the stored library to version ${version} failed: ${describeError(migrationError)}`, { cause: e });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Shape checks. A stored run passes the same zod schema as a native import (after `migrateRun`, which reads records
// stored before the runner's fields were typed): a record with `agents: [null]`, a step without `agentId` or an
// object where text belongs is set aside here rather than reaching the views. The schema is loaded with the library
// (its own chunk), keeping zod out of the JS shipped before first paint (SPEC §8).

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

type RunSchema = typeof import('../model/schema.ts').Run;

function issuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${String(key)}`), '$');
}

/** The run as the views will read it, or why it cannot be. */
export function checkRun(schema: RunSchema, key: string, v: unknown): { run: Run } | { problem: string } {
  if (!isObject(v)) return { problem: 'not an object' };
  if (v.id !== key) return { problem: `id ${JSON.stringify(v.id)} does not match its key` };
  let migrated: Run;
  try {
    migrated = migrateRun(v as unknown as Run);
  } catch (e) {
    return { problem: `it could not be read (${describeError(e)})` };
  }
  const parsed = schema.safeParse(migrated);
  if (parsed.success) return { run: parsed.data as Run };
  const issue = parsed.error.issues[0];
  return { problem: `${issuePath(issue.path)}: ${issue.message}` };
}

export function fileProblem(key: string, v: unknown): string | undefined {
  if (!isObject(v)) return 'not an object';
  if (v.id !== key) return `id ${JSON.stringify(v.id)} does not match its key`;
  if (typeof v.name !== 'string' || typeof v.format !== 'string') return 'name or format is missing';
  if (!Array.isArray(v.runIds) || v.runIds.some((id) => typeof id !== 'string')) return 'runIds is not a list of ids';
  if (!Array.isArray(v.warnings)) return 'warnings is not a list';
  return undefined;
}

export function llmCallProblem(key: string, v: unknown): string | undefined {
  if (!isObject(v)) return 'not an object';
  if (v.id !== key) return `id ${JSON.stringify(v.id)} does not match its key`;
  if (typeof v.requestHash !== 'string' || typeof v.model !== 'string') return 'requestHash or model is missing';
  return undefined;
}

export interface ReadResult {
  library: StoredLibrary;
  quarantined: QuarantinedRecord[];
  /** Runs whose spans are stored apart (`runSpans`), loaded on demand. */
  storedSpans: Set<string>;
}

type Check<T> = (key: string, v: unknown) => { value: T } | { problem: string };

const plainCheck =
  <T,>(problemOf: (key: string, v: unknown) => string | undefined): Check<T> =>
  (key, v) => {
    const problem = problemOf(key, v);
    return problem === undefined ? { value: v as T } : { problem };
  };

/** Read the whole library; records that fail their check are moved to `quarantine` in the same transaction. */
export async function readLibrary(db: Db, now = Date.now()): Promise<ReadResult> {
  // Loaded before the transaction opens: an IndexedDB transaction commits when it waits on anything else.
  const { Run: runSchema } = await import('../model/schema.ts');
  const tx = db.transaction(['files', 'runs', 'llmCalls', 'quarantine', 'runSpans'], 'readwrite');
  const quarantined: QuarantinedRecord[] = [];
  async function readStore<S extends 'files' | 'runs' | 'llmCalls'>(store: S, check: Check<LibrarySchema[S]['value']>): Promise<LibrarySchema[S]['value'][]> {
    const good: LibrarySchema[S]['value'][] = [];
    let cursor = await tx.objectStore(store).openCursor();
    while (cursor) {
      const key = String(cursor.key);
      const checked = check(key, cursor.value);
      if ('value' in checked) good.push(checked.value);
      else {
        const record: QuarantinedRecord = { store, key, value: cursor.value, reason: checked.problem, at: now };
        quarantined.push(record);
        await tx.objectStore('quarantine').add(record);
        await cursor.delete();
      }
      cursor = await cursor.continue();
    }
    return good;
  }
  const files = await readStore('files', plainCheck(fileProblem));
  const runList = await readStore('runs', (key, v) => {
    const checked = checkRun(runSchema, key, v);
    return 'run' in checked ? { value: checked.run } : checked;
  });
  const callList = await readStore('llmCalls', plainCheck(llmCallProblem));
  // Spans of runs no longer stored (removed, or set aside above) go; removal leaves them until here so that an undo
  // in the same session finds them again.
  const storedSpans = new Set<string>();
  const kept = new Set(runList.map((r) => r.id));
  for (const key of await tx.objectStore('runSpans').getAllKeys()) {
    if (kept.has(key)) storedSpans.add(key);
    else if (!quarantined.some((q) => q.store === 'runs' && q.key === key)) await tx.objectStore('runSpans').delete(key);
  }
  await tx.done;
  // Keyed by stored ids, which came from files: records without a prototype (a run may be called `constructor`).
  const runs = recordFromEntries(runList.map((r) => [r.id, r] as const));
  const llmCalls = recordFromEntries(callList.map((c) => [c.id, c] as const));
  // A file whose run was set aside lists only the runs that are still here.
  const shown = files
    .map((f) => (f.runIds.every((id) => Object.hasOwn(runs, id)) ? f : { ...f, runIds: f.runIds.filter((id) => Object.hasOwn(runs, id)) }))
    .sort((a, b) => a.addedAt - b.addedAt);
  return { library: { files: shown, runs, llmCalls }, quarantined, storedSpans };
}

export async function readQuarantine(db: Db): Promise<QuarantinedRecord[]> {
  return db.getAll('quarantine');
}

/** What was last written, by reference: the store replaces objects that change, so identity tells what to write. */
export interface Snapshot {
  files: LibraryFile[];
  runs: Record<string, Run>;
  llmCalls: Record<string, LlmCallRecord>;
}

export const EMPTY_SNAPSHOT: Snapshot = { files: [], runs: emptyRecord(), llmCalls: emptyRecord() };

/** Run objects the import worker writes itself (ADR 0020): this page never writes these same objects. */
const storedByWorker = new WeakSet<Run>();

/** Write the difference between two states in one transaction. Resolves when it has committed. */
export async function writeChanges(db: Db, before: Snapshot, after: Snapshot): Promise<number> {
  const tx = db.transaction(['files', 'runs', 'llmCalls', 'runSpans'], 'readwrite');
  const ops: Promise<unknown>[] = [];
  const oldFiles = new Map(before.files.map((f) => [f.id, f]));
  const newFiles = new Map(after.files.map((f) => [f.id, f]));
  for (const [id, f] of newFiles) if (oldFiles.get(id) !== f) ops.push(tx.objectStore('files').put(f));
  for (const id of oldFiles.keys()) if (!newFiles.has(id)) ops.push(tx.objectStore('files').delete(id));
  // Own keys only: a snapshot built elsewhere may be a plain object, where `constructor` is always "present".
  for (const [id, r] of Object.entries(after.runs)) {
    if ((Object.hasOwn(before.runs, id) && before.runs[id] === r) || storedByWorker.has(r)) continue;
    ops.push(tx.objectStore('runs').put(r));
    // Spans written inline replace any kept apart; a run without them (spans apart) keeps those.
    if (r.spans !== undefined) ops.push(tx.objectStore('runSpans').delete(id));
  }
  for (const id of Object.keys(before.runs)) if (!Object.hasOwn(after.runs, id)) ops.push(tx.objectStore('runs').delete(id));
  for (const [id, c] of Object.entries(after.llmCalls)) if (!Object.hasOwn(before.llmCalls, id) || before.llmCalls[id] !== c) ops.push(tx.objectStore('llmCalls').put(c));
  for (const id of Object.keys(before.llmCalls)) if (!Object.hasOwn(after.llmCalls, id)) ops.push(tx.objectStore('llmCalls').delete(id));
  await Promise.all([...ops, tx.done]);
  return ops.length;
}

// ---------------------------------------------------------------------------------------------------------------
// The store ↔ database link.

export type PersistenceStatus = 'loading' | 'saved' | 'saving' | 'unavailable' | 'failed';

interface PersistenceStore {
  status: PersistenceStatus;
  /** Why the library is not being saved, when it is not. */
  problem?: string;
  /** Writes that changed records, committed since the page loaded (lets a test or a view wait for a change to land). */
  writes: number;
  /** Stored records that failed their check, kept in the `quarantine` store (oldest first). */
  quarantined: QuarantinedRecord[];
  /** Runs the import worker is writing: in the library already, not yet durable (shown as saving). */
  savingRuns: ReadonlySet<string>;
  /** Runs whose source spans are stored apart (`runSpans`): the span tree loads them when it opens. */
  storedSpans: ReadonlySet<string>;
}

export const usePersistence = create<PersistenceStore>(() => ({ status: 'loading', writes: 0, quarantined: [], savingRuns: new Set(), storedSpans: new Set() }));

// The status on the document element too (`data-library-status`, `data-library-writes`), for benchmarks and tests that
// watch a page whose Library is not on screen (the run view).
if (typeof document !== 'undefined') {
  usePersistence.subscribe((s) => {
    document.documentElement.dataset.libraryStatus = s.status;
    document.documentElement.dataset.libraryWrites = String(s.writes);
  });
}

export interface Persistence {
  /** Write pending changes now; resolves when they have committed. */
  flush(): Promise<void>;
  stop(): void;
}

function snapshotOf(s: Snapshot): Snapshot {
  return { files: s.files, runs: s.runs, llmCalls: s.llmCalls };
}

function describeError(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/** The open database of the running persistence, for the quarantine's "forget". */
let activeDb: Db | undefined;

/** Where the import worker may write runs: the running persistence's database, while it can be written. */
let storageTarget: RunStorageTarget | undefined;

export function runStorageTarget(): RunStorageTarget | undefined {
  const status = usePersistence.getState().status;
  return status === 'saved' || status === 'saving' ? storageTarget : undefined;
}

/** Writes of the import worker not yet committed: page writes wait for them, so the last word stays the page's. */
let workerWrites: Promise<unknown> = Promise.resolve();

/**
 * These runs (the objects about to enter the library) are being written by the import worker; `durable` settles
 * when its transaction has. Until then the library shows them as saving, and this page never writes these objects
 * itself (a later change to a run, a new object, is written as usual, without its spans: they stay in `runSpans`).
 */
export function expectStoredRuns(runs: readonly Run[], durable: Promise<void>): Promise<void> {
  const ids = runs.map((r) => r.id);
  for (const run of runs) storedByWorker.add(run);
  const saving = new Set(usePersistence.getState().savingRuns);
  for (const id of ids) saving.add(id);
  usePersistence.setState({ savingRuns: saving, status: 'saving' });
  const settled = durable.then(
    () => {
      const spans = new Set(usePersistence.getState().storedSpans);
      for (const run of runs) if (run.spans === undefined) spans.add(run.id);
      usePersistence.setState({ storedSpans: spans });
    },
    (e: unknown) => {
      usePersistence.setState({ status: 'failed', problem: `${ids.length === 1 ? `the run ${ids[0]} was` : `${ids.length} runs were`} not saved: ${describeError(e)}` });
    },
  );
  const done = settled.finally(() => {
    const left = new Set(usePersistence.getState().savingRuns);
    for (const id of ids) left.delete(id);
    usePersistence.setState({ savingRuns: left });
    // Whatever else changed meanwhile is written now, and the status says saved when all of it is.
    if (left.size === 0 && usePersistence.getState().status === 'saving') void active?.flush();
  });
  workerWrites = Promise.all([workerWrites, done]);
  return done;
}

/** A run's source spans kept apart (`runSpans`), with step spans' attributes restored from the steps; undefined when none. */
export async function readStoredSpans(run: Run): Promise<RunSpan[] | undefined> {
  if (!activeDb) return undefined;
  const spans = await activeDb.get('runSpans', run.id);
  return spans ? hydrateRun({ ...run, spans }).spans : undefined;
}

/** Delete the set-aside records for good (the reader exported them or does not want them). */
export async function forgetQuarantined(): Promise<void> {
  if (activeDb) await activeDb.clear('quarantine');
  usePersistence.setState({ quarantined: [] });
}

/** The running persistence, so work that must not wait for the debounce (engine results) can write at once. */
let active: Persistence | undefined;

/**
 * Write pending library changes now, without waiting for the debounce. Engines call it after each result so that a
 * reload or a crash loses at most the call in flight. Resolves when written (at once when nothing persists).
 */
export function flushLibrary(): Promise<void> {
  return active?.flush() ?? Promise.resolve();
}

/**
 * Read the stored library into the store, then keep writing the store's changes back. Without IndexedDB (disabled,
 * private mode) the library still works for the session; the status says it is not saved.
 */
/** The corpus' former estimate cache (ADR 0015): deleted once the library opens. */
export const LEGACY_SHADOW_DB_NAME = 'mas-replay-corpus';

/**
 * Runs whose writes wait (and the files that hold only such runs): a run still arriving live over OTLP (issue 19) is
 * written once it is done, not at every change, since each write is a structured clone of the whole run on the page
 * and its spans are already stored as they arrive (by the live worker, which rebuilds it after a reload).
 */
let deferred: ((runId: string) => boolean) | undefined;

export function deferRunWrites(predicate: ((runId: string) => boolean) | undefined): void {
  deferred = predicate;
}

/** `next` with the deferred runs (and their files) as they were last written, or absent if never written. */
function withoutDeferred(next: Snapshot, written: Snapshot, wait: (runId: string) => boolean): Snapshot {
  const ids = Object.keys(next.runs).filter(wait);
  if (ids.length === 0) return next;
  const runs = recordOf(next.runs);
  for (const id of ids) {
    if (Object.hasOwn(written.runs, id)) runs[id] = written.runs[id];
    else delete runs[id];
  }
  const before = new Map(written.files.map((f) => [f.id, f]));
  const files: LibraryFile[] = [];
  for (const f of next.files) {
    if (f.runIds.length === 0 || !f.runIds.every(wait)) files.push(f);
    else if (before.has(f.id)) files.push(before.get(f.id)!);
  }
  return { files, runs, llmCalls: next.llmCalls };
}

export async function startLibraryPersistence({ debounceMs = 250, ...options }: OpenOptions & { debounceMs?: number } = {}): Promise<Persistence> {
  const library = useLibrary;
  let db: Db;
  try {
    if (typeof indexedDB === 'undefined') throw new Error('IndexedDB is not available in this browser');
    db = await openLibraryDb(options);
    // Shadow estimates used to be cached in a database of their own; they are derived runs in the library now.
    if (options.name === undefined) indexedDB.deleteDatabase(LEGACY_SHADOW_DB_NAME);
  } catch (e) {
    usePersistence.setState({ status: 'unavailable', problem: `the library will not be saved: ${describeError(e)}` });
    library.getState().hydrate({ files: [], runs: emptyRecord() });
    return { flush: async () => {}, stop: () => {} };
  }

  let written: Snapshot = EMPTY_SNAPSHOT;
  try {
    const { library: stored, storedSpans } = await readLibrary(db);
    // What was read is what the database holds (minus nothing: quarantined records already moved out).
    written = { files: stored.files, runs: stored.runs, llmCalls: stored.llmCalls ?? emptyRecord() };
    library.getState().hydrate(stored);
    // Everything set aside so far, this time and before: shown in the Library until the reader exports or forgets it.
    usePersistence.setState({ quarantined: await readQuarantine(db), storedSpans });
  } catch (e) {
    usePersistence.setState({ status: 'failed', problem: `the stored library could not be read: ${describeError(e)}` });
    library.getState().hydrate({ files: [], runs: emptyRecord() });
    // Writing over a library we could not read might lose it: stay read-only for this session.
    return { flush: async () => {}, stop: () => db.close() };
  }

  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();
  const write = (): Promise<void> => {
    timer = undefined;
    writing = writing.then(async () => {
      // The import worker's runs first: a removal or a change made meanwhile must land after them, not under them.
      await workerWrites.catch(() => {});
      const current = snapshotOf(library.getState());
      const next = deferred ? withoutDeferred(current, written, deferred) : current;
      if (next.files === written.files && next.runs === written.runs && next.llmCalls === written.llmCalls) {
        if (usePersistence.getState().savingRuns.size === 0) usePersistence.setState({ status: 'saved', problem: undefined });
        return;
      }
      if (usePersistence.getState().status !== 'saving') usePersistence.setState({ status: 'saving' });
      try {
        const ops = await writeChanges(db, written, next);
        written = next;
        // Only writes that changed something count: a test or a view waiting for its change must not be satisfied
        // by an empty write (the store replaces its arrays on hydration without changing any record).
        const writes = usePersistence.getState().writes + (ops > 0 ? 1 : 0);
        const busy = timer !== undefined || usePersistence.getState().savingRuns.size > 0;
        usePersistence.setState(busy ? { writes } : { status: 'saved', problem: undefined, writes });
      } catch (e) {
        usePersistence.setState({ status: 'failed', problem: `the last change was not saved: ${describeError(e)}` });
      }
    });
    return writing;
  };
  const schedule = (pending = true) => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => void write(), debounceMs);
    // A change waiting for its write is not saved yet: say so (a reload now could lose it).
    if (pending && usePersistence.getState().status === 'saved') usePersistence.setState({ status: 'saving' });
  };

  // Files opened while the library was loading are new to the database.
  usePersistence.setState({ status: 'saved', problem: undefined });
  const state = library.getState();
  if (state.files !== written.files || state.runs !== written.runs) schedule(false);
  const unsubscribe = library.subscribe((s, prev) => {
    if (s.files !== prev.files || s.runs !== prev.runs || s.llmCalls !== prev.llmCalls) schedule();
  });
  const onHide = () => {
    if (timer !== undefined) {
      clearTimeout(timer);
      void write();
    }
  };
  if (typeof window !== 'undefined') window.addEventListener('pagehide', onHide);
  const persistence: Persistence = {
    async flush() {
      if (timer !== undefined) clearTimeout(timer);
      await write();
    },
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      unsubscribe();
      if (typeof window !== 'undefined') window.removeEventListener('pagehide', onHide);
      if (active === persistence) {
        active = undefined;
        activeDb = undefined;
        storageTarget = undefined;
      }
      void writing.then(() => db.close());
    },
  };
  active = persistence;
  activeDb = db;
  storageTarget = { name: db.name, version: db.version };
  return persistence;
}
