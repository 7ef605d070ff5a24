// Prompts of the stage pass, written for this product. They keep the EvoMAS structure — a Planner that breaks the task
// into subtasks, an Evaluator that judges one stage's outcome against the active subtask (verdict, confidence,
// feedback), an Updater that rewrites the subtask list with status tags, the next active subtask and a summary of work
// done — but our job is different from the paper's: we reconstruct the task state of a run that already happened,
// so each prompt shows the recorded steps rather than asking what to do.
import type { Subtask } from '../../model/types.ts';

export interface PromptMessage {
  role: 'system' | 'user';
  content: string;
}

/** Markers the test server's rules match on; they also tell a person reading the call log which role asked. */
export const ROLE_MARKERS = { planner: '[stage planner]', evaluator: '[stage evaluator]', updater: '[stage updater]' } as const;

const STATE_JSON = [
  'Answer with one JSON object and nothing else:',
  '{',
  '  "subtasks": [{"id": "s1", "title": "a short imperative phrase", "status": "TODO | DONE | FAILED | NEED-REFINE"}],',
  '  "next_subtask_id": "the id of the subtask the team works on next, or null when nothing is left",',
  '  "summary": "two or three sentences on what has been achieved so far, written so a later stage can reuse it"',
  '}',
].join('\n');

function boardText(subtasks: readonly Subtask[]): string {
  return subtasks.length === 0 ? '(no subtasks yet)' : subtasks.map((s) => `- ${s.id} [${s.status}] ${s.title}`).join('\n');
}

export function plannerMessages(task: string, firstStage: string): PromptMessage[] {
  return [
    {
      role: 'system',
      content: [
        `${ROLE_MARKERS.planner} You help a person read a recorded run of a team of LLM agents. The run is cut into stages;`,
        'you write the task state the team starts from: the overall task broken into a few subtasks.',
        '',
        'Rules:',
        '1. Three to seven subtasks, each a short imperative phrase that can be checked as done or not.',
        '2. Every subtask starts as TODO.',
        '3. The first stage of the recording shows what the team tackled first: make that the next subtask.',
        '4. Ids are s1, s2, … in order.',
        '',
        STATE_JSON,
      ].join('\n'),
    },
    { role: 'user', content: `Overall task:\n${task}\n\nWhat the team does in the first stage (recorded steps):\n${firstStage}` },
  ];
}

export function evaluatorMessages(task: string, active: Subtask | undefined, stage: string, stageNumber: number): PromptMessage[] {
  return [
    {
      role: 'system',
      content: [
        `${ROLE_MARKERS.evaluator} You judge one stage of a recorded run of a team of LLM agents: did the stage achieve the`,
        'subtask it was working on?',
        '',
        'Rules:',
        '1. Judge only on what the recorded steps show; a claim an agent makes without evidence does not count as done.',
        '2. "success": the subtask is achieved. "needs_refinement": partly achieved, or the result is doubtful or incomplete.',
        '   "failure": not achieved (errors, nothing useful came back, or the work went elsewhere).',
        '3. Confidence is how sure you are of the verdict, from 0 to 1.',
        '4. Feedback: one or two sentences naming the evidence and, when it fell short, what is missing.',
        '',
        'Answer with one JSON object and nothing else:',
        '{"verdict": "success | needs_refinement | failure", "confidence": 0.0, "feedback": "…"}',
      ].join('\n'),
    },
    {
      role: 'user',
      content: [
        `Overall task:\n${task}`,
        '',
        `Subtask of stage ${stageNumber}: ${active ? `${active.id} ${active.title}` : '(none was named)'}`,
        '',
        `Recorded steps of stage ${stageNumber}:`,
        stage,
      ].join('\n'),
    },
  ];
}

export interface EvaluationText {
  verdict: string;
  confidence?: number;
  feedback?: string;
}

export function updaterMessages(
  task: string,
  previous: { subtasks: readonly Subtask[]; nextSubtaskId?: string; summary?: string },
  evaluation: EvaluationText,
  stage: string,
  stageNumber: number,
  nextStage: string | undefined,
): PromptMessage[] {
  return [
    {
      role: 'system',
      content: [
        `${ROLE_MARKERS.updater} You keep the task state of a recorded run of a team of LLM agents up to date after each`,
        'stage: the subtask list with a status tag on each, the next active subtask, and a summary of the work done.',
        '',
        'Rules:',
        '1. Keep the ids of subtasks that already exist; new subtasks get new ids (s<next number>).',
        '2. Status tags: TODO, DONE, FAILED, NEED-REFINE.',
        '3. A subtask becomes DONE on the evaluator’s verdict of success, and on nothing else.',
        '4. If a stage’s execution failed, or it left nothing to show for it, tag its subtask FAILED or NEED-REFINE; if the',
        '   task still needs that work, add a subtask that repairs or refines it.',
        '5. The next subtask is what the team actually works on in the following stage (shown when there is one);',
        '   when the recording has no following stage, name the subtask still open, or null when all is done.',
        '6. Keep the list short and focused; merge or drop subtasks that no longer matter.',
        '',
        STATE_JSON,
      ].join('\n'),
    },
    {
      role: 'user',
      content: [
        `Overall task:\n${task}`,
        '',
        'Task state before this stage:',
        boardText(previous.subtasks),
        `Active subtask: ${previous.nextSubtaskId ?? '(none)'}`,
        `Summary so far: ${previous.summary ?? '(none)'}`,
        '',
        `Evaluator on stage ${stageNumber}: ${evaluation.verdict}${evaluation.confidence !== undefined ? ` (confidence ${evaluation.confidence})` : ''}${evaluation.feedback ? ` — ${evaluation.feedback}` : ''}`,
        '',
        `Recorded steps of stage ${stageNumber}:`,
        stage,
        '',
        nextStage !== undefined ? `What the team does in the following stage (stage ${stageNumber + 1}):\n${nextStage}` : 'This was the last stage of the recording.',
      ].join('\n'),
    },
  ];
}

/** Sent after an answer that could not be read, once, before falling back. */
export const JSON_REMINDER = 'That answer could not be read as the JSON object described. Reply again with only that JSON object.';
