// The Rectify view (SPEC §5.2): the indicator pool and its browser, the rectifier's parameters, rectify-or-reject on a
// library run with per-message results, corpus statistics, and mining new indicators. Endpoint settings are shared
// with the Engines view.
import { useUrl } from '../../store/url.ts';
import { Tabs } from '../../ui/tabs.tsx';
import { EndpointSettings } from '../endpoint/endpoint-settings.tsx';
import { MiningPanel } from './mining-panel.tsx';
import { PoolBrowser } from './pool-browser.tsx';
import { PoolPanel } from './pool-panel.tsx';
import { RectifierStatisticsCard } from './rectifier-statistics.tsx';
import { useRectifyJob } from './rectify-job.ts';
import { isActive } from '../../store/job-store.ts';
import { RectifyParamsCard, RectifyRun } from './rectify-run.tsx';
import { ErrorBoundary } from '../../ui/error-boundary.tsx';

const TABS = [
  { id: 'run', label: 'Rectify a run' },
  { id: 'pool', label: 'Pool browser' },
  { id: 'stats', label: 'Corpus statistics' },
  { id: 'mine', label: 'Mining' },
] as const;

export function RectifyPage() {
  const busy = useRectifyJob(isActive);
  // The tab is part of the address (`?view=rectify&tab=stats`), so a link reopens it.
  const requested = useUrl((s) => s.params.tab);
  const setParams = useUrl((s) => s.setParams);
  const tab = TABS.find((t) => t.id === requested)?.id ?? 'run';
  const setTab = (id: (typeof TABS)[number]['id']) => setParams({ tab: id === 'run' ? undefined : id });
  return (
    <div data-testid="rectify-page" className="min-h-full bg-slate-100 p-4">
      <div className="mx-auto grid max-w-7xl gap-4 lg:grid-cols-[minmax(0,26rem)_minmax(0,1fr)]">
        <div className="space-y-4">
          <ErrorBoundary name="pool panel"><PoolPanel /></ErrorBoundary>
          <RectifyParamsCard disabled={busy} />
          <EndpointSettings />
        </div>
        <div className="min-w-0 space-y-3">
          <Tabs tabs={TABS} current={tab} onSelect={setTab} label="Rectifier" />
          <ErrorBoundary name={`“${TABS.find((t) => t.id === tab)?.label ?? tab}” tab`} resetKey={tab}>
            {tab === 'run' ? <RectifyRun /> : tab === 'pool' ? <PoolBrowser /> : tab === 'stats' ? <RectifierStatisticsCard /> : <MiningPanel />}
          </ErrorBoundary>
        </div>
      </div>
    </div>
  );
}
