// The smolagents decentralised benchmark's own scoring of a result line (MANIFEST of ../shared/traces, SPEC §7):
// both answers normalised (trimmed, lower-cased, runs of whitespace made one space, trailing . ! ? ; , dropped);
// exact match = the two are equal; contains = the normalised true answer occurs in the normalised answer.
// An empty true answer scores 0 on both. Kept literal so a file's totals equal what the benchmark publishes.
import type { BenchmarkResult } from './types.ts';

export const SMOLAGENTS_BUS_RULE = 'smolagents-decentralised';

export function normaliseBenchmarkAnswer(text: string | null | undefined): string {
  return (text ?? '').trim().toLowerCase().replace(/\s+/g, ' ').replace(/[.!?;,]+$/, '');
}

export function scoreBenchmarkAnswer(answer: string | null | undefined, trueAnswer: string | null | undefined): { exactMatch: 0 | 1; contains: 0 | 1 } {
  const truth = normaliseBenchmarkAnswer(trueAnswer);
  if (truth === '') return { exactMatch: 0, contains: 0 };
  const given = normaliseBenchmarkAnswer(answer);
  return { exactMatch: given === truth ? 1 : 0, contains: given.includes(truth) ? 1 : 0 };
}

/** The run's benchmark block: both scores and the duration the result line recorded. */
export function benchmarkResult(answer: string | null | undefined, trueAnswer: string | null | undefined, durationS?: number): BenchmarkResult {
  const result: BenchmarkResult = { source: 'benchmark', rule: SMOLAGENTS_BUS_RULE, ...scoreBenchmarkAnswer(answer, trueAnswer) };
  if (durationS !== undefined) result.durationS = durationS;
  return result;
}
