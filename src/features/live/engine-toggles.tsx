// The engines a live run can switch on: those this build has, and those it does not have yet, said plainly.
import { ENGINE_AVAILABILITY } from '../../engine/runner/gates.ts';
import { useEngineSettings } from '../../store/engine-settings.ts';
import { Badge } from '../../ui/badge.tsx';
import { useEngineChoice } from './live-endpoint.ts';

export function EngineToggles({ disabled, hasEndpoint }: { disabled: boolean; hasEndpoint: boolean }) {
  const choice = useEngineChoice();
  const t = useEngineSettings((s) => s.supervisor);
  return (
    <fieldset className="space-y-1.5" aria-label="Engines" disabled={disabled}>
      <legend className="text-xs font-medium text-slate-700">Engines on every agent message</legend>
      {ENGINE_AVAILABILITY.map((e) => (
        <div key={e.engine}>
          <div className="flex items-start gap-2 text-sm">
            <input
              id={`engine-${e.engine}`}
              type="checkbox"
              className="mt-1"
              disabled={!e.available}
              checked={e.engine === 'supervisor' ? choice.supervisor : false}
              onChange={(ev) => e.engine === 'supervisor' && choice.set({ supervisor: ev.target.checked })}
            />
            <label htmlFor={`engine-${e.engine}`} className={e.available ? 'text-slate-800' : 'text-slate-400'}>
              {e.label} {!e.available && <Badge>not available</Badge>}
              <span className="block text-[11px] text-slate-500">
                {e.note}
                {e.engine === 'supervisor' && ` · τ_step ${t.tauStep}, τ_loop ${t.tauLoop}, τ_len ${t.tauLen} (set in Engines)`}
              </span>
            </label>
          </div>
          {e.engine === 'supervisor' && choice.supervisor && (
            <label className="ml-6 flex items-center gap-2 text-xs text-slate-700">
              <input type="checkbox" checked={choice.supervisorHeuristic || !hasEndpoint} disabled={!hasEndpoint} onChange={(ev) => choice.set({ supervisorHeuristic: ev.target.checked })} />
              decide with its LLM-free heuristics{!hasEndpoint && ' (no endpoint)'}
            </label>
          )}
        </div>
      ))}
    </fieldset>
  );
}
