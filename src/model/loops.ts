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

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

function callsKey(calls: readonly Pick<ToolCall, 'name' | 'arguments'>[]): CallSignature {
  const key = calls.map((c) => `${c.name}(${collapse(c.arguments)})`).join(' ; ');
  const first = calls[0];
  const args = collapse(first.arguments);
  const label = `${first.name}(${args.length > 60 ? `${args.slice(0, 60)}…` : args})${calls.length > 1 ? ` +${calls.length - 1}` : ''}`;
  return { key: `call:${key}`, label };
}

/**
 * What a replay step "calls", for comparing steps: its tool calls (recorded on the step, else its nested tool
 * steps), else the text it sends (message, planning and action steps). Model calls alone are not calls of the
 * agent. Undefined when the step calls nothing comparable.
 */
export function callSignature(step: Step, children: readonly Step[] = []): CallSignature | undefined {
  if (step.toolCalls && step.toolCalls.length > 0) return callsKey(step.toolCalls);
  const nestedTools = children.filter((c) => c.kind === 'tool' && c.name);
  if (nestedTools.length > 0) {
    return callsKey(nestedTools.map((c) => ({ name: c.name ?? '', arguments: c.inputText ?? '' })));
  }
  if (step.kind === 'llm' || step.kind === 'tool') {
    if (step.kind === 'tool' && step.name) return callsKey([{ name: step.name, arguments: step.inputText ?? '' }]);
    return undefined;
  }
  const text = collapse(step.output ?? step.thought ?? '');
  if (text === '') return undefined;
  const to = step.recipients && step.recipients.length > 0 ? ` → ${step.recipients.join(', ')}` : '';
  return { key: `say:${to}:${text}`, label: `“${text.length > 60 ? `${text.slice(0, 60)}…` : text}”${to}` };
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
  // Per agent: ordinal of the agent's own step, and open clusters by signature.
  const ordinalByAgent = new Map<string, number>();
  interface Cluster {
    agentId: string;
    key: string;
    label: string;
    positions: number[];
    lastOrdinal: number;
  }
  const open = new Map<string, Cluster>();
  const loops: Loop[] = [];
  const close = (c: Cluster) => {
    if (c.positions.length >= options.minRepeats) {
      loops.push({ agentId: c.agentId, signature: c.key, label: c.label, positions: c.positions });
    }
  };
  for (let position = 0; position < replaySteps.length; position++) {
    const step = replaySteps[position];
    const ordinal = (ordinalByAgent.get(step.agentId) ?? -1) + 1;
    ordinalByAgent.set(step.agentId, ordinal);
    const signature = callSignature(step, childrenOf.get(step.id));
    if (!signature) continue;
    const clusterKey = `${step.agentId}\u0000${signature.key}`;
    const cluster = open.get(clusterKey);
    if (cluster && ordinal - cluster.lastOrdinal - 1 <= options.maxGap) {
      cluster.positions.push(position);
      cluster.lastOrdinal = ordinal;
    } else {
      if (cluster) close(cluster);
      open.set(clusterKey, { agentId: step.agentId, key: signature.key, label: signature.label, positions: [position], lastOrdinal: ordinal });
    }
  }
  for (const cluster of open.values()) close(cluster);
  return loops.sort((a, b) => a.positions[0] - b.positions[0]);
}
