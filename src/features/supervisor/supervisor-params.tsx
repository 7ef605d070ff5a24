// The adaptive filter's parameters (SPEC §5.1): a Table 5 preset, the three thresholds, and known non-critical errors.
import { useState } from 'react';
import { PRESET_NAMES, PRESETS, type PresetName } from '../../engine/supervisor/presets.ts';
import { useEngineSettings } from '../../store/engine-settings.ts';
import { Card, Field, NumberField } from '../../ui/fields.tsx';

const PRESET_LABEL: Record<PresetName, string> = {
  gaia: 'GAIA',
  humaneval: 'HumanEval',
  mbpp: 'MBPP',
  aime: 'AIME',
  drop: 'DROP',
  'gsm-hard': 'GSM-Hard',
  oagents: 'OAgents',
};

export function SupervisorParams({ disabled }: { disabled: boolean }) {
  const s = useEngineSettings();
  const p = s.supervisor;
  const [errorsText, setErrorsText] = useState(p.nonCriticalErrors.join('\n'));
  return (
    <Card title="Supervisor parameters" testId="supervisor-params">
      <div className="space-y-3">
        <Field label="Preset" hint="SupervisorAgent’s Table 5 values per benchmark; editing a threshold makes the set custom.">
          {(id) => (
            <select
              id={id}
              className="w-full rounded border border-slate-300 px-2 py-1 text-sm"
              value={p.preset}
              disabled={disabled}
              onChange={(e) => e.target.value !== 'custom' && s.choosePreset(e.target.value as PresetName)}
            >
              {PRESET_NAMES.map((name) => (
                <option key={name} value={name}>
                  {PRESET_LABEL[name]} (τ_step {PRESETS[name].tauStep}, τ_loop {PRESETS[name].tauLoop}, τ_len {PRESETS[name].tauLen})
                </option>
              ))}
              {p.preset === 'custom' && <option value="custom">custom</option>}
            </select>
          )}
        </Field>
        <div className="grid grid-cols-3 gap-2">
          <NumberField label="τ_step" value={p.tauStep} min={1} disabled={disabled} hint="periodic check every N steps" onChange={(v) => s.setThreshold('tauStep', v)} />
          <NumberField label="τ_loop" value={p.tauLoop} min={1} disabled={disabled} hint="identical actions in a row" onChange={(v) => s.setThreshold('tauLoop', v)} />
          <NumberField label="τ_len" value={p.tauLen} min={1} disabled={disabled} hint="observation characters" onChange={(v) => s.setThreshold('tauLen', v)} />
        </div>
        <Field label="Known non-critical tool errors" hint="One per line; an error whose message or type contains one of these does not trigger the supervisor.">
          {(id) => (
            <textarea
              id={id}
              rows={3}
              className="w-full rounded border border-slate-300 px-2 py-1 font-mono text-xs"
              value={errorsText}
              disabled={disabled}
              spellCheck={false}
              placeholder="e.g. FileNotFoundError"
              onChange={(e) => {
                setErrorsText(e.target.value);
                s.setNonCriticalErrors(e.target.value.split('\n').map((l) => l.trim()).filter(Boolean));
              }}
            />
          )}
        </Field>
      </div>
    </Card>
  );
}
