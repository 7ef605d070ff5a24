// One opened file in the library's file list: its format, what came with it, and the actions on the whole file.
import { useState } from 'react';
import { useShallow } from 'zustand/shallow';
import { parsePreferences, useEngineSettings } from '../../store/engine-settings.ts';
import { originOf } from '../../store/endpoint.ts';
import { attachedSetCount, runsOfFile, useLibrary, type LibraryFile, type RemovedRuns } from '../../store/library.ts';
import { Badge, SimulatedBadge } from '../../ui/badge.tsx';
import { Button } from '../../ui/button.tsx';
import { callsOfRuns, exportOtlpFile, exportSessionFile, safeFileName } from './download.ts';
import { SpanImportReport } from './span-report.tsx';

/** One opened file: its format, run count, what came with it, and the actions on the whole file. */
export function FileCard({ file, onRemoved, onShowRuns }: { file: LibraryFile; onRemoved(removed: RemovedRuns): void; onShowRuns(fileId: string): void }) {
  const runs = useLibrary(useShallow((s) => runsOfFile(file, s.runs)));
  const removeFile = useLibrary((s) => s.removeFile);
  const exportFile = () => exportSessionFile(runs, callsOfRuns(runs, useLibrary.getState().llmCalls), `${safeFileName(file.name)}.session.json`, file.name);
  const exportOtlp = () => exportOtlpFile(runs, `${safeFileName(file.name)}.otlp.json`);
  const sets = file.annotationSets ?? [];
  const annotated = attachedSetCount(file, useLibrary.getState().runs);
  return (
    <section className="rounded border border-slate-200 bg-white px-3 py-1.5" aria-label={`File ${file.name}`} data-testid="library-file">
      <header className="flex flex-wrap items-center gap-2">
        <h3 className="font-mono text-sm font-semibold break-all text-slate-900">{file.name}</h3>
        <Badge>{file.formatLabel}</Badge>
        {file.simulated && <SimulatedBadge />}
        <span className="text-xs text-slate-500">
          {runs.length} run{runs.length === 1 ? '' : 's'} · opened {new Date(file.addedAt).toLocaleString('en')}
        </span>
        <span className="ml-auto flex gap-1">
          {runs.length > 0 && (
            <>
              <Button size="sm" variant="ghost" onClick={() => onShowRuns(file.id)} aria-label={`Show only the runs of ${file.name}`}>
                Show runs
              </Button>
              <Button size="sm" variant="ghost" onClick={() => void exportFile()} aria-label={`Export the runs of ${file.name} as a session`}>
                Export
              </Button>
              <Button size="sm" variant="ghost" onClick={() => void exportOtlp()} aria-label={`Export the runs of ${file.name} as OTLP/JSON`}>
                OTLP
              </Button>
            </>
          )}
          <Button
            size="sm"
            variant="danger"
            onClick={() => {
              const removed = removeFile(file.id);
              if (removed) onRemoved(removed);
            }}
            aria-label={`Remove ${file.name} from the library`}
          >
            Remove
          </Button>
        </span>
      </header>
      {sets.length > 0 && (
        <p className="mt-1 text-sm text-slate-700">
          Annotations for {sets.length} run{sets.length === 1 ? '' : 's'} ({sets.reduce((n, s) => n + s.annotations.length, 0)} labels);{' '}
          {annotated === sets.length ? 'all attached' : `${annotated} attached, the rest attach when their trace is opened`}.
        </p>
      )}
      {file.engineSettings && <SavedSettings settings={file.engineSettings} />}
      <SpanImportReport runs={runs} />
      {file.warnings.length > 0 && (
        <ul className="mt-1 list-disc pl-5 text-xs text-amber-800">
          {file.warnings.map((w, i) => (
            <li key={i}>{w}</li>
          ))}
        </ul>
      )}
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
