// The journal of engine results not yet in IndexedDB (ADR 0055). A result is shown the moment it is kept, but its
// IndexedDB write takes a while (tens of milliseconds for a large run, more on a busy machine) and a reload or a crash
// in that time aborts it. So each result is first written, synchronously, to localStorage, and dropped from there once
// a write has put it in the database. On the next load, whatever is still in the journal goes back into its run before
// the library is shown. Only the small records are journalled (an intervention, a stage, an endpoint call), never a
// run; the journal holds only the results of the last moments, so it stays small.
//
// Results kept together go under a key of their own (a part, JOURNAL_KEY#n), so that guarding them costs a write of
// them alone: rewritten whole at each keep, a journal of up to JOURNAL_LIMIT results cost 10–30 ms of the page's thread
// per keep during an engine's flood of results (ADR 0108). JOURNAL_KEY itself holds the journal written whole (at load).
import { ownValue, recordOf } from '../model/record.ts';
import { withIntervention, withStage } from '../model/run-results.ts';
import type { Intervention, LlmCallRecord, Run, Stage } from '../model/types.ts';

export const JOURNAL_KEY = 'mas-replay:unsaved-results';
/** Past this many unwritten results (the database refuses every write), new ones are no longer journalled. */
export const JOURNAL_LIMIT = 1000;

/** The key of the journal's part `n`; part 0 is the journal written whole. */
export function journalPartKey(n: number): string {
  return n === 0 ? JOURNAL_KEY : `${JOURNAL_KEY}#${n}`;
}

export type StorageLike = Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key'> & { readonly length: number };

export type UnsavedResult =
  | { kind: 'intervention'; runId: string; item: Intervention }
  | { kind: 'stage'; runId: string; item: Stage }
  | { kind: 'call'; item: LlmCallRecord };

/**
 * The schemas an entry's record is checked with: the model's zod schemas, which the caller passes in once it has
 * loaded them (library-db loads src/model/schema.ts lazily, in its own chunk). Imported here, they would bring zod into
 * the JS shipped before first paint (SPEC §8; bench/bundle checks it).
 */
export type JournalSchemas = Pick<typeof import('../model/schema.ts'), 'Intervention' | 'Stage' | 'LlmCallRecord'>;

/** A stored entry checked: its kind, its run id, and its record against the model's schema; undefined when any fails. */
function entryOf(v: unknown, schemas: JournalSchemas): UnsavedResult | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const { kind, runId, item } = v as { kind?: unknown; runId?: unknown; item?: unknown };
  if (kind === 'call') {
    const parsed = schemas.LlmCallRecord.safeParse(item);
    return parsed.success ? { kind, item: parsed.data as LlmCallRecord } : undefined;
  }
  if (typeof runId !== 'string') return undefined;
  if (kind === 'intervention') {
    const parsed = schemas.Intervention.safeParse(item);
    return parsed.success ? { kind, runId, item: parsed.data as Intervention } : undefined;
  }
  if (kind === 'stage') {
    const parsed = schemas.Stage.safeParse(item);
    return parsed.success ? { kind, runId, item: parsed.data as Stage } : undefined;
  }
  return undefined;
}

/**
 * The numbers of the journal's parts in storage, in the order they were written (0, the journal written whole, first).
 * A key that only looks like a part's (not a whole number after the #) is no part.
 */
export function journalParts(storage: StorageLike | undefined): number[] {
  const parts: number[] = [];
  try {
    if (!storage) return parts;
    for (let i = 0; i < storage.length; i++) {
      const key = storage.key(i);
      if (key === JOURNAL_KEY) parts.push(0);
      else if (key?.startsWith(`${JOURNAL_KEY}#`)) {
        const n = Number(key.slice(JOURNAL_KEY.length + 1));
        if (Number.isSafeInteger(n) && n > 0 && journalPartKey(n) === key) parts.push(n);
      }
    }
  } catch {
    return parts; // storage disabled
  }
  return parts.sort((a, b) => a - b);
}

/** What a journal says, part by part, entry by entry: a stored value is untrusted, and a bad entry is skipped, not the whole journal. */
export function readJournal(storage: StorageLike | undefined, schemas: JournalSchemas): UnsavedResult[] {
  const out: UnsavedResult[] = [];
  for (const n of journalParts(storage)) {
    let raw: unknown;
    try {
      raw = JSON.parse(storage?.getItem(journalPartKey(n)) ?? '[]');
    } catch {
      continue;
    }
    if (!Array.isArray(raw)) continue;
    for (const v of raw) {
      const entry = entryOf(v, schemas);
      if (entry) out.push(entry);
    }
  }
  return out;
}

/** Replaces the stored journal, every part of it, with `entries` (none left when empty). A storage that refuses leaves the page as before. */
export function writeJournal(storage: StorageLike | undefined, entries: readonly UnsavedResult[]): void {
  for (const n of journalParts(storage)) removeJournalPart(storage, n);
  if (entries.length > 0) writeJournalPart(storage, 0, entries);
}

/** Writes the journal's part `n` (entries kept together, or what is left of them to guard). */
export function writeJournalPart(storage: StorageLike | undefined, n: number, entries: readonly UnsavedResult[]): void {
  try {
    storage?.setItem(journalPartKey(n), JSON.stringify(entries));
  } catch {
    // storage full or disabled: the result is still written to the database, only not guarded until then
  }
}

/** Removes the journal's part `n` (all its results are in the database, or no longer in the library). */
export function removeJournalPart(storage: StorageLike | undefined, n: number): void {
  try {
    storage?.removeItem(journalPartKey(n));
  } catch {
    // storage disabled: nothing was guarded there
  }
}

export interface LibraryRecords {
  runs: Readonly<Record<string, Run>>;
  llmCalls: Readonly<Record<string, LlmCallRecord>>;
}

/**
 * Whether `records` hold the entry's very object (identity: the journal's object is the one put into the run).
 * `present(list)`: which of the journal's results the list holds (stillUnsaved reads each list once).
 */
function holds(records: LibraryRecords, e: UnsavedResult, present: (list: readonly object[]) => ReadonlySet<object>): boolean {
  if (e.kind === 'call') return ownValue(records.llmCalls, e.item.id) === e.item;
  const run = ownValue(records.runs, e.runId);
  if (!run) return false;
  return present(e.kind === 'intervention' ? run.interventions : (run.stages ?? NO_STAGES)).has(e.item);
}

const NO_STAGES: readonly Stage[] = [];

/**
 * The entries still to guard: those the page's library holds and the database does not yet. An entry the library no
 * longer holds (its run removed, the result replaced or cleared by a fresh pass) is dropped with it. Each list an entry
 * names is read once, however many entries name it: looked up entry by entry (`includes`), a journal of a thousand
 * results over a run of 100,000 interventions compared 10^8 pairs at every write of the library.
 */
export function stillUnsaved(entries: readonly UnsavedResult[], library: LibraryRecords, written: LibraryRecords): UnsavedResult[] {
  const results = new Set<object>();
  for (const e of entries) if (e.kind !== 'call') results.add(e.item);
  const found = new Map<readonly object[], ReadonlySet<object>>();
  const present = (list: readonly object[]): ReadonlySet<object> => {
    let set = found.get(list);
    if (!set) {
      const held = new Set<object>();
      for (const x of list) if (results.has(x)) held.add(x);
      found.set(list, (set = held));
    }
    return set;
  };
  return entries.filter((e) => holds(library, e, present) && !holds(written, e, present));
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Stored records with the journal's results put back: each intervention or stage into its run (replacing the one with
 * its id, unless that one is already the same), each call into the calls. Results of runs that are not there are
 * dropped. Returns the records and the entries that were put back (to guard until they are written).
 */
export function applyJournal<L extends LibraryRecords>(stored: L, entries: readonly UnsavedResult[]): { library: L; applied: UnsavedResult[] } {
  if (entries.length === 0) return { library: stored, applied: [] };
  const runs = recordOf(stored.runs);
  const llmCalls = recordOf(stored.llmCalls);
  const applied: UnsavedResult[] = [];
  for (const e of entries) {
    if (e.kind === 'call') {
      if (!sameJson(ownValue(llmCalls, e.item.id), e.item)) {
        llmCalls[e.item.id] = e.item;
        applied.push(e);
      }
      continue;
    }
    const run = ownValue(runs, e.runId);
    if (!run) continue;
    const list: readonly { id: string }[] = e.kind === 'intervention' ? run.interventions : (run.stages ?? []);
    if (sameJson(list.find((x) => x.id === e.item.id), e.item)) continue;
    runs[e.runId] = e.kind === 'intervention' ? withIntervention(run, e.item) : withStage(run, e.item);
    applied.push(e);
  }
  return applied.length === 0 ? { library: stored, applied } : { library: { ...stored, runs, llmCalls }, applied };
}
