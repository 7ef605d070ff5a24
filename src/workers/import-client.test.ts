// The page's side of the step facts the import worker sends with a file (src/model/step-facts.ts): taken for the
// runs of the file they were counted for, never for another.
import { describe, expect, it } from 'vitest';
import { importText } from '../import/index.ts';
import { countStepFacts, knownStepFacts } from '../model/step-facts.ts';
import { summarizeRun } from '../model/summary.ts';
import { takeStepFacts } from './import-client.ts';

const chat = (n: number) => JSON.stringify({ question: 'q', history: Array.from({ length: n }, (_, i) => ({ content: `turn ${i}`, role: 'assistant', name: i % 2 ? 'A' : 'B' })) });
const load = (name: string, n: number) => {
  const imported = importText(name, chat(n));
  return { file: name, format: imported.format, formatLabel: imported.formatLabel, runs: imported.runs, warnings: imported.warnings };
};

describe('takeStepFacts', () => {
  it('gives the runs of the file taken last the facts counted for them', () => {
    const other = load('a.json', 3);
    const file = load('b.json', 5);
    // The worker's own copy of the runs: the page's runs are clones of them.
    const facts = load('b.json', 5).runs.map((r) => countStepFacts(r.steps));
    expect(takeStepFacts([other, file], 'b.json', [5], facts)).toBe(true);
    expect(knownStepFacts(file.runs[0])).toBe(facts[0]);
    expect(knownStepFacts(other.runs[0])).toBeUndefined();
    expect(summarizeRun(file.runs[0]).steps).toBe(5);
  });

  it('drops facts meant for a file that was not taken (its parts failed), or whose runs do not match', () => {
    const file = load('a.json', 3);
    const facts = [countStepFacts(load('b.json', 5).runs[0].steps)];
    expect(takeStepFacts([file], 'b.json', [5], facts)).toBe(false);
    expect(takeStepFacts([file], 'a.json', [5], facts)).toBe(false);
    expect(takeStepFacts([file], 'a.json', [3], facts)).toBe(false);
    expect(takeStepFacts([], 'a.json', [3], facts)).toBe(false);
    expect(knownStepFacts(file.runs[0])).toBeUndefined();
    expect(summarizeRun(file.runs[0]).steps).toBe(3);
  });
});
