// OpenAI chat messages with tool calls, e.g. tau-bench trajectories `[{task_id, trial, reward, info, traj}]` (SPEC §3).
// Also read: `{messages:[…]}` objects, a bare array of chat messages, and JSON Lines of runs.
//
// Mapping decisions (AgentRx ground truth and engines rely on them):
// - Every message, the system prompt included, is one top-level step in order: system/user/assistant turns are
//   `message` steps, tool results are `tool` steps. `number` = the message's own `index` when every message has a
//   distinct integer one (tau-bench numbers them from 1, and AgentRx's `step_number` uses that numbering), else its
//   1-based position. Step id `<runId>:m<number>`. So `inspect` steps = number of messages.
// - Agents: `system` (kind system), `user` (kind human; tau-bench's user simulator), `assistant`, `tools` (kind
//   system, the tool node). Handoffs: user → assistant and assistant → user for text turns (`message`), assistant →
//   tools for tool calls (`delegation`), tools → assistant for results (`report`).
// - Tokens are not recorded. Each assistant turn gets an estimate, marked estimated: output = its text and tool
//   calls; input = every message before it, because a chat-completions agent resends the whole conversation on each
//   call (tool schemas are not in the trajectory and are not counted). User and tool turns get none: they are the
//   environment, not the agent under study.
// - Run id: `tau-<task_id>` when the run has a task id (AgentRx's `trajectory_id` is that id), else
//   `chat-<hashText of the run's JSON>`; `~2`… for repeats in one file. Outcome from `reward` (1 = success).
import { recordOf } from '../../model/record.ts';
import { hashJson } from '../hash-json.ts';
import type { Agent, Outcome, Run, ToolCall } from '../../model/types.ts';
import { RunBuilder } from '../../model/run-builder.ts';
import { contentText, documentsOf, titleFromTask, uniqueIds, unmappedFields } from './chat-log.ts';
import { FormatProblem } from '../errors.ts';
import type { FormatImporter, ImportResult } from '../format.ts';
import type { ParsedInput } from '../parse-input.ts';
import { asText, expectArray, expectObject, isObject, optNumber, optString, type JsonObject } from '../read.ts';
import { estimateTokens } from '../tokens.ts';

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
const MESSAGE_FIELDS = new Set(['role', 'content', 'tool_calls', 'tool_call_id', 'name', 'index']);
const RUN_FIELDS = new Set(['traj', 'messages', 'task_id', 'reward']);

export function tauRunId(taskId: string): string {
  return `tau-${taskId}`;
}

export function chatStepId(runId: string, number: number): string {
  return `${runId}:m${number}`;
}

/** The agent a message role belongs to; AgentRx names agents by role too (`Assistant`, `User`). */
export function agentIdForRole(role: string): string {
  const r = role.toLowerCase();
  if (r === 'developer') return 'system';
  if (r === 'function' || r === 'tool' || r === 'tools') return 'tools';
  return r;
}

const AGENT_DEFAULTS: Record<string, Omit<Agent, 'id'>> = recordOf({
  system: { name: 'system', kind: 'system', description: 'system prompt' },
  user: { name: 'user', kind: 'human' },
  assistant: { name: 'assistant' },
  tools: { name: 'tools', kind: 'system', description: 'tool node: executes the assistant\'s tool calls' },
});

function isChatMessage(v: unknown): boolean {
  return isObject(v) && typeof v.role === 'string' && ROLES.has(v.role) && ('content' in v || 'tool_calls' in v);
}

function messagesOf(v: unknown): unknown[] | undefined {
  if (!isObject(v)) return undefined;
  const list = Array.isArray(v.traj) ? v.traj : Array.isArray(v.messages) ? v.messages : undefined;
  return list && list.length > 0 && isChatMessage(list[0]) ? list : undefined;
}

/** A bare array of chat messages is one conversation; otherwise each document is a run. */
function runDocuments(doc: ParsedInput): { value: JsonObject; path: string; bare?: boolean }[] | undefined {
  if (doc.kind === 'json' && Array.isArray(doc.value) && doc.value.length > 0 && doc.value.every(isChatMessage)) {
    return [{ value: { messages: doc.value }, path: '$', bare: true }];
  }
  const docs = documentsOf(doc);
  if (docs.length === 0 || !docs.every((d) => messagesOf(d.value) !== undefined)) return undefined;
  return docs.map((d) => ({ value: d.value as JsonObject, path: d.path }));
}

function toolCallsOf(v: unknown, path: string): ToolCall[] {
  return expectArray(v, path).map((c, i) => {
    const at = `${path}[${i}]`;
    const call = expectObject(c, at);
    const fn = call.function === undefined ? call : expectObject(call.function, `${at}.function`);
    const tc: ToolCall = {
      name: optString(fn.name, `${at}.function.name`) ?? '',
      arguments: typeof fn.arguments === 'string' ? fn.arguments : fn.arguments === undefined ? '' : asText(fn.arguments),
    };
    const id = optString(call.id, `${at}.id`);
    if (id !== undefined) tc.id = id;
    return tc;
  });
}

function importRun(obj: JsonObject, path: string, runId: string): Run {
  const listKey = Array.isArray(obj.traj) ? 'traj' : 'messages';
  const messages = expectArray(obj[listKey], `${path}.${listKey}`).map((m, i) => expectObject(m, `${path}.${listKey}[${i}]`));
  const indexes = messages.map((m) => m.index);
  const ownNumbers = indexes.every((x) => Number.isInteger(x)) && new Set(indexes).size === indexes.length;

  const agentOrder: string[] = [];
  const b = new RunBuilder(runId);
  const steps = b.steps;
  const callArguments = new Map<string, string>();
  let historyTokens = 0;

  messages.forEach((m, i) => {
    const at = `${path}.${listKey}[${i}]`;
    const role = optString(m.role, `${at}.role`) ?? 'user';
    const agentId = agentIdForRole(role);
    if (!agentOrder.includes(agentId)) agentOrder.push(agentId);
    const number = ownNumbers ? (m.index as number) : i + 1;
    const text = contentText(m.content);
    const step = b.addStep({ id: chatStepId(runId, number), kind: agentId === 'tools' ? 'tool' : 'message', agentId, agentRunId: b.agentRunId(agentId), number });
    const name = optString(m.name, `${at}.name`);
    if (name !== undefined) step.name = name;
    const raw = unmappedFields(m, MESSAGE_FIELDS);
    if (raw) step.raw = raw;

    let ownTokens = estimateTokens(text);
    if (agentId === 'tools') {
      const callId = optString(m.tool_call_id, `${at}.tool_call_id`);
      step.observation = text;
      if (callId !== undefined) {
        step.raw = { ...step.raw, tool_call_id: callId };
        const args = callArguments.get(callId);
        if (args !== undefined) step.inputText = args;
      }
      b.addHandoff(step, { to: ['assistant'], kind: 'report', content: text });
      step.recipients = ['assistant'];
    } else {
      step.output = text;
      if (m.tool_calls !== undefined && m.tool_calls !== null) {
        const calls = toolCallsOf(m.tool_calls, `${at}.tool_calls`);
        if (calls.length > 0) step.toolCalls = calls;
        for (const c of calls) {
          if (c.id !== undefined) callArguments.set(c.id, c.arguments);
          ownTokens += estimateTokens(c.name) + estimateTokens(c.arguments);
        }
      }
      if (agentId === 'assistant') {
        step.usage = { input: historyTokens, output: ownTokens, total: historyTokens + ownTokens, estimated: true };
        const to = [...(text ? ['user'] : []), ...(step.toolCalls?.length ? ['tools'] : [])];
        if (to.length) step.recipients = to;
        if (text) b.addHandoff(step, { to: ['user'], kind: 'message', content: text });
        if (step.toolCalls?.length) {
          const content = step.toolCalls.map((c) => `${c.name}(${c.arguments})`).join('\n');
          b.addHandoff(step, { to: ['tools'], kind: 'delegation', content });
        }
      } else if (agentId === 'user') {
        step.recipients = ['assistant'];
        b.addHandoff(step, { to: ['assistant'], kind: 'message', content: text });
      }
    }
    historyTokens += ownTokens;
  });

  const info = isObject(obj.info) ? obj.info : undefined;
  const taskInfo = info && isObject(info.task) ? info.task : undefined;
  const instruction = taskInfo ? optString(taskInfo.instruction, `${path}.info.task.instruction`) : undefined;
  const firstUser = steps.find((s) => s.agentId === 'user')?.output;
  const task = instruction ?? firstUser;

  const outcome: Outcome = { status: 'unknown' };
  const reward = optNumber(obj.reward, `${path}.reward`);
  if (reward !== undefined) {
    outcome.score = reward;
    outcome.status = reward >= 1 ? 'success' : 'failure';
  }
  if (taskInfo && Array.isArray(taskInfo.outputs) && taskInfo.outputs.length > 0) {
    outcome.referenceAnswer = taskInfo.outputs.map((o) => contentText(o)).join('\n');
  }

  const tags: Record<string, string> = {};
  if (obj.task_id !== undefined && obj.traj !== undefined) tags.dataset = 'tau-bench';
  const policy = /^#\s*(\w+)\s+agent policy/i.exec(steps.find((s) => s.agentId === 'system')?.output ?? '');
  if (policy) tags.domain = policy[1].toLowerCase();

  for (const id of agentOrder) b.addAgent({ id, name: id, ...AGENT_DEFAULTS[id] }, task !== undefined ? { task } : {});
  return b.build({ title: titleFromTask(task, 'Chat conversation'), sourceFormat: 'openai-chat', outcome, tags, task, raw: unmappedFields(obj, RUN_FIELDS) });
}

export const openAiChatImporter: FormatImporter = {
  id: 'openai-chat',
  estimatesTokens: true,
  label: 'OpenAI chat messages (tau-bench trajectories)',
  fileName: /tau|traj|openai.?chat|conversation/i,
  sniff: (doc) => runDocuments(doc) !== undefined,
  importDoc(doc): ImportResult {
    const docs = runDocuments(doc);
    if (!docs) throw new FormatProblem('$', 'expected runs with a `traj` or `messages` list of chat messages ({role, content})');
    const ids = uniqueIds(
      docs.map((d) => {
        const taskId = optString(d.value.task_id, `${d.path}.task_id`);
        return taskId !== undefined ? tauRunId(taskId) : `chat-${hashJson(d.value)}`;
      }),
    );
    return { runs: docs.map((d, i) => importRun(d.value, d.path, ids[i])), annotationSets: [], warnings: [] };
  },
};
