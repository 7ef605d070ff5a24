// The endpoint and engine switches the live pages use: the Engines panel's settings (one place to set them), the
// agents' model (role `agents`, else the supervisor's), and the supervisor's thresholds when it is switched on.
import { useMemo } from 'react';
import { create } from 'zustand';
import { modelFor, type LlmSettings } from '../../llm/settings.ts';
import { effectiveMode, endpointProblem, toLlmSettings, useEngineSettings } from '../../store/engine-settings.ts';
import type { EngineSwitches } from '../../workers/live-client.ts';

export interface LiveEndpoint {
  settings?: LlmSettings;
  /** Why the endpoint cannot be used, in words (when `settings` is absent). */
  problem?: string;
  agentsModel?: string;
}

export function useLiveEndpoint(): LiveEndpoint {
  const endpoint = useEngineSettings((s) => s.endpoint);
  const apiKey = useEngineSettings((s) => s.apiKey);
  return useMemo(() => {
    if (effectiveMode(endpoint) !== 'endpoint') {
      const why = endpoint.mode !== 'endpoint' ? 'the Engines panel is set to offline' : endpointProblem(endpoint);
      return { problem: `no endpoint: ${why} (set one in Engines)` };
    }
    const settings = toLlmSettings(endpoint, apiKey);
    return { settings, agentsModel: modelFor(settings, 'agents') };
  }, [endpoint, apiKey]);
}

interface EngineChoice {
  supervisor: boolean;
  /** Decide with the LLM-free heuristics even when an endpoint is set. */
  supervisorHeuristic: boolean;
  set(patch: Partial<Omit<EngineChoice, 'set'>>): void;
}

/** Which engines the live pages switch on (shared by Runner, Batch and Fork). */
export const useEngineChoice = create<EngineChoice>((set) => ({
  supervisor: false,
  supervisorHeuristic: false,
  set: (patch) => set(patch),
}));

export function useEngineSwitches(hasEndpoint: boolean): EngineSwitches {
  const choice = useEngineChoice();
  const thresholds = useEngineSettings((s) => s.supervisor);
  return useMemo(
    () =>
      choice.supervisor
        ? { supervisor: { tauStep: thresholds.tauStep, tauLoop: thresholds.tauLoop, tauLen: thresholds.tauLen, heuristic: choice.supervisorHeuristic || !hasEndpoint } }
        : {},
    [choice.supervisor, choice.supervisorHeuristic, thresholds, hasEndpoint],
  );
}
