// The engines panel (SPEC §4): endpoint settings, the supervisor's parameters with the paper's presets, and its
// shadow replay on a library run with progress, results and its own cost shown apart.
import { EndpointSettings } from '../endpoint/endpoint-settings.tsx';
import { SupervisorParams } from './supervisor-params.tsx';
import { SupervisorRun } from './supervisor-run.tsx';
import { useSupervisorJob } from './supervisor-job.ts';
import { isActive } from '../../store/job-store.ts';

export function EnginesPage() {
  const busy = useSupervisorJob(isActive);
  return (
    <div data-testid="engines-page" className="min-h-full bg-slate-100 p-4">
      <div className="mx-auto grid max-w-7xl gap-4 lg:grid-cols-[minmax(0,26rem)_minmax(0,1fr)]">
        <div className="space-y-4">
          <SupervisorParams disabled={busy} />
          <EndpointSettings />
        </div>
        <div className="min-w-0">
          <h2 className="sr-only">Runtime supervisor</h2>
          <SupervisorRun />
        </div>
      </div>
    </div>
  );
}
