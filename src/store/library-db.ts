// The library in IndexedDB (SPEC §4, §9): it survives reloads. Every change to the store is written, debounced, in
// one transaction (all of it lands or none of it does). A stored run must pass the native import's schema (files and
// LLM calls a lighter shape check); one that does not is moved to the `quarantine` store with its path and reason, never
// deleted unasked, and listed in the Library. Hydration always ends with `hydrated: true`, even without IndexedDB.
// Runs opened from files are written by the import worker, not here (ADR 0020): the run without its source spans in
// `runs`, the spans in `runSpans` (read when the span tree asks); the page only waits for that write to commit.
// A run too large for one IndexedDB value is stored in chunks (`runChunks`, model/run-chunks.ts, ADR 0025).
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import { create } from 'zustand';
import { emptyRecord, recordFromEntries, recordOf } from '../model/record.ts';
import { hydrateRun } from '../model/session-spans.ts';
import type { LlmCallRecord, Run, RunSpan } from '../model/types.ts';
import { CHUNKED_FIELDS, chunkKeyOf, DEFAULT_CHUNK_LIMITS, hasLongArray, joinChunks, planRunWrite, readableChunk, readChunk, type ChunkedField, type ChunkKey, type ChunkLimits, type KeptPrefix, type RunChunk, type RunWrite } from '../model/run-chunks.ts';
import { useLibrary, type LibraryFile, type StoredLibrary } from './library.ts';
import { settleTransaction } from '../workers/idb-settle.ts';
import { checkRun, sliceLookFor } from './stored-run-check.ts';
import type { SliceLook } from '../model/fast-check-columns.ts';
import { countStepFactsOfRuns } from '../model/step-facts.ts';
import { runInSlices } from '../model/slices.ts';
import { applyJournal, JOURNAL_LIMIT, readJournal, removeJournalPart, stillUnsaved, writeJournal, writeJournalPart, type LibraryRecords, type StorageLike, type UnsavedResult } from './results-journal.ts';

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
  /** A run's source spans kept apart from it (written by the import worker; step spans compacted, model/session-spans,
   *  or keeping the step's raw, `stepRaw`, ADR 0026). */
  runSpans: { key: string; value: RunSpan[] };
  /** A large run's arrays in chunks, keyed [run id, array, position] (ADR 0025). */
  runChunks: { key: ChunkKey; value: RunChunk };
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
  // Version 3 (issue 14): a run larger than one IndexedDB value (~127 MiB in Chromium) in chunks (ADR 0025). Runs
  // stored before stay as they are: a record without `chunks` is read whole, as before.
  (db) => {
    db.createObjectStore('runChunks');
  },
];

/**
 * Every chunk of a run, or of one of its arrays (from its chunk `from` on). Array keys sort after strings and numbers:
 * `[id, []]` ends the run.
 */
export function chunkRange(runId: string, field?: ChunkedField, from = 0): IDBKeyRange {
  return field === undefined ? IDBKeyRange.bound([runId], [runId, []]) : from > 0 ? IDBKeyRange.bound([runId, field, from], [runId, field, []]) : IDBKeyRange.bound([runId, field], [runId, field, []]);
}

/** The database the import worker writes runs into: the page has opened (and migrated) it before handing it over. */
export interface RunStorageTarget {
  name: string;
  version: number;
  /** Chunk sizes when not the default (tests). */
  chunkLimits?: ChunkLimits;
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
// Shape checks. A stored run passes the same zod schema as a native import (stored-run-check.ts); a record with
// `agents: [null]`, a step without `agentId` or an object where text belongs is set aside here rather than reaching
// the views. The schema is loaded with the library (its own chunk), keeping zod out of the JS shipped before first
// paint (SPEC §8).

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

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

/** A record as read: its key as stored and as text. */
interface StoredRecord {
  rawKey: IDBValidKey;
  key: string;
  value: unknown;
}

/**
 * A run's record with its arrays joined from their chunks (spans stay apart), or why they cannot be; `ends`: the items
 * after each chunk of each array joined (ADR 0086).
 */
type Joined = { value: unknown; ends?: ChunkEnds } | { problem: string };

/** By array, the items after each of its stored chunks (the last is its length). */
type ChunkEnds = Partial<Record<ChunkedField, readonly number[]>>;

/** A run's record as read, joined. */
interface StoredRun extends StoredRecord {
  joined: Joined;
}

/** Everything the library's load reads, in one read-only transaction. */
interface StoredRecords {
  files: StoredRecord[];
  runs: StoredRun[];
  llmCalls: StoredRecord[];
  spanKeys: string[];
  chunkKeys: IDBValidKey[];
}

/** A record that failed its check: moved to `quarantine` with the reason. */
interface Failed {
  store: 'files' | 'runs' | 'llmCalls';
  rawKey: IDBValidKey;
  key: string;
  reason: string;
}

type ReadTx = IDBPTransaction<LibrarySchema, ('files' | 'runs' | 'llmCalls' | 'runSpans' | 'runChunks')[], 'readonly'>;

/**
 * Read the whole library (ADR 0059), in three steps so that no step holds the page for long: the records in one
 * read-only transaction (a run's chunks one request each: no task deserialises a whole large run); then their checks,
 * outside any transaction, a slice at a time; then, only when a record failed or a run's spans or chunks outlived it,
 * one read-write transaction that moves what failed to `quarantine` (as it is stored then) and drops what is left over.
 */
export async function readLibrary(
  db: Db,
  { now = Date.now(), afterRead, onProgress = () => {} }: { now?: number; afterRead?: () => Promise<void>; onProgress?: (progress: LoadProgress) => void } = {},
): Promise<ReadResult> {
  // Loaded before the transaction opens: an IndexedDB transaction commits when it waits on anything else.
  const { Run: runSchema } = await import('../model/schema.ts');
  const read = await readRecords(db, onProgress, (field) => sliceLookFor(runSchema, field));
  // Tests: what another tab may do while the records are checked.
  await afterRead?.();
  const failed: Failed[] = [];
  const checkPlain = <T,>(store: 'files' | 'llmCalls', records: StoredRecord[], problemOf: (key: string, v: unknown) => string | undefined): T[] => {
    const good: T[] = [];
    for (const { rawKey, key, value } of records) {
      const problem = problemOf(key, value);
      if (problem === undefined) good.push(value as T);
      else failed.push({ store, rawKey, key, reason: problem });
    }
    return good;
  };
  const files = checkPlain<LibraryFile>('files', read.files, fileProblem);
  const callList = checkPlain<LlmCallRecord>('llmCalls', read.llmCalls, llmCallProblem);
  const runList: Run[] = [];
  // The checks' progress counts steps (a run of none counts one): a large run is most of the time.
  const weightOf = (run: { joined: { value: unknown } | { problem: string } }): number => {
    const steps = 'value' in run.joined && isObject(run.joined.value) && Array.isArray(run.joined.value.steps) ? run.joined.value.steps.length : 0;
    return steps + 1;
  };
  let toCheck = 0;
  for (const run of read.runs) toCheck += weightOf(run);
  let checkedBefore = 0;
  for (let i = 0; i < read.runs.length; i++) {
    const { rawKey, key, value, joined } = read.runs[i];
    const weight = weightOf(read.runs[i]);
    onProgress({ phase: 'checking', done: checkedBefore, total: toCheck });
    // The record as read is let go once checked: only one large run is held twice at a time.
    read.runs[i] = { rawKey, key, value: undefined, joined: { value: undefined } };
    const checked = 'problem' in joined
      ? joined
      : await checkRun(runSchema, key, joined.value, undefined, (done) => onProgress({ phase: 'checking', done: checkedBefore + Math.round(done * weight), total: toCheck }));
    checkedBefore += weight;
    if ('run' in checked) {
      runList.push(checked.run);
      // The arrays just read from chunks are the library's now: a later change to the run keeps those chunks.
      rememberChunks(db, checked.run, isObject(value) ? value.chunks : undefined, 'ends' in joined ? joined.ends : undefined);
    } else failed.push({ store: 'runs', rawKey, key, reason: checked.problem });
  }
  // The Library's first render reads every run's step counts and tokens (stepFacts): they are counted here, in slices,
  // not in that render in one pass (117–182 ms of CPU for a run of 1M steps).
  await runInSlices(countStepFactsOfRuns(runList), () => {}, () => false);
  // Spans and chunks of runs no longer stored (removed, or set aside here) go; removal leaves them until here so that
  // an undo in the same session finds them again. A run set aside keeps its spans in `runSpans` until the next load.
  const kept = new Set(runList.map((r) => r.id));
  const setAside = new Set(failed.filter((f) => f.store === 'runs').map((f) => f.key));
  const storedSpans = new Set<string>();
  const leftOver = { spans: [] as string[], chunksOf: new Set<string>() };
  for (const key of read.spanKeys) {
    if (kept.has(key)) storedSpans.add(key);
    else if (!setAside.has(key)) leftOver.spans.push(key);
  }
  for (const raw of read.chunkKeys) {
    const key = chunkKeyOf(raw);
    if (!key) continue;
    if (kept.has(key[0])) {
      if (key[1] === 'spans') storedSpans.add(key[0]);
    } else if (!setAside.has(key[0])) leftOver.chunksOf.add(key[0]);
  }
  const quarantined = failed.length > 0 || leftOver.spans.length > 0 || leftOver.chunksOf.size > 0 ? await setAsideAndTidy(db, failed, leftOver, now) : [];
  // Keyed by stored ids, which came from files: records without a prototype (a run may be called `constructor`).
  const runs = recordFromEntries(runList.map((r) => [r.id, r] as const));
  const llmCalls = recordFromEntries(callList.map((c) => [c.id, c] as const));
  // A file whose run was set aside lists only the runs that are still here.
  const shown = files
    .map((f) => (f.runIds.every((id) => Object.hasOwn(runs, id)) ? f : { ...f, runIds: f.runIds.filter((id) => Object.hasOwn(runs, id)) }))
    .sort((a, b) => a.addedAt - b.addedAt);
  return { library: { files: shown, runs, llmCalls }, quarantined, storedSpans };
}

/** Every record of the library, runs with their chunks joined, and the keys of stored spans and chunks. */
async function readRecords(db: Db, onProgress: (progress: LoadProgress) => void, lookFor: (field: ChunkedField) => SliceLook | undefined): Promise<StoredRecords> {
  const tx: ReadTx = db.transaction(['files', 'runs', 'llmCalls', 'runSpans', 'runChunks'], 'readonly');
  async function records(store: 'files' | 'runs' | 'llmCalls'): Promise<StoredRecord[]> {
    const out: StoredRecord[] = [];
    for (let cursor = await tx.objectStore(store).openCursor(); cursor; cursor = await cursor.continue()) out.push({ rawKey: cursor.key, key: String(cursor.key), value: cursor.value });
    return out;
  }
  const files = await records('files');
  const runRecords = await records('runs');
  // The chunks to read, as the records count them: the reading's progress, one chunk at a time.
  const progress = { done: 0, total: 0 };
  for (const { value } of runRecords) progress.total += chunkCount(value);
  const chunkRead = () => {
    progress.done++;
    onProgress({ phase: 'reading', ...progress });
  };
  if (progress.total > 0) onProgress({ phase: 'reading', ...progress });
  // The chunks are rebuilt one after the other, each slice in a task of its own (ADR 0079), while the transaction
  // goes on reading: it would commit while the page waited on anything but its own requests.
  const rebuilds = new RebuildQueue(chunkRead);
  const joining: Promise<StoredRun>[] = [];
  for (const record of runRecords) {
    const stored = record.value;
    const joined: Promise<Joined> = isObject(stored) && stored.chunks !== undefined ? (await readStoredRun(tx, record.key, stored, rebuilds, lookFor)).joined : Promise.resolve({ value: stored });
    joining.push(joined.then((j) => ({ ...record, joined: j })));
  }
  const llmCalls = await records('llmCalls');
  const spanKeys = (await tx.objectStore('runSpans').getAllKeys()).map(String);
  const chunkKeys = await tx.objectStore('runChunks').getAllKeys();
  await tx.done;
  const runs = await Promise.all(joining);
  return { files, runs, llmCalls, spanKeys, chunkKeys };
}

/** The stored chunks read so far, rebuilt in the order they were read, one at a time (readChunk: a slice per task). */
class RebuildQueue {
  private last: Promise<unknown> = Promise.resolve();
  constructor(private readonly rebuilt: () => void) {}

  /** `look`: the slice look of the chunk's items, each slice looked at as it is rebuilt (ADR 0101). */
  add(value: unknown, look?: SliceLook): Promise<unknown> {
    const done = this.last.then(() => readChunk(value, undefined, look)).then((items) => {
      this.rebuilt();
      return items;
    });
    this.last = done;
    return done;
  }
}

/** How many chunks a stored run record says it has (spans apart: read on demand); 0 for a run stored whole or a bad count. */
function chunkCount(stored: unknown): number {
  if (!isObject(stored) || !isObject(stored.chunks)) return 0;
  let n = 0;
  for (const field of CHUNKED_FIELDS) {
    const count = field === 'spans' || !Object.hasOwn(stored.chunks, field) ? 0 : stored.chunks[field];
    if (typeof count === 'number' && Number.isInteger(count) && count > 0) n += count;
  }
  return n;
}

/** How many chunk reads of a run's array are asked at once when the library loads. */
const CHUNKS_IN_FLIGHT = 2;

/**
 * A run stored in chunks: its chunks read in `tx` (this resolves once they are), and `joined`, the run put back together
 * once they are rebuilt (`rebuilds`; spans stay apart: read on demand), or why it cannot be.
 */
async function readStoredRun(
  tx: ReadTx,
  key: string,
  stored: Record<string, unknown>,
  rebuilds: RebuildQueue,
  lookFor: (field: ChunkedField) => SliceLook | undefined,
): Promise<{ joined: Promise<Joined> }> {
  const counts = stored.chunks;
  if (!isObject(counts)) return { joined: Promise.resolve({ problem: 'chunks is not a record of counts' }) };
  const store = tx.objectStore('runChunks');
  const run: Record<string, unknown> = { ...stored };
  delete run.chunks;
  const fields: Promise<Joined | undefined>[] = [];
  const ends: ChunkEnds = {};
  for (const field of CHUNKED_FIELDS) {
    if (field === 'spans' || !Object.hasOwn(counts, field)) continue;
    const expected = counts[field];
    if (typeof expected !== 'number') return { joined: Promise.resolve({ problem: `chunks.${field} is not a count` }) };
    // One request a chunk: each is deserialised in a task of its own (a getAll of the range was one task for them all).
    const keys = await store.getAllKeys(chunkRange(key, field));
    // CHUNKS_IN_FLIGHT requests at a time, the next asked as one comes: the page is idle while the database reads, and
    // its collector can mark then (all asked at once, their answers came back to back).
    const values: Promise<unknown>[] = new Array(keys.length);
    const look = lookFor(field);
    let next = 0;
    const reader = async () => {
      while (next < keys.length) {
        const at = next++;
        values[at] = rebuilds.add(await store.get(keys[at]), look);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CHUNKS_IN_FLIGHT, keys.length) }, reader));
    fields.push(
      Promise.all(values).then((items) => {
        const joined = joinChunks(field, keys.map((k, i) => ({ index: chunkKeyOf(k)?.[2], value: items[i] })), expected);
        if ('problem' in joined) return { problem: `stored in chunks, ${joined.problem}` };
        run[field] = joined.items;
        ends[field] = joined.ends;
        return undefined;
      }),
    );
  }
  // Wrapped: an async function's answer is never a promise (it would wait for the rebuilds, past the transaction).
  return { joined: Promise.all(fields).then((joined) => joined.find((j) => j !== undefined) ?? { value: run, ends }) };
}

/**
 * Moves the records that failed to `quarantine`, each as it is stored now with its chunks (one value each stays small),
 * and drops the spans and chunks of runs not stored. A run written meanwhile (another tab) keeps its own.
 */
async function setAsideAndTidy(db: Db, failed: readonly Failed[], leftOver: { spans: string[]; chunksOf: Set<string> }, now: number): Promise<QuarantinedRecord[]> {
  const tx = db.transaction(['files', 'runs', 'llmCalls', 'quarantine', 'runSpans', 'runChunks'], 'readwrite');
  const quarantine = tx.objectStore('quarantine');
  const chunks = tx.objectStore('runChunks');
  const quarantined: QuarantinedRecord[] = [];
  for (const { store, rawKey, key, reason } of failed) {
    // The key as stored, which a damaged record may have of another type than its schema's.
    const value: unknown = await tx.objectStore(store).get(rawKey as string);
    if (value === undefined) continue; // removed meanwhile
    const record: QuarantinedRecord = { store, key, value, reason, at: now };
    quarantined.push(record);
    await quarantine.add(record);
    if (store === 'runs') {
      let parts = 0;
      for (const field of CHUNKED_FIELDS) {
        if (field === 'spans') continue;
        for (let cursor = await chunks.openCursor(chunkRange(key, field)); cursor; cursor = await cursor.continue(), parts++) {
          // A chunk in columns is set aside as its items (an export of it then reads as the run's steps), unless they
          // cannot be rebuilt.
          await quarantine.add({ store: 'runChunks', key: JSON.stringify(cursor.key), value: readableChunk(cursor.value), reason: `a chunk of the run ${JSON.stringify(key)}, set aside with it`, at: now });
        }
      }
      if (parts > 0) await chunks.delete(chunkRange(key));
    }
    await tx.objectStore(store).delete(rawKey as string);
  }
  const present = new Set((await tx.objectStore('runs').getAllKeys()).map(String));
  for (const key of leftOver.spans) if (!present.has(key)) await tx.objectStore('runSpans').delete(key);
  for (const id of leftOver.chunksOf) if (!present.has(id)) await chunks.delete(chunkRange(id));
  await tx.done;
  return quarantined;
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

/**
 * What the database holds of each run's arrays stored in chunks (spans apart), by the array object whose items they
 * are, with their chunk count (ADR 0058). Runs are replaced, never edited in place: a run whose label, result or title
 * changed keeps its steps array, and its write leaves those chunks as they are instead of splitting and writing every
 * step again (seconds of this page's thread for a run of a million steps). Set once a write has committed (this
 * page's, or the import worker's), and from what the library read. A run removed keeps its entry: its chunks stay until
 * the next load, and an undo's write of the same run keeps them.
 */
const storedChunksByDb = new Map<string, Map<string, Map<ChunkedField, StoredArray>>>();

/**
 * An array the database holds in chunks: the object, its length then (an array appended to in place is not it), its
 * chunk count, and the items after each chunk when known (this page wrote or read the chunks; not for the import
 * worker's write): then a write of a longer array keeps the chunks whose items are still in place (ADR 0086).
 */
interface StoredArray {
  items: readonly unknown[];
  length: number;
  count: number;
  ends?: readonly number[];
}

/** storedChunks of one database (by name: tests open several). */
function storedChunksOf(db: Db): Map<string, Map<ChunkedField, StoredArray>> {
  let known = storedChunksByDb.get(db.name);
  if (!known) storedChunksByDb.set(db.name, (known = new Map()));
  return known;
}

/**
 * The arrays of `run` whose chunks the database holds, with their counts; and of an array changed since (grown at its
 * end, or an item replaced), the first chunks whose items are all still in place (a KeptPrefix, ADR 0086). The last
 * stored chunk is never kept so: it may be partly full, and is written again with the items after it.
 */
function keptChunks(db: Db, run: Run): Partial<Record<ChunkedField, number | KeptPrefix>> {
  const kept: Partial<Record<ChunkedField, number | KeptPrefix>> = {};
  const known = storedChunksOf(db).get(run.id);
  if (!known) return kept;
  for (const [field, stored] of known) {
    const items: readonly unknown[] | undefined = run[field];
    if (items === stored.items && items.length === stored.length) {
      kept[field] = stored.count;
      continue;
    }
    if (!stored.ends || !Array.isArray(items)) continue;
    const prefix = inPlace(items, stored.items, stored.ends);
    if (prefix.chunks > 0) kept[field] = prefix;
  }
  return kept;
}

/** The first chunks (all but the last) of `before`, cut at `ends`, whose items `after` holds at the same places. */
function inPlace(after: readonly unknown[], before: readonly unknown[], ends: readonly number[]): KeptPrefix {
  let chunks = 0;
  let same = 0;
  for (let j = 0; j < ends.length - 1; j++) {
    const end = ends[j];
    if (end > after.length || end > before.length) break;
    while (same < end && after[same] === before[same]) same++;
    if (same < end) break;
    chunks = j + 1;
  }
  return { chunks, items: chunks > 0 ? ends[chunks - 1] : 0 };
}

/**
 * The database now holds `run` with these chunk counts (its `chunks`), or whole (none). `ends`: the items after each
 * chunk, by array, when known.
 */
function rememberChunks(db: Db, run: Run, counts: unknown, ends?: ChunkEnds): void {
  const storedChunks = storedChunksOf(db);
  const known = new Map<ChunkedField, StoredArray>();
  if (isObject(counts)) {
    for (const field of CHUNKED_FIELDS) {
      const count = counts[field];
      const items = run[field];
      if (field !== 'spans' && typeof count === 'number' && Array.isArray(items)) {
        const cut = ends?.[field];
        known.set(field, { items, length: items.length, count, ...(cut && cut.length === count && cut.at(-1) === items.length ? { ends: cut } : {}) });
      }
    }
  }
  if (known.size > 0) storedChunks.set(run.id, known);
  else storedChunks.delete(run.id);
}

/** The items after each chunk of each array a write left stored: the chunks it kept, then those it wrote. */
function endsAfter(db: Db, run: Run, plan: RunWrite): ChunkEnds {
  const ends: ChunkEnds = {};
  const known = storedChunksOf(db).get(run.id);
  for (const field of CHUNKED_FIELDS) {
    const before = known?.get(field)?.ends;
    if (plan.kept.includes(field)) {
      if (before) ends[field] = before;
      continue;
    }
    const sizes = plan.sizes[field];
    if (!sizes) continue;
    const first = plan.keptUpTo[field] ?? 0;
    if (first > 0 && !before) continue;
    const cut = before ? before.slice(0, first) : [];
    let at = cut.length > 0 ? cut[cut.length - 1] : 0;
    for (const size of sizes) cut.push((at += size));
    ends[field] = cut;
  }
  return ends;
}

/**
 * Runs whose last write failed, with why: the library's status stays failed, naming them, until each has been written
 * (a later change to it, written by this page) or removed. A later write of something else never says "saved" over it.
 */
const unsavedRuns = new Map<string, string>();

function unsavedProblem(): string | undefined {
  if (unsavedRuns.size === 0) return undefined;
  const [[id, why]] = unsavedRuns;
  if (unsavedRuns.size === 1) return `the run ${id} was not saved: ${why}`;
  const ids = Array.from(unsavedRuns.keys());
  return `${ids.length} runs were not saved (${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''}): ${why}`;
}

/** The status once nothing is pending: saved, or failed while a run's write has failed. */
function settledStatus(): Pick<PersistenceStore, 'status' | 'problem'> {
  const problem = unsavedProblem();
  return problem === undefined ? { status: 'saved', problem: undefined } : { status: 'failed', problem };
}

/** Whether this page writes the run object (it is not one the import worker writes). */
export function writtenByPage(run: Run): boolean {
  return !storedByWorker.has(run);
}

/**
 * Chunk puts one at a time, each issued when the one before has been answered, so in a task of its own: IndexedDB
 * clones a value on the page's thread when it is put, and the chunks of one write were cloned in one task (an engine
 * pass's last write of 9,000 results: a task of 230 ms). The transaction stays open: a request is always pending.
 * One that fails, or throws at once (a value that cannot be cloned), aborts the transaction: nothing of it lands.
 */
async function putInTurns(tx: { abort(): void }, puts: readonly (() => Promise<unknown>)[]): Promise<void> {
  try {
    for (const put of puts) await put();
  } catch (e) {
    try {
      tx.abort();
    } catch {
      // already finished
    }
    throw e;
  }
}

/**
 * Write the difference between two states in one transaction. Resolves when it has committed. A run over the chunk
 * limits is written in chunks (`planRunWrite`, as the import worker does); a changed run replaces its old chunks.
 */
export async function writeChanges(db: Db, before: Snapshot, after: Snapshot, limits: ChunkLimits = DEFAULT_CHUNK_LIMITS): Promise<number> {
  const tx = db.transaction(['files', 'runs', 'llmCalls', 'runSpans', 'runChunks'], 'readwrite');
  const ops: Promise<unknown>[] = [];
  /** Requests that are not a record's put or delete (its old chunks' removal): not counted as changes. */
  let upkeep = 0;
  /** The chunks to put, one at a time (putInTurns): not counted as changes, as their old chunks' removal is not. */
  const puts: (() => Promise<unknown>)[] = [];
  let turns: Promise<void> = Promise.resolve();
  /** The runs written, their chunk counts and where their chunks end: known to storedChunks once committed. */
  const written: { run: Run; counts: unknown; ends: ChunkEnds }[] = [];
  try {
    const oldFiles = new Map(before.files.map((f) => [f.id, f]));
    const newFiles = new Map(after.files.map((f) => [f.id, f]));
    for (const [id, f] of newFiles) if (oldFiles.get(id) !== f) ops.push(tx.objectStore('files').put(f));
    for (const id of oldFiles.keys()) if (!newFiles.has(id)) ops.push(tx.objectStore('files').delete(id));
    const chunks = tx.objectStore('runChunks');
    // Own keys only: a snapshot built elsewhere may be a plain object, where `constructor` is always "present".
    for (const [id, r] of Object.entries(after.runs)) {
      if ((Object.hasOwn(before.runs, id) && before.runs[id] === r) || storedByWorker.has(r)) continue;
      const plan = planRunWrite(r, { spansApart: false, limits, kept: keptChunks(db, r) });
      written.push({ run: r, counts: plan.chunked ? plan.record.chunks : undefined, ends: plan.chunked ? endsAfter(db, r, plan) : {} });
      // The run's old chunks go (but those it keeps, whole arrays or their first chunks); its spans' only when this
      // write has spans (a run without them keeps those apart).
      for (const field of CHUNKED_FIELDS) {
        if (field === 'spans' && r.spans === undefined) continue;
        if (plan.kept.includes(field)) continue;
        ops.push(chunks.delete(chunkRange(id, field, plan.keptUpTo[field])));
        upkeep++;
      }
      ops.push(tx.objectStore('runs').put(plan.record));
      for (const chunk of plan.chunks) puts.push(() => chunks.put(chunk.value, chunk.key));
      // Spans written inline replace any kept apart; a run without them (spans apart) keeps those.
      if (r.spans !== undefined) ops.push(tx.objectStore('runSpans').delete(id));
    }
    for (const id of Object.keys(before.runs)) {
      if (Object.hasOwn(after.runs, id)) continue;
      ops.push(tx.objectStore('runs').delete(id));
      // Its chunks stay until the next load drops them (as its spans do): an undo puts the same run back, and its write
      // keeps them (storedChunks), where writing every step again held the page ~0.5 s for a 200k-message chat log.
      // Put back, the same object is this page's to write again: the worker's record of it is gone.
      storedByWorker.delete(before.runs[id]);
    }
    for (const [id, c] of Object.entries(after.llmCalls)) if (!Object.hasOwn(before.llmCalls, id) || before.llmCalls[id] !== c) ops.push(tx.objectStore('llmCalls').put(c));
    for (const id of Object.keys(before.llmCalls)) if (!Object.hasOwn(after.llmCalls, id)) ops.push(tx.objectStore('llmCalls').delete(id));
    // After every other request (a chunk's delete comes before its put): one at a time.
    turns = putInTurns(tx, puts);
  } catch (e) {
    await settleTransaction(tx, [...ops, turns], e);
  }
  await settleTransaction(tx, [...ops, turns]);
  for (const { run, counts, ends } of written) rememberChunks(db, run, counts, ends);
  return ops.length - upkeep;
}

// ---------------------------------------------------------------------------------------------------------------
// The store ↔ database link.

export type PersistenceStatus = 'loading' | 'saved' | 'saving' | 'unavailable' | 'failed';

/**
 * How far the saved library's load is (while `status` is 'loading'): its large runs' chunks read, then its runs'
 * steps checked (a run of none counts one).
 */
export interface LoadProgress {
  phase: 'reading' | 'checking';
  done: number;
  total: number;
}

/** The load's progress is shown at most this often (a chunk or a check slice every few milliseconds). */
const LOAD_PROGRESS_MS = 100;

interface PersistenceStore {
  status: PersistenceStatus;
  /** The saved library's load, while it takes time (absent before its first report and once it is done). */
  loading?: LoadProgress;
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

/** The User Timing mark made once the stored library has been read and checked, just before the views are given it. */
export const LIBRARY_READ_MARK = 'mas-replay:library-read';

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
  // `failed` too: a run that failed to be written leaves the database writable (a failed read never sets a target).
  return status === 'saved' || status === 'saving' || status === 'failed' ? storageTarget : undefined;
}

/**
 * runStorageTarget once the library has loaded (at most `timeoutMs` later): a file opened while the library loads
 * (a drop at once, a `?src=` link) is then written by the import worker too. Decided at the import's start, such a
 * file had no target, and this page wrote its runs itself on its own thread: ~1 s of a frozen page for a 200k-message
 * chat log, right after it was listed.
 */
export function runStorageTargetOnceLoaded(timeoutMs = 15_000): Promise<RunStorageTarget | undefined> {
  if (usePersistence.getState().status !== 'loading') return Promise.resolve(runStorageTarget());
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      unsubscribe();
      resolve(runStorageTarget());
    };
    const timer = setTimeout(done, timeoutMs);
    const unsubscribe = usePersistence.subscribe((s) => {
      if (s.status !== 'loading') done();
    });
  });
}

/** Writes of the import worker not yet committed: page writes wait for them, so the last word stays the page's. */
let workerWrites: Promise<unknown> = Promise.resolve();

/**
 * These runs (the objects about to enter the library) are being written by the import worker; `durable` settles
 * when its transaction has, to the ids of the runs whose spans it wrote apart. Until then the library shows them as saving, and this page never writes these objects
 * itself (a later change to a run, a new object, is written as usual, without its spans: they stay in `runSpans`).
 */
export function expectStoredRuns(runs: readonly Run[], durable: Promise<readonly string[]>): Promise<void> {
  const ids = runs.map((r) => r.id);
  for (const run of runs) storedByWorker.add(run);
  const saving = new Set(usePersistence.getState().savingRuns);
  for (const id of ids) saving.add(id);
  usePersistence.setState({ savingRuns: saving, status: 'saving' });
  const settled = durable.then(
    async (spansApart) => {
      // Only the runs whose spans the worker wrote apart: a run that never had spans (a chat log) has none to show.
      const spans = new Set(usePersistence.getState().storedSpans);
      for (const id of spansApart) spans.add(id);
      for (const id of ids) unsavedRuns.delete(id);
      usePersistence.setState({ storedSpans: spans });
      // How the worker chunked each run (its records are small: the arrays are in the chunks). This page's next write
      // of a run waits for this (workerWrites), and keeps the chunks of the arrays it has not changed.
      await learnStoredChunks(runs);
    },
    (e: unknown) => {
      for (const id of ids) unsavedRuns.set(id, describeError(e));
      usePersistence.setState(settledStatus());
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

/** The chunk counts of runs another writer (the import worker) stored, read from their records; never throws. */
async function learnStoredChunks(runs: readonly Run[]): Promise<void> {
  const db = activeDb;
  if (!db) return;
  // Only runs with a long array (hasLongArray, spans aside): their records are small (the arrays are in chunks). A
  // run stored whole would be read whole here; it has no chunks to keep.
  const chunked = runs.filter((run) => hasLongArray({ ...run, spans: undefined }));
  if (chunked.length === 0) return;
  try {
    const tx = db.transaction('runs', 'readonly');
    const records = await Promise.all(chunked.map((run) => tx.objectStore('runs').get(run.id)));
    chunked.forEach((run, i) => rememberChunks(db, run, (records[i] as { chunks?: unknown } | undefined)?.chunks));
  } catch {
    // Unknown: the page's next write of these runs writes them whole, as before.
    for (const run of chunked) storedChunksOf(db).delete(run.id);
  }
}

/** A run's source spans kept apart (`runSpans`), with step spans' attributes restored from the steps; undefined when none. */
export async function readStoredSpans(run: Run): Promise<RunSpan[] | undefined> {
  if (!activeDb) return undefined;
  const tx = activeDb.transaction(['runSpans', 'runChunks']);
  const inline = await tx.objectStore('runSpans').get(run.id);
  let spans = inline;
  if (!spans) {
    const keys = await tx.objectStore('runChunks').getAllKeys(chunkRange(run.id, 'spans'));
    const values = await tx.objectStore('runChunks').getAll(chunkRange(run.id, 'spans'));
    if (keys.length > 0) {
      const joined = joinChunks('spans', keys.map((key, i) => ({ index: chunkKeyOf(key)?.[2], value: values[i] })));
      if ('problem' in joined) throw new Error(`the stored spans of ${run.id} cannot be read: ${joined.problem}`);
      spans = joined.items as RunSpan[];
    }
  }
  await tx.done;
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
 * Engine results kept on the page and not yet in the database, guarded in storage meanwhile (results-journal.ts): by
 * part, each part the results kept together (part 0: those put back at load), written alone.
 */
let journal: { n: number; entries: UnsavedResult[] }[] = [];
/** How many results the journal's parts hold. */
let journalled = 0;
let nextJournalPart = 1;
let journalStorage: StorageLike | undefined;

function resetJournal(): void {
  journal = [];
  journalled = 0;
  nextJournalPart = 1;
}

/** Lets go of the journalled results the database now holds (or the library no longer does): their parts removed or made shorter. */
function settleJournal(held: LibraryRecords, written: LibraryRecords): void {
  if (journalled === 0) return;
  const left = new Set(stillUnsaved(journal.flatMap((p) => p.entries), held, written));
  if (left.size === journalled) return;
  const parts: typeof journal = [];
  for (const part of journal) {
    const entries = part.entries.filter((e) => left.has(e));
    if (entries.length === 0) removeJournalPart(journalStorage, part.n);
    else {
      if (entries.length !== part.entries.length) writeJournalPart(journalStorage, part.n, entries);
      parts.push({ n: part.n, entries });
    }
  }
  journal = parts;
  journalled = left.size;
}

function browserStorage(): StorageLike | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined; // storage disabled
  }
}

/**
 * Guard one engine result until it is written: call it before the result goes into the library, so that a reload or a
 * crash during the write finds it in storage (ADR 0055). Nothing is guarded while no library is being saved.
 */
export function journalResult(entry: UnsavedResult): void {
  journalResults([entry]);
}

/** journalResult for results that arrived together: one write of the journal for all of them. */
export function journalResults(entries: readonly UnsavedResult[]): void {
  if (!active || journalled >= JOURNAL_LIMIT || entries.length === 0) return;
  const part = { n: nextJournalPart++, entries: entries.slice(0, JOURNAL_LIMIT - journalled) };
  journal.push(part);
  journalled += part.entries.length;
  writeJournalPart(journalStorage, part.n, part.entries);
}

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

export async function startLibraryPersistence({
  debounceMs = 250,
  storage = browserStorage(),
  ...options
}: OpenOptions & { debounceMs?: number; storage?: StorageLike } = {}): Promise<Persistence> {
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
    let shownAt = 0;
    let shownPhase: LoadProgress['phase'] | undefined;
    const { library: stored, storedSpans } = await readLibrary(db, {
      onProgress: (progress) => {
        const now = performance.now();
        if (progress.phase === shownPhase && now - shownAt < LOAD_PROGRESS_MS) return;
        shownAt = now;
        shownPhase = progress.phase;
        usePersistence.setState({ loading: progress });
      },
    });
    // The journal's records are checked with the model's schemas, loaded by readLibrary already (a chunk of their own).
    const schemas = await import('../model/schema.ts');
    // What was read is what the database holds (minus nothing: quarantined records already moved out).
    written = { files: stored.files, runs: stored.runs, llmCalls: stored.llmCalls ?? emptyRecord() };
    // Results a previous page kept but could not write go back into their runs before anything is shown.
    const { library: recovered, applied } = applyJournal(written, readJournal(storage, schemas));
    resetJournal();
    if (applied.length > 0) journal = [{ n: 0, entries: applied }];
    journalled = applied.length;
    journalStorage = storage;
    writeJournal(storage, applied);
    // The stored library is read and checked: what the page does from here is the views' work (bench/views.bench.ts
    // measures their long tasks from this mark).
    performance.mark(LIBRARY_READ_MARK);
    library.getState().hydrate({ ...stored, runs: recovered.runs, llmCalls: recovered.llmCalls });
    // Everything set aside so far, this time and before: shown in the Library until the reader exports or forgets it.
    usePersistence.setState({ quarantined: await readQuarantine(db), storedSpans, loading: undefined });
  } catch (e) {
    usePersistence.setState({ status: 'failed', problem: `the stored library could not be read: ${describeError(e)}`, loading: undefined });
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
        if (usePersistence.getState().savingRuns.size === 0) usePersistence.setState(settledStatus());
        return;
      }
      if (usePersistence.getState().status !== 'saving') usePersistence.setState({ status: 'saving' });
      try {
        const ops = await writeChanges(db, written, next);
        // A run whose write had failed is saved once this page has written it, and forgotten once removed.
        for (const id of Array.from(unsavedRuns.keys())) {
          const run = Object.hasOwn(next.runs, id) ? next.runs[id] : undefined;
          if (run === undefined || (run !== (Object.hasOwn(written.runs, id) ? written.runs[id] : undefined) && writtenByPage(run))) unsavedRuns.delete(id);
        }
        written = next;
        settleJournal(library.getState(), written);
        // Only writes that changed something count: a test or a view waiting for its change must not be satisfied
        // by an empty write (the store replaces its arrays on hydration without changing any record).
        const writes = usePersistence.getState().writes + (ops > 0 ? 1 : 0);
        const busy = timer !== undefined || usePersistence.getState().savingRuns.size > 0;
        usePersistence.setState(busy ? { writes } : { ...settledStatus(), writes });
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
  unsavedRuns.clear();
  // Named before the status changes: an import waiting for the library (runStorageTargetOnceLoaded) asks for it then.
  storageTarget = { name: db.name, version: db.version };
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
        resetJournal();
        journalStorage = undefined;
        activeDb = undefined;
        storageTarget = undefined;
      }
      void writing.then(() => db.close());
    },
  };
  active = persistence;
  activeDb = db;
  return persistence;
}
