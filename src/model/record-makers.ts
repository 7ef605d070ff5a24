// Records of the commonest step shapes made by object literals written here, so that V8 can pretenure them (ADR 0107).
//
// A run's steps reach the page in columns (step-columns.ts) and are made there again, a record per step, as slices
// arrive from the import worker or from IndexedDB. Every one of them survives, so each young-generation collection
// copied them all, twice, before they were promoted: on a million-step chat log that was most of the page's long
// tasks (ADR 0105). V8 allocates an object straight in the old generation only when it is made by an object literal in
// the code whose earlier objects survived: a literal's allocation site learns that; a copy (`{...first}`), a class or
// a record made key by key does not. The keys of a literal are fixed in the code, so only the shapes listed here (the
// keys, in their order, that the importers give the steps and handoffs of large files) are made so; any other shape is
// made key by key as before. Each maker's shape is read off what it makes, so a maker cannot be filed under keys it
// does not make. Pure TS, no DOM.

/** A record's value for its key at `j` (its position in the shape's keys). */
export type ValueAt = (j: number) => unknown;
export type RecordMaker = (v: ValueAt) => Record<string, unknown>;
type Maker = RecordMaker;

// Each literal lists its keys in the order the importers set them: a step's keys are in the order of its import, and a
// record made here has the same keys in the same order as the one made key by key (JSON.stringify and Object.keys
// read the same).
const MAKERS: readonly Maker[] = [
  // Chat logs (AG2/AutoGen group chats, Who&When, τ-bench, Magentic-One): chat-log.ts and its kin.
  (v) => ({ id: v(0), index: v(1), kind: v(2), agentId: v(3), agentRunId: v(4), number: v(5), output: v(6), raw: v(7), usage: v(8), recipients: v(9) }),
  (v) => ({ id: v(0), index: v(1), kind: v(2), agentId: v(3), agentRunId: v(4), number: v(5), output: v(6), raw: v(7), recipients: v(8) }),
  (v) => ({ id: v(0), index: v(1), kind: v(2), agentId: v(3), agentRunId: v(4), number: v(5), output: v(6), raw: v(7), usage: v(8) }),
  (v) => ({ id: v(0), index: v(1), kind: v(2), agentId: v(3), agentRunId: v(4), number: v(5), output: v(6), raw: v(7) }),
  (v) => ({ id: v(0), index: v(1), kind: v(2), agentId: v(3), agentRunId: v(4), number: v(5), output: v(6), usage: v(7), recipients: v(8) }),
  (v) => ({ id: v(0), index: v(1), kind: v(2), agentId: v(3), agentRunId: v(4), number: v(5), output: v(6), recipients: v(7) }),
  (v) => ({ id: v(0), index: v(1), kind: v(2), agentId: v(3), agentRunId: v(4), number: v(5), output: v(6), usage: v(7) }),
  (v) => ({ id: v(0), index: v(1), kind: v(2), agentId: v(3), agentRunId: v(4), number: v(5), output: v(6) }),
  (v) => ({ id: v(0), index: v(1), kind: v(2), agentId: v(3), agentRunId: v(4), number: v(5), output: v(6), name: v(7), usage: v(8) }),
  (v) => ({ id: v(0), index: v(1), kind: v(2), agentId: v(3), agentRunId: v(4), number: v(5), raw: v(6), output: v(7), usage: v(8), recipients: v(9) }),
  (v) => ({ id: v(0), index: v(1), kind: v(2), agentId: v(3), agentRunId: v(4), number: v(5), raw: v(6), output: v(7), toolCalls: v(8), usage: v(9), recipients: v(10) }),
  (v) => ({ id: v(0), index: v(1), kind: v(2), agentId: v(3), agentRunId: v(4), number: v(5), name: v(6), observation: v(7), raw: v(8), inputText: v(9), recipients: v(10) }),
  // smolagents message-bus runs.
  (v) => ({ id: v(0), index: v(1), kind: v(2), agentId: v(3), agentRunId: v(4), number: v(5), output: v(6), recipients: v(7), name: v(8), bus: v(9), startTime: v(10), usage: v(11), raw: v(12) }),
  (v) => ({ id: v(0), index: v(1), kind: v(2), agentId: v(3), agentRunId: v(4), number: v(5), output: v(6), recipients: v(7), name: v(8), startTime: v(9), usage: v(10), raw: v(11) }),
  // Spans (OTLP with GenAI or OpenInference attributes, smolagents span trees): model calls and tool calls.
  (v) => ({ kind: v(0), spanId: v(1), name: v(2), raw: v(3), parentSpanId: v(4), startTime: v(5), endTime: v(6), input: v(7), output: v(8), model: v(9), usage: v(10), id: v(11), index: v(12), agentId: v(13), agentRunId: v(14) }),
  (v) => ({ kind: v(0), spanId: v(1), name: v(2), raw: v(3), parentSpanId: v(4), startTime: v(5), endTime: v(6), model: v(7), usage: v(8), id: v(9), index: v(10), agentId: v(11), agentRunId: v(12) }),
  (v) => ({ kind: v(0), spanId: v(1), name: v(2), raw: v(3), parentSpanId: v(4), startTime: v(5), endTime: v(6), toolCalls: v(7), inputText: v(8), observation: v(9), id: v(10), index: v(11), agentId: v(12), agentRunId: v(13) }),
  (v) => ({ kind: v(0), spanId: v(1), name: v(2), raw: v(3), parentSpanId: v(4), startTime: v(5), endTime: v(6), toolCalls: v(7), inputText: v(8), parentStepId: v(9), id: v(10), index: v(11), agentId: v(12), agentRunId: v(13) }),
  (v) => ({ kind: v(0), spanId: v(1), name: v(2), raw: v(3), parentSpanId: v(4), startTime: v(5), endTime: v(6), parentStepId: v(7), input: v(8), output: v(9), model: v(10), usage: v(11), id: v(12), index: v(13), agentId: v(14), agentRunId: v(15) }),
  (v) => ({ kind: v(0), spanId: v(1), name: v(2), raw: v(3), parentSpanId: v(4), startTime: v(5), endTime: v(6), number: v(7), toolCalls: v(8), observation: v(9), output: v(10), id: v(11), index: v(12), agentId: v(13), agentRunId: v(14) }),
  // Records inside steps: a message, a tool call, token counts, an error.
  (v) => ({ role: v(0), content: v(1) }),
  (v) => ({ name: v(0), arguments: v(1) }),
  (v) => ({ name: v(0), arguments: v(1), id: v(2) }),
  (v) => ({ input: v(0), output: v(1), total: v(2) }),
  (v) => ({ input: v(0), output: v(1), total: v(2), estimated: v(3) }),
  (v) => ({ input: v(0), output: v(1), total: v(2), cost: v(3) }),
  (v) => ({ message: v(0), type: v(1) }),
  (v) => ({ message: v(0) }),
  // Handoffs sent in columns (those the page cannot make from their steps, ADR 0067).
  (v) => ({ id: v(0), from: v(1), to: v(2), kind: v(3), stepId: v(4), content: v(5) }),
  (v) => ({ id: v(0), from: v(1), to: v(2), kind: v(3), content: v(4), stepId: v(5) }),
];

/** A shape's keys as one string (no key holds a NUL: a shape whose keys do would only miss the lookup). */
function shapeKey(keys: readonly string[]): string {
  return keys.join('\u0000');
}

/** Each maker by the keys it makes, in their order: read off one record it makes. */
const BY_SHAPE: ReadonlyMap<string, Maker> = new Map(MAKERS.map((make) => [shapeKey(Object.keys(make(() => undefined))), make]));

/** The shape each maker makes, in the makers' order (for tests: two makers of one shape would show twice). */
export function literalShapes(): string[][] {
  return MAKERS.map((make) => Object.keys(make(() => undefined)));
}

/** The maker of records with exactly these keys in this order, or undefined when the shape has none. */
export function recordMaker(keys: readonly string[]): Maker | undefined {
  return BY_SHAPE.get(shapeKey(keys));
}
