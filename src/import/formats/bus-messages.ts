// Message-bus logs of the smolagents decentralised team, `runs/<id>/messages.jsonl` (SPEC §3): one run per file,
// one message per line `{id, timestamp, sender, type, content, recipients, thread_id, reply_to}` with type task |
// channel_message | private_message | poll | vote | final_answer; poll, vote and final-answer contents are objects.
//
// Mapping decisions:
// - One step per message in log order, id `<runId>:m<i>`, `name` = the message type; a final answer is a `final`
//   step, every other message a `message` step. Tokens are not recorded: estimated output tokens of the step text.
// - Participants = every sender and named recipient. The senders of `task` messages are the system (kind `system`).
//   Recipients `@all`, null or empty go to every participant but the sender and the system: a `broadcast` handoff;
//   named recipients (private messages) get a `message` handoff to exactly those.
// - A poll step keeps question, proposal, options, threshold, status and proposer in `step.bus`; a vote step is
//   linked to the step that opened its poll and carries the poll's tally right after it (a voter's later vote on the
//   same poll replaces the earlier one); the opening step lists its votes and the tally after the last. A repeated
//   poll message (a status update) is linked to the opening step. The coordinator's reported tally stays as reported.
// - The first final answer closes the run: outcome final answer, run end time. No final answer: outcome failure.
// - Run id: `bus-<hashText of the file text>` (as the run-line importer names runs).
import { hashText } from '../../model/hash.ts';
import { FormatProblem } from '../errors.ts';
import type { BusStepData, BusTally, Outcome, Run, Step } from '../../model/types.ts';
import { RunBuilder } from '../../model/run-builder.ts';
import { contentText, documentsOf, titleFromTask, unmappedFields } from './chat-log.ts';
import type { FormatImporter, ImportResult } from '../format.ts';
import { textHashOf } from '../jsonl-stream.ts';
import { expectArray, expectObject, isObject, optNumber, optString, parseTime, type JsonObject } from '../read.ts';
import { estimateUsage } from '../tokens.ts';

const MESSAGE_FIELDS = new Set(['sender', 'type', 'content', 'recipients', 'timestamp']);
const EVERYONE = '@all';

/** A line of the bus: who sent it, to whom, and threading. Poll/vote contents are checked when mapped. */
export function isBusMessage(v: unknown): boolean {
  return isObject(v) && 'sender' in v && 'content' in v && 'recipients' in v && ('thread_id' in v || 'reply_to' in v);
}

interface Parsed {
  msg: JsonObject;
  path: string;
  type: string | undefined;
  sender: string;
  /** Named recipients; empty for a broadcast. */
  named: string[];
  broadcast: boolean;
}

/** Votes of one poll as they arrive: the latest vote per voter counts. */
class PollState {
  readonly options: string[];
  readonly voteStepIds: string[] = [];
  private readonly byVoter = new Map<string, string>();
  constructor(
    readonly stepId: string | undefined,
    options: string[],
  ) {
    this.options = [...options];
  }
  vote(voter: string, choice: string, stepId: string): void {
    this.byVoter.set(voter, choice);
    if (!this.options.includes(choice)) this.options.push(choice);
    this.voteStepIds.push(stepId);
  }
  tally(): BusTally {
    const counts = new Map<string, number>(this.options.map((o) => [o, 0]));
    for (const choice of this.byVoter.values()) counts.set(choice, (counts.get(choice) ?? 0) + 1);
    return [...counts].map(([option, votes]) => ({ option, votes }));
  }
}

function stringList(v: unknown, path: string): string[] {
  if (v === undefined || v === null) return [];
  return expectArray(v, path).map((x, i) => optString(x, `${path}[${i}]`) ?? '');
}

/** Step text of structured contents: what a reader wants first; the structure itself is in `step.bus`. */
function textOf(bus: BusStepData | undefined, content: unknown): string {
  if (!bus) return contentText(content);
  switch (bus.kind) {
    case 'poll':
      return [bus.question, bus.proposal !== undefined ? `Proposal: ${bus.proposal}` : undefined].filter((t) => t !== undefined).join('\n\n');
    case 'vote':
      return `${bus.vote}${bus.confidence !== undefined ? ` (confidence ${bus.confidence})` : ''}${bus.rationale ? `: ${bus.rationale}` : ''}`;
    case 'final_answer':
      return bus.answer;
  }
}

function runFromBus(docs: { value: unknown; path: string }[], textHash: string): Run {
  const runId = `bus-${textHash}`;
  const participants: string[] = [];
  const seen = new Set<string>();
  const system = new Set<string>();
  const add = (id: string) => {
    if (!seen.has(id)) {
      seen.add(id);
      participants.push(id);
    }
  };
  const parsed: Parsed[] = docs.map(({ value, path }) => {
    const msg = expectObject(value, path);
    const type = optString(msg.type, `${path}.type`);
    const sender = optString(msg.sender, `${path}.sender`) ?? 'unknown';
    const recipients = stringList(msg.recipients, `${path}.recipients`);
    const broadcast = recipients.length === 0 || recipients.includes(EVERYONE);
    add(sender);
    if (type === 'task') system.add(sender);
    const named = broadcast ? [] : recipients;
    named.forEach(add);
    return { msg, path, type, sender, named, broadcast };
  });

  const polls = new Map<string, PollState>();
  const b = new RunBuilder(runId);
  const steps = b.steps;
  let task: string | undefined;
  let closing: Step | undefined;
  parsed.forEach(({ msg, path, type, sender, named, broadcast }, i) => {
    const stepId = `${runId}:m${i}`;
    const bus = busData(msg.content, `${path}.content`, type, stepId, polls);
    const to = broadcast ? participants.filter((a) => a !== sender && !system.has(a)) : named;
    const step = b.addStep({
      id: stepId,
      kind: type === 'final_answer' ? 'final' : 'message',
      agentId: sender,
      agentRunId: b.agentRunId(sender),
      number: i,
      output: textOf(bus, msg.content),
      recipients: to,
    });
    if (type !== undefined) step.name = type;
    if (bus) step.bus = bus;
    const time = parseTime(msg.timestamp);
    if (time !== undefined) step.startTime = time;
    if (step.output) step.usage = estimateUsage('', step.output);
    const raw = unmappedFields(msg, MESSAGE_FIELDS);
    if (raw) step.raw = raw;
    if (type === 'task' && task === undefined) task = step.output;
    if (type === 'final_answer' && closing === undefined) closing = step;
    if (to.length > 0) b.addHandoff(step, { to, kind: broadcast ? 'broadcast' : 'message', content: step.output ?? '' });
  });
  // The opening step of each poll holds every vote on it and the tally after the last.
  const byId = new Map(steps.map((s) => [s.id, s]));
  for (const state of polls.values()) {
    const open = state.stepId !== undefined ? byId.get(state.stepId) : undefined;
    if (open?.bus?.kind === 'poll') open.bus = { ...open.bus, voteStepIds: [...state.voteStepIds], tally: state.tally() };
  }

  for (const id of participants) b.addAgent(system.has(id) ? { id, name: id, kind: 'system' } : { id, name: id }, task !== undefined ? { task } : {});
  const outcome: Outcome = { status: 'failure' };
  if (closing?.bus?.kind === 'final_answer') outcome.finalAnswer = closing.bus.answer;
  if (closing) outcome.status = 'unknown'; // the log has no reference answer to judge it by
  const run = b.build({ title: titleFromTask(task ?? steps[0]?.output, 'Message-bus log'), sourceFormat: 'message-bus', framework: 'smolagents', models: [], outcome, task });
  // The log ends with its closing answer, else with its last message.
  let start = Infinity;
  let end = -Infinity;
  for (const s of steps) {
    if (s.startTime === undefined) continue;
    if (s.startTime < start) start = s.startTime;
    if (s.startTime > end) end = s.startTime;
  }
  if (start <= end) {
    run.startTime = start;
    run.endTime = closing?.startTime ?? end;
  }
  return run;
}

function busData(content: unknown, path: string, type: string | undefined, stepId: string, polls: Map<string, PollState>): BusStepData | undefined {
  // A poll or vote whose content is not an object is kept as a plain message (permissive where the format is sloppy).
  if ((type !== 'poll' && type !== 'vote' && type !== 'final_answer') || !isObject(content)) return undefined;
  const c = content;
  const pollId = optString(c.poll_id, `${path}.poll_id`);
  if (type === 'poll') {
    const id = pollId ?? stepId;
    const options = stringList(c.options, `${path}.options`);
    const earlier = polls.get(id);
    if (!earlier) polls.set(id, new PollState(stepId, options));
    const state = polls.get(id)!;
    const poll: BusStepData = { kind: 'poll', pollId: id, options, voteStepIds: earlier ? [...state.voteStepIds] : [], tally: state.tally() };
    const question = optString(c.question, `${path}.question`);
    const proposal = optString(c.proposal, `${path}.proposal`);
    const proposer = optString(c.proposer, `${path}.proposer`);
    const threshold = optNumber(c.threshold, `${path}.threshold`);
    const status = optString(c.status, `${path}.status`);
    const finalAnswer = optString(c.final_answer, `${path}.final_answer`);
    if (question !== undefined) poll.question = question;
    if (proposal !== undefined) poll.proposal = proposal;
    if (proposer !== undefined) poll.proposer = proposer;
    if (threshold !== undefined) poll.threshold = threshold;
    if (status !== undefined) poll.status = status;
    if (finalAnswer !== undefined) poll.finalAnswer = finalAnswer;
    if (earlier?.stepId !== undefined) poll.pollStepId = earlier.stepId;
    return poll;
  }
  if (type === 'vote') {
    const id = pollId ?? '';
    let state = polls.get(id);
    if (!state) polls.set(id, (state = new PollState(undefined, [])));
    const voter = optString(c.voter, `${path}.voter`) ?? '';
    const choice = contentText(c.vote);
    state.vote(voter, choice, stepId);
    const vote: BusStepData = { kind: 'vote', pollId: id, voter, vote: choice, tally: state.tally() };
    if (state.stepId !== undefined) vote.pollStepId = state.stepId;
    const confidence = optNumber(c.confidence, `${path}.confidence`);
    const rationale = optString(c.rationale, `${path}.rationale`);
    if (confidence !== undefined) vote.confidence = confidence;
    if (rationale !== undefined) vote.rationale = rationale;
    return vote;
  }
  const reported: BusTally = [];
  let eligible: number | undefined;
  let threshold: number | undefined;
  if (c.tally !== undefined && c.tally !== null) {
    const t = expectObject(c.tally, `${path}.tally`);
    for (const [key, value] of Object.entries(t)) {
      const n = optNumber(value, `${path}.tally.${key}`);
      if (n === undefined) continue;
      if (key === 'eligible') eligible = n;
      else if (key === 'threshold') threshold = n;
      else reported.push({ option: key, votes: n });
    }
  }
  const final: BusStepData = { kind: 'final_answer', answer: contentText(c.answer), reportedTally: reported };
  if (pollId !== undefined) {
    final.pollId = pollId;
    const opened = polls.get(pollId)?.stepId;
    if (opened !== undefined) final.pollStepId = opened;
  }
  if (eligible !== undefined) final.eligible = eligible;
  if (threshold !== undefined) final.threshold = threshold;
  return final;
}

export const busMessagesImporter: FormatImporter = {
  id: 'message-bus-log',
  estimatesTokens: true,
  label: 'Message-bus log (smolagents decentralised team, one run per file)',
  fileName: /messages\.jsonl$/i,
  sniff: (doc) => {
    const docs = documentsOf(doc);
    return docs.length > 0 && docs.every((d) => isBusMessage(d.value));
  },
  importDoc(doc): ImportResult {
    // Read as a stream (jsonl-stream.ts), the input has no text but its hash, the same hashText gives. One JSON
    // document read as a stream (json-value-stream.ts) keeps neither: its run could not be named as when read whole.
    const hash = textHashOf(doc) ?? (doc.text !== '' ? hashText(doc.text) : undefined);
    if (hash === undefined) throw new FormatProblem('', 'a message-bus log this large is read as JSON Lines only (its run is named by a hash of its text, which one JSON document read as a stream does not keep): save it one message per line');
    return { runs: [runFromBus(documentsOf(doc), hash)], annotationSets: [], warnings: [] };
  },
  // The run id is a hash of the file's text (or of the stream's, textHash).
  readsText: true,
};
