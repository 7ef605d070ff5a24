// The worker side of an engine job (the page side is ./job-worker.ts): each job runs with an AbortSignal that the
// page's `stop(jobId)` fires, and a run's token budget counts what earlier, interrupted passes over it spent.
import { TokenBudget } from '../llm/budget.ts';

export class RunningJobs {
  private readonly running = new Map<number, AbortController>();
  /**
   * Jobs stopped before they started: a job's runs may still be crossing to the worker (run-ferry.ts) when the page
   * stops it, and its start then comes after the stop. It starts stopped, and returns its (empty) partial result.
   */
  private readonly stoppedEarly = new Set<number>();

  async run<T>(jobId: number, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    if (this.stoppedEarly.delete(jobId)) controller.abort();
    this.running.set(jobId, controller);
    try {
      return await body(controller.signal);
    } finally {
      this.running.delete(jobId);
    }
  }

  stop(jobId: number): void {
    const job = this.running.get(jobId);
    if (job) job.abort();
    else this.stoppedEarly.add(jobId);
  }
}

/** The per-run budget, less what this run's earlier results already spent (an interrupted pass resumes within it). */
export function runBudget(llm: { tokenBudgetPerRun?: number } | undefined, previous: readonly { tokens?: { total: number } }[]): TokenBudget {
  const budget = new TokenBudget(llm?.tokenBudgetPerRun ?? Infinity);
  budget.spend(previous.reduce((sum, r) => sum + (r.tokens?.total ?? 0), 0));
  return budget;
}
