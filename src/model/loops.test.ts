import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importBytes } from '../import/index.ts';
import { HAVE_SHARED, SKIP_REASON, SHARED_TRACES, sharedFiles } from '../testing/fixture-kit.ts';
import { callSignature, detectLoops, ledgerVerdicts, verdictsFor } from './loops.ts';
import { indexRun } from './run-index.ts';
import type { Run, Step } from './types.ts';

let n = 0;
const step = (agentId: string, extra: Partial<Step> = {}): Step => ({ id: `s${n++}`, index: n, kind: 'message', agentId, ...extra });
const call = (agentId: string, name: string, args: string) => step(agentId, { kind: 'action', toolCalls: [{ name, arguments: args }] });

describe('callSignature', () => {
  it('compares tool calls by name and arguments, ignoring whitespace and numbers', () => {
    const a = callSignature(call('a', 'search', '{"q": "x", "page": 1}'));
    const b = callSignature(call('a', 'search', '{"q":  "x", "page": 2}\n'));
    const c = callSignature(call('a', 'search', '{"q": "y"}'));
    expect(a?.key).toBe(b?.key);
    expect(a?.key).not.toBe(c?.key);
    expect(a?.label).toBe('search(q: x, page: 1)');
    // smolagents' wrapper and its switches are left out of the readable label.
    const wrapped = call('a', 'find_archived_url', '{"args": [], "sanitize_inputs_outputs": true, "kwargs": {"url": "https://x.com/f", "date": "20221231"}}');
    expect(callSignature(wrapped)?.label).toBe('find_archived_url(url: https://x.com/f, date: 20221231)');
  });

  it('uses nested tool steps when the step records no tool calls', () => {
    const parent = step('a', { kind: 'action', output: 'thinking' });
    const child = step('a', { kind: 'tool', name: 'visit', inputText: 'http://x', parentStepId: parent.id });
    expect(callSignature(parent, [child])?.label).toBe('visit(http://x)');
  });

  it('reads messages from their first line, with their recipients, and ignores bare model calls', () => {
    expect(callSignature(step('o', { output: 'I scrolled down.\n\nPage text' }))?.label).toBe('“I scrolled down.”');
    expect(callSignature(step('o', { output: 'go', recipients: ['w'] }))?.key).not.toBe(callSignature(step('o', { output: 'go' }))?.key);
    expect(callSignature(step('o', { kind: 'llm', output: 'x' }))).toBeUndefined();
    expect(callSignature(step('o', { output: '   ' }))).toBeUndefined();
  });
});

describe('detectLoops', () => {
  it('never reports templated routing lines on their own', () => {
    const steps: Step[] = [];
    for (let i = 0; i < 6; i++) {
      steps.push(step('orch', { output: `ledger ${i} about ${'abcdefghij'[i]} topic${i}` }));
      steps.push(step('orch', { output: 'Next speaker web' }));
      steps.push(step('web', { output: `visited page about subject-${'klmnopqrst'[i]} and more-${i}` }));
    }
    expect(detectLoops(steps, new Map(), {}, ['orch', 'web'])).toEqual([]);
  });

  it('finds near-duplicate reports as a cycle with the requests they answer, routing lines beside it', () => {
    const steps: Step[] = [];
    for (let i = 0; i < 5; i++) {
      steps.push(step('orch', { output: `Please keep scrolling down the archive page to find the August ${2015} entries, try ${i}`, recipients: ['web'] }));
      steps.push(step('orch', { output: 'Next speaker web' }));
      steps.push(step('web', { output: `I scrolled down one page in the browser.\n\nThe viewport shows ${i * 7}% …different OCR ${i}`, recipients: ['orch'] }));
    }
    const loops = detectLoops(steps, new Map(), {}, ['orch', 'web']);
    expect(loops).toHaveLength(1);
    expect(loops[0].kind).toBe('cycle');
    expect(loops[0].agentIds).toEqual(['orch', 'web']);
    expect(loops[0].positions).toEqual([0, 2, 3, 5, 6, 8, 9, 11, 12, 14]);
    expect(loops[0].routing).toEqual([1, 4, 7, 10, 13]);
  });

  it('gives the positions of a loop of thousands of steps ascending, each once (the typed-array path)', () => {
    const steps: Step[] = [];
    const repeats = 3000;
    for (let i = 0; i < repeats; i++) {
      steps.push(step('orch', { output: `Please keep scrolling down the archive page to find the August ${2015} entries, try ${i}`, recipients: ['web'] }));
      steps.push(step('orch', { output: 'Next speaker web' }));
      steps.push(step('web', { output: `I scrolled down one page in the browser.\n\nThe viewport shows ${i % 100}% …different OCR ${i}`, recipients: ['orch'] }));
    }
    const loops = detectLoops(steps, new Map(), {}, ['orch', 'web']);
    expect(loops).toHaveLength(1);
    const expected: number[] = [];
    for (let i = 0; i < repeats; i++) expected.push(3 * i, 3 * i + 2);
    expect(loops[0].positions).toEqual(expected);
    expect(loops[0].routing).toHaveLength(repeats);
  });

  it('joins calls with nearly the same arguments, needs minRepeats and splits distant repeats', () => {
    const same = (url: string) => call('a', 'find_archived_url', JSON.stringify({ url, date: '20221231' }));
    const other = (i: number) => call('a', 'web_search', `{"q":"unrelated ${'abcdef'[i]}"}`);
    const steps = [same('https://x.com/flavors/graveyard'), same('https://x.com/flavors/graveyard'), other(0), other(1), other(2), same('https://x.com/flavors')];
    expect(detectLoops(steps, new Map(), { maxGap: 8 })[0].positions).toEqual([0, 1, 5]);
    expect(detectLoops(steps, new Map(), { maxGap: 2 })).toEqual([]);
    expect(detectLoops(steps, new Map(), { minRepeats: 2, maxGap: 2 })[0].positions).toEqual([0, 1]);
    expect(detectLoops(steps, new Map(), { maxSpan: 3 })).toEqual([]);
  });

  it('does not join identical calls of different agents that do not talk to each other', () => {
    const steps = ['a', 'b', 'a', 'b', 'a', 'b'].map((agent) => step(agent, { output: 'same thing again' }));
    const loops = detectLoops(steps, new Map());
    expect(loops.map((l) => l.agentIds)).toEqual([['a'], ['b']]);
  });

  it('reads paging (a number in the arguments that moves one way at every repeat) as progress, not a loop', () => {
    const page = (offset: number) => call('a', 'list_items', JSON.stringify({ folder: 'inbox', offset }));
    expect(detectLoops([0, 20, 40, 60].map(page), new Map())).toEqual([]);
    expect(detectLoops([60, 40, 20].map(page), new Map())).toEqual([]);
    // The same page again is repeated work, and so is a retry whose number goes back and forth.
    expect(detectLoops([0, 20, 20, 40].map(page), new Map())[0].positions).toEqual([0, 1, 2, 3]);
    expect(detectLoops([20221230, 20221231, 20221230].map((d) => call('a', 'archive', `{"date":"${d}"}`)), new Map())).toHaveLength(1);
  });

  it('counts the tokens of every step in the window', () => {
    const steps = [0, 1, 2].flatMap(() => [call('a', 't', '1'), step('b', { output: 'x', usage: { input: 10, output: 1, total: 11 } })]);
    expect(detectLoops(steps, new Map())[0].tokens).toBe(22);
  });

  it('stays linear: 100k steps in a fraction of a second', () => {
    const steps: Step[] = [];
    for (let i = 0; i < 100_000; i++) steps.push(call(`agent-${i % 50}`, 'visit', i % 5000 < 50 ? '{"url":"same"}' : `{"q":"query ${i} ${i.toString(36)}"}`));
    const t0 = performance.now();
    detectLoops(steps, new Map());
    // About 0.1 s on an idle machine; the bound leaves room for a busy one (bench:view measures it in the browser).
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

function openRun(path: string): Run {
  return importBytes(basename(path), readFileSync(path)).runs[0];
}

describe.skipIf(!HAVE_SHARED)(`loops on real traces (${SKIP_REASON.split(';')[0]})`, () => {
  // The ledger is the reference here only: the detector never reads it.
  const files = sharedFiles('who-and-when/hand-crafted');
  const results = files.map((file) => {
    const run = openRun(file);
    const index = indexRun(run);
    const loops = detectLoops(index.replaySteps, index.childrenOf, {}, run.agents.flatMap((a) => [a.id, a.name]));
    const verdicts = ledgerVerdicts(index.replaySteps);
    const covered = verdicts.filter((v) => loops.some((l) => verdictsFor(l, [v]).length > 0)).length;
    return { file: basename(file), loops, verdicts: verdicts.length, covered, steps: index.replaySteps };
  });

  it('covers most Magentic-One ledger is_in_loop points with a loop of repeated work just before them', () => {
    expect(files.length).toBe(6);
    const verdicts = results.reduce((s, r) => s + r.verdicts, 0);
    const covered = results.reduce((s, r) => s + r.covered, 0);
    expect(verdicts).toBeGreaterThan(20);
    expect(covered / verdicts).toBeGreaterThan(0.7);
  });

  it('reports (almost) no loops where the ledger never says so, and none made of routing lines', () => {
    for (const r of results) {
      if (r.verdicts === 0) expect(r.loops.length, r.file).toBeLessThanOrEqual(0);
      for (const l of r.loops) for (const p of l.positions) expect(r.steps[p].output ?? '', r.file).not.toMatch(/^Next speaker/);
    }
  });

  it('finds the four find_archived_url calls of TRAIL b1f9b9ba… that fail the same way', () => {
    const run = openRun(`${SHARED_TRACES}/trail/gaia/b1f9b9baefa4c69d1d848e35c130e29d.json`);
    const index = indexRun(run);
    const loops = detectLoops(index.replaySteps, index.childrenOf);
    expect(loops).toHaveLength(1);
    expect(loops[0].label).toMatch(/^find_archived_url\(.*×4$/);
    expect(loops[0].positions.map((p) => p + 1)).toEqual([18, 19, 20, 21]);
  });
});
