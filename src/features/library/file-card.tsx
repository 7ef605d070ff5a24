// One opened file: its format, what came with it, and its runs.
import { useState } from 'react';
import { useShallow } from 'zustand/shallow';
import type { Run } from '../../model/types.ts';
import { originOf, parsePreferences, useEngineSettings } from '../../store/engine-settings.ts';
import { attachedSetCount, runsOfFile, useLibrary, type LibraryFile } from '../../store/library.ts';
import { Badge, SimulatedBadge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { callsOfRuns, downloadText, otlpText, safeFileName, sessionText } from './download.ts';
import { RunTable } from './run-table.tsx';
import { SpanImportReport } from './span-report.tsx';

export function FileCard({ file }: { file: LibraryFile }) {
  const runs = useLibrary(useShallow((s) => runsOfFile(file, s.runs)));
  const removeFile = useLibrary((s) => s.removeFile);
  const exportRun = async (run: Run) => {
    const calls = callsOfRuns([run], useLibrary.getState().llmCalls);
    downloadText(await sessionText([run], calls, run.title), `${safeFileName(run.id)}.session.json`);
  };
  const exportRunOtlp = async (run: Run) => downloadText(await otlpText([run]), `${safeFileName(run.id)}.otlp.json`);
  const sets = file.annotationSets ?? [];
  const annotated = attachedSetCount(file, useLibrary.getState().runs);
  return (
    <section className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm" aria-label={`File ${file.name}`} data-testid="library-file">
      <header className="mb-2 flex flex-wrap items-center gap-2">
        <h3 className="font-mono text-sm font-semibold break-all text-slate-900">{file.name}</h3>
        <Badge>{file.formatLabel}</Badge>
        {file.simulated && <SimulatedBadge />}
        <span className="text-xs text-slate-500">
          {runs.length} run{runs.length === 1 ? '' : 's'} · opened {new Date(file.addedAt).toLocaleString('en')}
        </span>
        <span className="ml-auto flex gap-1">
          <Button size="sm" variant="danger" onClick={() => removeFile(file.id)} aria-label={`Remove ${file.name} from the library`}>
            Remove
          </Button>
        </span>
      </header>
      {sets.length > 0 && (
        <p className="mb-2 text-sm text-slate-700">
          Annotations for {sets.length} run{sets.length === 1 ? '' : 's'} ({sets.reduce((n, s) => n + s.annotations.length, 0)} labels);{' '}
          {annotated === sets.length ? 'all attached' : `${annotated} attached, the rest attach when their trace is opened`}.
        </p>
      )}
      {file.engineSettings && <SavedSettings settings={file.engineSettings} />}
      <SpanImportReport runs={runs} />
      {file.warnings.length > 0 && (
        <ul className="mb-2 list-disc pl-5 text-xs text-amber-800">
          {file.warnings.map((w, i) => (
            <li key={i}>{w}</li>
          ))}
        </ul>
      )}
      {runs.length > 0 && <RunTable runs={runs} onExport={(run) => void exportRun(run)} onExportOtlp={(run) => void exportRunOtlp(run)} />}
    </section>
  );
}

/**
 * Engine settings saved in the file: shown, and applied only when the person asks (they name an endpoint). When the
 * file's endpoint is on another origin than the current one, the card says so, naming both, before the click.
 */
function SavedSettings({ settings }: { settings: Record<string, unknown> }) {
  const apply = useEngineSettings((s) => s.applyPreferences);
  const endpoint = useEngineSettings((s) => s.endpoint);
  const supervisor = useEngineSettings((s) => s.supervisor);
  const apiKey = useEngineSettings((s) => s.apiKey);
  const keyNotice = useEngineSettings((s) => s.keyNotice);
  const [applied, setApplied] = useState(false);
  const saved = parsePreferences(JSON.stringify(settings));
  const same = JSON.stringify([saved.endpoint, saved.supervisor]) === JSON.stringify([endpoint, supervisor]);
  const where = saved.endpoint.mode === 'endpoint' && saved.endpoint.baseUrl ? `endpoint ${saved.endpoint.baseUrl}` : 'offline heuristics';
  const fileOrigin = originOf(saved.endpoint.baseUrl);
  const currentOrigin = originOf(endpoint.baseUrl);
  const otherOrigin = !same && fileOrigin !== currentOrigin && (fileOrigin !== undefined || apiKey !== undefined);
  return (
    <div className="mb-2 space-y-1 text-sm text-slate-700" data-testid="saved-settings">
      <p className="flex flex-wrap items-center gap-2">
        <span>
          Engine settings saved in this file: {where}
          {saved.endpoint.models.supervisor ? `, supervisor model “${saved.endpoint.models.supervisor}”` : ''}, preset {saved.supervisor.preset} (no API key).
        </span>
        <Button
          size="sm"
          disabled={same}
          onClick={() => {
            apply(settings);
            setApplied(true);
          }}
          title="Replace the engines panel's endpoint and supervisor settings with these"
        >
          {same ? 'In use' : 'Use these settings'}
        </Button>
      </p>
      {otherOrigin && (
        <p role="alert" data-testid="saved-settings-warning" className="rounded bg-amber-50 px-2 py-1 text-xs text-amber-900">
          This file names the endpoint {fileOrigin ?? 'none'}, not the current {currentOrigin ?? 'none'}: with these settings the engines send
          requests to {fileOrigin ?? 'no endpoint'}
          {apiKey ? `, and the API key entered for ${apiKey.origin || 'no endpoint'} is cleared (it is never sent to another origin)` : ''}.
        </p>
      )}
      {applied && keyNotice && (
        <p role="status" data-testid="saved-settings-key-notice" className="text-xs text-amber-900">
          {keyNotice}
        </p>
      )}
    </div>
  );
}
