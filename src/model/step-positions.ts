// Replay positions by step id, and the handoffs each step sends, without a Map entry per step (issue 14 goal 2,
// ADR 0028). At a million steps a Map (or Set) keyed by every step id cost 300–500 ms to fill, plus its garbage, and
// the run view built three of them (positions in the view and again in the graph, the steps that hand off); a Map of
// one-element arrays for the handoffs by step cost as much again. Here the ids are hashed into an open-addressing
// table of Int32Arrays that points back at the steps (the ids stay where they are, in the step objects): one pass of
// integer work, no object per step, and lookups compare the id only when its 32-bit hash matches.
import type { Handoff, Step } from './types.ts';
import { SLICE, finish, phase, type Sliced } from './slices.ts';
import { hash32 } from './hash.ts';
import { fillSlots, inSlotOrderSlices, slotMask } from './slot-order.ts';

/**
 * The replay position of any step id: the replay steps' own ids in a hash table over their positions, and the ids of
 * nested steps (few in most runs; added with `add`) in a Map beside it. A ReadonlyMap, so a panel reads it as before.
 * When two replay steps share an id, the later position wins, as `Map.set` in position order did.
 */
export class StepPositions implements ReadonlyMap<string, number> {
  /**
   * Two numbers per slot, side by side so that a probe reads one cache line: at 2·slot the position + 1 (0: an empty
   * slot), at 2·slot + 1 the hash of that step's id.
   */
  private readonly table: Int32Array;
  /** Slots - 1 (a power of two). */
  private readonly mask: number;
  private readonly nested = new Map<string, number>();
  private distinct = 0;
  /** Whether two replay steps share an id (a trace the schema lets through): `near` then defers to the table. */
  duplicates = false;

  /** Empty: fill with `build` (or use stepPositions / stepPositionsSlices). */
  constructor(private readonly steps: readonly Step[]) {
    this.mask = slotMask(steps.length);
    this.table = new Int32Array(2 * (this.mask + 1));
  }

  /**
   * Puts the replay steps in the table, yielding every SLICE steps or so. The steps go in in the order of their home
   * slots, not of their positions: hashed first, then sorted into blocks of slots (slot-order.ts: a counting sort,
   * positions rising within a block), so that the inserts walk the table from start to end. In position order each
   * insert read a random slot of a table larger than the processor's caches (16 MB at a million steps) (ADR 0092).
   * Linear probing finds an id whatever the order it was put in, and two steps of one id share a block in rising
   * position, so the later one still wins.
   */
  *build(): Sliced<StepPositions> {
    const { steps, table, mask } = this;
    const n = steps.length;
    const work = 4 * n || 1;
    const hashes = new Int32Array(n);
    // Made apart from the slice before (which may have copied the run's rows): both are several ms at a million steps.
    yield 0;
    for (let p = 0; p < n; p++) {
      if (p % SLICE === SLICE - 1) yield p / work;
      hashes[p] = hash32(steps[p].id);
    }
    yield n / work;
    const { order, orderHashes } = yield* phase(inSlotOrderSlices(hashes, mask), n / work, (3 * n) / work);
    yield (3 * n) / work;
    const same = (a: number, b: number) => steps[a].id === steps[b].id;
    const repeat = () => (this.duplicates = true);
    for (let k = 0; k < n; k += SLICE) {
      if (k > 0) yield (3 * n + k) / work;
      this.distinct += fillSlots(table, mask, order, orderHashes, k, Math.min(n, k + SLICE), same, repeat);
    }
    return this;
  }

  /** The position of the replay step with this id (not a nested step's), or undefined. */
  replay(id: string): number | undefined {
    const { steps, table, mask } = this;
    const h = hash32(id);
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const at = table[2 * slot];
      if (at === 0) return undefined;
      if (table[2 * slot + 1] === h && steps[at - 1].id === id) return at - 1;
    }
  }

  /**
   * replay(id), looked for first at `hint` and the next few positions: ids named in step order (a chat log's handoffs)
   * are found without hashing.
   */
  near(id: string, hint: number): number | undefined {
    if (!this.duplicates) {
      const end = Math.min(this.steps.length, hint + 4);
      for (let p = hint < 0 ? 0 : hint; p < end; p++) if (this.steps[p].id === id) return p;
    }
    return this.replay(id);
  }

  /** A nested step's position (the replay step holding it); ids already present are left as they are. */
  add(id: string, position: number): void {
    if (!this.has(id)) this.nested.set(id, position);
  }

  get(id: string): number | undefined {
    return this.replay(id) ?? (this.nested.size > 0 ? this.nested.get(id) : undefined);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  get size(): number {
    return this.distinct + this.nested.size;
  }

  /** Replay steps in position order (a shared id once, at its last position), then nested steps as added. */
  *entries(): MapIterator<[string, number]> {
    for (let p = 0; p < this.steps.length; p++) {
      const id = this.steps[p].id;
      if (!this.duplicates || this.replay(id) === p) yield [id, p];
    }
    yield* this.nested.entries();
  }

  *keys(): MapIterator<string> {
    for (const [id] of this.entries()) yield id;
  }

  *values(): MapIterator<number> {
    for (const [, p] of this.entries()) yield p;
  }

  [Symbol.iterator](): MapIterator<[string, number]> {
    return this.entries();
  }

  forEach(callback: (value: number, key: string, map: ReadonlyMap<string, number>) => void, thisArg?: unknown): void {
    for (const [id, p] of this.entries()) callback.call(thisArg, p, id, this);
  }
}

/** The positions of `replaySteps`' ids, in slices. */
export function stepPositionsSlices(replaySteps: readonly Step[]): Sliced<StepPositions> {
  return new StepPositions(replaySteps).build();
}

export function stepPositions(replaySteps: readonly Step[]): StepPositions {
  return finish(stepPositionsSlices(replaySteps));
}

const NO_HANDOFFS: readonly Handoff[] = Object.freeze([]);
const NO_INTS: Int32Array<ArrayBuffer> = new Int32Array(0);

/**
 * The handoffs each step sends, by the step id they name, in the handoffs' order (a ReadonlyMap, keys in the order
 * their first handoff comes). Handoffs that name a replay step are chained by position in Int32Arrays; the few that
 * name a nested step or an unknown id are in a Map. A step's list is made when it is asked for, and kept.
 */
export class HandoffsByStep implements ReadonlyMap<string, readonly Handoff[]> {
  /**
   * Position → first handoff naming its step (-1: none); handoff → the next naming the same step. Empty when the run
   * has no handoffs (a flat OTLP run of a million steps: 4 MB saved, and the same again for `tail`).
   */
  private head = NO_INTS;
  private next = NO_INTS;
  private readonly other = new Map<string, Handoff[]>();
  private positionByHandoff = NO_INTS;
  private readonly lists = new Map<number, readonly Handoff[]>();
  private keyCount = 0;

  /** Handoff → the position of the replay step it names (-1: none, a nested step or an unknown id); the graph reads it. */
  get positionOfHandoff(): Int32Array {
    return this.positionByHandoff;
  }

  /** Empty: fill with `build` (or use handoffsByStepSlices). */
  constructor(
    private readonly handoffs: readonly Handoff[],
    private readonly positions: StepPositions,
    private readonly steps: number,
  ) {}

  *build(): Sliced<HandoffsByStep> {
    const { handoffs, positions } = this;
    // The four arrays, made and set to -1 a slice at a time: at a million steps and handoffs they are 16 MB, and made
    // at once they were a task of 10–50 ms on the 2-core machine (ADR 0106). Their share of the progress: a fifth.
    const perStep = handoffs.length > 0 ? this.steps : 0;
    const sizes = [perStep, perStep, handoffs.length, handoffs.length];
    const total = 5 * (2 * perStep + 2 * handoffs.length) || 1;
    const made: Int32Array<ArrayBuffer>[] = [];
    let done = 0;
    for (const size of sizes) {
      const ints = new Int32Array(size);
      for (let from = 0; from < size; from += 4 * SLICE) {
        ints.fill(-1, from, Math.min(size, from + 4 * SLICE));
        done += Math.min(size, from + 4 * SLICE) - from;
        yield done / total;
      }
      made.push(ints);
    }
    const [head, tail, next, positionOfHandoff] = made;
    this.head = head;
    this.next = next;
    this.positionByHandoff = positionOfHandoff;
    const spare = 1 - done / total;
    let hint = 0;
    for (let k = 0; k < handoffs.length; k++) {
      if (k % SLICE === SLICE - 1) yield done / total + (spare * k) / handoffs.length;
      const stepId = handoffs[k].stepId;
      if (stepId === undefined) continue;
      const p = positions.near(stepId, hint);
      if (p === undefined) {
        const list = this.other.get(stepId);
        if (list) list.push(handoffs[k]);
        else {
          this.other.set(stepId, [handoffs[k]]);
          this.keyCount++;
        }
        continue;
      }
      hint = p;
      positionOfHandoff[k] = p;
      if (head[p] === -1) {
        head[p] = k;
        this.keyCount++;
      } else next[tail[p]] = k;
      tail[p] = k;
    }
    // `tail` (the last handoff of each step) only served the chains' building, and is let go with this call.
    return this;
  }

  get(stepId: string): readonly Handoff[] | undefined {
    // No handoff names a replay step when there are none (the table is then empty): no lookup by id.
    const p = this.head.length > 0 ? this.positions.replay(stepId) : undefined;
    if (p === undefined || this.head[p] === -1) return this.other.size > 0 ? this.other.get(stepId) : undefined;
    let list = this.lists.get(p);
    if (!list) {
      const out: Handoff[] = [];
      for (let k = this.head[p]; k !== -1; k = this.next[k]) out.push(this.handoffs[k]);
      this.lists.set(p, (list = out));
    }
    return list;
  }

  has(stepId: string): boolean {
    return this.get(stepId) !== undefined;
  }

  get size(): number {
    return this.keyCount;
  }

  *entries(): MapIterator<[string, readonly Handoff[]]> {
    for (let k = 0; k < this.handoffs.length; k++) {
      const stepId = this.handoffs[k].stepId;
      if (stepId === undefined) continue;
      const list = this.get(stepId) ?? NO_HANDOFFS;
      if (list[0] === this.handoffs[k]) yield [stepId, list];
    }
  }

  *keys(): MapIterator<string> {
    for (const [id] of this.entries()) yield id;
  }

  *values(): MapIterator<readonly Handoff[]> {
    for (const [, list] of this.entries()) yield list;
  }

  [Symbol.iterator](): MapIterator<[string, readonly Handoff[]]> {
    return this.entries();
  }

  forEach(callback: (value: readonly Handoff[], key: string, map: ReadonlyMap<string, readonly Handoff[]>) => void, thisArg?: unknown): void {
    for (const [id, list] of this.entries()) callback.call(thisArg, list, id, this);
  }
}

/** The handoffs of a run by the step id they name, in slices; `positions` are the run's replay positions. */
export function handoffsByStepSlices(handoffs: readonly Handoff[], positions: StepPositions, steps: number): Sliced<HandoffsByStep> {
  return new HandoffsByStep(handoffs, positions, steps).build();
}
