// The engines a live run can switch on, with what each will use (thresholds, pool, parameters) and, when one cannot
// work offline, why it is switched off.
import { ENGINE_AVAILABILITY } from '../../engine/runner/gates.ts';
import { GENERAL_INDICATORS } from '../../engine/rectifier/indicators.ts';
import { useEngineSettings } from '../../store/engine-settings.ts';
import { usePool } from '../../store/indicator-pool.ts';
import { Badge } from '../../ui/badge.tsx';

export function EngineToggles({ disabled, hasEndpoint, domain, legend = 'Engines on every agent message' }: { disabled: boolean; hasEndpoint: boolean; domain?: 'math' | 'code'; legend?: string }) {
  const choice = useEngineSettings((s) => s.live);
  const setChoice = useEngineSettings((s) => s.setLive);
  const t = useEngineSettings((s) => s.supervisor);
  const params = useEngineSettings((s) => s.rectifier);
  const pool = usePool((s) => s.pool);
  const checked = { supervisor: choice.supervisor, rectifier: choice.rectifier && hasEndpoint, clarifier: choice.clarifier };
  const offline = (engine: string) => engine === 'rectifier' && !hasEndpoint;
  const zeroShot = params.zeroShot || !pool || pool.indicators.length === 0;
  const general = GENERAL_INDICATORS[domain ?? params.domain].name;
  return (
    <fieldset className="space-y-1.5" aria-label="Engines" disabled={disabled}>
      <legend className="text-xs font-medium text-slate-700">{legend}</legend>
      {ENGINE_AVAILABILITY.map((e) => {
        const usable = e.available && !offline(e.engine);
        return (
          <div key={e.engine}>
            <div className="flex items-start gap-2 text-sm">
              <input
                id={`engine-${e.engine}`}
                type="checkbox"
                className="mt-1"
                disabled={!usable}
                checked={checked[e.engine]}
                onChange={(ev) => setChoice({ [e.engine]: ev.target.checked })}
              />
              <label htmlFor={`engine-${e.engine}`} className={usable ? 'text-slate-800' : 'text-slate-400'}>
                {e.label} {!e.available && <Badge>not available</Badge>}
                {offline(e.engine) && <Badge tone="warning">needs an endpoint</Badge>}
                <span className="block text-[11px] text-slate-500">
                  {e.note}
                  {e.engine === 'supervisor' && ` · τ_step ${t.tauStep}, τ_loop ${t.tauLoop}, τ_len ${t.tauLen} (set in Engines)`}
                  {e.engine === 'rectifier' &&
                    (offline(e.engine)
                      ? ' · offline it could only retrieve indicators, not audit a message, so it cannot gate one'
                      : ` · K ${params.k}, T_max ${params.tMax}, γ ${params.gamma} (set on the Rectify page)`)}
                </span>
              </label>
            </div>
            {e.engine === 'supervisor' && choice.supervisor && (
              <label className="ml-6 flex items-center gap-2 text-xs text-slate-700">
                <input type="checkbox" checked={choice.supervisorHeuristic || !hasEndpoint} disabled={!hasEndpoint} onChange={(ev) => setChoice({ supervisorHeuristic: ev.target.checked })} />
                decide with its LLM-free heuristics{!hasEndpoint && ' (no endpoint)'}
              </label>
            )}
            {e.engine === 'rectifier' && checked.rectifier && (
              <p className="ml-6 text-xs text-slate-700" data-testid="rectifier-pool-note">
                {zeroShot ? (
                  <>
                    <Badge tone="info">zero-shot</Badge> {params.zeroShot ? 'zero-shot mode is chosen' : 'no indicator pool is loaded'}: every message is audited against the general
                    indicator <span className="font-mono">{general}</span> alone (load a pool on the Rectify page to retrieve from it).
                  </>
                ) : (
                  <>
                    Pool <span className="font-mono">{pool!.name}</span> ({pool!.indicators.length} indicators, from the Rectify page); fewer than γ surviving messages restart the
                    team without auditing.
                  </>
                )}
              </p>
            )}
            {e.engine === 'clarifier' && choice.clarifier && (
              <label className="ml-6 flex items-center gap-2 text-xs text-slate-700">
                <input type="checkbox" checked={choice.clarifierHeuristic || !hasEndpoint} disabled={!hasEndpoint} onChange={(ev) => setChoice({ clarifierHeuristic: ev.target.checked })} />
                flag with its LLM-free rules, labelled heuristic (asks nobody, changes no message){!hasEndpoint && ' (no endpoint)'}
              </label>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}
