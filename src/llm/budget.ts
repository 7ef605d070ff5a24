// A per-run token budget shared by every call an engine makes for one run.
import { BudgetExceeded } from './errors.ts';

export class TokenBudget {
  used = 0;

  constructor(readonly limit: number = Infinity) {}

  /** Refuse a call whose rough prompt size would take the run past its budget. */
  check(wanted: number): void {
    if (this.used >= this.limit || this.used + wanted > this.limit) throw new BudgetExceeded(this.used, this.limit, wanted);
  }

  spend(tokens: number): void {
    this.used += tokens;
  }
}
