// The import worker's write of the runs it imported into the library's IndexedDB database (ADR 0020): the page has
// opened and migrated the database and names it and its version; the worker writes each run without its source spans
// into `runs` and the spans into `runSpans`, in one transaction per file: a step span whose step's raw was handed over
// in part keeps the whole raw as its attributes (ADR 0026); other step spans are compacted, as in a session file.
// Serialising a large run for IndexedDB takes hundreds of milliseconds: here it costs the page nothing.
// A run too large for one IndexedDB value goes into chunks (`runChunks`), split as the page splits (ADR 0025).
import { openDB, type IDBPDatabase } from 'idb';
import { chunkInColumns, chunkKeyOf, chunkMisplaced, DEFAULT_CHUNK_LIMITS, joinChunks, planRunWrite, storedChunkCount, storedChunkParts, type ChunkLimits } from '../model/run-chunks.ts';
import { compactRun, hydrateRun, joinStepRaw } from '../model/session-spans.ts';
import { StringTable, toColumns, transferablesOf, type ColumnSlice } from '../model/step-columns.ts';
import type { SpanSlice } from './span-slices.ts';
import type { Run, RunSpan } from '../model/types.ts';
import { settleTransaction } from './idb-settle.ts';

/** The library database as the page opened it (store/library-db.ts owns its schema and migrations). */
export interface RunStorage {
  name: string;
  version: number;
  /** Chunk sizes when not the default (tests). */
  chunkLimits?: ChunkLimits;
}

/** Every chunk of a run, or of one of its arrays (as store/library-db.ts `chunkRange`). */
function chunkRange(runId: string, field?: 'spans'): IDBKeyRange {
  return field === undefined ? IDBKeyRange.bound([runId], [runId, []]) : IDBKeyRange.bound([runId, field], [runId, field, []]);
}

let open: { key: string; db: Promise<IDBPDatabase> } | undefined;

function database(target: RunStorage): Promise<IDBPDatabase> {
  const key = `${target.name}@${target.version}`;
  if (open?.key !== key) {
    let upgraded = false;
    const db = openDB(target.name, target.version, {
      // The page migrates; a database that would need it here (deleted meanwhile, or newer) is not this worker's to shape.
      upgrade(_db, _old, _new, tx) {
        upgraded = true;
        tx.done.catch(() => {}); // the open request reports the failure
        tx.abort();
      },
      blocking() {
        void db.then((d) => d.close());
        open = undefined;
      },
    }).catch((e: unknown) => {
      open = undefined;
      throw upgraded ? new Error(`the library database ${target.name} is not at version ${target.version}`) : e;
    });
    open = { key, db };
  }
  return open.db;
}

/** Spans per message when they go back to the page: each slice is a short task to receive and restore (5,000 made tasks of ~100 ms on a loaded 2-core machine). */
export const SPAN_SLICE = 2000;

/** A run's spans as stored apart (`runSpans`, or in chunks), read here; undefined when none are stored. */
export async function storedSpansOf(target: RunStorage, runId: string): Promise<RunSpan[] | undefined> {
  const db = await database(target);
  let spans = (await db.get('runSpans', runId)) as RunSpan[] | undefined;
  if (!spans && db.objectStoreNames.contains('runChunks')) {
    const tx = db.transaction('runChunks');
    const keys = await tx.store.getAllKeys(chunkRange(runId, 'spans'));
    const values = await tx.store.getAll(chunkRange(runId, 'spans'));
    await tx.done;
    if (keys.length > 0) {
      const joined = joinChunks('spans', keys.map((key, i) => ({ index: chunkKeyOf(key)?.[2], value: values[i] })));
      if ('problem' in joined) throw new Error(`the stored spans of ${runId} cannot be read: ${joined.problem}`);
      spans = joined.items as RunSpan[];
    }
  }
  return spans;
}

/** Where runs whose spans are kept apart have them: the library's database, and the runs that have spans there. */
export interface StoredSpans {
  storage?: RunStorage;
  runIds: string[];
}

/**
 * The run with its source spans read back when they are kept apart (exports): step spans get their attributes from
 * the steps again, and the steps whose raw stayed with their spans get it back (ADR 0026), so the run is the one
 * imported.
 */
export async function withStoredSpans(run: Run, stored: StoredSpans): Promise<Run> {
  if (run.spans !== undefined || !stored.storage || !stored.runIds.includes(run.id)) return run;
  const spans = await storedSpansOf(stored.storage, run.id);
  return spans ? joinStepRaw({ ...run, spans: hydrateRun({ ...run, spans }).spans }) : run;
}

/** Whether every item is a record that toColumns gives back as it was (not null, not an array, not a primitive). */
function allRecords(items: readonly unknown[]): boolean {
  for (const item of items) if (typeof item !== 'object' || item === null || Array.isArray(item)) return false;
  return true;
}

/**
 * The buffers of a stored slice that can be transferred: each real ArrayBuffer once. Storage is untrusted: its typed
 * arrays may share a buffer (a structured clone keeps that, and postMessage refuses a buffer listed twice), and what
 * says it is a typed array may not be one. What is not listed is cloned with the rest, and the page's rebuild refuses
 * what is not a column.
 */
function storedTransferables(slice: ColumnSlice): ArrayBuffer[] {
  let listed: unknown[];
  try {
    listed = transferablesOf(slice);
  } catch {
    return [];
  }
  const buffers = new Set<ArrayBuffer>();
  for (const buffer of listed) if (buffer instanceof ArrayBuffer) buffers.add(buffer);
  return Array.from(buffers);
}

/**
 * `send` that keeps what it returns in `sent`, for the read to wait on at its end. A refusal (the page could not make
 * a slice) is marked as handled at once: the read may still be awaiting the next chunk from the database when it comes.
 */
function posting(send: (slice: SpanSlice, transfer: ArrayBuffer[]) => Promise<void>, sent: Promise<void>[]): (slice: SpanSlice, transfer: ArrayBuffer[]) => void {
  return (slice, transfer) => {
    const posted = send(slice, transfer);
    posted.catch(() => {});
    sent.push(posted);
  };
}

/**
 * Spans held as items (stored whole, or in chunks stored before ADR 0103) to `send` in slices of SPAN_SLICE, put in
 * columns here with a table of their own: the page makes each span from them, which costs it less than taking a clone
 * of 2,000 span objects, and repeated strings and records cross once. Once a slice could not be put in columns, the
 * table may hold strings the page never got, so every later slice goes as items.
 */
function sendItems(spans: readonly RunSpan[], send: (slice: SpanSlice, transfer: ArrayBuffer[]) => Promise<void>, sent: Promise<void>[]): void {
  const post = posting(send, sent);
  const table = new StringTable();
  let inColumns = true;
  let fresh = true;
  for (let at = 0; at < spans.length; at += SPAN_SLICE) {
    const items = spans.slice(at, at + SPAN_SLICE);
    let columns: ColumnSlice | undefined;
    if (inColumns && allRecords(items)) {
      try {
        columns = toColumns(items, table);
      } catch {
        columns = undefined;
      }
    }
    if (!columns) inColumns = false;
    if (columns) post({ columns, fresh }, transferablesOf(columns));
    else post({ items }, []);
    fresh = false;
  }
}

/**
 * Read a run's stored spans here and send them to the page in slices, posted without waiting for each to be taken;
 * resolves to how many were sent (0 when none are stored). A chunk stored in columns (ADR 0103) is passed on as it was
 * read, its typed arrays transferred: neither rebuilt nor encoded again here, and cheap to deserialise. Each chunk's
 * place, count and shape are checked before it is sent, and one refused fails the read (the page drops what came
 * before it); what the page's rebuild refuses fails the read there.
 */
export async function readSpans(target: RunStorage, runId: string, send: (slice: SpanSlice, transfer: ArrayBuffer[]) => Promise<void>): Promise<number> {
  const db = await database(target);
  const sent: Promise<void>[] = [];
  const inline: unknown = await db.get('runSpans', runId);
  if (inline !== undefined && !Array.isArray(inline)) throw new Error(`the stored spans of ${runId} cannot be read: they are not a list`);
  if (inline) {
    sendItems(inline as RunSpan[], send, sent);
    await Promise.all(sent);
    return inline.length;
  }
  if (!db.objectStoreNames.contains('runChunks')) return 0;
  const tx = db.transaction('runChunks');
  const done = tx.done;
  done.catch(() => {}); // a failed read rejects its own request, awaited below
  const keys = await tx.store.getAllKeys(chunkRange(runId, 'spans'));
  if (keys.length === 0) return 0;
  // Every chunk asked for at once and passed on as it comes, in order: the page makes the first chunk's spans while the
  // worker still reads the next (one getAll gave the page nothing before the last chunk was read).
  const reads = keys.map((key) => tx.store.get(key));
  for (const read of reads) read.catch(() => {}); // those left unread when a chunk before them is refused
  const cannot = (problem: string) => new Error(`the stored spans of ${runId} cannot be read: ${problem}`);
  // What was sent before a chunk is refused is the page's to drop (the read fails there).
  const post = posting(send, sent);
  let of = 0;
  let count = 0;
  for (let i = 0; i < keys.length; i++) {
    const value: unknown = await reads[i];
    // Checked as joinChunks checks them, chunk by chunk as they come.
    if (i === 0) {
      const counted = storedChunkCount('spans', keys.length, value);
      if (typeof counted !== 'number') throw cannot(counted.problem);
      of = counted;
    }
    const parts = storedChunkParts(value);
    const misplaced = chunkMisplaced('spans', i, chunkKeyOf(keys[i])?.[2], parts?.of, of);
    if (misplaced) throw cannot(misplaced);
    if (!parts) throw cannot(`spans: chunk ${i} is not a chunk of ${of}`);
    if ('items' in parts) {
      sendItems(parts.items as RunSpan[], send, sent);
      count += parts.items.length;
      continue;
    }
    for (const [k, columns] of parts.slices.entries()) {
      post({ columns, fresh: k === 0 }, storedTransferables(columns));
      count += columns.rows;
    }
  }
  await done;
  await Promise.all(sent);
  return count;
}

/**
 * Write these runs (spans apart; a large run in chunks, replacing its old ones). Resolves, when the transaction has
 * committed, to the ids of the runs whose spans were written apart (a run without spans has none to read there);
 * rejects with the cause when it has not (nothing of it landed), never leaving a rejection unhandled.
 */
/** How often storeRuns reports its writes at most (a large run's write is tens of thousands of requests). */
const WRITES_REPORTED_EVERY_MS = 100;

/** Chunk writes of a run made and not yet done at most (storeRuns). */
export const CHUNKS_IN_FLIGHT = 3;

/**
 * `onWritten` is told how far the write is, as a count of steps of which there are `total`: each of the transaction's
 * requests counts once when it is made (its value cloned here: a 100k-step run's 11 chunks took 1.2 s) and once when
 * the database has done it (at most every WRITES_REPORTED_EVERY_MS, and once all are done): the import row's bar moves
 * while a large run is saved, where it stood still for seconds. All done is not yet durable: that is the transaction's
 * commit (the promise).
 */
export async function storeRuns(target: RunStorage, runs: readonly Run[], onWritten?: (written: number, total: number) => void): Promise<string[]> {
  if (runs.length === 0) return [];
  const limits = target.chunkLimits ?? DEFAULT_CHUNK_LIMITS;
  const db = await database(target);
  const plans = runs.map((run) => planRunWrite(compactRun(run), { spansApart: true, limits }));
  const tx = db.transaction(['runs', 'runSpans', 'runChunks'], 'readwrite');
  const writes: Promise<unknown>[] = [];
  // Each plan makes three requests and one per chunk.
  const total = 2 * plans.reduce((n, plan) => n + 3 + plan.chunks.length, 0);
  let progress = 0;
  let reported = 0;
  const advance = () => {
    progress++;
    const now = Date.now();
    if (progress === total || now - reported >= WRITES_REPORTED_EVERY_MS) {
      reported = now;
      onWritten?.(progress, total);
    }
  };
  const made = (request: Promise<unknown>) => {
    writes.push(request);
    if (onWritten) {
      advance();
      void request.then(advance, () => {});
    }
  };
  let thrown: unknown;
  try {
    for (const plan of plans) {
      const id = plan.record.id;
      made(tx.objectStore('runChunks').delete(chunkRange(id)));
      made(tx.objectStore('runs').put(plan.record));
      if (plan.spans !== undefined) made(tx.objectStore('runSpans').put(plan.spans, id));
      else made(tx.objectStore('runSpans').delete(id));
      // A chunk's value is cloned when its put is made, and the copy is held until the database has taken it: made
      // all at once (one synchronous loop), a 1M-step chat log's 100 chunks were all serialised at once (memory-infra:
      // the renderer's Blink buffer partition, where clones are kept, held 103–106 MB while the write ran, 14 MB after).
      // At most CHUNKS_IN_FLIGHT are now in flight: the next is made when the oldest is done (from its success: the
      // transaction stays active), and the worker takes its messages between them.
      const inFlight: Promise<unknown>[] = [];
      for (const chunk of plan.chunks) {
        if (inFlight.length >= CHUNKS_IN_FLIGHT) await inFlight.shift();
        // Steps and handoffs in columns, made here (ADR 0075): a reload takes each chunk in a short task.
        const request = tx.objectStore('runChunks').put(chunkInColumns(chunk), chunk.key);
        made(request);
        inFlight.push(request);
      }
    }
  } catch (e) {
    thrown = e ?? new Error('the write could not start');
  }
  await settleTransaction(tx, writes, thrown);
  return runs.filter((run) => run.spans !== undefined && run.spans.length > 0).map((run) => run.id);
}
