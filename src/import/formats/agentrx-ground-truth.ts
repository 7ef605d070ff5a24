// AgentRx ground truth for tau-bench runs: `[{trajectory_id, failures[{failure_id, step_number, step_reason,
// failure_category, category_reason, failed_agent}], root_cause{failure_id, reason_for_root_cause}, failure_summary}]`.
// It holds no runs: each trajectory becomes an AnnotationSet for the run the openai-chat importer names
// `tau-<trajectory_id>`, each failure an annotation on step `<runId>:m<step_number>` (tau-bench's own message index).
// The root-cause failure carries `rootCause: true`, the reason in `impact` and the trajectory's summary.
import type { Annotation } from '../../model/types.ts';
import { documentsOf, unmappedFields } from './chat-log.ts';
import { FormatProblem } from '../errors.ts';
import type { AnnotationSet, FormatImporter, ImportResult } from '../format.ts';
import type { ParsedInput } from '../parse-input.ts';
import { expectArray, expectObject, isObject, optNumber, optString } from '../read.ts';
import { agentIdForRole, chatStepId, tauRunId } from './openai-chat.ts';

const FAILURE_FIELDS = new Set(['failure_id', 'step_number', 'step_reason', 'failure_category', 'category_reason', 'failed_agent']);

function isGroundTruth(v: unknown): boolean {
  return isObject(v) && 'trajectory_id' in v && Array.isArray(v.failures);
}

function documents(doc: ParsedInput) {
  const docs = documentsOf(doc);
  return docs.length > 0 && docs.every((d) => isGroundTruth(d.value)) ? docs : undefined;
}

function annotationSet(value: unknown, path: string): AnnotationSet {
  const obj = expectObject(value, path);
  const trajectory = optString(obj.trajectory_id, `${path}.trajectory_id`);
  if (trajectory === undefined) throw new FormatProblem(`${path}.trajectory_id`, 'missing trajectory id');
  const runId = tauRunId(trajectory);
  const root = obj.root_cause === undefined || obj.root_cause === null ? undefined : expectObject(obj.root_cause, `${path}.root_cause`);
  const rootId = root ? optString(root.failure_id, `${path}.root_cause.failure_id`) : undefined;
  const summary = optString(obj.failure_summary, `${path}.failure_summary`);

  const annotations = expectArray(obj.failures, `${path}.failures`).map((f, i): Annotation => {
    const at = `${path}.failures[${i}]`;
    const failure = expectObject(f, at);
    const failureId = optString(failure.failure_id, `${at}.failure_id`) ?? String(i + 1);
    const annotation: Annotation = {
      id: `agentrx-${trajectory}-f${failureId}`,
      source: 'dataset',
      taxonomy: 'AgentRx',
      code: optString(failure.failure_category, `${at}.failure_category`) ?? 'unknown',
    };
    const step = optNumber(failure.step_number, `${at}.step_number`);
    if (step !== undefined) annotation.stepId = chatStepId(runId, step);
    const agent = optString(failure.failed_agent, `${at}.failed_agent`);
    if (agent !== undefined) annotation.agentId = agentIdForRole(agent);
    const evidence = optString(failure.step_reason, `${at}.step_reason`);
    if (evidence !== undefined) annotation.evidence = evidence;
    const description = optString(failure.category_reason, `${at}.category_reason`);
    if (description !== undefined) annotation.description = description;
    if (rootId !== undefined && rootId === failureId) {
      annotation.rootCause = true;
      const reason = optString(root?.reason_for_root_cause, `${path}.root_cause.reason_for_root_cause`);
      annotation.impact = reason ? `root cause: ${reason}` : 'root cause';
      if (summary !== undefined) annotation.summary = summary;
    }
    const raw = unmappedFields(failure, FAILURE_FIELDS);
    if (raw) annotation.raw = raw;
    return annotation;
  });
  return { runId, annotations };
}

export const agentRxGroundTruthImporter: FormatImporter = {
  id: 'agentrx-ground-truth',
  label: 'AgentRx ground truth (tau-bench failure annotations)',
  fileName: /ground.?truth|agentrx/i,
  sniff: (doc) => documents(doc) !== undefined,
  importDoc(doc): ImportResult {
    const docs = documents(doc);
    if (!docs) throw new FormatProblem('$', 'expected a list of {trajectory_id, failures[…]}');
    return { runs: [], annotationSets: docs.map((d) => annotationSet(d.value, d.path)), warnings: [] };
  },
};
