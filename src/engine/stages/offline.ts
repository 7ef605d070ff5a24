// Offline stages (SPEC §5.4): the task state and the workflow per stage, read off the recording with fixed rules and
// no model. Everything here is a heuristic and is marked so (`heuristic: true`, `derivedBy: 'offline'`).
//
// Subtasks offline: one per stage, the stage's work item, i.e. what the manager did in it: the task it delegated
// (agent: task), else the tools it called, else the first sentence of what it wrote. Its status is judged at the next
// stage (the task state a stage starts from holds the verdict on the previous stage, as in EvoMAS):
// - FAILED when a manager step of the stage, or the last step of a managed agent run in it, has an error;
// - NEED-REFINE when it did not fail but the next stage goes back to the same agent or tool (the manager was not done
//   with it);
// - DONE otherwise.
// The active subtask of a stage is its own work item (TODO). A closing state after the last stage judges the last item.
// Confidence is left empty: there is no evaluator offline.
import { stepNumber } from '../../model/steps.ts';
import type { Handoff, LayerAgent, Run, Stage, Step, Subtask, SubtaskStatus } from '../../model/types.ts';
import { segmentRun, turnsOf, type Segment, type Segmentation } from './segment.ts';

export interface WorkItem {
  title: string;
  /** Agents delegated to and tools called (final answers excluded): what "going back to the same work" compares. */
  targets: string[];
  failed: boolean;
  /** Why the status is what it is, in words a person can check in the trace. */
  evidence: string;
  finalAnswer: boolean;
}

export interface StageDerivation {
  stages: Stage[];
  segmentation: Segmentation;
  /** What a person should know about how these stages were made. */
  note: string;
}

const clip = (text: string, n: number) => {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};

/** The task text of a smolagents delegation ("…Task:\n<task>\n---…"), else the whole message. */
export function delegatedTask(content: string): string {
  const m = /(?:^|\n)Task:\s*\n([\s\S]*?)(?:\n---|$)/.exec(content);
  return (m ? m[1] : content).trim();
}

function firstSentence(text: string): string {
  const t = text.replace(/^\s*(Thought|Thoughts|Plan|Reasoning)\s*:\s*/i, '').trim();
  const m = /^([\s\S]*?[.!?])(\s|$)/.exec(t);
  return clip(m ? m[1] : t.split('\n')[0], 140);
}

/** The first non-empty string among the arguments (smolagents nests them under `args` / `kwargs`). */
function shortArguments(args: string): string {
  const find = (v: unknown, depth: number): string | undefined => {
    if (typeof v === 'string') return v.trim() !== '' ? v : undefined;
    if (depth > 2 || v === null || typeof v !== 'object') return undefined;
    for (const x of Array.isArray(v) ? v : Object.values(v)) {
      const hit = find(x, depth + 1);
      if (hit !== undefined) return hit;
    }
    return undefined;
  };
  try {
    return clip(find(JSON.parse(args), 0) ?? '', 60);
  } catch {
    return clip(args, 60);
  }
}

const isFinalAnswer = (name: string) => /^final_?answer$/i.test(name);
const isAgentCall = (name: string) => /(Agent\.run|\.run)$/i.test(name);
const errorLine = (s: Step) => s.error?.message.split('\n').find((l) => l.trim() !== '')?.trim() ?? 'error';

/** What each segment looks up, built once per run: a scan of all handoffs or agents per segment was quadratic. */
export interface RunLookups {
  /** The manager's delegations by the step that sent them, with their position in the run. */
  delegationsAt: Map<string, { handoff: Handoff; order: number }[]>;
  /** Agents that are people (human or system), left out of the layers. */
  people: Set<string>;
}

export function runLookups(run: Run, seg: Segmentation): RunLookups {
  const delegationsAt = new Map<string, { handoff: Handoff; order: number }[]>();
  run.handoffs.forEach((handoff, order) => {
    if (handoff.kind !== 'delegation' || handoff.stepId === undefined || handoff.from !== seg.managerId) return;
    const list = delegationsAt.get(handoff.stepId);
    if (list) list.push({ handoff, order });
    else delegationsAt.set(handoff.stepId, [{ handoff, order }]);
  });
  const people = new Set(run.agents.filter((a) => a.kind === 'human' || a.kind === 'system').map((a) => a.id));
  return { delegationsAt, people };
}

export function workItemOf(run: Run, seg: Segmentation, segment: Segment, agentName: (id: string) => string, lookups = runLookups(run, seg)): WorkItem {
  const stepIds = new Set<string>();
  for (let p = segment.start; p <= segment.end; p++) stepIds.add(seg.steps[p].id);
  const decisions = segment.managerSteps.filter((s) => s.kind !== 'planning');
  const found: { handoff: Handoff; order: number }[] = [];
  for (const id of stepIds) for (const d of lookups.delegationsAt.get(id) ?? []) found.push(d);
  const delegations = found.sort((a, b) => a.order - b.order).map((d) => d.handoff);
  const tools = decisions.flatMap((s) => s.toolCalls ?? []).filter((c) => !isAgentCall(c.name));
  const finalAnswer = tools.some((c) => isFinalAnswer(c.name)) || decisions.some((s) => s.kind === 'final');
  const targets = [...new Set([...delegations.flatMap((h) => h.to), ...tools.filter((c) => !isFinalAnswer(c.name)).map((c) => `tool:${c.name}`)])];

  let title: string;
  if (delegations.length > 0) {
    const h = delegations[0];
    title = `${h.to.map(agentName).join(', ')}: ${clip(delegatedTask(h.content), 140)}`;
  } else if (tools.length > 0) {
    title = finalAnswer && tools.every((c) => isFinalAnswer(c.name)) ? 'Give the final answer' : tools.map((c) => `${c.name}(${shortArguments(c.arguments)})`).slice(0, 3).join(', ');
  } else {
    const text = decisions.map((s) => s.thought ?? s.output ?? '').find((t) => t.trim() !== '');
    title = text ? firstSentence(text) : decisions.length > 0 ? `${agentName(decisions[0].agentId)} turn` : 'Work before the manager acts';
  }

  // Failures: a manager step's own error, or a managed agent run that ended on an error.
  const managerError = decisions.find((s) => s.error);
  let evidence: string;
  let failed = false;
  if (managerError) {
    failed = true;
    // Named by its step number in the step list (1-based), as every view names steps; searched in this segment only.
    let at = segment.start;
    while (at < segment.end && seg.steps[at] !== managerError) at++;
    evidence = `${agentName(managerError.agentId)} step ${stepNumber(at)} failed: ${clip(errorLine(managerError), 160)}`;
  } else {
    const lastOfRun = new Map<string, Step>();
    for (let p = segment.start; p <= segment.end; p++) {
      const s = seg.steps[p];
      if (s.agentId !== seg.managerId && s.agentRunId !== undefined) lastOfRun.set(s.agentRunId, s);
    }
    const endedBadly = [...lastOfRun.values()].find((s) => s.error);
    if (endedBadly) {
      failed = true;
      evidence = `${agentName(endedBadly.agentId)} ended on an error: ${clip(errorLine(endedBadly), 160)}`;
    } else if (decisions.length === 0) evidence = 'no manager step in this stage';
    else evidence = delegations.length > 0 ? `${delegations[0].to.map(agentName).join(', ')} returned without an error` : 'the manager step ran without an error';
  }
  return { title, targets, failed, evidence, finalAnswer };
}

/** Numbered plan lines ("1. …", "Step 2: …") of the last manager planning step of the segment that has at least two. */
export function planOf(segment: Segment): string[] | undefined {
  for (const s of [...segment.managerSteps].reverse()) {
    if (s.kind !== 'planning') continue;
    const items = (s.output ?? '')
      .split('\n')
      .map((l) => /^\s*(?:[-*]\s*)?(?:step\s+)?\d+\s*[.):]\s+(.+)$/i.exec(l)?.[1])
      .filter((x): x is string => x !== undefined && x.trim() !== '')
      .map((x) => clip(x, 200));
    if (items.length >= 2) return items.slice(0, 12);
  }
  return undefined;
}

/** The workflow of a segment as observed: layer = depth below the manager; each agent's share of its layer's turns. */
export function observedLayers(run: Run, seg: Segmentation, segment: Segment, { people } = runLookups(run, seg)): LayerAgent[][] {
  const byLayer = new Map<number, Map<string, number>>();
  for (const t of turnsOf(seg, segment)) {
    if (people.has(t.agentId)) continue;
    const d = seg.depthOf.get(t.agentId) ?? 1;
    const counts = byLayer.get(d) ?? new Map<string, number>();
    counts.set(t.agentId, (counts.get(t.agentId) ?? 0) + 1);
    byLayer.set(d, counts);
  }
  return [...byLayer.keys()]
    .sort((a, b) => a - b)
    .map((d) => {
      const counts = [...byLayer.get(d)!].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      const total = counts.reduce((n, [, c]) => n + c, 0);
      return counts.map(([agentId, turns]) => ({ agentId, turns, frequency: turns / total }));
    });
}

export const VERDICT_OF: Record<SubtaskStatus, string> = { DONE: 'success', 'NEED-REFINE': 'needs refinement', FAILED: 'failure', TODO: 'not judged' };

export const stageId = (index: number) => `stage-${index + 1}`;
export const CLOSING_STAGE_ID = 'stage-closing';
export const subtaskId = (index: number) => `t${index + 1}`;

function summaryOf(items: Subtask[]): string {
  const done = items.filter((s) => s.status === 'DONE').map((s) => s.title);
  return done.length === 0 ? 'Nothing completed yet.' : `${done.length} done: ${done.join('; ')}`;
}

export function deriveOfflineStages(run: Run): StageDerivation {
  const seg = segmentRun(run);
  const names = new Map(run.agents.map((a) => [a.id, a.name]));
  const agentName = (id: string) => names.get(id) ?? id;
  const lookups = runLookups(run, seg);
  const items = seg.segments.map((segment) => workItemOf(run, seg, segment, agentName, lookups));
  // The status each item ends with, judged with what the next stage does.
  const judged: { status: SubtaskStatus; evidence: string }[] = items.map((item, i) => {
    if (item.failed) return { status: 'FAILED', evidence: item.evidence };
    const next = items[i + 1];
    const again = next ? item.targets.filter((t) => next.targets.includes(t)) : [];
    if (again.length > 0) {
      const what = again.map((t) => (t.startsWith('tool:') ? t.slice(5) : agentName(t))).join(', ');
      return { status: 'NEED-REFINE', evidence: `${item.evidence}, but the next stage goes back to ${what}` };
    }
    return { status: 'DONE', evidence: item.evidence };
  });
  const board = (upTo: number): Subtask[] =>
    items.slice(0, upTo + 1).map((item, k) => ({
      id: subtaskId(k),
      title: item.title,
      status: k < upTo ? judged[k].status : 'TODO',
      detail: k < upTo ? judged[k].evidence : 'active in this stage',
    }));

  const stages: Stage[] = seg.segments.map((segment, i) => {
    const subtasks = board(i);
    const stage: Stage = {
      id: stageId(i),
      index: i,
      startStepId: seg.steps[segment.start].id,
      endStepId: seg.steps[segment.end].id,
      subtasks,
      nextSubtaskId: subtaskId(i),
      summary: summaryOf(subtasks),
      layers: observedLayers(run, seg, segment, lookups),
      heuristic: true,
      derivedBy: 'offline',
    };
    if (i > 0) {
      stage.verdict = VERDICT_OF[judged[i - 1].status];
      stage.feedback = judged[i - 1].evidence;
    }
    const plan = planOf(segment);
    if (plan) stage.plan = plan;
    return stage;
  });
  if (items.length > 0) {
    const last = items.length - 1;
    const subtasks = board(last).map((s, k) => (k === last ? { ...s, status: judged[last].status, detail: judged[last].evidence } : s));
    const recorded = run.outcome.status !== 'unknown' ? ` The run's recorded outcome is ${run.outcome.status}.` : '';
    stages.push({
      id: CLOSING_STAGE_ID,
      index: stages.length,
      subtasks,
      summary: summaryOf(subtasks),
      verdict: VERDICT_OF[judged[last].status],
      feedback: `${judged[last].evidence}.${recorded}`,
      layers: [],
      heuristic: true,
      derivedBy: 'offline',
      closing: true,
    });
  }
  const how =
    seg.mode === 'action'
      ? 'a stage opens at each action step of the manager'
      : seg.mode === 'turn'
        ? 'a stage opens at each turn of the manager'
        : 'the run is one stage';
  const who = seg.managerId !== undefined ? `Manager: ${agentName(seg.managerId)} (${seg.managerReason})` : `No manager: ${seg.managerReason}`;
  const note = `Heuristic: ${how}. ${who}. Subtasks are the manager's work items per stage; statuses follow fixed rules on errors and repeated targets; layer shares are observed turn frequencies, not selection probabilities.`;
  if (stages.length > 0) stages[0].notes = [note];
  return { stages, segmentation: seg, note };
}
