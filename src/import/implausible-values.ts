// Values an importer takes as given but no real trace holds (SPEC §3: import what is there, say what looks wrong).
// Rule: a token count is flagged when it is not a finite number ≥ 0 or exceeds 10^15 (a million billion tokens; the
// largest runs hold millions); an id is flagged when it spells a number that is not finite (`Infinity`, `-Infinity`,
// `NaN`) as a whole or as a dash/colon/dot/underscore-separated part (`tau-Infinity`: made from 1e999 in the file).
// The run is still imported as recorded; each kind of problem gives one warning with a count and the first case.
import type { MapProgress } from '../model/run-builder.ts';
import type { Run } from '../model/types.ts';

export const MAX_PLAUSIBLE_TOKENS = 1e15;

const NOT_FINITE_PART = /(?:^|[-:._/#\s])-?(?:Infinity|NaN)(?:$|[-:._/#\s])/;

export function implausibleTokenCount(n: unknown): boolean {
  return typeof n === 'number' && !(Number.isFinite(n) && n >= 0 && n <= MAX_PLAUSIBLE_TOKENS);
}

export function notFiniteId(id: string): boolean {
  // Every id of a run is checked (a million at 1M steps): the regex only where one of its words is.
  return (id.includes('Infinity') || id.includes('NaN')) && NOT_FINITE_PART.test(id);
}

const TOKEN_KEYS = ['input', 'output', 'total', 'cached'] as const;

/**
 * Warnings for the runs of one file: implausible token counts, and ids made from numbers that are not finite. With
 * `progress`, a tick per step (a million steps take a few hundred ms in a browser's worker: the bar moves through them).
 */
export function implausibleValueWarnings(runs: readonly Run[], progress?: MapProgress): string[] {
  let tokenCount = 0;
  let firstToken = '';
  let idCount = 0;
  let firstId = '';
  const checkId = (what: string, id: string) => {
    if (!notFiniteId(id)) return;
    if (idCount++ === 0) firstId = `${what} ${JSON.stringify(id)}`;
  };
  for (const run of runs) {
    checkId('run id', run.id);
    for (const agent of run.agents) checkId('agent id', agent.id);
    for (const step of run.steps) {
      progress?.tick();
      checkId('step id', step.id);
      const usage = step.usage;
      if (!usage) continue;
      // Each count read by its name (a million steps: a key looked up by a variable, and an array per step, were ~0.2 s).
      const { input, output, total, cached } = usage;
      if (!implausibleTokenCount(input) && !implausibleTokenCount(output) && !implausibleTokenCount(total) && !implausibleTokenCount(cached)) continue;
      for (const key of TOKEN_KEYS) {
        if (!implausibleTokenCount(usage[key])) continue;
        if (tokenCount++ === 0) firstToken = `step ${JSON.stringify(step.id)} ${key} = ${String(usage[key])}`;
      }
    }
  }
  const warnings: string[] = [];
  if (tokenCount > 0) {
    warnings.push(`${tokenCount} token count${tokenCount === 1 ? ' is' : 's are'} not a finite number between 0 and 10^15 (first: ${firstToken}); kept as recorded, totals will be wrong`);
  }
  if (idCount > 0) {
    warnings.push(`${idCount} id${idCount === 1 ? '' : 's'} spell${idCount === 1 ? 's' : ''} a number that is not finite (first: ${firstId}); the file probably holds 1e999 or NaN where a number id belongs`);
  }
  return warnings;
}
