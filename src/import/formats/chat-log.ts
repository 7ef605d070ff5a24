// Chat logs: AG2/AutoGen group chats (`history` or a ChatResult's `chat_history`), Who&When (AG2 CaptainAgent runs)
// and Magentic-One logs (SPEC §3).
//
// Mapping decisions (other modules and engines rely on them):
// - One `message` step per history entry; step id `<runId>:s<i>`, `number` = i, the 0-based index into `history`,
//   so Who&When's `mistake_step` names a step directly.
// - Agent id = the speaker's name as written (`name`, else the part of `role` before a parenthesis), so
//   `mistake_agent` is an agent id too. Magentic-One `Orchestrator (thought)` is a step of `Orchestrator` named
//   `thought` and hands nothing off; `Orchestrator (-> WebSurfer)` is a `delegation` handoff Orchestrator → WebSurfer.
// - Without an explicit target, a message is received by the speaker of the very next message (AG2 picks the next
//   speaker after each message); no handoff when the next speaker is the sender or there is none. We chose this over
//   broadcast so each edge is one sender/receiver pair the clarifier and the graph can use.
// - Tokens are never recorded in these logs: each message of a model-backed agent gets the usage that
//   `estimateUsage('', text)` gives, i.e. output tokens only, marked estimated. Re-counting the visible history as
//   input for every turn would be quadratic on long Magentic-One logs and would still be a guess about what each agent
//   was shown. Messages of the human and of code executors (not model output) get no usage.
// - Run id: `chat-<hashText of the run object's JSON>` (computed as the text was read, when it was read in pieces:
//   json-pieces.ts); the file name is never used.
import { emptyRecord } from '../../model/record.ts';
import { hashJson } from '../hash-json.ts';
import { decisiveErrorAnnotation } from '../../model/annotations.ts';
import type { Agent, Outcome, Run, Step, TokenUsage } from '../../model/types.ts';
import { MapProgress, RunBuilder, runPartId } from '../../model/run-builder.ts';
import type { FormatImporter, ImportResult } from '../format.ts';
import type { ParsedInput } from '../parse-input.ts';
import { asText, expectArray, expectObject, isObject, optNumber, optString, type JsonObject } from '../read.ts';
import { estimateTokens } from '../tokens.ts';

// ---------------------------------------------------------------------------------------------------------------
// Small helpers shared by the chat-style importers (openai-chat, message-bus).

/** The documents of a file: a JSON array's elements, JSON Lines' values, or the single JSON value. */
export function documentsOf(doc: ParsedInput): { value: unknown; path: string }[] {
  if (doc.kind === 'jsonl') return doc.values.map((value, i) => ({ value, path: `$[line ${i + 1}]` }));
  if (Array.isArray(doc.value)) return doc.value.map((value, i) => ({ value, path: `$[${i}]` }));
  return [{ value: doc.value, path: '$' }];
}

/** A run title from content: the first non-empty line of the task, whitespace collapsed, at most 80 characters. */
export function titleFromTask(task: string | undefined, fallback: string): string {
  const line = (task ?? '').split('\n').map((l) => l.replace(/\s+/g, ' ').trim()).find((l) => l !== '');
  if (!line) return fallback;
  return line.length <= 80 ? line : `${line.slice(0, 79).trimEnd()}…`;
}

/** Lower-case, no surrounding punctuation or whitespace, no thousands separators: enough to compare short answers. */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/[\s$%*"'`.,;:!?()[\]{}]+/g, ' ')
    .trim();
}

function asNumber(text: string): number | undefined {
  const n = Number(normalizeAnswer(text).replace(/ /g, ''));
  return normalizeAnswer(text) !== '' && Number.isFinite(n) ? n : undefined;
}

/** true / false when the answers clearly match or clearly differ (same normalised text, or both numbers); else undefined. */
export function compareAnswers(answer: string, reference: string): boolean | undefined {
  if (normalizeAnswer(answer) === normalizeAnswer(reference)) return true;
  const a = asNumber(answer);
  const b = asNumber(reference);
  if (a !== undefined && b !== undefined) return a === b;
  return undefined;
}

/** The fields of `obj` not in `mapped`, or undefined when there are none. */
export function unmappedFields(obj: JsonObject, mapped: ReadonlySet<string>): Record<string, unknown> | undefined {
  // Own keys in Object.entries' order, with no [key, value] pair per field and no record until one is unmapped (this
  // runs once per message of a log).
  let rest: Record<string, unknown> | undefined;
  for (const k in obj) {
    if (!hasOwn.call(obj, k) || mapped.has(k)) continue;
    (rest ??= emptyRecord<unknown>())[k] = obj[k]; // field names from the file, `__proto__` included
  }
  return rest;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Message text of any JSON value: strings as they are, null as '', structured content as JSON. */
export function contentText(v: unknown): string {
  return v === null || v === undefined ? '' : asText(v);
}

/** Identical documents in one file hash to the same id; later copies get `~2`, `~3`… so run ids stay unique. */
export function uniqueIds(ids: string[]): string[] {
  const seen = new Map<string, number>();
  return ids.map((id) => {
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    return n === 1 ? id : `${id}~${n}`;
  });
}

// ---------------------------------------------------------------------------------------------------------------

const RUN_FIELDS = new Set([
  'history',
  'chat_history',
  'question',
  'ground_truth',
  'mistake_agent',
  'mistake_step',
  'mistake_reason',
  'level',
  'is_correct',
  'system_prompt',
]);
const ENTRY_FIELDS = new Set(['content', 'role', 'name']);

interface ParsedRole {
  speaker: string;
  qualifier?: string;
  target?: string;
}

/** `Orchestrator (-> WebSurfer)` → speaker Orchestrator, target WebSurfer; `Orchestrator (thought)` → qualifier. */
function parseRole(role: string): ParsedRole {
  const m = /^(.*?)\s*\(([^()]*)\)\s*$/.exec(role);
  if (!m || m[1] === '') return { speaker: role.trim() };
  const qualifier = m[2].trim();
  const arrow = /^->\s*(.+)$/.exec(qualifier);
  return arrow ? { speaker: m[1], target: arrow[1].trim() } : { speaker: m[1], qualifier };
}

/** Who&When and our own logs say `history`; AG2's ChatResult says `chat_history`. */
function historyOf(obj: JsonObject): { key: string; list: unknown[] } | undefined {
  if (Array.isArray(obj.history)) return { key: 'history', list: obj.history };
  if (Array.isArray(obj.chat_history)) return { key: 'chat_history', list: obj.chat_history };
  return undefined;
}

function isChatLogDocument(v: unknown): boolean {
  const history = isObject(v) ? historyOf(v) : undefined;
  if (!isObject(v) || !history) return false;
  const first = history.list[0];
  if (first === undefined) return 'question' in v;
  return isObject(first) && 'content' in first && ('role' in first || 'name' in first) && !('tool_call_id' in first);
}

/** Speakers whose messages are not model output: the human and code executors. */
function agentKind(id: string, role: string | undefined): Agent['kind'] {
  if (/^(human|user)$/i.test(id)) return 'human';
  if (/terminal|executor/i.test(id)) return 'system';
  return role === 'human' ? 'human' : 'agent';
}

function finalAnswerOf(history: Step[]): string | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const output = history[i].output;
    // The regex only where it can match: a log of a million messages has the marker in one or none.
    if (output === undefined || !output.includes('FINAL ANSWER:')) continue;
    const m = /FINAL ANSWER:\s*(.+)/.exec(output);
    if (m) return m[1].trim();
  }
  return undefined;
}

function importRun(obj: JsonObject, path: string, runId: string, warnings: string[], progresses: MapProgress[]): Run {
  const key = historyOf(obj)?.key ?? 'history';
  const history = expectArray(obj[key], `${path}.${key}`);
  const task = optString(obj.question, `${path}.question`);
  const prompts = obj.system_prompt === undefined || obj.system_prompt === null ? {} : expectObject(obj.system_prompt, `${path}.system_prompt`);

  const b = new RunBuilder(runId, task);
  const addAgent = (id: string, role?: string) => {
    if (b.agent(id)) return;
    const agent: Agent = { id, name: id };
    const kind = agentKind(id, role);
    if (kind !== 'agent') agent.kind = kind;
    const prompt = prompts[id];
    if (typeof prompt === 'string') agent.description = prompt;
    b.addAgent(agent);
  };

  const steps = b.steps;
  const targets: (string | undefined)[] = [];
  // A log has a few distinct roles: each is parsed once (the parsed roles are only read).
  const roles = new Map<string, ParsedRole>();
  // The `{ role }` records kept for named messages, and the one-agent lists of recipients and handoff targets: a log has
  // a few distinct ones, so its steps share them (a million messages: ~180 MB less held by the import worker until
  // the runs are written). Frozen: nothing changes a step's raw fields, lists or usage in place, and a change would throw.
  const roleRecords = new Map<string, Record<string, unknown>>();
  const toLists = new Map<string, string[]>();
  // Likewise the estimated usage: messages of one length in tokens share one (a few hundred distinct counts at most).
  const usages = new Map<number, TokenUsage>();
  const estimatedUsage = (text: string) => {
    const output = estimateTokens(text);
    let usage = usages.get(output);
    if (usage === undefined) usages.set(output, (usage = Object.freeze({ input: 0, output, total: output, estimated: true })));
    return usage;
  };
  const roleRecord = (role: string) => {
    let record = roleRecords.get(role);
    if (record === undefined) roleRecords.set(role, (record = Object.freeze({ role }) as Record<string, unknown>));
    return record;
  };
  const toList = (agent: string) => {
    let list = toLists.get(agent);
    if (list === undefined) toLists.set(agent, (list = Object.freeze([agent]) as string[]));
    return list;
  };
  // Three passes over the messages, one tick per message in each: the steps, their usage, the handoffs; a fourth
  // tick per message is left for the checks made on the run once built (implausibleValueWarnings).
  const progress = new MapProgress(4 * history.length);
  progresses.push(progress);
  history.forEach((entryValue, i) => {
    progress.tick();
    // The JSON path only for a problem: three strings a message otherwise, all garbage.
    const entry = isObject(entryValue) ? entryValue : expectObject(entryValue, `${path}.${key}[${i}]`);
    const role = typeof entry.role === 'string' ? entry.role : optString(entry.role, `${path}.${key}[${i}].role`);
    const name = typeof entry.name === 'string' ? entry.name : optString(entry.name, `${path}.${key}[${i}].name`);
    const roleText = role ?? '';
    let parsed = roles.get(roleText);
    if (parsed === undefined) roles.set(roleText, (parsed = parseRole(roleText)));
    const speaker = name ?? (parsed.speaker || 'unknown');
    addAgent(speaker, role);
    if (parsed.target) addAgent(parsed.target);
    // Made whole, in addStep's field order: no fields object copied twice per message.
    const index = steps.length;
    const step = b.appendStep({ id: runPartId(runId, ':s', index), index, kind: 'message', agentId: speaker, agentRunId: b.agentRunId(speaker), number: i, output: contentText(entry.content) });
    if (parsed.qualifier) step.name = parsed.qualifier;
    const raw = unmappedFields(entry, ENTRY_FIELDS);
    if (raw) step.raw = raw;
    if (name !== undefined && role !== undefined) step.raw = raw ? { ...raw, role } : roleRecord(role);
    targets.push(parsed.target);
  });

  for (const step of steps) {
    progress.tick();
    if (b.agent(step.agentId)?.kind === undefined && step.output) step.usage = estimatedUsage(step.output);
  }

  steps.forEach((step, i) => {
    progress.tick();
    const explicit = targets[i];
    // A qualified turn (`Orchestrator (thought)`) is the speaker thinking aloud, not a message to anyone.
    if (!explicit && step.name !== undefined) return;
    const receiver = explicit ?? steps[i + 1]?.agentId;
    if (receiver === undefined || receiver === step.agentId) return;
    step.recipients = toList(receiver);
    b.addHandoff(step, { to: step.recipients, kind: explicit ? 'delegation' : 'message', content: step.output ?? '' });
  });

  const annotations = b.annotations;
  const mistakeAgent = optString(obj.mistake_agent, `${path}.mistake_agent`);
  const mistakeStepText = optString(obj.mistake_step, `${path}.mistake_step`);
  if (mistakeAgent !== undefined || mistakeStepText !== undefined) {
    const stepNumber = optNumber(mistakeStepText, `${path}.mistake_step`);
    const reason = optString(obj.mistake_reason, `${path}.mistake_reason`);
    const { annotation, outside } = decisiveErrorAnnotation(runId, steps, { agentId: mistakeAgent, stepNumber, reason });
    // A label pointing outside the history is the dataset's mistake: keep it on the run and say so.
    if (outside) warnings.push(`${path}.mistake_step: step ${mistakeStepText} is outside the history (0–${steps.length - 1}); labelled the run instead`);
    if (mistakeAgent !== undefined && !b.agent(mistakeAgent)) warnings.push(`${path}: mistake_agent ${mistakeAgent} never speaks in the history`);
    annotations.push(annotation);
  }

  const outcome: Outcome = { status: 'unknown' };
  const reference = optString(obj.ground_truth, `${path}.ground_truth`);
  if (reference !== undefined) outcome.referenceAnswer = reference;
  const finalAnswer = finalAnswerOf(steps);
  if (finalAnswer !== undefined) outcome.finalAnswer = finalAnswer;
  if (typeof obj.is_correct === 'boolean') outcome.status = obj.is_correct ? 'success' : 'failure';
  else if (finalAnswer !== undefined && reference !== undefined && compareAnswers(finalAnswer, reference) !== undefined) {
    outcome.status = compareAnswers(finalAnswer, reference) ? 'success' : 'failure';
  } else if (annotations.length > 0) outcome.status = 'failure'; // Who&When labels only failed runs

  const tags: Record<string, string> = {};
  if (annotations.length > 0) tags.dataset = 'Who&When';
  const level = optString(obj.level, `${path}.level`);
  if (level !== undefined) tags.level = level;

  // Over the distinct roles (every entry's role is among them), not a list of every message's role.
  const framework = [...roles.keys()].some((r) => /^Orchestrator \(/.test(r))
    ? 'Magentic-One'
    : history.some((h) => isObject(h) && typeof h.name === 'string')
      ? 'AG2'
      : undefined;

  return b.build({
    // A chat log names no model: no pass over a million steps to find none.
    models: [],
    title: titleFromTask(task ?? steps[0]?.output, 'Chat log'),
    sourceFormat: 'chat-log',
    outcome,
    tags,
    framework,
    raw: unmappedFields(obj, RUN_FIELDS),
  });
}

export const chatLogImporter: FormatImporter = {
  id: 'chat-log',
  estimatesTokens: true,
  label: 'Chat log (AG2/AutoGen, Who&When, Magentic-One)',
  fileName: /who.?(and|&).?when|magentic|group.?chat|chat.?log/i,
  sniff(doc) {
    const docs = documentsOf(doc);
    return docs.length > 0 && docs.every((d) => isChatLogDocument(d.value));
  },
  importDoc(doc): ImportResult {
    const warnings: string[] = [];
    const docs = documentsOf(doc).map((d) => ({ ...d, obj: expectObject(d.value, d.path) }));
    const ids = uniqueIds(docs.map((d) => `chat-${hashJson(d.obj)}`));
    const progresses: MapProgress[] = [];
    const runs = docs.map((d, i) => importRun(d.obj, d.path, ids[i], warnings, progresses));
    // The last run's progress: its fourth tick per message is kept for the checks (used when it has room for all runs).
    return { runs, annotationSets: [], warnings, checksProgress: progresses.at(-1) };
  },
};
