// SPEC §8: the adaptive filter over 1M action steps must cost at most 2× a bare loop that reads the same fields.
// Run: npm run bench:filter
import { writeResults } from './results.ts';
import type { Step } from '../src/model/types.ts';
import { filterParams, filterSteps } from '../src/engine/supervisor/filter.ts';
import { PRESETS } from '../src/engine/supervisor/presets.ts';

const STEPS = Number(process.env.BENCH_STEPS ?? 1_000_000);
const RUNS = 9;

function makeSteps(count: number): Step[] {
  const steps: Step[] = [];
  const filler = 'lorem ipsum dolor sit amet, consectetur adipiscing elit. ';
  let seed = 42;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  // As an importer does: one id string per agent run and per agent, shared by its steps.
  const runIds = Array.from({ length: Math.ceil(count / 40) }, (_, k) => `run-${k}`);
  const agentIds = ['agent-0', 'agent-1', 'agent-2'];
  for (let i = 0; i < count; i++) {
    const agentRun = runIds[Math.floor(i / 40)];
    const r = rnd();
    const obsLen = r < 0.1 ? 3500 : 60 + Math.floor(rnd() * 1400);
    let observation = filler.repeat(Math.ceil(obsLen / filler.length)).slice(0, obsLen);
    if (r > 0.995) observation += '\n<summary_of_work>done</summary_of_work>';
    const looping = i % 40 > 30;
    const step: Step = {
      id: `s${i}`,
      index: i,
      kind: 'action',
      agentId: agentIds[i % 3],
      agentRunId: agentRun,
      number: (i % 40) + 1,
      observation,
      toolCalls: rnd() < 0.3 ? [] : [{ name: looping ? 'page_down' : 'web_search', arguments: looping ? '{}' : `{"query":"q${i}"}` }],
      output: `Thought: step ${i}\nCode:\n\`\`\`py\nprint(${looping ? 0 : i})\n\`\`\`<end_code>`,
    };
    if (rnd() < 0.02) step.error = { message: 'ValueError: something failed' };
    steps.push(step);
  }
  return steps;
}

/** Reads every field the filter reads, including the marker scan the first rule cannot avoid, and decides nothing. */
function bareLoop(steps: readonly Step[]): number {
  let acc = 0;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    if (s.kind !== 'action') continue;
    const key = s.agentRunId ?? s.agentId;
    const obs = s.observation;
    if (obs !== undefined && obs.includes('<summary_of_work>')) acc++;
    const calls = s.toolCalls;
    if (calls !== undefined) for (let j = 0; j < calls.length; j++) acc += calls[j].name.length + calls[j].arguments.length;
    acc += key.length + (obs?.length ?? 0) + (s.output?.length ?? 0) + (s.error ? 1 : 0);
  }
  return acc;
}

function time(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

const steps = makeSteps(STEPS);
const params = filterParams(PRESETS.gaia);
let sink = 0;
// Warm both paths so the JIT has compiled them before timing.
sink += bareLoop(steps);
sink += filterSteps(steps, params).length;
const bare: number[] = [];
const filtered: number[] = [];
let triggers = 0;
for (let r = 0; r < RUNS; r++) {
  bare.push(time(() => (sink += bareLoop(steps))));
  filtered.push(time(() => (triggers = filterSteps(steps, params).length)));
}
const best = (xs: number[]) => Math.min(...xs);
const ratio = best(filtered) / best(bare);
console.log(`filter bench: ${STEPS} action steps, ${triggers} triggers (gaia preset), best of ${RUNS} interleaved runs (the machine is shared, so the minimum is the least disturbed)`);
console.log(`  bare loop  ${best(bare).toFixed(1)} ms`);
console.log(`  filter     ${best(filtered).toFixed(1)} ms`);
console.log(`  ratio      ${ratio.toFixed(2)} (target ≤ 2) ${ratio <= 2 ? 'OK' : 'OVER'}${sink < 0 ? '' : ''}`);
writeResults('filter', [
  { name: `filter over ${STEPS.toLocaleString('en')} steps vs a bare loop over the same fields`, value: ratio, unit: '×', target: '≤ 2 × bare loop', pass: ratio <= 2, note: `best of ${RUNS}: ${best(filtered).toFixed(1)} ms vs ${best(bare).toFixed(1)} ms` },
]);
