// A counting semaphore: at most `limit` calls in flight; waiting callers can give up through their AbortSignal.
import { Cancelled } from './errors.ts';

export class ConcurrencyLimiter {
  private active = 0;
  private readonly waiting: { resolve: () => void; reject: (e: unknown) => void }[] = [];

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new Error(`concurrency must be at least 1, got ${limit}`);
  }

  get inFlight(): number {
    return this.active;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) throw new Cancelled();
    if (this.active < this.limit) {
      this.active++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const waiter = { resolve, reject };
      this.waiting.push(waiter);
      signal?.addEventListener(
        'abort',
        () => {
          const i = this.waiting.indexOf(waiter);
          if (i !== -1) this.waiting.splice(i, 1);
          reject(new Cancelled());
        },
        { once: true },
      );
    });
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `active` stays the same.
      if (next) next.resolve();
      else this.active--;
    };
  }
}
