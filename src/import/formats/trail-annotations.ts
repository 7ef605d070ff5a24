// TRAIL annotation files: `{trace_id, errors:[{category, location, evidence, description, impact}], scores:[…]}`.
// They attach to the run imported from the trace of the same trace id (see span-tree.ts).
//
// Targets: `location` is a span id; the span importers give the step made from a span the id `span-<spanId>`, so
// each error annotates step `span-<location>`. In TRAIL the locations are model-call and tool-call spans (inside
// action steps), which are steps of their own; the annotation points at that nested step, not at its action step.
// Scores (reliability, security, instruction adherence, plan optimality, overall) become run-level annotations with
// taxonomy `TRAIL-score`, the dimension as code and the 1–5 value in `score`.
import type { Annotation } from '../../model/types.ts';
import type { AnnotationSet, FormatImporter, ImportResult } from '../format.ts';
import type { ParsedInput } from '../parse-input.ts';
import { expectArray, expectObject, isObject, optNumber, optString, type JsonObject } from '../read.ts';
import { stepIdOfSpan } from '../spans/forest.ts';

/** The TRAIL error taxonomy's leaf categories (Deshpande et al., 2025), as the paper spells them. */
export const TRAIL_CATEGORIES = [
  'Language-only',
  'Tool-related',
  'Poor Information Retrieval',
  'Tool Output Misinterpretation',
  'Incorrect Problem Identification',
  'Tool Selection Errors',
  'Formatting Errors',
  'Instruction Non-compliance',
  'Tool Definition Issues',
  'Environment Setup Errors',
  'Rate Limiting',
  'Authentication Errors',
  'Service Errors',
  'Resource Not Found',
  'Resource Exhaustion',
  'Timeout Issues',
  'Context Handling Failures',
  'Resource Abuse',
  'Goal Deviation',
  'Task Orchestration',
] as const;

/** Case, spacing, hyphens, underscores and a trailing plural `s` do not distinguish categories. */
function categoryKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\s_\-–—/]+/g, ' ')
    .replace(/[^a-z ]/g, '')
    .trim()
    .replace(/s$/, '');
}

const CANONICAL = new Map<string, string>(TRAIL_CATEGORIES.map((c) => [categoryKey(c), c]));
// Spellings seen in annotation releases that name the same category differently.
for (const [alias, canonical] of [
  ['language only hallucination', 'Language-only'],
  ['hallucination language only', 'Language-only'],
  ['tool related hallucination', 'Tool-related'],
  ['hallucination tool related', 'Tool-related'],
  ['instruction noncompliance', 'Instruction Non-compliance'],
] as const) {
  CANONICAL.set(categoryKey(alias), canonical);
}

/** The canonical TRAIL name of a category spelling; undefined when it is not a TRAIL category. */
export function normaliseTrailCategory(text: string): string | undefined {
  return CANONICAL.get(categoryKey(text));
}

function isTrailAnnotationDoc(v: unknown): v is JsonObject {
  if (!isObject(v) || !Array.isArray(v.errors) || 'spans' in v) return false;
  if (!('scores' in v) && typeof v.trace_id !== 'string') return false;
  return v.errors.every((e) => isObject(e) && 'category' in e && 'location' in e);
}

const SCORE_SUFFIX = '_score';

function scoreAnnotations(scores: unknown[], path: string, runId: string): Annotation[] {
  const out: Annotation[] = [];
  scores.forEach((entry, i) => {
    const s = expectObject(entry, `${path}[${i}]`);
    for (const key of Object.keys(s)) {
      const isScore = key.endsWith(SCORE_SUFFIX) || key === 'overall';
      if (!isScore) continue;
      const value = optNumber(s[key], `${path}[${i}].${key}`);
      if (value === undefined) continue;
      const dimension = key.endsWith(SCORE_SUFFIX) ? key.slice(0, -SCORE_SUFFIX.length) : key;
      const reasoning = optString(s[`${dimension}_reasoning`], `${path}[${i}].${dimension}_reasoning`);
      const a: Annotation = { id: `trail-score-${runId}-${i}-${dimension}`, source: 'dataset', taxonomy: 'TRAIL-score', code: dimension, evidence: String(value), score: value };
      if (reasoning !== undefined) a.description = reasoning;
      out.push(a);
    }
  });
  return out;
}

export function importFromTrailAnnotations(doc: ParsedInput): ImportResult {
  const value = expectObject(doc.kind === 'json' ? doc.value : doc.values[0], '$');
  const warnings: string[] = [];
  const traceId = optString(value.trace_id, '$.trace_id');
  const runId = traceId ?? '';
  if (traceId === undefined) {
    warnings.push('no trace_id: the annotations name their steps by span id only and attach to the one loaded run that holds every step they name');
  }
  const errors = expectArray(value.errors, '$.errors');
  const annotations: Annotation[] = errors.map((entry, i) => {
    const path = `$.errors[${i}]`;
    const e = expectObject(entry, path);
    const location = optString(e.location, `${path}.location`);
    const rawCategory = optString(e.category, `${path}.category`) ?? '';
    const code = normaliseTrailCategory(rawCategory);
    if (code === undefined) warnings.push(`${path}.category: ${JSON.stringify(rawCategory)} is not a TRAIL category; kept as written`);
    const a: Annotation = { id: `trail-${runId}-${i}`, source: 'dataset', taxonomy: 'TRAIL', code: code ?? rawCategory.trim() };
    if (location) {
      a.stepId = stepIdOfSpan(location);
      a.spanId = location;
    }
    const evidence = optString(e.evidence, `${path}.evidence`);
    if (evidence !== undefined) a.evidence = evidence;
    const description = optString(e.description, `${path}.description`);
    if (description !== undefined) a.description = description;
    const impact = optString(e.impact, `${path}.impact`);
    if (impact !== undefined) a.impact = impact;
    return a;
  });
  if (value.scores !== undefined && value.scores !== null) {
    for (const a of scoreAnnotations(expectArray(value.scores, '$.scores'), '$.scores', runId)) annotations.push(a);
  }
  const set: AnnotationSet = { runId, annotations };
  return { runs: [], annotationSets: [set], warnings };
}

export function isTrailAnnotationFormatted(doc: ParsedInput): boolean {
  return doc.kind === 'json' && isTrailAnnotationDoc(doc.value);
}

export const trailAnnotationsImporter: FormatImporter = {
  id: 'trail-annotations',
  label: 'TRAIL annotations',
  fileName: /annotations?[^/\\]*\.json(\.gz)?$|[\\/]annotations[\\/][^/\\]+\.json(\.gz)?$/i,
  sniff: isTrailAnnotationFormatted,
  importDoc: importFromTrailAnnotations,
};
