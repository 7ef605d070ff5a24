// The interaction graph of a run: agents, tools and memory as nodes; who talked to whom (handoffs, messages, tool and
// memory calls) as weighted edges; the manager → managed-agent hierarchy; and, per replay position, which node and
// edges the step at that position lights up. Pure derivation, computed once per run.
import type { Loop } from './loops.ts';
import type { Run, Step } from './types.ts';
import { finish, phase, SLICE, type Sliced } from './slices.ts';
import { AGENT_RUN_SPAN, nestedStepsInto, ToolCallCounter } from './tool-calls.ts';
import { stepPositionsSlices, type StepPositions } from './step-positions.ts';

export type GraphNodeKind = 'agent' | 'tool' | 'memory';
/** `vote`: a message-bus vote, from the voter to the agent that proposed the poll (counted apart from messages). */
export type GraphEdgeKind = 'message' | 'delegation' | 'report' | 'broadcast' | 'tool' | 'memory' | 'vote';

export interface GraphNode {
  id: string;
  kind: GraphNodeKind;
  label: string;
  /** Agent nodes: the agent's id. */
  agentId?: string;
  /** Agent nodes: id of the manager's node. */
  managerId?: string;
  /** Depth in the manager hierarchy (0 = top); tools and memory sit one below their deepest caller. */
  depth: number;
  /** Replay steps taken by the agent, or calls made to the tool. */
  activity: number;
  /** Tokens used by the agent's steps (model calls), 0 for tools. */
  tokens: number;
  /** The agent repeats an identical call (see ./loops.ts). */
  inLoop: boolean;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  kind: GraphEdgeKind;
  /** Messages / calls sent along the edge. */
  messages: number;
  /** Tokens of the steps that sent them (a step's tokens are shared evenly between the edges it sends on). */
  tokens: number;
  inLoop: boolean;
}

export interface InteractionGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Manager → managed pairs (node ids). */
  hierarchy: { manager: string; managed: string }[];
  /** Per replay position: index into `nodes` of the acting agent (-1 when unknown). */
  nodeAt: Int32Array;
  /** Per replay position: indices into `edges` the step sends on (shared empty array when none). */
  edgesAt: readonly (readonly number[])[];
}

const MEMORY_NAME = /(memory|memories|remember|recall|retriev|vector|knowledge.?base|embedding.?search)/i;

export const agentNodeId = (agentId: string) => `agent:${agentId}`;

function callTargetNode(name: string, agentByName: Map<string, string>): { id: string; kind: GraphNodeKind } {
  const agentId = agentByName.get(name);
  if (agentId !== undefined) return { id: agentNodeId(agentId), kind: 'agent' };
  if (MEMORY_NAME.test(name)) return { id: `memory:${name}`, kind: 'memory' };
  return { id: `tool:${name}`, kind: 'tool' };
}

const NO_EDGES: readonly number[] = Object.freeze([]);
const NO_STEPS: readonly Step[] = Object.freeze([]);

function stepTokens(step: Step, children: readonly Step[] | undefined): number {
  let total = step.usage?.total ?? 0;
  if (children) for (const c of children) total += c.usage?.total ?? 0;
  return total;
}

/**
 * How many distinct managers are above each agent. Each agent is climbed from once and depths found are kept, so a
 * hierarchy 200k deep costs linear time; in a cycle of k agents each has depth k − 1 (the others in the cycle).
 */
function agentDepths(ids: readonly string[], parentOf: ReadonlyMap<string, string>): Map<string, number> {
  const depth = new Map<string, number>();
  for (const id of ids) {
    if (depth.has(id)) continue;
    const path: string[] = [];
    const onPath = new Map<string, number>();
    let at: string | undefined = id;
    while (at !== undefined && !depth.has(at) && !onPath.has(at)) {
      onPath.set(at, path.length);
      path.push(at);
      at = parentOf.get(at);
    }
    let end = path.length;
    let below: number;
    if (at === undefined) below = -1;
    else if (depth.has(at)) below = depth.get(at)!;
    else {
      // A cycle: path[start..] all climb back to `at`.
      const start = onPath.get(at)!;
      for (let i = start; i < path.length; i++) depth.set(path[i], path.length - start - 1);
      end = start;
      below = path.length - start - 1;
    }
    for (let i = end - 1; i >= 0; i--) depth.set(path[i], ++below);
  }
  return depth;
}

/** Values by an edge's two ends and its kind. */
type ByEdge<V> = Map<string, Map<string, Map<GraphEdgeKind, V>>>;

/** The value for (`a`, `b`, `kind`) in `map`, made by `make` the first time it is asked for. */
function byEdge<V>(map: ByEdge<V>, a: string, b: string, kind: GraphEdgeKind, make: () => V): V {
  let byB = map.get(a);
  if (!byB) map.set(a, (byB = new Map()));
  let byKind = byB.get(b);
  if (!byKind) byB.set(b, (byKind = new Map()));
  let v = byKind.get(kind);
  if (v === undefined) byKind.set(kind, (v = make()));
  return v;
}

export function deriveGraph(
  run: Run,
  replaySteps: readonly Step[],
  childrenOf: ReadonlyMap<string, readonly Step[]>,
  loops: readonly Loop[] = [],
): InteractionGraph {
  return finish(deriveGraphSlices(run, replaySteps, childrenOf, loops));
}

/** The edge list of one edge, shared by every position that sends on that edge alone (most of a chat log's). */
function singleEdgeList(lists: (readonly number[])[], e: number): readonly number[] {
  return (lists[e] ??= Object.freeze([e]));
}

/**
 * deriveGraph in slices (src/model/slices.ts). The pass over the steps builds no string and no array for a step that
 * sends nothing: node ids are built once per agent, tool name and edge, not once per step.
 */
export function* deriveGraphSlices(
  run: Run,
  replaySteps: readonly Step[],
  childrenOf: ReadonlyMap<string, readonly Step[]>,
  loops: readonly Loop[] = [],
  /** The replay steps' positions by id (the run view's), when built already; built here when the run has handoffs. */
  positions?: StepPositions,
  /** Each handoff's replay position (-1: none), when found already (HandoffsByStep.positionOfHandoff). */
  handoffPositions?: Int32Array,
  /** 1 at the positions whose step has nested steps, when known (the run view's nestedPositions): the others are not looked up. */
  nestedAt?: Uint8Array,
): Sliced<InteractionGraph> {
  const nodes: GraphNode[] = [];
  const nodeIndex = new Map<string, number>();
  const agentByName = new Map<string, string>();
  const agentIds = new Set(run.agents.map((a) => a.id));
  for (const a of run.agents) agentByName.set(a.name, a.id);
  const resolveAgent = (ref: string): string | undefined => (agentIds.has(ref) ? ref : agentByName.get(ref));

  const addNode = (id: string, kind: GraphNodeKind, label: string, agentId?: string): number => {
    const existing = nodeIndex.get(id);
    if (existing !== undefined) return existing;
    nodes.push({ id, kind, label, agentId, depth: 0, activity: 0, tokens: 0, inLoop: false });
    nodeIndex.set(id, nodes.length - 1);
    return nodes.length - 1;
  };
  for (const a of run.agents) addNode(agentNodeId(a.id), 'agent', a.name, a.id);
  /** The node of each agent id, so that a step's agent is one lookup, without building its node id. */
  const agentNode = new Map<string, number>();
  const ensureAgent = (agentId: string): number => {
    let at = agentNode.get(agentId);
    if (at === undefined) agentNode.set(agentId, (at = addNode(agentNodeId(agentId), 'agent', agentId, agentId)));
    return at;
  };

  // Hierarchy and depths.
  const hierarchy: InteractionGraph['hierarchy'] = [];
  const parentOf = new Map<string, string>();
  for (const a of run.agents) {
    if (a.parentId !== undefined && a.parentId !== a.id) {
      ensureAgent(a.parentId);
      parentOf.set(a.id, a.parentId);
      nodes[nodeIndex.get(agentNodeId(a.id))!].managerId = agentNodeId(a.parentId);
      hierarchy.push({ manager: agentNodeId(a.parentId), managed: agentNodeId(a.id) });
    }
  }
  const depthOf = agentDepths(run.agents.map((a) => a.id), parentOf);
  for (const a of run.agents) nodes[nodeIndex.get(agentNodeId(a.id))!].depth = depthOf.get(a.id) ?? 0;

  const edges: GraphEdge[] = [];
  /** Each edge's target node (its index in `nodes`). */
  const edgeTargets: number[] = [];
  const edgeIndex = new Map<string, Map<string, number>>();
  // The arrays of one entry per position are made a slice apart, and -1 is set a slice at a time: at a million steps,
  // made at once they were one slice of 37–53 ms (ADR 0106).
  const edgesAt: (readonly number[])[] = new Array(replaySteps.length);
  yield 0;
  const nodeAt = new Int32Array(replaySteps.length);
  for (let from = 0; from < nodeAt.length; from += 4 * SLICE) {
    nodeAt.fill(-1, from, from + 4 * SLICE);
    yield 0;
  }
  // Only handoffs are placed by step id: the positions are built when the run has any.
  let positionOf = positions;

  // Contributions are collected per position first, so a step's tokens can be shared between its edges.
  // `edge`: the index of its edge once touched (a handoff's contribution is shared: a chat log's million handoffs reach
  // their few edges without two map lookups each).
  type Contribution = { source: string; target: string; kind: GraphEdgeKind; edge?: number };
  // One contribution at a position (a chat log's handoff per message) is kept as itself, several in a list.
  const pending: (Contribution | Contribution[] | undefined)[] = new Array(replaySteps.length);
  yield 0;
  // A handoff's contribution is shared by every handoff with the same agents and kind, and an agent's node id is made
  // once: at 1M handoffs, an object and two id strings per handoff were a storm of garbage collection in this pass.
  const nodeIdByAgent = new Map<string, string>();
  const agentIdOf = (agentId: string): string => {
    let id = nodeIdByAgent.get(agentId);
    if (id === undefined) nodeIdByAgent.set(agentId, (id = agentNodeId(agentId)));
    return id;
  };
  const contributions: ByEdge<Contribution> = new Map();
  const contributionOf = (source: string, target: string, kind: GraphEdgeKind): Contribution => byEdge(contributions, source, target, kind, () => ({ source, target, kind }));
  /** A handoff's `from` as an agent id (its node made), by the name or id the handoff gives. */
  const fromOfHandoff = new Map<string, string>();
  /** The contribution of a handoff from the agent `from` to the agent named or identified by `toRef`, made once. */
  const byToRef: ByEdge<Contribution> = new Map();
  const handoffContribution = (from: string, toRef: string, kind: GraphEdgeKind): Contribution =>
    // Looked up first without a function to make it (a chat log asks a million times for a few contributions).
    byToRef.get(from)?.get(toRef)?.get(kind) ??
    byEdge(byToRef, from, toRef, kind, () => {
      const to = resolveAgent(toRef) ?? toRef;
      ensureAgent(to);
      return contributionOf(agentIdOf(from), agentIdOf(to), kind);
    });
  let stepById: Map<string, Step> | undefined;
  /** A nested step's position: climb to the replay step holding it. */
  const positionOfNested = (stepId: string): number | undefined => {
    stepById ??= new Map(run.steps.map((s) => [s.id, s]));
    const parent = stepById.get(stepId)?.parentStepId;
    if (parent === undefined || parent === stepId) return undefined;
    return positionOf!.replay(parent) ?? positionOfNested(parent);
  };

  /** 1 at the positions whose step a handoff names (their `recipients` are that handoff, not another edge). */
  let handedAt: Uint8Array | undefined;
  const unplaced: { source: string; target: string; kind: GraphEdgeKind }[] = [];
  if (run.handoffs.length > 0) {
    if (!positionOf) {
      const work = stepPositionsSlices(replaySteps);
      for (let r = work.next(); ; r = work.next()) {
        if (r.done) {
          positionOf = r.value;
          break;
        }
        yield 0;
      }
    }
    handedAt = new Uint8Array(replaySteps.length);
    yield 0;
  }
  // The progress: the handoffs' pass, when the run has any, is the first part of it (a chat log has one per message),
  // the pass over the positions the rest.
  const handoffShare = run.handoffs.length > 0 ? 0.4 : 0;
  // Handoffs come in step order in most traces: each is looked for first just after the last one's step.
  let hint = 0;
  for (let k = 0; k < run.handoffs.length; k++) {
    if (k % SLICE === SLICE - 1) yield (handoffShare * k) / run.handoffs.length;
    const h = run.handoffs[k];
    let from = fromOfHandoff.get(h.from);
    if (from === undefined) {
      fromOfHandoff.set(h.from, (from = resolveAgent(h.from) ?? h.from));
      ensureAgent(from);
    }
    let position: number | undefined;
    if (h.stepId !== undefined) {
      position = handoffPositions ? (handoffPositions[k] === -1 ? undefined : handoffPositions[k]) : positionOf!.near(h.stepId, hint);
      if (position !== undefined) {
        handedAt![position] = 1;
        hint = position;
      } else position = positionOfNested(h.stepId);
    }
    for (const toRef of h.to) {
      const contribution = handoffContribution(from, toRef, h.kind);
      if (position === undefined) unplaced.push(contribution);
      else {
        const there = pending[position];
        if (there === undefined) pending[position] = contribution;
        else if (Array.isArray(there)) there.push(contribution);
        else pending[position] = [there, contribution];
      }
    }
  }

  let hasExplicitRouting = run.handoffs.length > 0;
  for (let i = 0; !hasExplicitRouting && i < run.steps.length; i++) {
    if (i % SLICE === SLICE - 1) yield 0;
    const r = run.steps[i].recipients;
    if (r && r.length > 0) hasExplicitRouting = true;
  }
  let previousSpeaker: string | undefined;
  const calls = yield* phase(ToolCallCounter.forSlices(run), handoffShare, handoffShare);
  // The contributions of the step being read.
  const out: Contribution[] = [];
  /** The node id of the agent of the step being read, built when it sends something. */
  let sourceId: string | undefined;
  let sourceAgent = '';
  const sourceOf = (agentId: string): string => {
    if (sourceId === undefined || sourceAgent !== agentId) {
      sourceId = agentNodeId(agentId);
      sourceAgent = agentId;
    }
    return sourceId;
  };
  /** Each call name's target node, made once per name; null: a managed agent's run span, drawn by its handoff. */
  const targets = new Map<string, { id: string; kind: GraphNodeKind } | null>();
  /**
   * How many of `out`'s first contributions are the handoffs at this position: an agent → agent edge they draw
   * already, a call to that agent is the same handoff.
   */
  let handedCount = 0;
  const handedOff = (source: string, target: string): boolean => {
    for (let i = 0; i < handedCount; i++) if (out[i].source === source && out[i].target === target) return true;
    return false;
  };
  const addCall = (name: string, agentId: string) => {
    // A managed agent called through its run span (smolagents `ToolCallingAgent.run`): the delegation handoff
    // already draws that edge. Tested once per name, with its target.
    let target = targets.get(name);
    if (target === undefined) targets.set(name, (target = AGENT_RUN_SPAN.test(name) && !agentByName.has(name) ? null : callTargetNode(name, agentByName)));
    if (target === null) return;
    const source = sourceOf(agentId);
    if (target.id === source) return;
    if (target.kind === 'agent' && handedCount > 0 && handedOff(source, target.id)) return;
    if (target.kind !== 'agent') addNode(target.id, target.kind, name);
    out.push({ source, target: target.id, kind: target.kind === 'agent' ? 'delegation' : target.kind });
  };
  const singleLists: (readonly number[])[] = [];
  let ids: number[] | undefined;
  let only = -1;
  const send = (e: number) => {
    if (ids !== undefined) {
      if (!ids.includes(e)) ids.push(e);
    } else if (only === -1) only = e;
    else if (only !== e) ids = [only, e];
  };
  // One list of nested steps, refilled row after row.
  const nestedBuffer: Step[] = [];
  const n = replaySteps.length;
  const hasNested = childrenOf.size > 0;
  let stepAgent: string | undefined;
  let stepNode = -1;
  for (let position = 0; position < n; position++) {
    if (position % SLICE === SLICE - 1) yield handoffShare + ((1 - handoffShare) * position) / n;
    const step = replaySteps[position];
    // Steps of one agent come in stretches: its node is looked up again only when the agent changes.
    if (step.agentId !== stepAgent) {
      stepAgent = step.agentId;
      stepNode = ensureAgent(stepAgent);
    }
    nodeAt[position] = stepNode;
    out.length = 0;
    const handed = pending[position];
    if (handed === undefined) handedCount = 0;
    else {
      if (Array.isArray(handed)) for (const c of handed) out.push(c);
      else out.push(handed);
      handedCount = out.length;
    }
    if (step.recipients && step.recipients.length > 0 && !(handedAt && handedAt[positionOf!.duplicates ? positionOf!.replay(step.id)! : position])) {
      const source = sourceOf(step.agentId);
      for (const r of step.recipients) {
        const to = resolveAgent(r) ?? r;
        ensureAgent(to);
        out.push({ source, target: agentNodeId(to), kind: 'message' });
      }
    }
    // Chat logs without any routing: each turn answers the previous speaker.
    if (!hasExplicitRouting && step.kind === 'message') {
      if (previousSpeaker !== undefined && previousSpeaker !== step.agentId) {
        out.push({ source: agentNodeId(previousSpeaker), target: sourceOf(step.agentId), kind: 'message' });
      }
      previousSpeaker = step.agentId;
    }
    const children = hasNested && (nestedAt === undefined || nestedAt[position] === 1) && childrenOf.has(step.id) ? nestedStepsInto(step.id, childrenOf, nestedBuffer) : NO_STEPS;
    calls.eachCall(step, children, addCall);
    const tokens = stepTokens(step, children);
    nodes[nodeAt[position]].activity++;
    nodes[nodeAt[position]].tokens += tokens;
    const voteTarget = voteTargetOf(step);
    if (out.length === 0 && voteTarget === undefined) {
      edgesAt[position] = NO_EDGES;
      continue;
    }
    // The distinct edges in the order sent: one edge alone (the common case) is a shared list, not a new array.
    only = -1;
    ids = undefined;
    for (const c of out) {
      let e = c.edge;
      if (e === undefined) c.edge = e = edgeOf(c.source, c.target, c.kind);
      touched(e);
      edges[e].messages++;
      edges[e].tokens += tokens / out.length;
      send(e);
    }
    if (voteTarget !== undefined) {
      // No tokens: the vote's tokens are counted on the messages that carried it.
      const e = touchEdge(sourceOf(step.agentId), voteTarget, 'vote');
      edges[e].messages++;
      send(e);
    }
    edgesAt[position] = ids ?? singleEdgeList(singleLists, only);
    // `out` is reused: the contributions of a handoff were read from `pending`, which is not needed again.
    pending[position] = undefined;
  }
  for (const c of unplaced) edges[touchEdge(c.source, c.target, c.kind)].messages++;

  /** A vote step's target: the node of the agent that opened the poll (undefined for other steps and self-votes). */
  function voteTargetOf(step: Step): string | undefined {
    if (step.bus?.kind !== 'vote' || step.bus.pollStepId === undefined) return undefined;
    stepById ??= new Map(run.steps.map((s) => [s.id, s]));
    const poll = stepById.get(step.bus.pollStepId);
    if (!poll) return undefined;
    const proposer = (poll.bus?.kind === 'poll' && poll.bus.proposer !== undefined ? resolveAgent(poll.bus.proposer) : undefined) ?? poll.agentId;
    if (proposer === step.agentId) return undefined;
    ensureAgent(proposer);
    return agentNodeId(proposer);
  }

  function touchEdge(source: string, target: string, kind: GraphEdgeKind): number {
    const e = edgeOf(source, target, kind);
    touched(e);
    return e;
  }

  /** A call of an edge into a tool or model node: one more use of that node (an agent's activity is its steps). */
  function touched(e: number): void {
    const target = edgeTargets[e];
    if (nodes[target].kind !== 'agent') nodes[target].activity++;
  }

  /** The edge from `source` to `target` of this kind, made when first met. */
  function edgeOf(source: string, target: string, kind: GraphEdgeKind): number {
    let bySource = edgeIndex.get(source);
    if (!bySource) edgeIndex.set(source, (bySource = new Map()));
    // Votes are an edge of their own beside any message edge between the same two agents.
    const key = kind === 'vote' ? `vote\u0000${target}` : target;
    let e = bySource.get(key);
    if (e === undefined) {
      const id = kind === 'vote' ? `${source}=vote=>${target}` : `${source}->${target}`;
      edges.push({ id, source, target, kind, messages: 0, tokens: 0, inLoop: false });
      e = edges.length - 1;
      bySource.set(key, e);
      const targetAt = nodeIndex.get(target)!;
      edgeTargets.push(targetAt);
      const targetNode = nodes[targetAt];
      if (targetNode.kind !== 'agent') {
        targetNode.depth = Math.max(targetNode.depth, nodes[nodeIndex.get(source)!].depth + 1);
      }
    }
    return e;
  }

  const graph: InteractionGraph = { nodes, edges, hierarchy, nodeAt, edgesAt };
  yield* markLoopsSlices(graph, loops, nodeIndex);
  return graph;
}

/**
 * Marks `inLoop` on the agents of `loops` and on the edges their positions send on (with those edges' tool and memory
 * targets): the end of deriveGraphSlices, and on its own for a graph derived before the loops were known (a run view
 * whose loops come from the import worker, run-view-model.ts). `nodeIndex`: node id → index, when at hand.
 */
export function* markLoopsSlices(graph: InteractionGraph, loops: readonly Loop[], nodeIndex?: ReadonlyMap<string, number>): Sliced<void> {
  if (loops.length === 0) return;
  const { nodes, edges, edgesAt } = graph;
  const indexOf = nodeIndex ?? new Map(nodes.map((n, i) => [n.id, i]));
  // A chat log's one loop holds most of its million positions: marked a slice at a time (in one go, a task of
  // 0.3–1 s at 1M steps), and an edge marked already (with its target) is not looked at again.
  let marked = 0;
  for (const loop of loops) {
    marked += loop.agentIds.length;
    for (const agentId of loop.agentIds) {
      const agentNode = indexOf.get(agentNodeId(agentId));
      if (agentNode !== undefined) nodes[agentNode].inLoop = true;
    }
    for (const position of loop.positions) {
      if (++marked > SLICE) {
        marked = 0;
        yield 1;
      }
      for (const e of edgesAt[position] ?? NO_EDGES) {
        if (edges[e].inLoop) continue;
        edges[e].inLoop = true;
        const target = indexOf.get(edges[e].target)!;
        if (nodes[target].kind !== 'agent') nodes[target].inLoop = true;
      }
    }
  }
}
