// Edge states x_t = (task or subgoal, sender u, receiver v, message m, local history h) of a recorded run (SPEC §5.3).
// One edge per handoff of the run, in the run's order. The state is self-contained (names, roles and recorded prompts
// copied in), so a live runner can build one for a message that is not in any Run yet and clarify it alone.
import type { Agent, Handoff, Run, Step } from '../../model/types.ts';
import { DEFAULT_WINDOW } from '../../model/engine-params.ts';
import { lowerBound } from '../../model/large-arrays.ts';
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

/**
 * The first system message an agent's model calls were given, if the trace recorded prompts. Yields every SLICE steps:
 * a million-message chat log's steps took one slice of ~80 ms in the page.
 */
function* recordedPrompts(run: Run): Sliced<Map<string, string>> {
  const out = new Map<string, string>();
  const { steps } = run;
  for (let i = 0; i < steps.length; i++) {
    if (i % SLICE === SLICE - 1) yield i / steps.length;
    const step = steps[i];
    if (!step.input || out.has(step.agentId)) continue;
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
  /** The handoffs' count when worked out: an array appended to in place (a live run) is worked out again. */
  handoffs: number;
}

/** The receivers of a handoff (one list per recipients array met) and their names joined, as a history entry says them. */
interface ReceiverGroup {
  receivers: EdgeAgent[];
  names: string;
  /** The ids of the agents a handoff from `sender` to this group involves, sender first (built per sender when asked). */
  involved: Map<string, readonly string[]>;
}

/** How many states made on demand a list keeps, so that asking twice for one gives the same object (a list in view). */
const KEPT_STATES = 2048;

/**
 * A run's edge states (SPEC §5.3), one per handoff in run order, each made when asked for (`at`) from a few numbers
 * per handoff: its sender's and receivers' places among the agents met, its subgoal's place, and per agent the
 * positions of the handoffs it took part in. A chat log of a million messages was a million states, each with its
 * history array and entries, ~170 bytes a handoff on the page; the edge list held them while open, and the garbage
 * collector's pauses at that heap reached 57–489 ms (ADR 0089). The states are self-contained as before; readers
 * never change them.
 */
export class EdgeStateList {
  readonly length: number;
  private readonly kept = new Map<number, EdgeState>();
  private everything: EdgeState[] | undefined;

  constructor(
    private readonly handoffs: readonly Handoff[],
    private readonly task: string,
    private readonly window: number,
    private readonly agents: readonly EdgeAgent[],
    /** Each handoff's sender, its place in `agents`. */
    private readonly senders: Int32Array,
    private readonly groups: readonly ReceiverGroup[],
    /** Each handoff's receivers, their place in `groups`. */
    private readonly groupOf: Int32Array,
    private readonly subgoals: readonly string[],
    /** Each handoff's subgoal, its place in `subgoals`; -1: none. */
    private readonly subgoalOf: Int32Array,
    /** Per agent id, the positions of the handoffs it took part in, ascending. */
    private readonly positionsOf: ReadonlyMap<string, readonly number[]>,
  ) {
    this.length = handoffs.length;
  }

  /** The state of the handoff at `position` (0 ≤ position < length). */
  at(position: number): EdgeState {
    const kept = this.kept.get(position);
    if (kept) return kept;
    if (!(position >= 0 && position < this.length)) throw new RangeError(`no edge at position ${position} of ${this.length}`);
    const h = this.handoffs[position];
    const sender = this.agents[this.senders[position]];
    const { receivers } = this.groups[this.groupOf[position]];
    const history = this.historyOf(position).map((p) => this.entryAt(p));
    const state: EdgeState = { id: h.id, task: this.task, sender, receiver: receivers[0], receivers, message: h.content, history, kind: h.kind, position };
    const subgoal = this.subgoalOf[position];
    if (subgoal !== -1) state.subgoal = this.subgoals[subgoal];
    if (h.stepId !== undefined) state.stepId = h.stepId;
    if (this.kept.size >= KEPT_STATES) this.kept.clear();
    this.kept.set(position, state);
    return state;
  }

  /**
   * The position of the handoff with this id, -1 when none. `near`: a position to look at first (the edge a key moved
   * from), then its neighbours; else the first of that id in the run (a run's ids are unique; where they are not, a
   * key still moves on from one to the next).
   */
  indexOf(id: string, near?: number): number {
    const { handoffs } = this;
    if (near !== undefined) {
      for (const p of [near, near - 1, near + 1, near - 2, near + 2]) if (handoffs[p]?.id === id) return p;
    }
    for (let p = 0; p < handoffs.length; p++) if (handoffs[p].id === id) return p;
    return -1;
  }

  /** The id of the handoff at `position` (its state's id), without making the state. */
  idAt(position: number): string {
    return this.handoffs[position].id;
  }

  /** Every state, in run order (made once and kept: for a caller that wants an array). */
  all(): EdgeState[] {
    if (!this.everything) {
      const out: EdgeState[] = new Array(this.length);
      for (let p = 0; p < this.length; p++) out[p] = this.at(p);
      this.everything = out;
    }
    return this.everything;
  }

  /**
   * The positions of the `window` latest handoffs before `position` in which its sender or one of its receivers took
   * part, ascending: the `window` latest of each involved agent's, merged.
   */
  private historyOf(position: number): number[] {
    const { window } = this;
    if (window <= 0) return [];
    const group = this.groups[this.groupOf[position]];
    const sender = this.agents[this.senders[position]];
    const recent: number[] = [];
    for (const id of involvedIds(group, sender)) {
      const list = this.positionsOf.get(id);
      if (!list) continue;
      const end = lowerBound(list, position); // how many of its handoffs came before this one
      for (let i = end - 1; i >= 0 && i >= end - window; i--) if (!recent.includes(list[i])) recent.push(list[i]);
    }
    recent.sort((x, y) => x - y);
    return recent.slice(Math.max(0, recent.length - window));
  }

  /** A history entry: the handoff at `position` as the sender, the receivers' names and the message. */
  private entryAt(position: number): HistoryEntry {
    return { from: this.agents[this.senders[position]].name, to: this.groups[this.groupOf[position]].names, message: this.handoffs[position].content };
  }
}

/** The ids a handoff from `sender` to `group` involves, sender first, each once. */
function involvedIds(group: ReceiverGroup, sender: EdgeAgent): readonly string[] {
  let ids = group.involved.get(sender.id);
  if (!ids) {
    const out = [sender.id];
    for (const r of group.receivers) if (!out.includes(r.id)) out.push(r.id);
    group.involved.set(sender.id, (ids = out));
  }
  return ids;
}

/**
 * Edge states worked out already, by the run's handoffs array: a label saved on a 200k-message chat log made the
 * taxonomy's edge list work out all 200k states again, ~0.6 s of the page's thread. Valid while the other inputs are
 * the same objects.
 */
const worked = new WeakMap<readonly Handoff[], { inputs: EdgeInputs; states: EdgeStateList }>();

function sameInputs(a: EdgeInputs, run: Run, window: number): boolean {
  return a.agents === run.agents && a.steps === run.steps && a.agentRuns === run.agentRuns && a.task === run.task && a.window === window && a.handoffs === run.handoffs.length;
}

/** The run's edge states if worked out already (edgeStateList then returns them at once). */
export function knownEdgeStates(run: Run, window = DEFAULT_WINDOW): EdgeStateList | undefined {
  const known = worked.get(run.handoffs);
  return known && sameInputs(known.inputs, run, window) ? known.states : undefined;
}

/** Every handoff of the run as an edge state, in run order, as an array; history window `window` (H, default 3). */
export function edgeStates(run: Run, window = DEFAULT_WINDOW): EdgeState[] {
  return edgeStateList(run, window).all();
}

/** The run's edge states, each made when asked for. */
export function edgeStateList(run: Run, window = DEFAULT_WINDOW): EdgeStateList {
  return finish(edgeStatesSlices(run, window));
}

/** edgeStateList as a sliced derivation (model/slices.ts), for the page's edge list of a large run. */
export function* edgeStatesSlices(run: Run, window = DEFAULT_WINDOW): Sliced<EdgeStateList> {
  const known = knownEdgeStates(run, window);
  if (known) return known;
  const byId = new Map(run.agents.map((a) => [a.id, a]));
  const byName = new Map(run.agents.map((a) => [a.name, a]));
  const prompts = yield* phase(recordedPrompts(run), 0, 0.05);
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
  const n = run.handoffs.length;
  // One agent object per name and one receiver list per recipients, shared by every state that names them.
  const agents: EdgeAgent[] = [];
  const agentAt = new Map<string, number>();
  const agentOf = (ref: string): number => {
    let at = agentAt.get(ref);
    if (at === undefined) agentAt.set(ref, (at = agents.push(edgeAgent(ref, byId, byName, prompts)) - 1));
    return at;
  };
  const groups: ReceiverGroup[] = [];
  const groupAt = new Map<string, number>();
  // Most handoffs name one receiver: those are found by its name, without a key made per handoff; a list of several
  // (or none) by its JSON. A list that is the previous handoff's own array (shared by the page's interned arrays) is
  // not looked up again.
  const groupAtOne = new Map<string, number>();
  let lastTo: readonly string[] | undefined;
  let lastGroup = -1;
  const groupOfTo = (to: readonly string[]): number => {
    if (to === lastTo) return lastGroup;
    const one = to.length === 1;
    const key = one ? to[0] : JSON.stringify(to);
    const keyed = one ? groupAtOne : groupAt;
    let at = keyed.get(key);
    if (at === undefined) {
      const receivers = (to.length > 0 ? to : ['?']).map((ref) => agents[agentOf(ref)]);
      keyed.set(key, (at = groups.push({ receivers, names: receivers.map((r) => r.name).join(', '), involved: new Map() }) - 1));
    }
    lastTo = to;
    lastGroup = at;
    return at;
  };
  const subgoals: string[] = [];
  const subgoalAt = new Map<string, number>();
  const senders = new Int32Array(n);
  const groupOf = new Int32Array(n);
  const subgoalOf = new Int32Array(n).fill(-1);
  // Positions of the handoffs each agent took part in, ascending: a state's history is the `window` latest of its
  // involved agents' lists, found without scanning back through the whole run (which made 40k agents take minutes).
  const positionsOf = new Map<string, number[]>();
  for (let position = 0; position < n; position++) {
    const h = run.handoffs[position];
    const sender = (senders[position] = agentOf(h.from));
    const group = (groupOf[position] = groupOfTo(h.to));
    const step = h.stepId !== undefined ? stepById(h.stepId) : undefined;
    const local = step?.agentRunId !== undefined ? agentRunTask.get(step.agentRunId) : undefined;
    if (local && local.trim() !== task.trim()) {
      let at = subgoalAt.get(local);
      if (at === undefined) subgoalAt.set(local, (at = subgoals.push(local) - 1));
      subgoalOf[position] = at;
    }
    for (const id of involvedIds(groups[group], agents[sender])) {
      const list = positionsOf.get(id);
      if (list) list.push(position);
      else positionsOf.set(id, [position]);
    }
    if (position % SLICE === SLICE - 1) yield 0.15 + (0.85 * position) / n;
  }
  const states = new EdgeStateList(run.handoffs, task, window, agents, senders, groups, groupOf, subgoals, subgoalOf, positionsOf);
  worked.set(run.handoffs, { inputs: { agents: run.agents, steps: run.steps, agentRuns: run.agentRuns, task: run.task, window, handoffs: n }, states });
  return states;
}
