// Loop detection: an agent repeating an identical call (same tool with the same arguments, or the same message)
// several times within a short stretch of its own steps. Used by the run view to outline loops and to jump to them.
import type { Step, ToolCall } from './types.ts';

export interface LoopOptions {
  /** Occurrences of one identical call needed to count as a loop. */
  minRepeats: number;
  /** Two occurrences belong to the same loop when at most this many of the agent's own steps lie between them. */
  maxGap: number;
}

export const DEFAULT_LOOP_OPTIONS: LoopOptions = { minRepeats: 3, maxGap: 8 };

export interface Loop {
  /** Agent that repeats the call. */
  agentId: string;
  /** Canonical text of the repeated call (comparison key). */
  signature: string;
  /** Short human-readable description of the call. */
  label: string;
  /** Positions in the replay step list of every occurrence, ascending. */
  positions: number[];
}

export interface CallSignature {
  key: string;
  label: string;
}

/**
 * A compact key for text compared modulo whitespace runs: normalised length, two 32-bit hashes and a short prefix.
 * One pass, no copy of the text, so long observations and outputs cost no more than reading them once.
 */
function textKey(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 5381;
  let length = 0;
  let prefix = '';
  let space = true; // leading whitespace is dropped
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    const isSpace = c === 32 || (c >= 9 && c <= 13) || c === 160;
    if (isSpace) {
      if (space) continue;
      space = true;
      c = 32;
    } else {
      if (space && length > 0) {
        h1 = Math.imul(h1 ^ 32, 0x01000193);
        h2 = (Math.imul(h2, 33) + 32) | 0;
        length++;
        if (prefix.length < 24) prefix += ' ';
      }
      space = false;
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = (Math.imul(h2, 33) + c) | 0;
      length++;
      if (prefix.length < 24) prefix += text[i];
    }
  }
  return length === 0 ? '' : `${length}:${(h1 >>> 0).toString(36)}:${(h2 >>> 0).toString(36)}:${prefix}`;
}

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();
const short = (text: string) => (text.length > 60 ? `${text.slice(0, 60)}…` : text);

type Call = Pick<ToolCall, 'name' | 'arguments'>;

function toolCallsOf(step: Step, children: readonly Step[]): Call[] | undefined {
  if (step.toolCalls && step.toolCalls.length > 0) return step.toolCalls;
  const nestedTools = children.filter((c) => c.kind === 'tool' && c.name);
  if (nestedTools.length > 0) return nestedTools.map((c) => ({ name: c.name ?? '', arguments: c.inputText ?? '' }));
  if (step.kind === 'tool' && step.name) return [{ name: step.name, arguments: step.inputText ?? '' }];
  return undefined;
}

/** The text a step sends when it calls no tool (message, planning and action steps); model calls send none. */
function sentText(step: Step): string | undefined {
  if (step.kind === 'llm' || step.kind === 'tool') return undefined;
  return step.output ?? step.thought;
}

const recipientsOf = (step: Step) => (step.recipients && step.recipients.length > 0 ? ` → ${step.recipients.join(', ')}` : '');

/** Comparison key of what a replay step calls (see callSignature), without building its label. */
export function callKey(step: Step, children: readonly Step[] = []): string | undefined {
  const calls = toolCallsOf(step, children);
  if (calls) return `call:${calls.map((c) => `${c.name}(${textKey(c.arguments)})`).join(';')}`;
  const text = sentText(step);
  if (text === undefined) return undefined;
  const key = textKey(text);
  return key === '' ? undefined : `say:${recipientsOf(step)}:${key}`;
}

/**
 * What a replay step "calls", for comparing steps: its tool calls (recorded on the step, else its nested tool
 * steps), else the text it sends (message, planning and action steps), compared modulo whitespace. Model calls
 * alone are not calls of the agent. Undefined when the step calls nothing comparable.
 */
export function callSignature(step: Step, children: readonly Step[] = []): CallSignature | undefined {
  const key = callKey(step, children);
  if (key === undefined) return undefined;
  const calls = toolCallsOf(step, children);
  if (calls) {
    const first = calls[0];
    return { key, label: `${first.name}(${short(collapse(first.arguments))})${calls.length > 1 ? ` +${calls.length - 1}` : ''}` };
  }
  return { key, label: `“${short(collapse(sentText(step) ?? ''))}”${recipientsOf(step)}` };
}

/**
 * Loops over the replay steps (those a playhead moves over). `childrenOf` supplies nested steps, whose tool calls
 * count as their parent's. Returns loops ordered by their first occurrence.
 */
export function detectLoops(
  replaySteps: readonly Step[],
  childrenOf: ReadonlyMap<string, readonly Step[]>,
  options: LoopOptions = DEFAULT_LOOP_OPTIONS,
): Loop[] {
  // Per agent: the ordinal of its own latest step, its open clusters by call key, and the keys of its last
  // maxGap + 1 steps. A cluster whose last occurrence falls out of that window can never grow again and is closed,
  // so memory stays bounded by agents × window however long the run is.
  interface Cluster {
    key: string;
    positions: number[];
    lastOrdinal: number;
  }
  interface AgentState {
    ordinal: number;
    open: Map<string, Cluster>;
    recent: { ordinal: number; key: string }[];
  }
  const agents = new Map<string, AgentState>();
  const loops: Loop[] = [];
  const close = (agentId: string, c: Cluster) => {
    if (c.positions.length >= options.minRepeats) {
      const first = replaySteps[c.positions[0]];
      const label = callSignature(first, childrenOf.get(first.id))?.label ?? c.key;
      loops.push({ agentId, signature: c.key, label, positions: c.positions });
    }
  };
  for (let position = 0; position < replaySteps.length; position++) {
    const step = replaySteps[position];
    let agent = agents.get(step.agentId);
    if (!agent) agents.set(step.agentId, (agent = { ordinal: -1, open: new Map(), recent: [] }));
    const ordinal = ++agent.ordinal;
    while (agent.recent.length > 0 && ordinal - agent.recent[0].ordinal - 1 > options.maxGap) {
      const old = agent.recent.shift()!;
      const cluster = agent.open.get(old.key);
      if (cluster && cluster.lastOrdinal === old.ordinal) {
        agent.open.delete(old.key);
        close(step.agentId, cluster);
      }
    }
    const key = callKey(step, childrenOf.get(step.id));
    if (key === undefined) continue;
    agent.recent.push({ ordinal, key });
    const cluster = agent.open.get(key);
    if (cluster) {
      cluster.positions.push(position);
      cluster.lastOrdinal = ordinal;
    } else {
      agent.open.set(key, { key, positions: [position], lastOrdinal: ordinal });
    }
  }
  for (const [agentId, agent] of agents) for (const cluster of agent.open.values()) close(agentId, cluster);
  return loops.sort((a, b) => a.positions[0] - b.positions[0]);
}
