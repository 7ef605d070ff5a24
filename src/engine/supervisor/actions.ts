// The four supervisor actions and which of them each context allows (SPEC §5.1).
import type { SupervisorContext } from './filter.ts';

export type SupervisorAction = 'approve' | 'provide_guidance' | 'correct_observation' | 'run_verification';

export const ALL_ACTIONS: readonly SupervisorAction[] = ['approve', 'correct_observation', 'provide_guidance', 'run_verification'];

export const ALLOWED_ACTIONS: Record<SupervisorContext, readonly SupervisorAction[]> = {
  error: ['correct_observation', 'provide_guidance', 'run_verification'],
  inefficient: ['approve', 'provide_guidance'],
  excessive: ['correct_observation'],
  subagent_completion: ['correct_observation'],
};

export const ACTION_HELP: Record<SupervisorAction, string> = {
  approve: 'leave the step as it is; the agent is on a reasonable path.',
  correct_observation: 'replace the observation with a corrected or cleaned version that you write in full.',
  provide_guidance: 'keep the observation and add a short, concrete instruction for the agent’s next move.',
  run_verification: 'hand one precise question to a verification assistant when a fact or result needs checking.',
};

export interface Decision {
  analysis: string;
  action: SupervisorAction;
  parameters: { new_observation?: string; guidance?: string; task?: string };
}
