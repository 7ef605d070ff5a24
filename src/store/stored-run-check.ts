// The check of a stored run when the library loads (SPEC §9, ADR 0059): the native import's zod schema, after
// `migrateRun`. A run's long arrays are checked a few milliseconds at a time, the page's thread given back in between,
// so that a reload with a run of a million steps in the library never freezes the page (one zod pass over a
// 200k-message chat log took 1.4 s in one task). The first problem found is the reason the run is set aside. Steps and
// handoffs whose stored columns the slice look passed as they were rebuilt are kept without a look of their own (ADR 0101).
import { Look, quickLookOf } from '../model/fast-check-schema.ts';
import { sliceLookOf, type SliceLook } from '../model/fast-check-columns.ts';
import { COLUMN_FIELDS, lookedItemsOf, type ChunkedField } from '../model/run-chunks.ts';
import { migrateRun } from '../model/migrate.ts';
import { runInSlices, type SliceStats, type Sliced } from '../model/slices.ts';
import type { Run } from '../model/types.ts';

type RunSchema = typeof import('../model/schema.ts').Run;

/** The run's arrays that grow with it, checked item by item; the rest of the run in one call. */
const LONG_FIELDS = ['steps', 'handoffs', 'annotations', 'interventions', 'spans', 'agentRuns'] as const;
type LongField = (typeof LONG_FIELDS)[number];

/** An array shorter than this is checked with the rest of the run. */
const SLICED_FROM = 1000;
/** Checking time in one task, and items checked between two yields (looks at the clock). */
const BUDGET_MS = 8;
const CLOCK_EVERY = 128;

type CheckedRun = { run: Run } | { problem: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function issuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${String(key)}`), '$');
}

function describeError(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/** The schema of one item of a run's array (`spans` is optional: its array is inside). */
function itemSchema(schema: RunSchema, field: LongField) {
  const shape = schema.shape;
  switch (field) {
    case 'spans':
      return shape.spans.unwrap().element;
    default:
      return shape[field].element;
  }
}

/**
 * The slice look (fast-check-columns.ts, ADR 0101) of the items of a run's array stored in columns, for the library's
 * load to look at each chunk's slices as it rebuilds them; undefined for an array stored otherwise.
 */
export function sliceLookFor(schema: RunSchema, field: ChunkedField): SliceLook | undefined {
  if (!COLUMN_FIELDS.includes(field) || !(LONG_FIELDS as readonly string[]).includes(field)) return undefined;
  return sliceLookOf(itemSchema(schema, field as LongField));
}

/** The run as the views will read it, or why it cannot be: checkRunSlices run in tasks of BUDGET_MS (`onProgress`: 0..1). */
export async function checkRun(schema: RunSchema, key: string, v: unknown, stats?: SliceStats, onProgress: (done: number) => void = () => {}): Promise<CheckedRun> {
  return (await runInSlices(checkRunSlices(schema, key, v), onProgress, () => false, BUDGET_MS, stats))!;
}

/**
 * The check as a sliced derivation (src/model/slices.ts): the run without its long arrays in one step, then each long
 * array item by item, yielding every CLOCK_EVERY items.
 */
export function* checkRunSlices(schema: RunSchema, key: string, v: unknown): Sliced<CheckedRun> {
  if (!isObject(v)) return { problem: 'not an object' };
  if (v.id !== key) return { problem: `id ${JSON.stringify(v.id)} does not match its key` };
  let migrated: Run;
  try {
    migrated = migrateRun(v as unknown as Run);
  } catch (e) {
    return { problem: `it could not be read (${describeError(e)})` };
  }
  // The run without its long arrays first: a wrong title or agent list is named before a wrong step deep inside.
  const long = LONG_FIELDS.filter((field) => Array.isArray(migrated[field]) && migrated[field]!.length >= SLICED_FROM);
  const shell: Record<string, unknown> = { ...migrated };
  for (const field of long) shell[field] = [];
  // A part the quick look finds valid is kept as it is (zod would give back the same values, ADR 0076); any other is
  // zod's to check, and zod's output and first issue are what count.
  let run: Record<string, unknown>;
  if (quickLookOf(schema)?.(shell) === Look.Valid) run = shell;
  else {
    const parsed = schema.safeParse(shell);
    if (!parsed.success) return problemAt([], parsed.error.issues[0]);
    run = parsed.data as Record<string, unknown>;
  }
  for (const [f, field] of long.entries()) {
    const items = migrated[field] as readonly unknown[];
    const item = itemSchema(schema, field);
    const look = quickLookOf(item);
    // Items whose stored columns the slice look passed as they were rebuilt (joinChunks' array, not replaced since by a
    // migration): the quick look would say Valid of each.
    const looked = lookedItemsOf(items, sliceLookOf(item));
    const checked: unknown[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) {
      const value = items[i];
      if ((looked !== undefined && looked[i] === 1) || look?.(value) === Look.Valid) checked[i] = value;
      else {
        const one = item.safeParse(value);
        if (!one.success) return problemAt([field, i], one.error.issues[0]);
        checked[i] = one.data;
      }
      if (i % CLOCK_EVERY === CLOCK_EVERY - 1) yield (f + i / items.length) / long.length;
    }
    run[field] = checked;
  }
  return { run: run as unknown as Run };
}

/** The first issue zod found, at its path in the run (`$.steps[8].agentId: …`). */
function problemAt(prefix: readonly PropertyKey[], issue: { path: readonly PropertyKey[]; message: string }): { problem: string } {
  return { problem: `${issuePath([...prefix, ...issue.path])}: ${issue.message}` };
}
