// What a fork is asked to change at step k and what it gives back, shared by the chat-style fork (fork.ts) and the
// recorded-prompt fork (prompt-fork.ts) so that neither imports the other for its types.
import type { ForkStats, Run } from '../../model/types.ts';
import type { RunStatus } from './run-builder.ts';

export type ForkEdit =
  | { kind: 'none' }
  | { kind: 'replace'; text: string }
  | { kind: 'append'; text: string }
  | { kind: 'prune' };

export type { ForkStats };

export interface ForkResult {
  run: Run;
  status: RunStatus;
  /** Why the fork stopped early, in words. */
  reason?: string;
  stats: ForkStats;
}
