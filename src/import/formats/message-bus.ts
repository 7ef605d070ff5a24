// Message-bus logs of the smolagents decentralised team (SPEC §3).
//
// Run lines are read here:
// - a run line, one run per line: `{question, original_question?, answer, true_answer, source, model_id,
//   agent_action_type, start_time, end_time, duration, messages?}`; the published benchmark outputs carry no
//   `messages`, so such a run has an outcome and no steps;
// - (a file of bare bus messages, the store's own `runs/<id>/messages.jsonl`, is one run: see bus-messages.ts).
//
// Mapping decisions:
// - One `message` step per bus message, in log order; step id `<runId>:m<i>`, `number` = i, `name` = the message
//   type unless it is a plain `message` (poll, vote, final_answer_proposal…); id/thread/reply in `raw`.
// - Agent id = the sender / recipient id as written. Recipients null, empty or containing `@all` mean everyone:
//   a `broadcast` handoff to every other agent seen in the run; otherwise a `message` handoff to the listed ids.
// - Tokens are not recorded: each message gets estimated output tokens of its text (same rule as chat logs).
// - Run lines are scored by the benchmark's own rule (model/benchmark-scoring.ts: exact match and contains), kept on
//   `run.benchmark` with the duration; the outcome is its exact match. Without a true answer: no answer → failure,
//   else unknown.
// - Run id: `bus-<hashText of the line's JSON>`, `~2`… for repeated identical lines.
import { benchmarkResult } from '../../model/benchmark-scoring.ts';
import { hashJson } from '../hash-json.ts';
import type { Outcome, Run } from '../../model/types.ts';
import { RunBuilder } from '../../model/run-builder.ts';
import { contentText, documentsOf, titleFromTask, uniqueIds, unmappedFields } from './chat-log.ts';
import type { FormatImporter, ImportResult } from '../format.ts';
import type { ParsedInput } from '../parse-input.ts';
import { expectArray, expectObject, isObject, optNumber, optString, parseTime, type JsonObject } from '../read.ts';
import { estimateUsage } from '../tokens.ts';

const RUN_FIELDS = new Set(['question', 'answer', 'true_answer', 'source', 'model_id', 'start_time', 'duration', 'messages']);
const MESSAGE_FIELDS = new Set(['sender', 'type', 'content', 'recipients', 'timestamp']);

function isBusMessage(v: unknown): boolean {
  return isObject(v) && 'sender' in v && 'content' in v && 'recipients' in v && ('thread_id' in v || 'reply_to' in v);
}

function isRunLine(v: unknown): boolean {
  if (!isObject(v) || !('true_answer' in v) || !(typeof v.question === 'string' || typeof v.original_question === 'string')) return false;
  if (Array.isArray(v.messages)) return v.messages.length === 0 ? 'agent_action_type' in v : isBusMessage(v.messages[0]);
  return typeof v.agent_action_type === 'string' && /decentral/i.test(`${v.agent_action_type} ${String(v.model_id ?? '')}`);
}

function outcomeOf(answer: string | undefined, reference: string | undefined, exactMatch: 0 | 1): Outcome {
  const outcome: Outcome = { status: 'unknown' };
  if (answer !== undefined) outcome.finalAnswer = answer;
  if (reference !== undefined) outcome.referenceAnswer = reference;
  if (reference !== undefined && reference.trim() !== '') outcome.status = exactMatch === 1 ? 'success' : 'failure';
  else if (answer === undefined || answer.trim() === '') outcome.status = 'failure';
  return outcome;
}

function mapMessages(runId: string, messages: { value: unknown; path: string }[], task: string | undefined): RunBuilder {
  const agentIds: string[] = [];
  const addAgent = (id: string) => {
    if (!agentIds.includes(id)) agentIds.push(id);
  };
  const parsed = messages.map(({ value, path }) => {
    const msg = expectObject(value, path);
    const sender = optString(msg.sender, `${path}.sender`) ?? 'unknown';
    const recipientsValue = msg.recipients === null || msg.recipients === undefined ? [] : expectArray(msg.recipients, `${path}.recipients`);
    const recipients = recipientsValue.map((r, i) => optString(r, `${path}.recipients[${i}]`) ?? '');
    const broadcast = recipients.length === 0 || recipients.includes('@all');
    addAgent(sender);
    if (!broadcast) recipients.forEach(addAgent);
    return { msg, path, sender, recipients, broadcast };
  });

  const b = new RunBuilder(runId, task);
  for (const id of agentIds) b.addAgent({ id, name: id });
  parsed.forEach(({ msg, path, sender, recipients, broadcast }, i) => {
    const type = optString(msg.type, `${path}.type`);
    const to = broadcast ? agentIds.filter((a) => a !== sender) : recipients;
    const step = b.addStep({ id: `${runId}:m${i}`, kind: 'message', agentId: sender, agentRunId: b.agentRunId(sender), number: i, output: contentText(msg.content), recipients: to });
    if (type !== undefined && type !== 'message') step.name = type;
    const time = parseTime(msg.timestamp);
    if (time !== undefined) step.startTime = time;
    if (step.output) step.usage = estimateUsage('', step.output);
    const raw = unmappedFields(msg, MESSAGE_FIELDS);
    if (raw) step.raw = raw;
    if (to.length > 0) b.addHandoff(step, { to, kind: broadcast ? 'broadcast' : 'message', content: step.output ?? '' });
  });
  return b;
}

function runFromLine(obj: JsonObject, path: string, runId: string): Run {
  const question = optString(obj.question, `${path}.question`) ?? optString(obj.original_question, `${path}.original_question`);
  const answer = optString(obj.answer, `${path}.answer`);
  const reference = optString(obj.true_answer, `${path}.true_answer`);
  const messages = obj.messages === undefined ? [] : expectArray(obj.messages, `${path}.messages`);
  const builder = mapMessages(runId, messages.map((value, i) => ({ value, path: `${path}.messages[${i}]` })), question);

  const tags: Record<string, string> = {};
  const source = optString(obj.source, `${path}.source`);
  if (source !== undefined) tags.dataset = source;
  const model = optString(obj.model_id, `${path}.model_id`);

  const duration = optNumber(obj.duration, `${path}.duration`);
  // Scored by the benchmark's own rule; the outcome follows its exact match (an empty true answer decides nothing).
  const benchmark = benchmarkResult(answer, reference, duration);
  const outcome = outcomeOf(answer, reference, benchmark.exactMatch);
  const run = builder.build({
    title: titleFromTask(question, 'Message-bus run'),
    sourceFormat: 'message-bus',
    framework: 'smolagents',
    models: model !== undefined ? [model] : [],
    outcome,
    tags,
    task: question,
    raw: unmappedFields(obj, RUN_FIELDS),
  });
  run.benchmark = benchmark;
  const start = parseTime(obj.start_time);
  if (start !== undefined) run.startTime = start;
  // `end_time` is a local wall-clock time without a zone in these files; start + duration is exact.
  if (start !== undefined && duration !== undefined) {
    // A duration so large its milliseconds overflow (1.8e305 s, found by fuzzing) gives no end.
    const end = start + duration * 1000;
    if (Number.isFinite(end)) run.endTime = end;
  }
  return run;
}

function classify(doc: ParsedInput): 'runs' | undefined {
  const docs = documentsOf(doc);
  if (docs.length === 0) return undefined;
  return docs.every((d) => isRunLine(d.value)) ? 'runs' : undefined;
}

export const messageBusImporter: FormatImporter = {
  id: 'message-bus',
  estimatesTokens: true,
  label: 'Message bus (smolagents decentralised team)',
  fileName: /decentrali[sz]ed|message.?bus/i,
  sniff: (doc) => classify(doc) !== undefined,
  importDoc(doc): ImportResult {
    const docs = documentsOf(doc);
    const objs = docs.map((d) => ({ ...d, obj: expectObject(d.value, d.path) }));
    const ids = uniqueIds(objs.map((d) => `bus-${hashJson(d.obj)}`));
    const runs = objs.map((d, i) => runFromLine(d.obj, d.path, ids[i]));
    const silent = runs.filter((r) => r.steps.length === 0).length;
    // Result files of the benchmark keep only question, answer and timing: say why such runs show no steps or tokens.
    const warnings = silent
      ? [`${silent} of ${runs.length} run(s) carry no messages (the file records only the question, the answer and timing): they have no steps or tokens to show`]
      : [];
    return { runs, annotationSets: [], warnings };
  },
};
