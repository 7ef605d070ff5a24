// Offline segmentation of a run into stages at manager steps (SPEC §5.4). Pure and deterministic: the same run always
// gives the same stages, so stages derived later by the LLM pass line up with these by id.
//
// The rule, precisely:
// - The manager is the agent that manages others (managed agents name it as parent, or its agent runs have child runs);
//   else the agent that sends the most delegations; else the only agent of the run. Humans and system senders never are.
// - Manager steps are the replay steps (steps not nested in another step) of the manager's top-level agent runs.
// - Action mode (the manager has action steps, smolagents' `Step N`): each manager action step opens a stage; manager
//   planning steps written just before it open that stage with it.
// - Turn mode (no action steps: chat turns, model calls): each manager turn, a maximal block of consecutive manager
//   steps, opens a stage.
// - Every other step belongs to the stage open when it comes: importers place a managed agent's run right after the
//   manager step that launched it, so the managed runs a manager step launches fall in that step's stage. Steps before
//   the first manager step (the task message) belong to the first stage.
// - Without a manager the whole run is one stage, and the segmentation says why.
import { indexRun } from '../../model/run-index.ts';
import type { Agent, Run, Step } from '../../model/types.ts';

export interface Segment {
  /** 0-based. */
  index: number;
  /** First and last replay position (inclusive). */
  start: number;
  end: number;
  /** Manager steps in this segment (planning included), in order. */
  managerSteps: Step[];
}

export type SegmentMode = 'action' | 'turn' | 'whole-run';

export interface Segmentation {
  managerId?: string;
  /** How the manager was found, in words. */
  managerReason: string;
  mode: SegmentMode;
  /** Replay steps (not nested), in order; segment positions index into this. */
  steps: Step[];
  segments: Segment[];
  /** Replay depth of each agent below the manager (manager 0); agents not reached are absent. */
  depthOf: Map<string, number>;
}

const isPerson = (a: Agent | undefined) => a?.kind === 'human' || a?.kind === 'system';

export function findManager(run: Run): { id?: string; reason: string } {
  const agents = run.agents.filter((a) => !isPerson(a));
  const ids = new Set(agents.map((a) => a.id));
  const stepCount = new Map<string, number>();
  for (const s of run.steps) if (s.parentStepId === undefined) stepCount.set(s.agentId, (stepCount.get(s.agentId) ?? 0) + 1);
  const busiest = (candidates: string[]) => [...candidates].sort((a, b) => (stepCount.get(b) ?? 0) - (stepCount.get(a) ?? 0) || (a < b ? -1 : 1))[0];

  // Sets of the named parents, not a scan of every agent per agent (quadratic: 40k agents took half a minute).
  const named = new Set(agents.map((a) => a.parentId));
  const managing = agents.filter((a) => a.parentId === undefined && named.has(a.id)).map((a) => a.id);
  if (managing.length > 0) return { id: busiest(managing), reason: 'it manages other agents (managed agents name it as their manager)' };

  const runAgent = new Map(run.agentRuns.map((r) => [r.id, r.agentId]));
  const launching = new Set(run.agentRuns.map((r) => r.parentRunId));
  const parentsOfRuns = run.agentRuns
    .filter((r) => r.parentRunId === undefined && launching.has(r.id))
    .map((r) => runAgent.get(r.id)!)
    .filter((id) => ids.has(id));
  if (parentsOfRuns.length > 0) return { id: busiest([...new Set(parentsOfRuns)]), reason: 'its agent runs launch the other agent runs' };

  const delegations = new Map<string, number>();
  for (const h of run.handoffs) if (h.kind === 'delegation' && ids.has(h.from)) delegations.set(h.from, (delegations.get(h.from) ?? 0) + 1);
  if (delegations.size > 0) {
    const top = [...delegations].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0];
    return { id: top, reason: `it sends the most delegations (${delegations.get(top)})` };
  }
  const acting = agents.filter((a) => (stepCount.get(a.id) ?? 0) > 0);
  if (acting.length === 1) return { id: acting[0].id, reason: 'it is the only agent of the run' };
  return { reason: acting.length === 0 ? 'no agent has replay steps' : `no agent manages or delegates to the ${acting.length} others` };
}

/** Depth below the manager per agent: from agent runs' parents, else agents' parents; agents outside the hierarchy get 1. */
function agentDepths(run: Run, managerId: string | undefined): Map<string, number> {
  const depth = new Map<string, number>();
  const runById = new Map(run.agentRuns.map((r) => [r.id, r]));
  const runDepth = (id: string, seen = 0): number => {
    const r = runById.get(id);
    return r?.parentRunId !== undefined && seen < 64 ? 1 + runDepth(r.parentRunId, seen + 1) : 0;
  };
  const agentById = new Map(run.agents.map((a) => [a.id, a]));
  const agentDepth = (id: string, seen = 0): number => {
    const a = agentById.get(id);
    return a?.parentId !== undefined && seen < 64 ? 1 + agentDepth(a.parentId, seen + 1) : 0;
  };
  const fromRuns = new Map<string, number>();
  for (const r of run.agentRuns) fromRuns.set(r.agentId, Math.max(fromRuns.get(r.agentId) ?? 0, runDepth(r.id)));
  for (const a of run.agents) {
    const d = fromRuns.get(a.id) || agentDepth(a.id);
    depth.set(a.id, a.id === managerId ? 0 : Math.max(1, d));
  }
  return depth;
}

export function segmentRun(run: Run): Segmentation {
  const { replaySteps: steps } = indexRun(run);
  const manager = findManager(run);
  const depthOf = agentDepths(run, manager.id);
  if (steps.length === 0) return { managerId: manager.id, managerReason: manager.reason, mode: 'whole-run', steps, segments: [], depthOf };
  if (manager.id === undefined) {
    return {
      managerReason: manager.reason,
      mode: 'whole-run',
      steps,
      segments: [{ index: 0, start: 0, end: steps.length - 1, managerSteps: [] }],
      depthOf,
    };
  }
  const managerId = manager.id;
  const topRuns = new Set(run.agentRuns.filter((r) => r.agentId === managerId && r.parentRunId === undefined).map((r) => r.id));
  const isManagerStep = (s: Step) => s.agentId === managerId && (s.agentRunId === undefined ? s.kind !== 'llm' : topRuns.has(s.agentRunId));
  const mode: SegmentMode = steps.some((s) => isManagerStep(s) && s.kind === 'action') ? 'action' : 'turn';

  const segments: Segment[] = [];
  let current: Segment = { index: 0, start: 0, end: 0, managerSteps: [] };
  let opened = false; // the current segment already holds its opening manager step (action, or turn)
  let previousWasManager = false;
  const open = (position: number) => {
    current.end = position - 1;
    segments.push(current);
    current = { index: segments.length, start: position, end: position, managerSteps: [] };
    opened = false;
  };
  steps.forEach((s, position) => {
    const mine = isManagerStep(s);
    if (mine) {
      if (mode === 'action') {
        if ((s.kind === 'action' || s.kind === 'planning') && opened) open(position);
        if (s.kind === 'action') opened = true;
      } else {
        if (!previousWasManager && opened) open(position);
        opened = true;
      }
      current.managerSteps.push(s);
    }
    previousWasManager = mine;
  });
  current.end = steps.length - 1;
  segments.push(current);
  return { managerId, managerReason: manager.reason, mode, steps, segments, depthOf };
}

/** A turn: consecutive replay steps of one agent run (of one agent when steps carry no run). */
export interface Turn {
  agentId: string;
  first: number;
  last: number;
}

export function turnsOf(seg: Segmentation, segment: Segment): Turn[] {
  const turns: Turn[] = [];
  let previous: Step | undefined;
  for (let p = segment.start; p <= segment.end; p++) {
    const s = seg.steps[p];
    // A step without an agent run (a closing model call) continues its agent's turn.
    const same =
      previous !== undefined &&
      previous.agentId === s.agentId &&
      (previous.agentRunId === s.agentRunId || previous.agentRunId === undefined || s.agentRunId === undefined);
    if (same) turns[turns.length - 1].last = p;
    else turns.push({ agentId: s.agentId, first: p, last: p });
    previous = s;
  }
  return turns;
}
