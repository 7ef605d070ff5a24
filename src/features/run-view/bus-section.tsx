// The poll section of the step inspector for message-bus runs (issue 15): on a poll, a vote on one or a final answer,
// the poll's question, proposal, proposer and threshold, and the tally as the votes arrive — counted only from the
// votes at or before the playhead, so stepping through the run shows the tally grow. The tally of each vote step is
// the importer's count from the raw log (never the agents' own claim); a final answer shows the tally the
// coordinator reported beside it.
import type { BusStepData, BusTally, Step } from '../../model/types.ts';
import type { RunView } from './run-view-model.ts';
import { TraceText } from './trace-text.tsx';

type PollData = Extract<BusStepData, { kind: 'poll' }>;
type VoteData = Extract<BusStepData, { kind: 'vote' }>;

function pollOf(view: RunView, stepId: string | undefined): { step: Step; poll: PollData } | undefined {
  if (stepId === undefined) return undefined;
  const position = view.positionOf.get(stepId);
  const step = position === undefined ? undefined : view.steps[position];
  const found = step?.id === stepId ? step : view.steps.find((s) => s.id === stepId);
  return found?.bus?.kind === 'poll' ? { step: found, poll: found.bus } : undefined;
}

/** The votes on `poll` at or before `position`, in order, and the tally after the last of them. */
export function tallyAt(view: RunView, poll: PollData, position: number): { votes: { step: Step; vote: VoteData }[]; tally: BusTally } {
  const votes: { step: Step; vote: VoteData }[] = [];
  for (const id of poll.voteStepIds) {
    const at = view.positionOf.get(id);
    if (at === undefined || at > position) continue;
    const step = view.steps[at];
    if (step?.id === id && step.bus?.kind === 'vote') votes.push({ step, vote: step.bus });
  }
  const tally = votes.at(-1)?.vote.tally ?? poll.options.map((option) => ({ option, votes: 0 }));
  return { votes, tally };
}

function TallyBars({ tally, threshold, testId }: { tally: BusTally; threshold?: number; testId: string }) {
  let total = 0;
  for (const t of tally) total += t.votes;
  return (
    <ul className="space-y-0.5" data-testid={testId}>
      {tally.map((t) => (
        <li key={t.option} className="flex items-center gap-2 text-xs">
          <span className="w-14 truncate font-medium">{t.option}</span>
          <span className="relative h-2 flex-1 rounded bg-slate-100">
            <span className="absolute inset-y-0 left-0 rounded bg-indigo-500" style={{ width: `${total === 0 ? 0 : (t.votes / total) * 100}%` }} />
          </span>
          <span className="w-20 text-right tabular-nums" data-testid="tally-count">
            {t.votes} vote{t.votes === 1 ? '' : 's'}
            {threshold !== undefined && t.votes >= threshold && ' ✓'}
          </span>
        </li>
      ))}
    </ul>
  );
}

function PollCard({ view, opening, position, agentName }: { view: RunView; opening: { step: Step; poll: PollData }; position: number; agentName: (id: string) => string }) {
  const { poll } = opening;
  const { votes, tally } = tallyAt(view, poll, position);
  const openedAt = view.positionOf.get(opening.step.id);
  return (
    <div className="space-y-1.5">
      <p className="text-xs text-slate-600">
        Poll opened by <b>{agentName(poll.proposer ?? opening.step.agentId)}</b>
        {openedAt !== undefined && ` at step ${openedAt + 1}`}
        {poll.threshold !== undefined && ` · passes at ${poll.threshold} votes`}
        {poll.status && ` · status ${poll.status}`}
      </p>
      {poll.question && (
        <div>
          <p className="text-[11px] font-medium text-slate-500 uppercase">Question</p>
          <TraceText text={poll.question} />
        </div>
      )}
      {poll.proposal && (
        <div>
          <p className="text-[11px] font-medium text-slate-500 uppercase">Proposal</p>
          <TraceText text={poll.proposal} />
        </div>
      )}
      <div>
        <p className="text-[11px] font-medium text-slate-500 uppercase" data-testid="poll-tally-label">
          Tally at this step: {votes.length} of {poll.voteStepIds.length} vote{poll.voteStepIds.length === 1 ? '' : 's'} cast so far
        </p>
        <TallyBars tally={tally} threshold={poll.threshold} testId="poll-tally" />
      </div>
      {votes.length > 0 && (
        <ol className="space-y-0.5 text-xs" data-testid="poll-votes">
          {votes.map(({ step, vote }) => (
            <li key={step.id} className={step.id === view.steps[position]?.id ? 'font-semibold' : ''}>
              {agentName(vote.voter)}: {vote.vote}
              {vote.confidence !== undefined && <span className="text-slate-500"> (confidence {vote.confidence})</span>}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

export function BusSection({ view, step, position }: { view: RunView; step: Step; position: number }) {
  const bus = step.bus;
  if (!bus) return null;
  const agentName = (id: string) => view.index.agentById.get(id)?.name ?? id;
  const title = bus.kind === 'poll' ? 'Poll' : bus.kind === 'vote' ? 'Vote' : 'Final answer';
  const opening = bus.kind === 'poll' ? (bus.pollStepId ? pollOf(view, bus.pollStepId) : { step, poll: bus }) : pollOf(view, bus.pollStepId);
  return (
    <section className="space-y-2 rounded border border-indigo-200 bg-indigo-50/40 p-2" data-testid="bus-section" data-bus-kind={bus.kind} aria-label={title}>
      <h3 className="text-xs font-semibold text-indigo-900 uppercase">{title}</h3>
      {bus.kind === 'vote' && (
        <div className="text-sm" data-testid="bus-vote">
          <b>{agentName(bus.voter)}</b> votes <b>{bus.vote}</b>
          {bus.confidence !== undefined && <span className="text-slate-600"> · confidence {bus.confidence}</span>}
          {bus.rationale && <TraceText text={bus.rationale} />}
        </div>
      )}
      {bus.kind === 'final_answer' && (
        <div className="space-y-1 text-sm" data-testid="bus-final">
          <p>
            Final answer: <b>{bus.answer}</b>
            {bus.eligible !== undefined && <span className="text-slate-600"> · {bus.eligible} eligible voters</span>}
            {bus.threshold !== undefined && <span className="text-slate-600"> · threshold {bus.threshold}</span>}
          </p>
          <p className="text-[11px] font-medium text-slate-500 uppercase">Tally as the coordinator reported it</p>
          <TallyBars tally={bus.reportedTally} threshold={bus.threshold} testId="reported-tally" />
        </div>
      )}
      {opening ? (
        <PollCard view={view} opening={opening} position={position} agentName={agentName} />
      ) : (
        bus.kind !== 'final_answer' && <p className="text-xs text-slate-600">The log never shows the message that opened this poll.</p>
      )}
    </section>
  );
}
