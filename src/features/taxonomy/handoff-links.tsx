// For the run view's step inspector: the handoffs the step sends, each with a link to label it (and see the
// clarifier's verdict on it) in the Taxonomy view.
import type { Handoff, Run } from '../../model/types.ts';
import { useUrl } from '../../store/url.ts';

const byStepCache = new WeakMap<Run, Map<string, Handoff[]>>();

function handoffsByStep(run: Run): Map<string, Handoff[]> {
  let map = byStepCache.get(run);
  if (!map) {
    map = new Map();
    for (const h of run.handoffs) {
      if (h.stepId === undefined) continue;
      const list = map.get(h.stepId);
      if (list) list.push(h);
      else map.set(h.stepId, [h]);
    }
    byStepCache.set(run, map);
  }
  return map;
}

export function HandoffLinks({ run, stepId, agentName }: { run: Run; stepId: string; agentName: (id: string) => string }) {
  const navigate = useUrl((s) => s.navigate);
  const handoffs = handoffsByStep(run).get(stepId);
  if (!handoffs) return null;
  return (
    <ul className="space-y-1 text-xs" data-testid="inspector-handoffs">
      {handoffs.map((h) => (
        <li key={h.id} className="flex flex-wrap items-center gap-2 rounded border border-indigo-100 bg-indigo-50/60 px-2 py-1">
          <span>
            Hands off: <span className="font-medium">{agentName(h.from)} → {h.to.map(agentName).join(', ')}</span> ({h.kind})
          </span>
          <button type="button" className="text-indigo-700 underline" onClick={() => navigate('taxonomy', { tab: 'edges', run: run.id, edge: h.id })}>
            Label this edge in Taxonomy →
          </button>
        </li>
      ))}
    </ul>
  );
}
