// The Taxonomy view (SPEC §4, §5.3): teach and apply the edge-level error taxonomy of AgentAsk. Tabs: the edges of a
// run (labelling, clarifier, dataset labels, agreement), the gallery of annotated cases, the quiz, and the charts.
// The tab, run, edge and case are in the URL, so a link reproduces what is shown.
import { useUrl } from '../../store/url.ts';
import { Tabs } from '../../ui/tabs.tsx';
import { EdgesPanel } from './edges-panel.tsx';
import { Gallery } from './gallery.tsx';
import { Quiz } from './quiz.tsx';
import { TaxonomyCharts } from './taxonomy-charts.tsx';
import { ErrorBoundary } from '../../ui/error-boundary.tsx';

const TABS = [
  { id: 'gallery', label: 'Gallery' },
  { id: 'edges', label: 'Edges & labels' },
  { id: 'quiz', label: 'Quiz' },
  { id: 'charts', label: 'Charts' },
] as const;
type Tab = (typeof TABS)[number]['id'];

export function TaxonomyPage() {
  const params = useUrl((s) => s.params);
  const setParams = useUrl((s) => s.setParams);
  const tab: Tab = TABS.some((t) => t.id === params.tab) ? (params.tab as Tab) : 'gallery';
  return (
    <div data-testid="taxonomy-page" className="min-h-full bg-slate-100 p-4">
      <div className="mx-auto max-w-7xl space-y-3">
        <div className="flex flex-wrap items-center gap-3">
          <h2 className="text-base font-semibold text-slate-800">Edge-error taxonomy</h2>
          <Tabs tabs={TABS} current={tab} onSelect={(id) => setParams({ tab: id, case: undefined })} label="Taxonomy" />
        </div>
        <div role="tabpanel" aria-label={TABS.find((t) => t.id === tab)!.label}>
          <ErrorBoundary name={`“${TABS.find((t) => t.id === tab)!.label}” tab`} resetKey={tab}>
            {tab === 'edges' ? <EdgesPanel /> : tab === 'quiz' ? <Quiz /> : tab === 'charts' ? <TaxonomyCharts /> : <Gallery />}
          </ErrorBoundary>
        </div>
      </div>
    </div>
  );
}
