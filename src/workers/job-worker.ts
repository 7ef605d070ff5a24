// The page's side of an engine worker, shared by every client: one worker of its kind, started on first use; a job is
// a call that a signal stops (the worker's `stop(jobId)` aborts it, and the job resolves with its partial result);
// a worker that dies or fails to load rejects the jobs it holds instead of leaving them hanging, and the next job
// starts a fresh one.
import * as Comlink from 'comlink';
import type { Run } from '../model/types.ts';
import { ferried, ferryPlan, RunFerry, type Ferried, type FerriedRun, type FerryHostApi, type FerryPlan, type FerryShape } from './run-ferry.ts';

/** Every engine worker: its jobs stop, and it takes runs through the ferry (run-ferry.ts, ADR 0057). */
export interface StoppableApi extends FerryHostApi {
  stop(jobId: number): void;
}

/**
 * A pass's callbacks as a worker calls them: its results posted in batches offline (`onItems`, src/workers/pump.ts)
 * are given to the page's `onItem` one by one, so the page's callbacks need not know how they travelled.
 */
export function passEventsProxy<Item, Events extends { onItem(item: Item, resumed: boolean): void }>(events: Events) {
  return Comlink.proxy({
    ...events,
    onItems(items: Item[], resumed: boolean[]) {
      for (let i = 0; i < items.length; i++) events.onItem(items[i], resumed[i]);
    },
  });
}

/** A worker lets go of the runs it holds after this long without a call that takes runs (RunFerry's idleMs). */
export const RUNS_IDLE_MS = 60_000;

export class JobWorker<Api extends StoppableApi> {
  private worker: Worker | undefined;
  private remoteApi: Comlink.Remote<Api> | undefined;
  /** What this worker holds of the page's runs; a fresh worker holds nothing. */
  private ferry: RunFerry | undefined;
  private nextJobId = 1;

  /**
   * `create` must call `new Worker(new URL('./x.worker.ts', import.meta.url), …)` literally (that is how the bundler
   * finds the worker); `label` names it in errors ("the supervisor worker stopped unexpectedly").
   */
  constructor(
    private readonly create: () => Worker,
    private readonly label: string,
  ) {}

  private connect(): { worker: Worker; remote: Comlink.Remote<Api> } {
    if (!this.worker || !this.remoteApi) {
      this.worker = this.create();
      this.remoteApi = Comlink.wrap<Api>(this.worker);
      this.ferry = new RunFerry(this.remoteApi as unknown as Comlink.Remote<FerryHostApi>, RUNS_IDLE_MS);
    }
    return { worker: this.worker, remote: this.remoteApi };
  }

  private disconnect(): void {
    this.worker?.terminate();
    this.worker = undefined;
    this.remoteApi = undefined;
    this.ferry = undefined;
  }

  /**
   * A call that takes runs: they reach the worker through the ferry, in parts that never hold the page's thread long,
   * and the call gets them as FerriedRuns (the worker's runOf makes them runs again).
   */
  withRuns<T>(runs: readonly Run[], call: (api: Comlink.Remote<Api>, runs: FerriedRun[]) => Promise<T>): Promise<T> {
    const { remote } = this.connect();
    return this.ferry!.use(runs, (ferried) => call(remote, ferried));
  }

  /**
   * withRuns, and one more value with a large array (of `shape`) sent through the ferry too: held by the worker while
   * the calls name it, so a call that repeats it (a pool with every estimate) costs no copy.
   */
  withRunsAnd<T, X extends object>(runs: readonly Run[], extra: X, shape: FerryShape, call: (api: Comlink.Remote<Api>, runs: FerriedRun[], extra: Ferried<X>) => Promise<T>): Promise<T> {
    const { remote } = this.connect();
    const plans: FerryPlan<object>[] = [...runs.map(ferried), ferryPlan(extra, shape)];
    return this.ferry!.usePlans(plans, (values) => call(remote, values.slice(0, runs.length) as FerriedRun[], values[runs.length] as Ferried<X>));
  }

  /** Lets the worker drop the runs it holds (none of its calls in flight needs them); a worker not started holds none. */
  async releaseRuns(): Promise<void> {
    await this.ferry?.release();
  }

  /** For calls that are not jobs (quick questions, no stop). */
  remote(): Comlink.Remote<Api> {
    return this.connect().remote;
  }

  job<T>(signal: AbortSignal | undefined, start: (api: Comlink.Remote<Api>, jobId: number) => Promise<T>): Promise<T> {
    const { worker, remote } = this.connect();
    const jobId = this.nextJobId++;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => void remote.stop(jobId);
      const onError = (e: ErrorEvent) => {
        this.disconnect();
        reject(new Error(e.message || `the ${this.label} worker stopped unexpectedly`));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.addEventListener('error', onError, { once: true });
      start(remote, jobId)
        .then(resolve, reject)
        .finally(() => {
          signal?.removeEventListener('abort', onAbort);
          worker.removeEventListener('error', onError);
        });
      if (signal?.aborted) onAbort();
    });
  }
}
