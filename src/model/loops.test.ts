import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { importBytes } from '../import/index.ts';
import { HAVE_SHARED, SKIP_REASON, SHARED_TRACES, sharedFiles } from '../testing/fixture-kit.ts';
import { callSignature, DEFAULT_LOOP_OPTIONS, detectLoops, lastLoopWork, ledgerVerdicts, loopAnalysisSlices, stepReader, verdictsFor, type Loop, type LoopOptions } from './loops.ts';
import { finish } from './slices.ts';
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

  it('merges the positions of a loop of thousands of steps over an odd number of clusters as the reference does', () => {
    // Five agents in a ring, each repeating itself: one loop of five clusters (three rounds of pairwise merging).
    const ring = ['a', 'b', 'c', 'd', 'e'];
    const steps: Step[] = [];
    for (let i = 0; i < 3000; i++) {
      const agent = ring[i % ring.length];
      steps.push(step(agent, { output: `${agent} checks the same ledger line again and again`, recipients: [ring[(i + 1) % ring.length]] }));
    }
    const loops = detectLoops(steps, new Map(), {}, ring);
    expect(loops).toHaveLength(1);
    expect(loops[0].positions).toHaveLength(3000);
    expect(loops).toEqual(referenceLoops(steps, new Map(), ring));
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

  it('stays linear: every item is compared with a bounded number of open clusters (no timing: bench/view.bench.ts times it)', () => {
    const steps: Step[] = [];
    for (let i = 0; i < 20_000; i++) steps.push(call(`agent-${i % 50}`, 'visit', i % 5000 < 50 ? '{"url":"same"}' : `{"q":"query ${i} ${i.toString(36)}"}`));
    // One agent whose every step starts a cluster of its own: the worst case for the open clusters.
    for (let i = 0; i < 10_000; i++) steps.push(call('solo', 'visit', `{"q":"${i.toString(36)} ${(i * 7919).toString(36)}"}`));
    expect(detectLoops(steps, new Map())).toEqual([]);
    const { maxGap, maxSpan } = DEFAULT_LOOP_OPTIONS;
    expect(lastLoopWork.steps).toBe(steps.length);
    expect(lastLoopWork.openPeak).toBeLessThanOrEqual(maxSpan + 1);
    expect(lastLoopWork.comparisons).toBeLessThanOrEqual(steps.length * (maxGap + 2));
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

// ---------------------------------------------------------------------------------------------------------------------
// The detector against a straightforward reference: the same rules written plainly (objects, arrays and Sets, every
// cluster kept whole, a pass per step over its agent's open clusters), on what the detector reads of each step
// (stepReader). The detector keeps open clusters in reused typed-array slots and reads the ledger in its first pass.

function referenceLoops(steps: readonly Step[], childrenOf: ReadonlyMap<string, readonly Step[]>, agentNames?: readonly string[], o: LoopOptions = DEFAULT_LOOP_OPTIONS): Loop[] {
  const read = stepReader(agentNames ?? [...new Set(steps.map((s) => s.agentId))]);
  const readings = steps.map((s) => read(s, childrenOf.get(s.id) ?? []));
  const templateCount = new Map<string, number>();
  for (const r of readings) if (r.routing !== undefined) templateCount.set(r.routing, (templateCount.get(r.routing) ?? 0) + 1);
  interface Cluster {
    agentId: string;
    kind: string;
    tokens: number[];
    positions: number[];
    ordinals: number[];
    numbers: number[][];
    recipients?: Set<string>;
  }
  const open = new Map<string, Cluster[]>();
  const ordinalOf = new Map<string, number>();
  const closed: Cluster[] = [];
  const routingOf = new Map<string, number[]>();
  const jaccard = (a: number[], b: number[]) => {
    if (a.length === 0 && b.length === 0) return 1;
    const common = a.filter((x) => b.includes(x)).length;
    return common / (a.length + b.length - common);
  };
  steps.forEach((step, p) => {
    const ordinal = (ordinalOf.get(step.agentId) ?? -1) + 1;
    ordinalOf.set(step.agentId, ordinal);
    const mine = open.get(step.agentId) ?? [];
    const live = mine.filter((c) => ordinal - c.ordinals[c.ordinals.length - 1] - 1 <= o.maxGap && p - c.positions[c.positions.length - 1] <= o.maxSpan);
    for (const c of mine) if (!live.includes(c)) closed.push(c);
    open.set(step.agentId, live);
    const routing = readings[p].routing;
    if (routing !== undefined && (templateCount.get(routing) ?? 0) >= o.minRepeats) {
      routingOf.set(step.agentId, [...(routingOf.get(step.agentId) ?? []), p]);
      return;
    }
    const item = readings[p].item;
    if (!item) return;
    let best: Cluster | undefined;
    let bestScore = 0;
    for (const c of live) {
      if (c.kind !== item.kind) continue;
      if (c.tokens.join() === item.tokens.join()) {
        best = c;
        break;
      }
      const score = jaccard(c.tokens, item.tokens);
      const paraphrase = item.kind.startsWith('say →') && c.tokens.length >= 10 && item.tokens.length >= 10;
      if (score >= (paraphrase ? o.paraphraseSimilarity : o.similarity) && score > bestScore) {
        best = c;
        bestScore = score;
      }
    }
    if (!best) live.push((best = { agentId: step.agentId, kind: item.kind, tokens: item.tokens, positions: [], ordinals: [], numbers: [] }));
    best.positions.push(p);
    best.ordinals.push(ordinal);
    best.numbers.push(item.numbers);
    for (const r of step.recipients ?? []) (best.recipients ??= new Set()).add(r);
  });
  for (const list of open.values()) closed.push(...list);
  // Paging: every occurrence has the same numbers, one of which rises (or falls) at every repeat.
  const paging = (ns: number[][]) =>
    ns.every((x) => x.length > 0 && x.length === ns[0].length) &&
    ns[0].some((_, i) => ns.every((x, j) => j === 0 || x[i] > ns[j - 1][i]) || ns.every((x, j) => j === 0 || x[i] < ns[j - 1][i]));
  const found = closed.filter((c) => c.positions.length >= o.minRepeats && !paging(c.numbers)).sort((a, b) => a.positions[0] - b.positions[0]);
  const groups: Cluster[][] = [];
  let lastOfGroup = -1;
  for (const c of found) {
    const group = groups[groups.length - 1];
    const related = group?.some((g) => g.agentId === c.agentId || g.recipients?.has(c.agentId) || c.recipients?.has(g.agentId));
    if (group && c.positions[0] <= lastOfGroup && related) group.push(c);
    else {
      groups.push([c]);
      lastOfGroup = -1;
    }
    lastOfGroup = Math.max(lastOfGroup, c.positions[c.positions.length - 1]);
  }
  const tokensOf = (s: Step): number => (s.usage ? s.usage.input + s.usage.output : 0) + (childrenOf.get(s.id) ?? []).reduce((t, c) => t + tokensOf(c), 0);
  return groups.map((group) => {
    const positions = [...new Set(group.flatMap((c) => c.positions))].sort((a, b) => a - b);
    const first = positions[0];
    const last = positions[positions.length - 1];
    const agentIds = [...new Set(group.map((c) => c.agentId))];
    const routing = agentIds.flatMap((id) => (routingOf.get(id) ?? []).filter((p) => p >= first && p <= last)).sort((a, b) => a - b);
    const byCount = [...group].sort((a, b) => b.positions.length - a.positions.length || a.positions[0] - b.positions[0]);
    const labels = byCount.slice(0, 2).map((c) => `${callSignature(steps[c.positions[0]], childrenOf.get(steps[c.positions[0]].id))?.label ?? c.kind} ×${c.positions.length}`);
    let tokens = 0;
    for (let p = first; p <= last; p++) tokens += tokensOf(steps[p]);
    return {
      agentId: agentIds[0],
      agentIds,
      kind: agentIds.length > 1 ? 'cycle' : group[0].kind.startsWith('call:') ? 'calls' : 'messages',
      signature: `${group[0].kind}:${group[0].tokens.join(',')}`,
      label: `${labels.join(' ⇄ ')}${byCount.length > 2 ? ` +${byCount.length - 2}` : ''}`,
      positions,
      routing,
      first,
      last,
      tokens,
    };
  });
}

/**
 * A generated run that exercises every rule: agents that call tools with repeated, nearly repeated and paged
 * arguments, messages to each other (some paraphrased, some with numbered retries), routing lines, ledgers, nested
 * tool steps and usage. Deterministic for a seed.
 */
function generatedRun(count: number, seed: number): { steps: Step[]; childrenOf: Map<string, Step[]>; agents: string[] } {
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const agents = ['orchestrator', 'WebSurfer', 'Coder', 'FileSurfer', 'critic'];
  const tools = ['web_search', 'visit_page', 'python', 'find_archived_url'];
  const steps: Step[] = [];
  const childrenOf = new Map<string, Step[]>();
  let k = 0;
  const make = (agentId: string, extra: Partial<Step>): Step => ({ id: `g${seed}-${k}`, index: k++, kind: 'message', agentId, usage: { input: 10 + (k % 7), output: 3, total: 13 + (k % 7) }, ...extra });
  let page = 0;
  for (let i = 0; i < count; i++) {
    const agent = random() < 0.3 ? agents[0] : pick(agents);
    const r = random();
    const burst = Math.floor(i / 40) % 3 === 0; // stretches where the same few things repeat
    if (r < 0.35) {
      const args = burst
        ? pick([`{"url":"https://example.org/a","date":"2022123${Math.floor(random() * 2)}"}`, '{"url":"https://example.org/a"}', `{"query":"flavor graveyard ${pick(['ben', 'jerry'])}"}`])
        : random() < 0.3
          ? `{"folder":"inbox","offset":${(page += 20)}}`
          : `{"q":"query ${i} ${Math.floor(random() * 1e6).toString(36)}"}`;
      steps.push(make(agent, { kind: 'action', toolCalls: [{ name: pick(tools), arguments: args }] }));
    } else if (r < 0.45) {
      const parent = make(agent, { kind: 'action', output: 'thinking' });
      const child = make(agent, { kind: 'tool', name: burst ? 'visit_page' : pick(tools), inputText: burst ? 'http://x.org/same' : `http://x.org/${i}`, parentStepId: parent.id });
      childrenOf.set(parent.id, [child]);
      steps.push(parent);
    } else if (r < 0.6) {
      steps.push(make(agent, { output: `Next speaker ${pick(agents)}` }));
    } else if (r < 0.85) {
      const to = pick(agents.filter((a) => a !== agent));
      const text = burst
        ? pick([
            `Please scroll down the archive page and find the August entries of the flavor graveyard, try ${i % 5}`,
            'Scroll the archive page down again and look for the August flavor graveyard entries in the list please',
            `I scrolled down one page in the browser.\n\nThe viewport shows ${i % 100}% of the page, OCR ${i}`,
          ])
        : `Sub-task ${i}: ${Math.floor(random() * 1e9).toString(36)} ${Math.floor(random() * 1e9).toString(36)} and report`;
      steps.push(make(agent, { output: text, recipients: random() < 0.9 ? [to] : [to, agents[0]] }));
    } else if (r < 0.9) {
      const loop = random() < 0.5;
      steps.push(make(agents[0], { output: `Updated ledger:\n{"is_in_loop": {"reason": "step ${i}", "answer": ${loop}}, "next_speaker": {"answer": "WebSurfer"}}` }));
    } else if (r < 0.95) {
      steps.push(make(agent, { kind: 'llm', output: 'model call' }));
    } else {
      steps.push(make(agent, { output: '   ' }));
    }
  }
  return { steps, childrenOf, agents };
}

describe('detectLoops against the straightforward reference', () => {
  it('finds the same loops on generated runs, and loopAnalysisSlices the same loops and ledger verdicts', () => {
    let total = 0;
    for (const seed of [1, 2, 3, 4]) {
      const { steps, childrenOf, agents } = generatedRun(3000, seed);
      const expected = referenceLoops(steps, childrenOf, agents);
      total += expected.length;
      expect(detectLoops(steps, childrenOf, {}, agents)).toEqual(expected);
      // Without the agents' names, routing lines are found by the ids seen in the steps.
      if (seed === 1) expect(detectLoops(steps, childrenOf)).toEqual(referenceLoops(steps, childrenOf));
      const analysis = finish(loopAnalysisSlices(steps, childrenOf, {}, agents));
      expect(analysis.loops).toEqual(expected);
      expect(analysis.ledger).toEqual(ledgerVerdicts(steps));
    }
    // The runs hold loops of every kind, so the comparison means something.
    expect(total).toBeGreaterThan(50);
  });
});

describe.skipIf(!HAVE_SHARED)(`detectLoops against the reference on every real trace (${SKIP_REASON.split(';')[0]})`, () => {
  it('finds the same loops and ledger verdicts', () => {
    let runs = 0;
    let loops = 0;
    for (const file of sharedFiles('')) {
      let imported;
      try {
        imported = importBytes(basename(file), readFileSync(file));
      } catch {
        continue; // not a trace the importers read (its own tests say so)
      }
      for (const run of imported.runs) {
        const index = indexRun(run);
        const names = run.agents.flatMap((a) => [a.id, a.name]);
        const expected = referenceLoops(index.replaySteps, index.childrenOf, names);
        const analysis = finish(loopAnalysisSlices(index.replaySteps, index.childrenOf, {}, names));
        expect(analysis.loops, basename(file)).toEqual(expected);
        expect(analysis.ledger, basename(file)).toEqual(ledgerVerdicts(index.replaySteps));
        runs++;
        loops += expected.length;
      }
    }
    expect(runs).toBeGreaterThan(30);
    expect(loops).toBeGreaterThan(5);
  });
});

describe('detectLoops against the straightforward reference, on random runs (fast-check)', () => {
  // Small alphabets, so that exact, near and paged repeats, routing lines and ledgers are frequent; the options vary too.
  const agents = ['orchestrator', 'WebSurfer', 'Coder', 'critic'];
  // With escapes (a backslash takes the next character), punctuation and non-ASCII: a text of these alone has no word.
  const words = ['scroll', 'down', 'the', 'archive', 'page', 'find', 'August', 'entries', 'flavor', 'graveyard', 'again', 'please', 'report', 'list', '\\a', '\\', '—', '\\n\\n', '!', 'é'];
  const agent = fc.constantFrom(...agents);
  const sentence = fc.array(fc.oneof(fc.constantFrom(...words), fc.integer({ min: 0, max: 40 }).map(String)), { minLength: 0, maxLength: 14 }).map((ws) => ws.join(' '));
  const args = fc.oneof(
    fc.constantFrom('{"url":"https://example.org/a"}', '{"query":"flavor graveyard"}', '', '  '),
    fc.integer({ min: 0, max: 6 }).map((i) => `{"folder":"inbox","offset":${i * 20}}`),
    fc.tuple(sentence, fc.integer({ min: 0, max: 3 })).map(([t, d]) => `{"q":"${t}","date":"2022123${d}"}`),
  );
  const tool = fc.constantFrom('web_search', 'visit_page', 'python');
  type Draft = { kind: 'call'; agent: string; calls: [string, string][] } | { kind: 'nested'; agent: string; tool: string; input: string } | { kind: 'say'; agent: string; text: string; to: string[] } | { kind: 'route'; agent: string; to: string } | { kind: 'ledger'; loop: boolean } | { kind: 'llm'; agent: string };
  const draft: fc.Arbitrary<Draft> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('call' as const), agent, calls: fc.array(fc.tuple(tool, args), { minLength: 1, maxLength: 2 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('nested' as const), agent, tool, input: args }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('say' as const), agent, text: fc.oneof(sentence, sentence.map((t) => `I scrolled down one page.\n\n${t}`), fc.constantFrom('\\a \\b', '— !', '\\1', ' \\\\x')), to: fc.array(agent, { maxLength: 2 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('route' as const), agent, to: agent }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('ledger' as const), loop: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('llm' as const), agent }) },
  );
  const options = fc.record({
    minRepeats: fc.integer({ min: 2, max: 4 }),
    maxGap: fc.integer({ min: 0, max: 8 }),
    maxSpan: fc.integer({ min: 1, max: 24 }),
    similarity: fc.constantFrom(0.6, 0.8),
    paraphraseSimilarity: fc.constantFrom(0.4, 0.5),
  });
  const build = (drafts: Draft[]) => {
    const steps: Step[] = [];
    const childrenOf = new Map<string, Step[]>();
    drafts.forEach((d, k) => {
      const base = { id: `r${k}`, index: k, usage: { input: k % 5, output: 1, total: 1 + (k % 5) } };
      if (d.kind === 'call') steps.push({ ...base, kind: 'action', agentId: d.agent, toolCalls: d.calls.map(([name, a]) => ({ name, arguments: a })) });
      else if (d.kind === 'nested') {
        const parent: Step = { ...base, kind: 'action', agentId: d.agent, output: 'thinking' };
        childrenOf.set(parent.id, [{ id: `r${k}c`, index: k, kind: 'tool', agentId: d.agent, name: d.tool, inputText: d.input, parentStepId: parent.id, usage: { input: 2, output: 1, total: 3 } }]);
        steps.push(parent);
      } else if (d.kind === 'say') steps.push({ ...base, kind: 'message', agentId: d.agent, output: d.text, recipients: d.to.length > 0 ? d.to : undefined });
      else if (d.kind === 'route') steps.push({ ...base, kind: 'message', agentId: d.agent, output: `Next speaker ${d.to}` });
      else if (d.kind === 'ledger') steps.push({ ...base, kind: 'message', agentId: 'orchestrator', output: `Updated ledger:\n{"is_in_loop": {"reason": "step ${k}", "answer": ${d.loop}}}` });
      else steps.push({ ...base, kind: 'llm', agentId: d.agent, output: 'model call' });
    });
    return { steps, childrenOf };
  };

  it('finds the same loops and ledger verdicts as the reference, whatever the run and the options', () => {
    let loops = 0;
    const seen = new Set<string>();
    fc.assert(
      // Most steps repeat one of a few drafts (exact repeats; their numbers and neighbours make near ones), some are new.
      fc.property(fc.array(draft, { minLength: 1, maxLength: 6 }), fc.array(fc.oneof({ weight: 3, arbitrary: fc.nat() }, { weight: 1, arbitrary: draft }), { maxLength: 150 }), options, (palette, picks, o) => {
        const { steps, childrenOf } = build(picks.map((x) => (typeof x === 'number' ? palette[x % palette.length] : x)));
        const expected = referenceLoops(steps, childrenOf, agents, o);
        loops += expected.length;
        for (const l of expected) {
          seen.add(l.kind);
          if (l.routing.length > 0) seen.add('routing');
          if (l.positions.length > o.minRepeats) seen.add('long');
        }
        const analysis = finish(loopAnalysisSlices(steps, childrenOf, o, agents));
        expect(analysis.loops).toEqual(expected);
        expect(analysis.ledger).toEqual(ledgerVerdicts(steps));
        expect(detectLoops(steps, childrenOf, o)).toEqual(referenceLoops(steps, childrenOf, undefined, o));
      }),
      { numRuns: 400, seed: 14 },
    );
    // The runs hold loops of every kind, some with routing lines beside them, so the comparison means something.
    expect(loops).toBeGreaterThan(100);
    expect([...seen].sort()).toEqual(['calls', 'cycle', 'long', 'messages', 'routing']);
  });
});
