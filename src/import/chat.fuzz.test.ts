// Property tests (SPEC §9): whatever the bytes, importing either succeeds with schema-valid runs or throws an
// ImportError naming the problem; never a TypeError, never a hang.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Run as RunSchema } from '../model/schema.ts';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON } from '../testing/fixture-kit.ts';
import { ImportError, importBytes, importText } from './index.ts';

function expectTypedOutcome(run: () => { runs: unknown[] }): void {
  let result: { runs: unknown[] } | undefined;
  try {
    result = run();
  } catch (e) {
    if (!(e instanceof ImportError)) throw e;
    expect(e.file).toBeTruthy();
    expect(e.detail).toBeTruthy();
    return;
  }
  for (const r of result.runs) {
    const parsed = RunSchema.safeParse(r);
    if (!parsed.success) throw new Error(`imported run fails the schema: ${JSON.stringify(parsed.error.issues[0])}`);
  }
}

const leaf = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const anyJson = fc.jsonValue({ maxDepth: 3 });
const maybe = (arb: fc.Arbitrary<unknown>) => fc.oneof(arb, anyJson, fc.constant(undefined));

/** Documents shaped enough like each format to pass its sniffer, with anything in the fields. */
const shapedDocuments = fc.oneof(
  fc.record({
    question: maybe(fc.string()),
    ground_truth: maybe(leaf),
    mistake_agent: maybe(fc.string()),
    mistake_step: maybe(fc.oneof(fc.integer({ min: -2, max: 6 }).map(String), leaf)),
    history: fc.array(fc.record({ role: maybe(fc.constantFrom('user', 'assistant', 'Orchestrator (-> X)', 'Orchestrator (thought)', '(', 'a (b) (c)')), name: maybe(fc.string()), content: maybe(fc.string()) }), { minLength: 1, maxLength: 5 }),
  }),
  fc.array(
    fc.record({
      task_id: maybe(fc.integer()),
      reward: maybe(leaf),
      info: maybe(fc.record({ task: maybe(fc.record({ instruction: maybe(fc.string()), outputs: maybe(fc.array(leaf)) })) })),
      traj: fc.array(
        fc.record({
          role: fc.constantFrom('system', 'user', 'assistant', 'tool'),
          content: maybe(fc.string()),
          tool_calls: maybe(fc.array(fc.record({ id: maybe(fc.string()), function: maybe(fc.record({ name: maybe(fc.string()), arguments: maybe(fc.string()) })) }), { maxLength: 2 })),
          tool_call_id: maybe(fc.string()),
          index: maybe(fc.integer({ min: 0, max: 9 })),
        }),
        { minLength: 1, maxLength: 6 },
      ),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  fc.record({
    trace: fc.record({ id: maybe(fc.string()), name: maybe(fc.string()), input: anyJson, output: anyJson, scores: maybe(fc.array(fc.record({ id: maybe(fc.string()), name: maybe(fc.string()), value: maybe(leaf), observationId: maybe(fc.constantFrom('a', 'b', 'zz')) }), { maxLength: 2 })) }),
    observations: fc.array(
      fc.record({
        id: fc.constantFrom('a', 'b', 'c', 'd'),
        traceId: fc.constant('t'),
        type: fc.constantFrom('GENERATION', 'SPAN', 'AGENT', 'TOOL', 'EVENT', 'CHAIN'),
        name: maybe(fc.constantFrom('invoke_agent x', 'execute_tool y', 'y', 'agent_run [z]')),
        parentObservationId: maybe(fc.constantFrom('a', 'b', 'c', 'd', 'nowhere')),
        startTime: maybe(fc.constantFrom('2025-01-01T00:00:00Z', '2025-01-01T00:00:01Z', 'garbage')),
        usageDetails: maybe(fc.record({ input: maybe(leaf), output: maybe(leaf), total: maybe(leaf) })),
        level: maybe(fc.constantFrom('ERROR', 'DEFAULT')),
        input: anyJson,
        output: anyJson,
        metadata: anyJson,
      }),
      { minLength: 1, maxLength: 6 },
    ),
  }),
  fc.array(
    fc.record({
      question: fc.string(),
      true_answer: maybe(leaf),
      answer: maybe(leaf),
      agent_action_type: fc.constant('decentralized-consensus'),
      start_time: maybe(leaf),
      duration: maybe(leaf),
      messages: maybe(fc.array(fc.record({ sender: maybe(fc.string()), content: anyJson, recipients: maybe(fc.array(maybe(fc.constantFrom('a', 'b', '@all')))), thread_id: maybe(fc.string()), type: maybe(fc.string()) }), { maxLength: 4 })),
    }),
    { minLength: 1, maxLength: 3 },
  ),
);

describe('importers under fuzzing', () => {
  it('random bytes give runs or an ImportError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => expectTypedOutcome(() => importBytes('fuzz.bin', bytes))),
      { numRuns: 300 },
    );
  });

  it('random JSON gives runs or an ImportError', () => {
    fc.assert(
      fc.property(anyJson, (value) => expectTypedOutcome(() => importText('fuzz.json', JSON.stringify(value) ?? 'null'))),
      { numRuns: 300 },
    );
  });

  it('documents shaped like each format, with anything in their fields, give runs or an ImportError', () => {
    fc.assert(
      fc.property(shapedDocuments, (doc) => expectTypedOutcome(() => importText('shaped.json', JSON.stringify(doc)))),
      { numRuns: 400 },
    );
  });
});

/** Every [path, parent, key] of a JSON value, so a mutation can target any node. */
function nodes(value: unknown, out: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = []) {
  if (Array.isArray(value)) value.forEach((v, i) => (out.push({ parent: value, key: i }), nodes(v, out)));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) (out.push({ parent: value as Record<string, unknown>, key: k }), nodes(v, out));
  return out;
}

/** Small samples of real files, cut down so a few hundred mutations stay fast. */
function realSamples(): { name: string; text: string }[] {
  const read = (p: string) => readFileSync(join(SHARED_TRACES, p), 'utf8');
  const tau = JSON.parse(read('tau-bench/tau_dataset_failed.json')).slice(0, 1);
  tau[0].traj = tau[0].traj.slice(0, 8);
  const busLines = read('smolagents-bus/decentralized-LiteLLMModel-gpt-4o__decentralized-consensus__math__2025-08-27.jsonl').split('\n').slice(0, 3);
  return [
    { name: 'who-and-when.json', text: read('who-and-when/algorithm-generated/1.json') },
    { name: 'magentic.json', text: read('who-and-when/hand-crafted/6.json') },
    { name: 'tau.json', text: JSON.stringify(tau) },
    { name: 'gt.json', text: JSON.stringify(JSON.parse(read('tau-bench/tau_ground_truth.json')).slice(0, 3)) },
    { name: 'langfuse.json', text: read('langfuse/ag2-2026-03-09.json') },
    { name: 'langfuse-adk.json', text: read('langfuse/google-adk-2025-08-28.json') },
    { name: 'bus.jsonl', text: busLines.join('\n') },
  ];
}

describe.skipIf(!HAVE_SHARED)(`mutated real files (${HAVE_SHARED ? 'real traces' : SKIP_REASON})`, () => {
  const samples = HAVE_SHARED ? realSamples() : [];

  it('the unmutated samples import', () => {
    for (const s of samples) expect(importText(s.name, s.text).runs.length + importText(s.name, s.text).annotationSets.length).toBeGreaterThan(0);
  });

  it('dropping keys, changing types and replacing values give runs or an ImportError', () => {
    const mutation = fc.record({
      sample: fc.nat(samples.length - 1),
      edits: fc.array(fc.record({ at: fc.nat(), op: fc.constantFrom('drop', 'replace', 'stringify', 'nullify'), value: anyJson }), { minLength: 1, maxLength: 4 }),
    });
    fc.assert(
      fc.property(mutation, ({ sample, edits }) => {
        const s = samples[sample];
        const docs = s.name.endsWith('.jsonl') ? s.text.split('\n').map((l) => JSON.parse(l)) : [JSON.parse(s.text)];
        for (const edit of edits) {
          const all = docs.flatMap((d) => nodes(d));
          if (all.length === 0) break;
          const { parent, key } = all[edit.at % all.length];
          const target = parent as Record<string | number, unknown>;
          if (edit.op === 'drop') {
            if (Array.isArray(parent)) parent.splice(key as number, 1);
            else delete target[key];
          } else if (edit.op === 'replace') target[key] = edit.value;
          else if (edit.op === 'stringify') target[key] = JSON.stringify(target[key]) ?? '';
          else target[key] = null;
        }
        const text = s.name.endsWith('.jsonl') ? docs.map((d) => JSON.stringify(d)).join('\n') : JSON.stringify(docs[0]);
        expectTypedOutcome(() => importText(s.name, text));
      }),
      { numRuns: 400 },
    );
  });

  it('truncated files give runs or an ImportError', () => {
    fc.assert(
      fc.property(fc.nat(samples.length - 1), fc.double({ min: 0, max: 1, noNaN: true }), (sample, cut) => {
        const s = samples[sample];
        expectTypedOutcome(() => importText(s.name, s.text.slice(0, Math.floor(s.text.length * cut))));
      }),
      { numRuns: 200 },
    );
  });
});
