// Task sets in the `../shared/tasks/*.jsonl` shape: one JSON object a line with `question` or `problem` (HumanEval:
// `prompt`) and `answer` when there is a reference. Ids come from the line (`id`, `problem_idx`, `unique_id`) or
// its position, so a batch can tell which tasks it finished.
import { referenceAnswer } from './scoring.ts';

export type TaskDomain = 'math' | 'code';

export interface LiveTask {
  id: string;
  question: string;
  /** The bare reference answer (GSM8K's `#### x` already taken out); absent for code tasks. */
  answer?: string;
  level?: string;
  domain: TaskDomain;
}

export class TaskSetError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'TaskSetError';
  }
}

export function parseTaskSet(text: string): LiveTask[] {
  const tasks: LiveTask[] = [];
  const ids = new Set<string>();
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new TaskSetError(i + 1, `not JSON (${e instanceof Error ? e.message : String(e)})`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new TaskSetError(i + 1, 'not a JSON object');
    const o = value as Record<string, unknown>;
    const text = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : typeof o[k] === 'number' ? String(o[k]) : undefined);
    const isCode = typeof o.prompt === 'string' && typeof o.entry_point === 'string';
    const question = text('question') ?? text('problem') ?? (isCode ? text('prompt') : undefined);
    if (question === undefined || question.trim() === '') throw new TaskSetError(i + 1, 'no `question`, `problem` or `prompt` field');
    let id = text('id') ?? text('problem_idx') ?? text('unique_id') ?? String(tasks.length);
    if (ids.has(id)) id = `${id}@${i + 1}`;
    ids.add(id);
    const task: LiveTask = { id, question, domain: isCode ? 'code' : 'math' };
    const answer = text('answer');
    if (answer !== undefined && answer.trim() !== '') task.answer = referenceAnswer(answer);
    const level = text('level');
    if (level !== undefined) task.level = level;
    tasks.push(task);
  });
  return tasks;
}
