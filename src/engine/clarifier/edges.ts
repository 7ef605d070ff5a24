// Edge states x_t = (task or subgoal, sender u, receiver v, message m, local history h) of a recorded run (SPEC §5.3).
// One edge per handoff of the run, in the run's order. The state is self-contained (names, roles and recorded prompts
// copied in), so a live runner can build one for a message that is not in any Run yet and clarify it alone.
import type { Agent, Handoff, Run, Step } from '../../model/types.ts';
import { DEFAULT_WINDOW } from '../../model/engine-params.ts';
import { finish, phase, SLICE, type Sliced } from '../../model/slices.ts';
import { StepPositions } from '../../model/step-positions.ts';

export interface EdgeAgent {
  id: string;
  name: string;
  /** Role or description, as recorded. */
  role?: string;
  /** The agent's recorded system prompt, when the trace has one: the addressee's LLM plays the agent with it. */
  prompt?: string;
  /** `human` for the person using the system (the addressee's LLM then answers as that user). */
  kind?: 'agent' | 'human' | 'system';
}

export interface HistoryEntry {
  from: string;
  to: string;
  message: string;
}

export interface EdgeState {
  /** The handoff's id in its run (or any id a live runner gives the message). */
  id: string;
  /** The global task Q_g. */
  task: string;
  /** The sender's current subgoal (its agent run's local task) when it differs from the global task. */
  subgoal?: string;
  sender: EdgeAgent;
  /** The first receiver; `receivers` lists all of them for broadcasts. */
  receiver: EdgeAgent;
  receivers: EdgeAgent[];
  message: string;
  /** The H most recent earlier handoffs on which the sender or the receiver took part, oldest first. */
  history: HistoryEntry[];
  kind?: Handoff['kind'];
  /** Position of the handoff in the run (0-based), and the step that sent it. */
  position?: number;
  stepId?: string;
}

export { DEFAULT_WINDOW };

/** The first system message an agent's model calls were given, if the trace recorded prompts. */
function recordedPrompts(run: Run): Map<string, string> {
  const out = new Map<string, string>();
  for (const step of run.steps) {
    if (out.has(step.agentId) || !step.input) continue;
    const system = step.input.find((m) => m.role === 'system' && m.content.trim() !== '');
    if (system) out.set(step.agentId, system.content);
  }
  return out;
}

function edgeAgent(ref: string, byId: Map<string, Agent>, byName: Map<string, Agent>, prompts: Map<string, string>): EdgeAgent {
  const agent = byId.get(ref) ?? byName.get(ref);
  if (!agent) return { id: ref, name: ref };
  const out: EdgeAgent = { id: agent.id, name: agent.name };
  const role = agent.role ?? agent.description;
  if (role) out.role = role;
  const prompt = prompts.get(agent.id);
  if (prompt) out.prompt = prompt;
  if (agent.kind) out.kind = agent.kind;
  return out;
}

/** What a run's edge states are made of, besides its handoffs: a label (annotations) or a result changes none of it. */
interface EdgeInputs {
  agents: Run['agents'];
  steps: Run['steps'];
  agentRuns: Run['agentRuns'];
  task: Run['task'];
  window: number;
}

/**
 * Edge states worked out already, by the run's handoffs array: a label saved on a 200k-message chat log made the
 * taxonomy's edge list work out all 200k states again, ~0.6 s of the page's thread. Valid while the other inputs are
 * the same objects. The states are shared: readers never change them.
 */
const worked = new WeakMap<readonly Handoff[], { inputs: EdgeInputs; states: EdgeState[] }>();

function sameInputs(a: EdgeInputs, run: Run, window: number): boolean {
  return a.agents === run.agents && a.steps === run.steps && a.agentRuns === run.agentRuns && a.task === run.task && a.window === window;
}

/** The run's edge states if worked out already (edgeStates then returns them at once). */
export function knownEdgeStates(run: Run, window = DEFAULT_WINDOW): EdgeState[] | undefined {
  const known = worked.get(run.handoffs);
  return known && sameInputs(known.inputs, run, window) ? known.states : undefined;
}

/** Every handoff of the run as an edge state, in run order; history window `window` (H, default 3). */
export function edgeStates(run: Run, window = DEFAULT_WINDOW): EdgeState[] {
  return finish(edgeStatesSlices(run, window));
}

/** edgeStates as a sliced derivation (model/slices.ts), for the page's edge list of a large run. */
export function* edgeStatesSlices(run: Run, window = DEFAULT_WINDOW): Sliced<EdgeState[]> {
  const known = knownEdgeStates(run, window);
  if (known) return known;
  const byId = new Map(run.agents.map((a) => [a.id, a]));
  const byName = new Map(run.agents.map((a) => [a.name, a]));
  const prompts = recordedPrompts(run);
  yield 0.05;
  // The steps' positions by id in a table (model/step-positions.ts), not a Map of every step: at a million steps the
  // Map's growth copied it whole inside one slice (tasks of 100–120 ms as the edge list opened). The last step of an
  // id wins, as in a Map filled in step order.
  const positions = yield* phase(new StepPositions(run.steps).build(), 0.05, 0.15);
  const stepById = (id: string): Step | undefined => {
    const p = positions.replay(id);
    return p === undefined ? undefined : run.steps[p];
  };
  const agentRunTask = new Map(run.agentRuns.map((r) => [r.id, r.task]));
  const task = run.task ?? '';
  const states: EdgeState[] = [];
  const past: HistoryEntry[] = [];
  // Positions of the earlier handoffs each agent took part in, ascending: the history is the `window` latest of the
  // involved agents' lists, found without scanning back through the whole run (which made 40k agents take minutes).
  const positionsOf = new Map<string, number[]>();
  // One agent object per name and one receiver list per recipients, shared by every state that names them: a chat log
  // of a million messages is a million states, and the objects each held alive made garbage collection pauses of
  // 150–280 ms while its edge list was built.
  const agents = new Map<string, EdgeAgent>();
  const agentOf = (ref: string): EdgeAgent => {
    let agent = agents.get(ref);
    if (!agent) agents.set(ref, (agent = edgeAgent(ref, byId, byName, prompts)));
    return agent;
  };
  const groups = new Map<string, { receivers: EdgeAgent[]; names: string }>();
  const groupOf = (to: readonly string[]) => {
    const key = JSON.stringify(to);
    let group = groups.get(key);
    if (!group) {
      const receivers = (to.length > 0 ? to : ['?']).map(agentOf);
      groups.set(key, (group = { receivers, names: receivers.map((r) => r.name).join(', ') }));
    }
    return group;
  };
  for (let position = 0; position < run.handoffs.length; position++) {
    const h = run.handoffs[position];
    const sender = agentOf(h.from);
    const { receivers, names } = groupOf(h.to);
    const involved = [sender.id];
    for (const r of receivers) if (!involved.includes(r.id)) involved.push(r.id);
    const recent: number[] = [];
    for (const id of involved) {
      const list = positionsOf.get(id);
      if (list) for (let i = list.length - 1; i >= 0 && i >= list.length - window; i--) if (!recent.includes(list[i])) recent.push(list[i]);
    }
    recent.sort((x, y) => x - y);
    const history = recent.slice(Math.max(0, recent.length - window)).map((i) => past[i]);
    const step = h.stepId !== undefined ? stepById(h.stepId) : undefined;
    const local = step?.agentRunId !== undefined ? agentRunTask.get(step.agentRunId) : undefined;
    const state: EdgeState = { id: h.id, task, sender, receiver: receivers[0], receivers, message: h.content, history, kind: h.kind, position };
    if (local && local.trim() !== task.trim()) state.subgoal = local;
    if (h.stepId !== undefined) state.stepId = h.stepId;
    states.push(state);
    past.push({ from: sender.name, to: names, message: h.content });
    for (const id of involved) {
      const list = positionsOf.get(id);
      if (list) list.push(position);
      else positionsOf.set(id, [position]);
    }
    if (position % SLICE === SLICE - 1) yield 0.15 + (0.85 * position) / run.handoffs.length;
  }
  worked.set(run.handoffs, { inputs: { agents: run.agents, steps: run.steps, agentRuns: run.agentRuns, task: run.task, window }, states });
  return states;
}
