// Every score and label of the run in one place (issue 16 item 3): TRAIL scores and error labels, Langfuse scores,
// Who&When mistake labels, AgentRx failure annotations, engines' findings and the person's own labels, each with
// where it came from and its value; a label naming a step jumps there.
import { useMemo } from 'react';
import type { Annotation } from '../../model/types.ts';
import { usePlayhead } from '../../store/playhead.ts';
import { Badge } from '../../ui/badge.tsx';
import { scoreCounts, scoreValue } from '../../model/annotations.ts';
import type { RunView } from './run-view-model.ts';
import { benchmarkLine } from './run-result.tsx';

const SOURCE_LABEL: Record<Annotation['source'], string> = { human: 'person', dataset: 'dataset', engine: 'engine' };

export interface ScoreRow {
  annotation: Annotation;
  score?: number;
  position?: number;
}

export function scoreRows(view: RunView): { scores: ScoreRow[]; labels: ScoreRow[] } {
  const scores: ScoreRow[] = [];
  const labels: ScoreRow[] = [];
  for (const a of view.run.annotations) {
    const score = scoreValue(a);
    const position = a.stepId !== undefined ? view.positionOf.get(a.stepId) : undefined;
    (score !== undefined ? scores : labels).push({ annotation: a, score, position });
  }
  return { scores, labels };
}

export function ScoresPanel({ view }: { view: RunView }) {
  const { scores, labels } = useMemo(() => scoreRows(view), [view]);
  const moveTo = usePlayhead((s) => s.moveTo);
  const benchmark = view.run.benchmark;
  if (scores.length === 0 && labels.length === 0 && !benchmark) {
    return (
      <p className="text-sm text-slate-600" data-testid="scores-panel">
        This run has no scores or labels. Open its annotation file in the Library (TRAIL, tau-bench ground truth), run an
        engine, or label a step from the inspector.
      </p>
    );
  }
  const row = ({ annotation: a, score, position }: ScoreRow) => (
    <tr key={a.id} className="border-b border-slate-100 align-top last:border-0" data-testid="score-row">
      <td className="py-1 pr-3 whitespace-nowrap">
        <Badge tone={a.source === 'human' ? 'info' : 'neutral'}>{a.taxonomy}</Badge>{' '}
        <span className="text-xs text-slate-500">{SOURCE_LABEL[a.source] ?? a.source}</span>
      </td>
      <td className="py-1 pr-3 font-medium text-slate-800">{a.code}</td>
      <td className="py-1 pr-3 text-right tabular-nums">{score !== undefined ? score.toLocaleString('en') : ''}</td>
      <td className="max-w-xl py-1 pr-3 text-xs text-slate-600">
        <span className="line-clamp-2" title={a.description ?? a.evidence}>
          {a.description ?? a.evidence ?? ''}
        </span>
      </td>
      <td className="py-1 whitespace-nowrap">
        {position !== undefined ? (
          <button type="button" className="text-xs text-indigo-700 hover:underline" onClick={() => moveTo(position)}>
            step {position + 1} ›
          </button>
        ) : (
          <span className="text-xs text-slate-400">{a.stepId !== undefined ? 'step not in run' : 'whole run'}</span>
        )}
      </td>
    </tr>
  );
  return (
    <div className="flex flex-col gap-2 text-sm" data-testid="scores-panel">
      {(scores.length > 0 || benchmark) && (
        <table className="w-full text-left" aria-label="Scores of the run">
          {/* Counted where the library's Scores column and the toolbar count them. */}
          <caption className="text-left text-xs font-semibold text-slate-500 uppercase">Scores ({scoreCounts(view.run).scores})</caption>
          <tbody>
            {benchmark && (
              <tr className="border-b border-slate-100 align-top last:border-0" data-testid="benchmark-score">
                <td className="py-1 pr-3 whitespace-nowrap">
                  <Badge tone="neutral">benchmark</Badge> <span className="text-xs text-slate-500">result file</span>
                </td>
                <td className="py-1 pr-3 font-medium text-slate-800">exact match</td>
                <td className="py-1 pr-3 text-right tabular-nums">{benchmark.exactMatch}</td>
                <td className="max-w-xl py-1 pr-3 text-xs text-slate-600">{benchmarkLine(benchmark)}</td>
                <td className="py-1 whitespace-nowrap"><span className="text-xs text-slate-400">whole run</span></td>
              </tr>
            )}
            {scores.map(row)}
          </tbody>
        </table>
      )}
      {labels.length > 0 && (
        <table className="w-full text-left" aria-label="Labels of the run">
          <caption className="text-left text-xs font-semibold text-slate-500 uppercase">Labels ({labels.length})</caption>
          <tbody>{labels.map(row)}</tbody>
        </table>
      )}
    </div>
  );
}
