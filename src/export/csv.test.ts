import { describe, expect, it } from 'vitest';
import { runMetricsCsv, toCsv } from './csv.ts';

describe('CSV', () => {
  it('quotes separators, quotes and line breaks, and defuses formulas', () => {
    const text = toCsv(['a', 'b'], [['x,y', 'say "hi"'], ['=HYPERLINK("evil")', 'two\nlines'], [-3, Number.NaN]]);
    expect(text).toBe('a,b\r\n"x,y","say ""hi"""\r\n"\'=HYPERLINK(""evil"")","two\nlines"\r\n-3,\r\n');
  });
  it('writes one line per run with a column per tag', () => {
    const text = runMetricsCsv([
      { id: 'r1', title: 'T', task: 'q', tags: { level: '2', arm: 'supervised' }, format: 'native', arm: 'supervised', outcome: 'success', steps: 4, agents: 2,
        tokens: 100, tokensEstimated: false, overhead: 7, interventions: 1, durationMs: null, simulated: true },
    ]);
    const [header, row] = text.trimEnd().split('\r\n');
    expect(header.split(',')).toContain('tag_level');
    expect(row).toBe('r1,T,q,supervised,2,native,supervised,success,4,2,100,false,7,107,1,,true,');
  });
  it('leaves the token cells of a run without steps (a benchmark result line) empty, as the table shows "—"', () => {
    const text = runMetricsCsv([
      { id: 'q1', title: 'Q', task: 'q', tags: {}, format: 'message-bus', arm: 'baseline', outcome: 'failure', steps: 0, agents: 0,
        tokens: 0, tokensEstimated: false, overhead: 0, interventions: 0, durationMs: 119_902, simulated: false },
    ]);
    expect(text.trimEnd().split('\r\n')[1]).toBe('q1,Q,q,message-bus,baseline,failure,0,0,,,,,0,119902,false,');
  });
});

