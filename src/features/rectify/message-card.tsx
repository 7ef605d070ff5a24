// One agent message under rectify-or-reject: its final state, and per attempt the retrieved indicators (with their
// similarity scores), each audit's verdict, the feedback the agent got, and the text it produced. Shared by the
// Rectify view and the run view's inspector.
import type { Attempt, AuditRecord } from '../../engine/rectifier/index.ts';
import { rectifierAudit } from '../../engine/rectifier/details.ts';
import type { Intervention } from '../../model/types.ts';
import { Badge, type BadgeTone } from '../../ui/badge.tsx';
import { TruncatedText } from '../../ui/truncated-text.tsx';

export function stateTone(action: string): BadgeTone {
  if (action === 'pass@1') return 'success';
  if (action.startsWith('pass@')) return 'warning';
  if (action === 'rejected') return 'danger';
  return 'neutral';
}

export function stateLabel(action: string): string {
  if (action.startsWith('pass@')) return `passed at attempt ${action.slice(5)}`;
  if (action === 'rejected') return 'rejected (pruned)';
  if (action === 'retrieval-only') return 'retrieval only (offline)';
  return action;
}

export function RectifierStateBadge({ iv, fallback }: { iv: Intervention; fallback?: boolean }) {
  return (
    <span className="inline-flex gap-1" data-testid="rectifier-state" data-state={iv.action}>
      <Badge tone={stateTone(iv.action)}>{stateLabel(iv.action)}</Badge>
      {fallback && iv.action === 'rejected' && <Badge tone="info">restored by the global fallback</Badge>}
    </span>
  );
}

const fmtScore = (s: number, kind: string) => (kind === 'bm25' ? s.toFixed(2) : kind === 'general' ? 'always' : s.toFixed(3));

export function RectifierDetails({ iv }: { iv: Intervention }) {
  const audit = rectifierAudit(iv);
  const attempts = audit?.attempts ?? [];
  const offline = audit?.state === 'not-audited';
  return (
    <div className="space-y-2">
      {offline && (
        <p className="text-xs text-amber-800">
          Offline: these indicators were retrieved by BM25 over their trigger conditions (lexical, not the paper’s embedding retrieval). Nothing was audited:
          a verdict needs an endpoint.
        </p>
      )}
      {attempts.map((a) => (
        <AttemptView key={a.attempt} a={a} offline={offline} />
      ))}
    </div>
  );
}

function AttemptView({ a, offline }: { a: Attempt; offline: boolean }) {
  return (
    <div className="rounded border border-slate-200 p-2 text-xs" data-testid="rectifier-attempt" data-attempt={a.attempt} data-flawed={a.flawed}>
      <p className="mb-1 font-medium text-slate-800">
        Attempt {a.attempt}
        {!offline && <span className={`ml-2 ${a.flawed ? 'text-red-700' : 'text-emerald-700'}`}>{a.flawed ? 'flawed' : 'no flaw found'}</span>}
        <span className="ml-2 text-slate-500">
          retrieval: {a.retrieval === 'embedding' ? 'embedding cosine' : a.retrieval === 'bm25' ? 'BM25 (offline fallback)' : 'general indicator (zero-shot)'}
        </span>
      </p>
      {a.keywords && (
        <p className="text-slate-600">
          Keywords — scenario: {a.keywords.scenario.join(', ') || '—'}; action: {a.keywords.action.join(', ') || '—'}
        </p>
      )}
      {a.keywordProblem && <p className="text-amber-800">{a.keywordProblem}</p>}
      {a.audits.length === 0 ? (
        <ol className="mt-1 list-decimal pl-5" data-testid="retrieved-indicators">
          {a.retrieved.map((r) => (
            <li key={r.index + r.name}>
              <span className="font-mono">{r.name}</span> <span className="text-slate-500">score {fmtScore(r.score, a.retrieval)}</span>
            </li>
          ))}
        </ol>
      ) : (
        <table className="mt-1 w-full table-fixed border-collapse" data-testid="verdicts">
          <thead>
            <tr className="text-left text-[11px] text-slate-500">
              <th className="w-[30%] py-0.5">Indicator (score)</th>
              <th className="w-[14%]">Verdict</th>
              <th>Suggestion / impact / note</th>
            </tr>
          </thead>
          <tbody>
            {a.audits.map((au) => (
              <VerdictRow key={au.indicator + au.index} au={au} score={a.retrieved.find((r) => r.index === au.index && r.name === au.indicator)?.score} kind={a.retrieval} />
            ))}
          </tbody>
        </table>
      )}
      {a.feedback && (
        <details className="mt-1" data-testid="rectifier-feedback">
          <summary className="cursor-pointer text-indigo-700">Feedback sent to the agent</summary>
          <TruncatedText text={a.feedback} pre limit={1500} className="mt-1 rounded bg-amber-50 p-1" />
        </details>
      )}
      <details className="mt-1">
        <summary className="cursor-pointer text-slate-600">Message at this attempt</summary>
        <TruncatedText text={a.output} pre limit={1500} className="mt-1 rounded bg-slate-50 p-1" />
      </details>
    </div>
  );
}

function VerdictRow({ au, score, kind }: { au: AuditRecord; score?: number; kind: string }) {
  const v = au.verdict;
  return (
    <tr className="border-t border-slate-100 align-top" data-testid="verdict" data-flawed={au.flawed} data-dropped={au.dropped ? 'true' : 'false'}>
      <td className="py-0.5 pr-1 font-mono break-words">
        {au.indicator} {score !== undefined && <span className="font-sans text-slate-500">({fmtScore(score, kind)})</span>}
      </td>
      <td className="pr-1">
        {au.dropped ? <Badge tone="warning">dropped</Badge> : au.flawed ? <Badge tone="danger">flawed</Badge> : <Badge tone="success">ok</Badge>}
        {au.tries > 1 && <span className="block text-[10px] text-slate-500">{au.tries} tries</span>}
      </td>
      <td className="break-words">
        {au.dropped ? (
          <span className="text-amber-800">unreadable answer ({au.dropped}); left out of the decision</span>
        ) : v ? (
          <>
            {v.is_flawed && <span className="block">Suggestion: {v.suggestion}</span>}
            {v.is_flawed && <span className="block text-slate-600">Impact: {v.impact_assessment}</span>}
            {v.is_flawed && v.analysis && <span className="block text-slate-600">Note: {v.analysis}</span>}
            {au.note && <span className="block text-amber-800">{au.note}</span>}
            {!v.is_flawed && <span className="text-slate-500">{v.analysis && v.analysis !== 'N/A' ? v.analysis : 'no problem found'}</span>}
          </>
        ) : null}
      </td>
    </tr>
  );
}
