// The worker's side of the run ferry (run-ferry.ts, ADR 0057): the parts of a run's large arrays are put together
// under their token as they come (in order: one port delivers messages in the order they were posted), and a call's
// FerriedRun is made a Run again from them. The page decides what is dropped.
import type { Run } from '../model/types.ts';
import type { Ferried, FerriedRun, FerryHostApi } from './run-ferry.ts';

const held = new Map<number, unknown[]>();

export const ferryHostApi: FerryHostApi = {
  receiveRunPart(token: number, items: unknown[], length: number): void {
    let array = held.get(token);
    if (!array) held.set(token, (array = []));
    for (let i = 0; i < items.length; i++) array.push(items[i]);
    if (array.length > length) throw new Error(`run ferry: array ${token} received ${array.length} items of ${length}`);
  },
  dropRunArrays(tokens: number[]): void {
    for (const t of tokens) held.delete(t);
  },
};

/** The run a FerriedRun stands for; throws if one of its arrays has not come whole (a page bug, never a user's). */
export function runOf(f: FerriedRun): Run {
  return valueOf(f, `run ${f.head.id}`);
}

/** The value a Ferried value stands for (`what` names it in the error when one of its arrays has not come whole). */
export function valueOf<T>(f: Ferried<T>, what: string): T {
  const value: Record<string, unknown> = { ...(f.head as object) };
  for (const { key, token, length } of f.arrays) {
    const array = held.get(token);
    if (!array || array.length !== length) throw new Error(`run ferry: the ${key} of ${what} are not here (${array?.length ?? 0} of ${length})`);
    value[key] = array;
  }
  return value as T;
}

/** How many arrays this worker holds (for tests). */
export function heldArrays(): number {
  return held.size;
}
