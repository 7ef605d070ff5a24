// Every rule of the adaptive filter and every precedence case, on hand-made step sequences.
import { describe, expect, it } from 'vitest';
import type { Step } from '../../model/types.ts';
import { codePointLengthExceeds, filterParams, filterSteps, firstCodeBlock, type FilterParams } from './filter.ts';
import { PRESETS } from './presets.ts';

let counter = 0;
function step(over: Partial<Step> = {}): Step {
  counter++;
  return {
    id: `s${counter}`,
    index: counter,
    kind: 'action',
    agentId: 'a1',
    agentRunId: 'r1',
    observation: 'short observation',
    toolCalls: [{ name: 'web_search', arguments: `{"query":"q${counter}"}` }],
    ...over,
  };
}
const same = (over: Partial<Step> = {}) => step({ toolCalls: [{ name: 'page_down', arguments: '{}' }], ...over });

const params = (over: Partial<FilterParams> = {}): FilterParams => ({ ...filterParams({ tauStep: 100, tauLoop: 100, tauLen: 3000 }), ...over });
const fired = (steps: Step[], p: FilterParams) => filterSteps(steps, p).map((t) => [steps[t.stepIndex].id, t.context, t.rule]);

describe('adaptive filter rules', () => {
  it('nothing fires on ordinary steps', () => {
    expect(filterSteps([step(), step(), step()], filterParams(PRESETS.gaia))).toEqual([]);
  });

  it('rule 1: the <summary_of_work> marker means subagent_completion', () => {
    const s = [step({ observation: 'report\n<summary_of_work>\nfound it\n</summary_of_work>' })];
    expect(fired(s, params())).toEqual([[s[0].id, 'subagent_completion', 'summary_marker']]);
  });

  it('rule 2: an error means error', () => {
    const s = [step({ error: { message: 'ValueError: bad input' } })];
    expect(fired(s, params())).toEqual([[s[0].id, 'error', 'error']]);
  });

  it('rule 1 wins over rule 2 when a step has both the marker and an error', () => {
    const s = [step({ observation: 'x <summary_of_work> y', error: { message: 'boom' } })];
    expect(fired(s, params())).toEqual([[s[0].id, 'subagent_completion', 'summary_marker']]);
  });

  it('known non-critical errors do not fire (substring, type or RegExp); the list is empty by default', () => {
    const s = [
      step({ error: { message: 'Tool page_down: already at the bottom of the page' } }),
      step({ error: { message: 'x', type: 'AgentParsingError' } }),
      step({ error: { message: 'HTTP 404 for https://example.org' } }),
      step({ error: { message: 'ZeroDivisionError' } }),
    ];
    const p = params({ nonCriticalErrors: ['already at the bottom', 'AgentParsingError', /HTTP 404/] });
    expect(fired(s, p)).toEqual([[s[3].id, 'error', 'error']]);
    expect(filterParams(PRESETS.gaia).nonCriticalErrors).toEqual([]);
    expect(fired(s, params())).toHaveLength(4);
  });

  it('a non-critical error falls through to the later rules', () => {
    const s = [step({ error: { message: 'soft failure' }, observation: 'x'.repeat(3001) })];
    expect(fired(s, params({ nonCriticalErrors: ['soft'] }))).toEqual([[s[0].id, 'excessive', 'length']]);
  });

  it('rule 3: periodic at every τ_step-th action step of the run', () => {
    const s = Array.from({ length: 9 }, () => step());
    expect(fired(s, params({ tauStep: 4 }))).toEqual([
      [s[3].id, 'inefficient', 'periodic'],
      [s[7].id, 'inefficient', 'periodic'],
    ]);
  });

  it('rule 4: loop once the last τ_loop signatures are identical, not before', () => {
    const s = [step(), same(), same(), same(), step()];
    expect(fired(s, params({ tauLoop: 3 }))).toEqual([[s[3].id, 'inefficient', 'loop']]);
    const two = [same(), same()];
    expect(fired(two, params({ tauLoop: 3 }))).toEqual([]);
  });

  it('loop needs the same arguments and the same order of calls', () => {
    const a = { name: 't', arguments: '{"x":1}' };
    const b = { name: 't', arguments: '{"x":2}' };
    const s = [step({ toolCalls: [a, b] }), step({ toolCalls: [a, b] }), step({ toolCalls: [b, a] })];
    expect(fired(s, params({ tauLoop: 3 }))).toEqual([]);
    const t = [step({ toolCalls: [a, b] }), step({ toolCalls: [a, b] }), step({ toolCalls: [a, b] })];
    expect(fired(t, params({ tauLoop: 3 }))).toEqual([[t[2].id, 'inefficient', 'loop']]);
  });

  it('steps without tool calls compare the first code block of their output (python_interpreter)', () => {
    const out = (code: string, thought: string) => `Thought: ${thought}\nCode:\n\`\`\`py\n${code}\n\`\`\`<end_code>`;
    const s = [
      step({ toolCalls: [], output: out('print(1)', 'first') }),
      step({ toolCalls: [], output: out('print(1)', 'second, worded differently') }),
      step({ toolCalls: [], output: out('print(1)', 'third') }),
    ];
    expect(fired(s, params({ tauLoop: 3 }))).toEqual([[s[2].id, 'inefficient', 'loop']]);
    const t = [step({ toolCalls: [], output: 'no code A' }), step({ toolCalls: [], output: 'no code B' }), step({ toolCalls: [], output: 'no code B' })];
    expect(fired(t, params({ tauLoop: 3 }))).toEqual([]);
    expect(firstCodeBlock('a ```python\nx = 1\n``` b ```\ny\n```')).toBe('x = 1');
    expect(firstCodeBlock('plain')).toBe('plain');
  });

  it('a recorded python_interpreter call equals a step that ran the same code without a call', () => {
    const s = [
      step({ toolCalls: [{ name: 'python_interpreter', arguments: 'x' }] }),
      step({ toolCalls: [], output: 'x' }),
      step({ toolCalls: [], output: 'x' }),
    ];
    expect(fired(s, params({ tauLoop: 3 }))).toEqual([[s[2].id, 'inefficient', 'loop']]);
    const other = [step({ toolCalls: [{ name: 'web_search', arguments: 'x' }] }), step({ toolCalls: [], output: 'x' }), step({ toolCalls: [], output: 'x' })];
    expect(fired(other, params({ tauLoop: 3 }))).toEqual([]);
  });

  it('periodic and loop on the same step: one trigger, attributed to the periodic rule with the loop noted', () => {
    const s = [same(), same(), same(), same()];
    const t = filterSteps(s, params({ tauStep: 4, tauLoop: 3 }));
    expect(t.map((x) => [x.stepIndex, x.rule, x.loopAlso])).toEqual([
      [2, 'loop', false],
      [3, 'periodic', true],
    ]);
  });

  it('at most 2 inefficient triggers per agent run; later periodic/loop steps are skipped, other rules still fire', () => {
    const s = [...Array.from({ length: 8 }, () => same()), same({ observation: 'y'.repeat(3001) }), same({ error: { message: 'e' } })];
    expect(fired(s, params({ tauStep: 2, tauLoop: 100 }))).toEqual([
      [s[1].id, 'inefficient', 'periodic'],
      [s[3].id, 'inefficient', 'periodic'],
      [s[8].id, 'excessive', 'length'],
      [s[9].id, 'error', 'error'],
    ]);
  });

  it('an error or marker step is not an inefficient trigger and does not use up the cap', () => {
    const s = [step(), step({ error: { message: 'e' } }), step(), step(), step(), step()];
    expect(fired(s, params({ tauStep: 2 }))).toEqual([
      [s[1].id, 'error', 'error'],
      [s[3].id, 'inefficient', 'periodic'],
      [s[5].id, 'inefficient', 'periodic'],
    ]);
  });

  it('error steps still count towards N and the loop window', () => {
    const s = [same(), same({ error: { message: 'e' } }), same()];
    expect(fired(s, params({ tauLoop: 3 }))).toEqual([
      [s[1].id, 'error', 'error'],
      [s[2].id, 'inefficient', 'loop'],
    ]);
  });

  it('N counts per agent run, not per agent: a second run of the same agent starts again', () => {
    const s = [
      step({ agentRunId: 'r1' }),
      step({ agentRunId: 'r1' }),
      step({ agentRunId: 'r2' }),
      step({ agentRunId: 'r2' }),
      step({ agentRunId: 'r1' }),
      step({ agentRunId: 'r2' }),
    ];
    expect(fired(s, params({ tauStep: 3 }))).toEqual([
      [s[4].id, 'inefficient', 'periodic'],
      [s[5].id, 'inefficient', 'periodic'],
    ]);
    expect(filterSteps(s, params({ tauStep: 3 })).map((t) => t.n)).toEqual([3, 3]);
  });

  it('interleaved runs keep separate loop windows and separate caps', () => {
    const s = [
      same({ agentRunId: 'r1' }),
      same({ agentRunId: 'r2' }),
      same({ agentRunId: 'r1' }),
      same({ agentRunId: 'r2' }),
    ];
    expect(fired(s, params({ tauLoop: 2 }))).toEqual([
      [s[2].id, 'inefficient', 'loop'],
      [s[3].id, 'inefficient', 'loop'],
    ]);
  });

  it('only action steps count; model calls and tool steps are ignored', () => {
    const s = [step(), step({ kind: 'llm', observation: 'z'.repeat(5000) }), step({ kind: 'tool' }), step()];
    expect(fired(s, params({ tauStep: 2 }))).toEqual([[s[3].id, 'inefficient', 'periodic']]);
  });

  it('rule 5: excessive is measured in code points, not UTF-16 units', () => {
    const emoji = '😀'; // two UTF-16 units, one code point
    const at = [step({ observation: emoji.repeat(3000) })];
    expect(at[0].observation!.length).toBe(6000);
    expect(fired(at, params())).toEqual([]);
    const over = [step({ observation: emoji.repeat(3001) })];
    expect(filterSteps(over, params())[0]).toMatchObject({ context: 'excessive', length: 3001 });
    const ascii = [step({ observation: 'a'.repeat(3000) }), step({ observation: 'a'.repeat(3001) })];
    expect(fired(ascii, params())).toEqual([[ascii[1].id, 'excessive', 'length']]);
    expect(codePointLengthExceeds('a'.repeat(2999) + emoji, 3000)).toBe(false);
    expect(codePointLengthExceeds('a'.repeat(3000) + emoji, 3000)).toBe(3001);
    expect(codePointLengthExceeds(emoji.repeat(4000), 3000)).toBe(4000);
  });

  it('inefficient takes precedence over excessive', () => {
    const s = [step(), step({ observation: 'x'.repeat(5000) })];
    expect(fired(s, params({ tauStep: 2 }))).toEqual([[s[1].id, 'inefficient', 'periodic']]);
  });

  it('presets carry Table 5', () => {
    expect(PRESETS.gaia).toEqual({ tauStep: 8, tauLoop: 5, tauLen: 3000 });
    expect(PRESETS.humaneval).toEqual({ tauStep: 6, tauLoop: 5, tauLen: 3000 });
    for (const n of ['mbpp', 'aime', 'drop', 'gsm-hard'] as const) expect(PRESETS[n]).toEqual({ tauStep: 4, tauLoop: 3, tauLen: 3000 });
    expect(PRESETS.oagents).toEqual({ tauStep: 6, tauLoop: 3, tauLen: 10000 });
  });
});
