// The Live page (SPEC §5.5): run a team, run a batch of tasks in two arms, or fork a recorded run at a step. The tab
// is in the URL (`?view=live&tab=runner|batch|fork`), and so are the fork's run and step.
import { useUrl } from '../../store/url.ts';
import { Tabs } from '../../ui/tabs.tsx';
import { BatchPanel } from './batch-panel.tsx';
import { ForkPanel } from './fork-panel.tsx';
import { RunnerPanel } from './runner-panel.tsx';
import { ErrorBoundary } from '../../ui/error-boundary.tsx';

const TABS = [
  { id: 'runner', label: 'Runner' },
  { id: 'batch', label: 'Batch' },
  { id: 'fork', label: 'Fork' },
] as const;

export function LivePage() {
  const tab = useUrl((s) => s.params.tab);
  const setParams = useUrl((s) => s.setParams);
  const current = TABS.find((t) => t.id === tab)?.id ?? 'runner';
  return (
    <div data-testid="live-page" className="min-h-full bg-slate-100 p-4">
      <div className="mx-auto max-w-7xl space-y-3">
        <Tabs tabs={TABS} current={current} onSelect={(id) => setParams({ tab: id })} label="Live runs" />
        <ErrorBoundary name={`${current} panel`} resetKey={current}>
          {current === 'runner' ? <RunnerPanel /> : current === 'batch' ? <BatchPanel /> : <ForkPanel />}
        </ErrorBoundary>
      </div>
    </div>
  );
}
