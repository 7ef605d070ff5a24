// The endpoint and engine switches the live pages use, read from the one settings store: the endpoint, the agents'
// model (role `agents`, else the supervisor's), which engines are on, and each engine's parameters.
import { useMemo } from 'react';
import { effectiveMode, endpointProblem, toLlmSettings, useEngineSettings } from '../../store/engine-settings.ts';
import { modelFor, type LlmSettings } from '../../store/endpoint.ts';
import type { EngineSwitches } from '../../workers/live-client.ts';
import { usePool } from '../../store/indicator-pool.ts';

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

/**
 * The switched-on engines with their settings: the supervisor's thresholds and the rectifier's parameters from the
 * settings store, the indicator pool from the Rectify page (no pool: zero-shot with the general indicator of the task's kind).
 */
export function useEngineSwitches(hasEndpoint: boolean, domain?: 'math' | 'code'): EngineSwitches {
  const choice = useEngineSettings((s) => s.live);
  const thresholds = useEngineSettings((s) => s.supervisor);
  const params = useEngineSettings((s) => s.rectifier);
  const pool = usePool((s) => s.pool);
  return useMemo(() => {
    const out: EngineSwitches = {};
    if (choice.supervisor) out.supervisor = { tauStep: thresholds.tauStep, tauLoop: thresholds.tauLoop, tauLen: thresholds.tauLen, heuristic: choice.supervisorHeuristic || !hasEndpoint };
    if (choice.rectifier && hasEndpoint) {
      out.rectifier = { params: { ...params, domain: domain ?? params.domain } };
      if (pool && pool.indicators.length > 0 && !params.zeroShot) out.rectifier.pool = pool;
    }
    if (choice.clarifier) out.clarifier = { heuristic: choice.clarifierHeuristic || !hasEndpoint };
    return out;
  }, [choice.supervisor, choice.supervisorHeuristic, choice.rectifier, choice.clarifier, choice.clarifierHeuristic, thresholds, params, pool, hasEndpoint, domain]);
}
