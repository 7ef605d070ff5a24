// For the run view's step inspector: the handoffs the step sends, each with a link to label it (and see the
// clarifier's verdict on it) in the Taxonomy view.
import type { Handoff, Run } from '../../model/types.ts';
import { useUrl } from '../../store/url.ts';

/** `handoffs`: what the step sends (the run view indexes them by step: RunView.handoffsByStep). */
export function HandoffLinks({ run, handoffs, agentName }: { run: Run; handoffs: readonly Handoff[] | undefined; agentName: (id: string) => string }) {
  const navigate = useUrl((s) => s.navigate);
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
