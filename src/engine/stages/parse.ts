// Reading the Planner / Updater / Evaluator answers. Models wrap JSON in fences, add prose, rename fields, spell
// statuses their own way ("done", "needs refinement"); each repair is noted so the view can say what happened.
import { recordOf } from '../../model/record.ts';
import type { Subtask, SubtaskStatus } from '../../model/types.ts';
import { readJsonAnswer } from '../../llm/json-answer.ts';
import { appendAll } from '../../model/large-arrays.ts';

export interface Parsed<T> {
  value?: T;
  repairs: string[];
  problem?: string;
}

function readObject(answer: string, repairs: string[]): Record<string, unknown> | string {
  const read = readJsonAnswer(answer);
  appendAll(repairs, read.repairs);
  return read.ok ? read.value : read.problem;
}

const STATUS_WORDS: Record<string, SubtaskStatus> = recordOf({
  todo: 'TODO',
  pending: 'TODO',
  open: 'TODO',
  in_progress: 'TODO',
  active: 'TODO',
  not_started: 'TODO',
  done: 'DONE',
  complete: 'DONE',
  completed: 'DONE',
  success: 'DONE',
  failed: 'FAILED',
  failure: 'FAILED',
  fail: 'FAILED',
  need_refine: 'NEED-REFINE',
  needs_refine: 'NEED-REFINE',
  need_refinement: 'NEED-REFINE',
  needs_refinement: 'NEED-REFINE',
  refine: 'NEED-REFINE',
  partial: 'NEED-REFINE',
});

export function normaliseStatus(raw: unknown): SubtaskStatus | undefined {
  if (typeof raw !== 'string') return undefined;
  return STATUS_WORDS[raw.trim().toLowerCase().replace(/[\s-]+/g, '_')];
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const normTitle = (t: string) => t.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

export interface TaskStateAnswer {
  subtasks: Subtask[];
  nextSubtaskId?: string;
  summary?: string;
}

/**
 * A Planner or Updater answer. `previous` lets subtasks keep their ids when the model drops or changes them (matched
 * by title), and new subtasks get fresh ids.
 */
export function parseTaskState(answer: string, previous: readonly Subtask[] = []): Parsed<TaskStateAnswer> {
  const repairs: string[] = [];
  const obj = readObject(answer, repairs);
  if (typeof obj === 'string') return { repairs, problem: obj };
  const listKey = ['subtasks', 'subtask_list', 'tasks', 'plan'].find((k) => Array.isArray(obj[k]));
  if (listKey === undefined) return { repairs, problem: 'the answer has no subtask list' };
  if (listKey !== 'subtasks') repairs.push(`read the subtask list from "${listKey}"`);
  const byTitle = new Map(previous.map((s) => [normTitle(s.title), s.id]));
  const used = new Set<string>();
  let counter = previous.reduce((n, s) => Math.max(n, Number(/^s(\d+)$/.exec(s.id)?.[1] ?? 0)), 0);
  const subtasks: Subtask[] = [];
  for (const [i, raw] of (obj[listKey] as unknown[]).entries()) {
    const item = typeof raw === 'string' ? { title: raw } : raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : undefined;
    const title = item ? (text(item.title) ?? text(item.name) ?? text(item.description) ?? text(item.subtask)) : undefined;
    if (!item || title === undefined) {
      repairs.push(`dropped subtask ${i + 1}: it has no title`);
      continue;
    }
    let id = text(item.id) ?? (typeof item.id === 'number' ? `s${item.id}` : undefined) ?? byTitle.get(normTitle(title));
    if (id === undefined || used.has(id)) {
      if (id !== undefined) repairs.push(`gave the repeated id ${id} a new one`);
      do id = `s${++counter}`;
      while (used.has(id));
    }
    used.add(id);
    let status = normaliseStatus(item.status);
    if (status === undefined) {
      repairs.push(`read the unknown status ${JSON.stringify(item.status ?? null)} of ${id} as TODO`);
      status = 'TODO';
    } else if (item.status !== status) repairs.push(`read status ${JSON.stringify(item.status)} as ${status}`);
    subtasks.push({ id, title, status });
  }
  if (subtasks.length === 0) return { repairs, problem: 'the subtask list is empty' };

  const rawNext = obj.next_subtask_id ?? obj.next_subtask ?? obj.next;
  let nextSubtaskId: string | undefined;
  if (rawNext !== null && rawNext !== undefined) {
    const nextText = typeof rawNext === 'number' ? `s${rawNext}` : (text(rawNext) ?? (rawNext && typeof rawNext === 'object' ? text((rawNext as Record<string, unknown>).id) : undefined));
    if (nextText !== undefined) {
      if (subtasks.some((s) => s.id === nextText)) nextSubtaskId = nextText;
      else {
        const byName = subtasks.find((s) => normTitle(s.title) === normTitle(nextText));
        if (byName) {
          nextSubtaskId = byName.id;
          repairs.push('matched the next subtask by its title');
        } else repairs.push(`the next subtask ${JSON.stringify(nextText)} is not in the list; left empty`);
      }
    }
  }
  const summary = text(obj.summary) ?? text(obj.completed_summary) ?? text(obj.completed);
  return { value: { subtasks, nextSubtaskId, summary }, repairs };
}

export type Verdict = 'success' | 'needs_refinement' | 'failure';

export interface EvaluationAnswer {
  verdict: Verdict;
  confidence?: number;
  feedback?: string;
}

const VERDICT_WORDS: Record<string, Verdict> = recordOf({
  success: 'success',
  succeeded: 'success',
  pass: 'success',
  done: 'success',
  correct: 'success',
  needs_refinement: 'needs_refinement',
  need_refinement: 'needs_refinement',
  refine: 'needs_refinement',
  refinement: 'needs_refinement',
  partial: 'needs_refinement',
  need_refine: 'needs_refinement',
  failure: 'failure',
  failed: 'failure',
  fail: 'failure',
  incorrect: 'failure',
});

export function parseEvaluation(answer: string): Parsed<EvaluationAnswer> {
  const repairs: string[] = [];
  const obj = readObject(answer, repairs);
  if (typeof obj === 'string') return { repairs, problem: obj };
  const raw = obj.verdict ?? obj.result ?? obj.status;
  const verdict = typeof raw === 'string' ? VERDICT_WORDS[raw.trim().toLowerCase().replace(/[\s-]+/g, '_')] : typeof raw === 'boolean' ? (raw ? 'success' : 'failure') : undefined;
  if (verdict === undefined) return { repairs, problem: `no verdict could be read (${JSON.stringify(raw ?? null)})` };
  if (raw !== verdict) repairs.push(`read verdict ${JSON.stringify(raw)} as ${verdict}`);
  let confidence: number | undefined;
  const c = typeof obj.confidence === 'string' ? Number(obj.confidence.replace('%', '')) / (obj.confidence.includes('%') ? 100 : 1) : obj.confidence;
  if (typeof c === 'number' && Number.isFinite(c)) {
    confidence = c > 1 && c <= 100 ? c / 100 : c;
    if (confidence !== c) repairs.push(`read confidence ${c} as ${confidence}`);
    if (confidence < 0 || confidence > 1) {
      repairs.push(`confidence ${confidence} is outside 0..1; left empty`);
      confidence = undefined;
    }
  } else if (obj.confidence !== undefined) repairs.push('confidence is not a number; left empty');
  const feedback = text(obj.feedback) ?? text(obj.analysis) ?? text(obj.reason);
  return { value: { verdict, confidence, feedback }, repairs };
}
