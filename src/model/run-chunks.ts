// A large run stored in pieces (ADR 0025). One IndexedDB value is limited in size (Chromium: about 127 MiB, serialised),
// and a run of a million steps is larger. A run whose estimated size is under the budget is stored as one record, as
// before; above it, each array that grows with the run goes into chunks of bounded size (count and estimated bytes),
// and the run's record keeps the rest and how many chunks each array has. Both writers of the library (the import
// worker and the page) split with `planRunWrite`; the readers join with `joinChunks`. The import worker writes the
// chunks of steps and handoffs in columns (ADR 0075); the page reads both forms. Pure: no IndexedDB here.
import type { Run, RunSpan } from './types.ts';
import { rebuild, RunStrings, StringTable, toColumns, type ColumnSlice } from './step-columns.ts';
import { finish, nextTask, type Sliced } from './slices.ts';
import { Look } from './fast-check-schema.ts';
import type { SliceLook } from './fast-check-columns.ts';

/** The run's arrays that grow with it; `spans` is stored apart from the run (read on demand), the others with it. */
export const CHUNKED_FIELDS = ['steps', 'handoffs', 'annotations', 'interventions', 'spans'] as const;
export type ChunkedField = (typeof CHUNKED_FIELDS)[number];

export interface ChunkLimits {
  /** Items per chunk at most. */
  maxItems: number;
  /** Estimated serialised bytes per chunk (and of a run stored whole) at most; far below the engine's limit. */
  maxBytes: number;
}

/** 20,000 items or about 24 MB a chunk (estimated generously: a string counts two bytes a character). */
export const DEFAULT_CHUNK_LIMITS: ChunkLimits = { maxItems: 20_000, maxBytes: 24 * 1024 * 1024 };

/**
 * The arrays that grow at their end while a run is in the library (an engine's interventions, labels), and how many
 * items their chunks hold at most (ADR 0086). The page's write after such a change keeps the stored chunks whose items
 * are all still in place, but the last, and writes the rest: the last chunk and the new items. Small chunks bound that
 * write. Written whole, an offline rectify pass over 20,000 chat messages cloned the run and its growing
 * interventions at every write, in tasks of 90–147 ms. At 2,000 a chunk of a rectify pass's interventions was 2.4 MB,
 * a put of ~40 ms on the page, and a run of 600 rectified messages was still written whole at each write (ADR 0108).
 */
export const APPENDED_FIELDS: readonly ChunkedField[] = ['interventions', 'annotations'];
export const APPENDED_CHUNK_ITEMS = 500;
/** Past this many items, another array (steps, handoffs, spans) puts its run in chunks too (hasLongArray). */
export const LONG_ARRAY_ITEMS = 2000;

/** Items a chunk of `field` holds at most. */
export function chunkItemsOf(field: ChunkedField, limits: ChunkLimits): number {
  return APPENDED_FIELDS.includes(field) ? Math.min(limits.maxItems, APPENDED_CHUNK_ITEMS) : limits.maxItems;
}

/**
 * The first `chunks` stored chunks of an array, which hold its first `items` items as they are now: kept, and the
 * array's later items written in chunks after them (ADR 0086).
 */
export interface KeptPrefix {
  chunks: number;
  items: number;
}

/** A chunk's key in the `runChunks` store: the run, the array, the chunk's position. */
export type ChunkKey = [runId: string, field: ChunkedField, index: number];

/**
 * One chunk: its items, or the items in columns (step-columns.ts, with a string table of the chunk's own, ADR 0075),
 * and how many chunks the array has (a lost chunk is seen by any reader of the others). In columns, a chunk is cut in
 * `slices` of at most CHUNK_SLICE_ROWS rows that share its string table, in order (ADR 0079), so that a reader can
 * rebuild them in tasks of their own; chunks stored before that hold one slice as `columns`.
 */
export type RunChunk = { items: unknown[]; of: number } | { slices: ColumnSlice[]; of: number } | { columns: ColumnSlice; of: number };

/**
 * Rows of a stored chunk's slice (ADR 0079): what the import worker hands the page per message (STEP_SLICE), for the
 * same reason. A page that rebuilt a chunk of 20,000 steps in one task made its collector mark in that task too: the
 * reload of a million-step run had tasks of 100–430 ms, most of them the collector's.
 */
export const CHUNK_SLICE_ROWS = 2000;

/**
 * The arrays whose chunks the import worker writes in columns (ADR 0075): a page that reloads a run takes each chunk
 * in a task of its own, and 24 MB of steps as objects, their texts one string each, made tasks of 50–137 ms.
 */
export const COLUMN_FIELDS: readonly ChunkedField[] = ['steps', 'handoffs', 'spans'];

/** More rows than any chunk holds (DEFAULT_CHUNK_LIMITS has 20,000): a stored chunk that says so is not read. */
const MAX_CHUNK_ROWS = 1 << 24;

/**
 * A chunk of planRunWrite as the import worker stores it: one of COLUMN_FIELDS in columns (ADR 0075), any other as
 * it is. Made just before its put, so that only the chunks in flight are held in columns besides the run.
 */
export function chunkInColumns(chunk: { key: ChunkKey; value: RunChunk }): RunChunk {
  const { key, value } = chunk;
  if (!('items' in value) || !COLUMN_FIELDS.includes(key[1])) return value;
  try {
    const items = value.items as object[];
    const table = new StringTable();
    const slices: ColumnSlice[] = [];
    for (let at = 0; at < items.length; at += CHUNK_SLICE_ROWS) slices.push(toColumns(items.slice(at, at + CHUNK_SLICE_ROWS), table));
    return { slices, of: value.of };
  } catch {
    // An item that is not a record (toColumns reads every item's keys): stored as items, read alike.
    return value;
  }
}

/** A stored chunk's slices, checked enough to be rebuilt (storage is read as untrusted), or undefined. */
function slicesOf(value: object): ColumnSlice[] | undefined {
  const slices: unknown = 'slices' in value ? value.slices : 'columns' in value ? [value.columns] : undefined;
  if (!Array.isArray(slices)) return undefined;
  // A row count no chunk could have is not allocated for.
  let rows = 0;
  for (const slice of slices) {
    const n = typeof slice === 'object' && slice !== null ? (slice as { rows?: unknown }).rows : undefined;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) return undefined;
    rows += n;
  }
  return rows <= MAX_CHUNK_ROWS ? (slices as ColumnSlice[]) : undefined;
}

/** Whether a stored chunk is in columns (rebuilt by readableChunk). */
function inColumns(value: unknown): value is { slices?: unknown; columns?: unknown; of?: unknown } {
  return typeof value === 'object' && value !== null && ('slices' in value || 'columns' in value);
}

/**
 * Chunks rebuilt from columns of which a slice look said Valid of every slice, with that look (ADR 0101). Only
 * chunkItems adds to it: a value read from storage is never in it, whatever it holds.
 */
const lookedChunks = new WeakMap<object, SliceLook>();

/** Arrays joined from chunks (joinChunks), some of whose chunks were so looked at: 1 for each of their items. */
const lookedItems = new WeakMap<readonly unknown[], { flags: Uint8Array; look: SliceLook }>();

/**
 * Which items of `items`, an array joinChunks made, `look` said Valid of in columns (1), or undefined when none (or
 * another look did): the quick look would say Valid of each, so the library's check keeps them as they are.
 */
export function lookedItemsOf(items: unknown, look: SliceLook | undefined): Uint8Array | undefined {
  if (look === undefined || !Array.isArray(items)) return undefined;
  const entry = lookedItems.get(items);
  return entry !== undefined && entry.look === look ? entry.flags : undefined;
}

/**
 * A stored chunk as it is, checked as far as that can be done without rebuilding it: its slices in columns (which
 * share one table of strings, in order), or its items, and the chunk count it gives; undefined when it is neither.
 * For a reader that passes the slices on to be rebuilt elsewhere (the span tree's read, ADR 0103): the rebuild checks
 * the rest, as readableChunk's does.
 */
export function storedChunkParts(value: unknown): { slices: ColumnSlice[]; of: unknown } | { items: unknown[]; of: unknown } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (inColumns(value)) {
    const slices = slicesOf(value);
    return slices ? { slices, of: value.of } : undefined;
  }
  const { items, of } = value as { items?: unknown; of?: unknown };
  return Array.isArray(items) ? { items, of } : undefined;
}

/**
 * A stored chunk with its items as an array: one in columns rebuilt (a new table of strings for each chunk), yielding
 * between two slices; any other value as it is (joinChunks then names what is wrong with it). With `look` (the slice
 * look of the items' schema), each slice is looked at once rebuilt (lookedChunks).
 */
function* chunkItems(value: unknown, look?: SliceLook): Sliced<unknown> {
  if (!inColumns(value)) return value;
  const slices = slicesOf(value);
  if (!slices) return value;
  try {
    const strings = new RunStrings();
    const items: unknown[] = [];
    let valid = look !== undefined;
    for (let i = 0; i < slices.length; i++) {
      if (i > 0) yield i / slices.length;
      for (const item of rebuild(slices[i], strings)) items.push(item);
      // After rebuild, with the table as it read it (the look's promise holds of what rebuild made).
      if (valid) valid = lookAt(look!, slices[i], strings.table);
    }
    const chunk = { items, of: value.of };
    if (valid) lookedChunks.set(chunk, look!);
    return chunk;
  } catch {
    return value;
  }
}

function lookAt(look: SliceLook, slice: ColumnSlice, table: readonly unknown[]): boolean {
  try {
    return look(slice, table) === Look.Valid;
  } catch {
    return false;
  }
}

/** chunkItems in one call (joinChunks, the quarantine). */
export function readableChunk(value: unknown): unknown {
  return finish(chunkItems(value));
}

/**
 * chunkItems with `pause` awaited between two slices, so that each is rebuilt in a task of its own (ADR 0079): the page
 * reading its library takes a chunk of 20,000 steps in ten short tasks, not one long one. A chunk of items, or of
 * columns stored whole (before ADR 0079), is one.
 */
export async function readChunk(value: unknown, pause: () => Promise<void> = nextTask, look?: SliceLook): Promise<unknown> {
  const work = chunkItems(value, look);
  let r = work.next();
  while (!r.done) {
    await pause();
    r = work.next();
  }
  return r.value;
}

/** The `runs` record of a run stored in chunks: `chunks` says how many each array has (spans excepted, see below). */
export type StoredRun = Run & { chunks?: Partial<Record<ChunkedField, number>> };

/** What to write for one run. */
export interface RunWrite {
  /** The `runs` record. */
  record: StoredRun;
  /** Spans for the `runSpans` store (kept apart, not chunked); undefined when there are none to write there. */
  spans?: RunSpan[];
  /** Chunks for `runChunks`; empty when the run is stored whole. */
  chunks: { key: ChunkKey; value: RunChunk }[];
  /** Whether the run's arrays are in chunks (its old chunks are replaced, but those of `kept` arrays). */
  chunked: boolean;
  /** Arrays whose chunks the database holds already (planRunWrite's `kept`): neither written nor removed. */
  kept: ChunkedField[];
  /**
   * Arrays of which only the first chunks are kept (planRunWrite's KeptPrefix): the index of the first chunk written.
   * The stored chunks from there on are replaced.
   */
  keptUpTo: Partial<Record<ChunkedField, number>>;
  /** Items in each chunk written, by array (with `keptUpTo`: from its first chunk written on). */
  sizes: Partial<Record<ChunkedField, number[]>>;
}

/**
 * Roughly the bytes a value takes once serialised (structured clone), counted generously; stops counting once over
 * `stopAt` (the caller only needs to know it is over). Iterative: deep values do not overflow the stack.
 */
export function estimateBytes(value: unknown, stopAt = Number.POSITIVE_INFINITY): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= stopAt) {
    const v = stack.pop();
    switch (typeof v) {
      case 'string':
        total += 8 + 2 * v.length;
        break;
      case 'number':
      case 'bigint':
        total += 9;
        break;
      case 'object':
        if (v === null) {
          total += 1;
        } else if (Array.isArray(v)) {
          total += 8;
          for (let i = 0; i < v.length; i++) stack.push(v[i]);
        } else if (ArrayBuffer.isView(v)) {
          total += 8 + v.byteLength;
        } else {
          total += 8;
          for (const key in v) {
            if (!Object.hasOwn(v, key)) continue;
            total += 8 + 2 * key.length;
            stack.push((v as Record<string, unknown>)[key]);
          }
        }
        break;
      default:
        total += 1;
    }
  }
  return total;
}

/** Items in chunks of at most `maxItems` and (unless one item alone is larger) `maxBytes` estimated. */
export function splitItems<T>(items: readonly T[], limits: ChunkLimits): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = estimateBytes(item, limits.maxBytes);
    if (current.length > 0 && (current.length >= limits.maxItems || bytes + size > limits.maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Whether one of a run's arrays is long: an appended array with more items than its chunk holds, or another with more
 * than LONG_ARRAY_ITEMS (at most a chunk's). Such a run is stored in chunks. That is any array longer than its chunk,
 * and also steps that a later change (a label, an engine's first results) would otherwise write again with the run's
 * record, cloned and read back by IndexedDB on the page's thread (a 20,000-message chat log: a task of ~75 ms at each
 * write while an engine kept results, ADR 0086).
 */
export function hasLongArray(run: Run, limits: ChunkLimits = DEFAULT_CHUNK_LIMITS): boolean {
  const most = Math.min(limits.maxItems, LONG_ARRAY_ITEMS);
  for (const field of CHUNKED_FIELDS) if ((run[field]?.length ?? 0) > (APPENDED_FIELDS.includes(field) ? chunkItemsOf(field, limits) : most)) return true;
  return false;
}

/** Whether a run is stored in chunks: it has a long array (hasLongArray), or the whole is over the budget. */
export function needsChunks(run: Run, limits: ChunkLimits): boolean {
  if (hasLongArray(run, limits)) return true;
  let budget = limits.maxBytes;
  for (const field of CHUNKED_FIELDS) {
    const items = run[field];
    if (!items || items.length === 0) continue;
    budget -= estimateBytes(items, budget);
    if (budget < 0) return true;
  }
  return false;
}

/**
 * What to store for a run. `spansApart`: the run's spans go to `runSpans` (or span chunks), not into its record —
 * the import worker's way (ADR 0020); the page writes a run's spans inline when it has them and it is small.
 * Span chunks carry no count in the record: a later write of the run without its spans (the page's, after a change)
 * keeps them, and each chunk says how many there are.
 */
export function planRunWrite(
  run: Run,
  {
    spansApart,
    limits = DEFAULT_CHUNK_LIMITS,
    kept = {},
  }: {
    spansApart: boolean;
    limits?: ChunkLimits;
    /**
     * Arrays of this run whose chunks the database holds already (the page's write of a run whose label or result
     * changed, its steps the same array), with their chunk counts: not split nor written again (ADR 0058). A
     * KeptPrefix keeps only the first chunks of an array that grew (ADR 0086). Spans are never kept. Used only when the
     * run is stored in chunks.
     */
    kept?: Partial<Record<ChunkedField, number | KeptPrefix>>;
  },
): RunWrite {
  if (!needsChunks(run, limits)) {
    if (!spansApart || run.spans === undefined) return { record: run, chunks: [], chunked: false, kept: [], keptUpTo: {}, sizes: {} };
    const { spans, ...rest } = run;
    return { record: rest, spans, chunks: [], chunked: false, kept: [], keptUpTo: {}, sizes: {} };
  }
  const record: StoredRun = { ...run, chunks: {} };
  delete record.spans;
  const chunks: RunWrite['chunks'] = [];
  const keptFields: ChunkedField[] = [];
  const keptUpTo: RunWrite['keptUpTo'] = {};
  const sizes: RunWrite['sizes'] = {};
  for (const field of CHUNKED_FIELDS) {
    const items: readonly unknown[] | undefined = run[field];
    if (items === undefined) continue;
    const keep = field === 'spans' ? undefined : kept[field];
    if (typeof keep === 'number') {
      (record as unknown as Record<string, unknown>)[field] = [];
      record.chunks![field] = keep;
      keptFields.push(field);
      continue;
    }
    // A kept prefix that still fits the array (else the array is written whole).
    const prefix = keep !== undefined && keep.chunks > 0 && keep.items <= items.length ? keep : undefined;
    const first = prefix?.chunks ?? 0;
    const parts = splitItems(prefix ? items.slice(prefix.items) : items, { ...limits, maxItems: chunkItemsOf(field, limits) });
    const count = first + parts.length;
    if (field !== 'spans') {
      (record as unknown as Record<string, unknown>)[field] = [];
      record.chunks![field] = count;
    }
    if (prefix) keptUpTo[field] = first;
    sizes[field] = parts.map((part) => part.length);
    parts.forEach((part, index) => chunks.push({ key: [run.id, field, first + index], value: { items: part, of: count } }));
  }
  return { record, chunks, chunked: true, kept: keptFields, keptUpTo, sizes };
}

/**
 * Whether a stored chunk at `index` may belong to an array of `of` chunks: it says so, or it was kept from an earlier
 * write of the array when it had fewer chunks (a KeptPrefix, ADR 0086), and says a count that still covers it.
 */
function chunkOf(said: unknown, index: number, of: number): boolean {
  return typeof said === 'number' && Number.isInteger(said) && said > index && said <= of;
}

/**
 * How many chunks an array has, from the record's count (`expected`) or else its first stored chunk's, when `stored`
 * chunks are all there; else why its chunks cannot be read.
 */
export function storedChunkCount(field: ChunkedField, stored: number, first: unknown, expected?: number): number | { problem: string } {
  const of = expected ?? (stored > 0 ? (first as RunChunk | null | undefined)?.of : 0);
  if (typeof of !== 'number' || !Number.isInteger(of) || of < 0) return { problem: `${field}: the chunk count is not a number` };
  if (stored !== of) return { problem: `${field}: ${stored} of ${of} chunks are stored` };
  return of;
}

/**
 * Why the stored chunk at place `i` (its key's `index`, its value's `said` count) is not the array's i-th of `of`, or
 * undefined when it is. Without the record's count (spans), every chunk says the same count; a kept chunk may say
 * fewer (ADR 0086).
 */
export function chunkMisplaced(field: ChunkedField, i: number, index: unknown, said: unknown, of: number, expected?: number): string | undefined {
  if (index !== i) return `${field}: chunk ${i} is missing`;
  const fits = expected === undefined ? said === of : chunkOf(said, i, of);
  return fits ? undefined : `${field}: chunk ${i} is not a chunk of ${of}`;
}

/**
 * The stored chunks of one array (in key order) joined, or why they cannot be. `expected`: the count the record gives.
 * `ends`: the items after each chunk (what a later write keeps of them, ADR 0086).
 */
export function joinChunks(field: ChunkedField, stored: readonly { index: unknown; value: unknown }[], expected?: number): { items: unknown[]; ends: number[] } | { problem: string } {
  const of = storedChunkCount(field, stored.length, stored[0]?.value, expected);
  if (typeof of !== 'number') return of;
  const items: unknown[] = [];
  const ends: number[] = [];
  const looked: { from: number; to: number; look: SliceLook }[] = [];
  for (let i = 0; i < stored.length; i++) {
    const misplaced = chunkMisplaced(field, i, stored[i].index, (stored[i].value as { of?: unknown } | null | undefined)?.of, of, expected);
    if (misplaced) return { problem: misplaced };
    const value = readableChunk(stored[i].value) as { items?: unknown } | null;
    if (typeof value !== 'object' || value === null || !Array.isArray(value.items)) return { problem: `${field}: chunk ${i} is not a chunk of ${of}` };
    const part = value.items;
    const from = items.length;
    for (let j = 0; j < part.length; j++) items.push(part[j]);
    ends.push(items.length);
    const look = lookedChunks.get(value);
    if (look !== undefined) looked.push({ from, to: items.length, look });
  }
  // The items of chunks a slice look passed, when one look passed them (the readers ask for one field's look).
  if (looked.length > 0 && looked.every((l) => l.look === looked[0].look)) {
    const flags = new Uint8Array(items.length);
    for (const { from, to } of looked) flags.fill(1, from, to);
    lookedItems.set(items, { flags, look: looked[0].look });
  }
  return { items, ends };
}

/** A stored chunk key, checked (keys come from storage). */
export function chunkKeyOf(key: unknown): ChunkKey | undefined {
  if (!Array.isArray(key) || key.length !== 3) return undefined;
  const [runId, field, index] = key as unknown[];
  if (typeof runId !== 'string' || typeof index !== 'number' || !(CHUNKED_FIELDS as readonly unknown[]).includes(field)) return undefined;
  return [runId, field as ChunkedField, index];
}
