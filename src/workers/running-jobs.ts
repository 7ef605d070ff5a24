// The worker side of an engine job (the page side is ./job-worker.ts): each job runs with an AbortSignal that the
// page's `stop(jobId)` fires, and a run's token budget counts what earlier, interrupted passes over it spent.
import { TokenBudget } from '../llm/budget.ts';

export class RunningJobs {
  private readonly running = new Map<number, AbortController>();

  async run<T>(jobId: number, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    this.running.set(jobId, controller);
    try {
      return await body(controller.signal);
    } finally {
      this.running.delete(jobId);
    }
  }

  stop(jobId: number): void {
    this.running.get(jobId)?.abort();
  }
}

/** The per-run budget, less what this run's earlier results already spent (an interrupted pass resumes within it). */
export function runBudget(llm: { tokenBudgetPerRun?: number } | undefined, previous: readonly { tokens?: { total: number } }[]): TokenBudget {
  const budget = new TokenBudget(llm?.tokenBudgetPerRun ?? Infinity);
  budget.spend(previous.reduce((sum, r) => sum + (r.tokens?.total ?? 0), 0));
  return budget;
}
