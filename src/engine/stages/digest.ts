// What a stage's steps looked like, as plain text for the Planner / Evaluator / Updater prompts: who acted, what they
// thought, which tools they called with which arguments, what came back, what failed. Bounded in size: long texts are
// cut, and past the budget the remaining steps are counted rather than shown.
import type { Run } from '../../model/types.ts';
import type { Segment, Segmentation } from './segment.ts';

const cut = (text: string, n: number) => {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n)}… [${t.length - n} more characters]` : t;
};

export interface DigestLimits {
  /** Characters for the whole digest. */
  total: number;
  /** Characters per text field (thought, observation, message). */
  field: number;
}

export const DEFAULT_DIGEST_LIMITS: DigestLimits = { total: 6000, field: 600 };

export function digestSegment(run: Run, seg: Segmentation, segment: Segment, limits: DigestLimits = DEFAULT_DIGEST_LIMITS): string {
  const names = new Map(run.agents.map((a) => [a.id, a.name]));
  const lines: string[] = [];
  let used = 0;
  for (let p = segment.start; p <= segment.end; p++) {
    const s = seg.steps[p];
    const parts: string[] = [`[${names.get(s.agentId) ?? s.agentId}] ${s.kind}${s.number !== undefined ? ` ${s.number}` : ''}${s.name && s.kind !== 'message' ? ` “${s.name}”` : ''}`];
    const said = s.thought ?? s.output;
    if (said) parts.push(`  wrote: ${cut(said, limits.field)}`);
    for (const c of s.toolCalls ?? []) parts.push(`  called: ${c.name}(${cut(c.arguments, Math.floor(limits.field / 2))})`);
    if (s.observation) parts.push(`  got back: ${cut(s.observation, limits.field)}`);
    if (s.error) parts.push(`  ERROR: ${cut(s.error.message, Math.floor(limits.field / 2))}`);
    const block = parts.join('\n');
    if (used + block.length > limits.total && lines.length > 0) {
      lines.push(`(${segment.end - p + 1} more steps of this stage not shown)`);
      break;
    }
    lines.push(block);
    used += block.length + 1;
  }
  return lines.join('\n');
}
