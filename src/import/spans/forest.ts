// The span forest shared by the OTLP and the nested span-tree importers: format modules turn their documents into flat
// SpanRecords; this module builds the tree (orphans kept as roots and counted, duplicates counted, loops cut), gives
// every span its attribute standard, and reads what every span has (its step id, its error).
import type { RunSpan, StepError } from '../../model/types.ts';
import { hash32 } from '../../model/hash.ts';
import { fillSlots, inSlotOrder, slotMask } from '../../model/slot-order.ts';
import { noStandard, textAttr, type Attributes, type AttributeStandard, type ModelCallIo, type SpanCategory } from './attributes.ts';
import { customAttributes } from './custom.ts';
import { genAi } from './genai.ts';
import { openInference } from './openinference.ts';

export interface SpanEvent {
  name: string;
  time?: number;
  attributes: Attributes;
}

export interface SpanRecord {
  id: string;
  parentId?: string;
  traceId: string;
  name: string;
  start?: number;
  end?: number;
  attributes: Attributes;
  status: 'ok' | 'error' | 'unset';
  statusMessage?: string;
  events: SpanEvent[];
  /** Instrumentation scope (`openinference.instrumentation.smolagents`), when the format records it. */
  scope?: string;
  /** Position in the file: breaks start-time ties so replay order is stable. */
  order: number;
  /** The resource's `service.name` (one string per resource block, shared by its spans). */
  service?: string;
  // Set by the run assembler (the span is kept in Run.spans as this same object, issue 20):
  /** What the span became. */
  kind?: RunSpan['kind'];
  /** The step it is, or the step it belongs to. */
  stepId?: string;
  /** Depth in the forest (0 for roots). */
  depth?: number;
}

export interface SpanNode {
  span: SpanRecord;
  category: SpanCategory;
  standard: AttributeStandard;
  parent?: SpanNode;
  children: SpanNode[];
  /** A model call's reading of its attributes, kept for the second reader (smolagents' action step and the call). */
  io?: ModelCallIo;
}

export interface SpanForest {
  traceId: string;
  roots: SpanNode[];
  /** Spans whose parent id is set but not in the file: kept as roots, counted, never dropped. */
  orphans: number;
  /** Spans repeated under the same id (an exporter artefact): the first copy is kept. */
  duplicates: number;
  /** Spans the format reader could not keep (no span id, …), by reason: counted in the import report, never silent. */
  dropped: ReadonlyMap<string, number>;
  size: number;
  /** Every node of the forest, in file order (for the readers whose result does not depend on the order). */
  nodes: SpanNode[];
}

export const ATTRIBUTE_STANDARDS = { openInference, genAi, customAttributes, noStandard } as const;

export function standardOf(attrs: Attributes): AttributeStandard {
  if (attrs['openinference.span.kind'] !== undefined) return openInference;
  if (
    attrs['gen_ai.operation.name'] !== undefined ||
    attrs['gen_ai.system'] !== undefined ||
    attrs['gen_ai.provider.name'] !== undefined ||
    attrs['gen_ai.request.model'] !== undefined ||
    attrs['gen_ai.tool.name'] !== undefined ||
    attrs['gen_ai.agent.name'] !== undefined
  ) {
    return genAi;
  }
  if (attrs['tool.name'] !== undefined || attrs['agent.name'] !== undefined || attrs['agent_name'] !== undefined) return customAttributes;
  return noStandard;
}

// ---------------------------------------------------------------------------------------------------------------
// The forest.

function byStart(a: SpanNode, b: SpanNode): number {
  const sa = a.span.start ?? Infinity;
  const sb = b.span.start ?? Infinity;
  if (sa !== sb) return sa < sb ? -1 : 1;
  return a.span.order - b.span.order;
}

const NO_DROPS: ReadonlyMap<string, number> = new Map();

/**
 * The children of every node that has none: one array for all of them, a node's own made when its first child is
 * linked (most spans are leaves: no array each, kept until the run is built). Frozen, so that a change made to it by
 * mistake throws instead of showing under every leaf.
 */
const NO_CHILDREN = Object.freeze([]) as unknown as SpanNode[];

/** Counts one span dropped for `reason` (per-span defects the format readers isolate, issue 20). */
export function countDrop(into: Map<string, number>, reason: string): void {
  into.set(reason, (into.get(reason) ?? 0) + 1);
}

/** Told of each span as the forest takes it in, then as it links it (the import's progress bar: a million spans take seconds). */
export interface ForestProgress {
  tick(): void;
}

/**
 * The nodes by their spans' ids, the first of each id: an open-addressing table of the ids' hashes over the spans'
 * positions, sized once for them all. A Map of the ids cost twice the time (a million spans: ~0.9 s against ~0.45 s
 * in Node), most of it growing and rehashing as it filled.
 *
 * The spans go in in the order of their home slots, not in file order (ADR 0092): hashed first, sorted into 1,024
 * blocks of slots by a counting sort (slot-order.ts; file order kept within a block), then inserted block by block,
 * so the table (16 MB at a million spans) is written from start to end instead of at a random slot per span. Each
 * slot holds the span's position + 1 and the id's hash side by side. Two spans of one id share a home slot, so the
 * earlier one goes in first and is the one kept.
 */
class NodesById {
  private readonly table: Int32Array;
  private readonly mask: number;
  /** Span position → its node's position in `nodes`; -1 for a span whose id an earlier span has. */
  private readonly nodeOf: Int32Array;

  constructor(
    private readonly spans: readonly SpanRecord[],
    private readonly nodes: SpanNode[],
  ) {
    const n = spans.length;
    const mask = (this.mask = slotMask(n));
    const table = (this.table = new Int32Array(2 * (mask + 1)));
    this.nodeOf = new Int32Array(n);
    const hashes = new Int32Array(n);
    for (let i = 0; i < n; i++) hashes[i] = hash32(spans[i].id);
    const { order, orderHashes } = inSlotOrder(hashes, mask);
    const nodeOf = this.nodeOf;
    fillSlots(table, mask, order, orderHashes, 0, n, (a, b) => spans[a].id === spans[b].id, (_, i) => {
      nodeOf[i] = -1;
      return false;
    });
  }

  /** Whether the span at `position` is the first of its id. */
  first(position: number): boolean {
    return this.nodeOf[position] !== -1;
  }

  /** The span at `position` (the first of its id) is the node at `node`. */
  place(position: number, node: number): void {
    this.nodeOf[position] = node;
  }

  get(id: string): SpanNode | undefined {
    const { table, spans, mask } = this;
    const h = hash32(id);
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const at = table[2 * slot];
      if (at === 0) return undefined;
      if (table[2 * slot + 1] === h && spans[at - 1].id === id) return this.nodes[this.nodeOf[at - 1]];
    }
  }
}

export function buildForest(traceId: string, spans: SpanRecord[], dropped: ReadonlyMap<string, number> = NO_DROPS, progress?: ForestProgress): SpanForest {
  let duplicates = 0;
  const kept: SpanNode[] = [];
  const nodes = new NodesById(spans, kept);
  for (let i = 0; i < spans.length; i++) {
    progress?.tick();
    if (!nodes.first(i)) {
      duplicates++;
      continue;
    }
    const span = spans[i];
    nodes.place(i, kept.length);
    const standard = standardOf(span.attributes);
    kept.push({ span, category: standard.category(span.attributes), standard, parent: undefined, children: NO_CHILDREN, io: undefined });
  }
  const roots: SpanNode[] = [];
  let orphans = 0;
  // Siblings follow one another and share their parent's id (one string, as the readers give it): the last one found
  // is tried before the map.
  let lastParentId: string | undefined;
  let lastParent: SpanNode | undefined;
  // A second tick per span as it is linked to its parent (the linking, loop check and sorts took ~0.3 s untold at 1M).
  for (const node of kept) {
    progress?.tick();
    const parentId = node.span.parentId;
    let parent: SpanNode | undefined;
    if (parentId === undefined) parent = undefined;
    else if (parentId === lastParentId) parent = lastParent;
    else {
      parent = nodes.get(parentId);
      lastParentId = parentId;
      lastParent = parent;
    }
    if (parent) {
      node.parent = parent;
      if (parent.children === NO_CHILDREN) parent.children = [node];
      else parent.children.push(node);
    } else {
      if (parentId !== undefined) orphans++;
      roots.push(node);
    }
  }
  breakCycles(kept, roots);
  for (const node of kept) {
    const children = node.children;
    if (children.length === 2) {
      // The common case (a step's model call and tool call), without the allocations of a sort call.
      if (byStart(children[0], children[1]) > 0) children.reverse();
    } else if (children.length > 2) children.sort(byStart);
  }
  roots.sort(byStart);
  return { traceId, roots, orphans, duplicates, dropped, size: kept.length, nodes: kept };
}

/**
 * Spans whose parent chain loops (a malformed file) are unreachable from the roots and would make a walk endless:
 * each loop is cut at one span, which becomes a root. Linear in the number of spans.
 */
function breakCycles(nodes: SpanNode[], roots: SpanNode[]): void {
  // Without a loop every node is reached from the roots exactly once (each has one parent): count before keeping a set.
  let count = 0;
  const stack = roots.slice();
  while (stack.length) {
    const node = stack.pop()!;
    count++;
    for (const child of node.children) stack.push(child);
  }
  if (count === nodes.length) return;
  const reached = new Set<SpanNode>();
  const mark = (from: SpanNode) => {
    for (const n of walkForest([from])) reached.add(n);
  };
  for (const root of roots) mark(root);
  if (reached.size === nodes.length) return;
  for (const node of nodes) {
    if (reached.has(node)) continue;
    const parent = node.parent;
    if (parent) parent.children.splice(parent.children.indexOf(node), 1);
    node.parent = undefined;
    roots.push(node);
    mark(node);
  }
}

/** Pre-order, iterative (deep trees must not overflow the stack). */
export function* walkForest(roots: SpanNode[]): Generator<SpanNode> {
  const stack = [...roots].reverse();
  while (stack.length) {
    const node = stack.pop()!;
    yield node;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading one span.

export function stepIdOfSpan(spanId: string): string {
  // Joined, not a template: V8 makes `span-${id}` (13 characters or more) a string that points at its two parts, and the
  // first search, hash or clone of it (the hand-over) adds a flat copy beside it. A million such ids took ~68 MB of a
  // Node heap once read, against ~38 MB made flat at once. With the 1M-span OTLP run open, the import worker held
  // 381–389 MB after a full collection, against 399–408 MB (bench/million, BENCH_GC_PROBE).
  return ['span-', spanId].join('');
}

export function spanError(span: SpanRecord): StepError | undefined {
  if (span.status === 'error') {
    const message = span.statusMessage || exceptionOf(span)?.message || 'error';
    const colon = /^([A-Za-z_][\w.]*(?:Error|Exception)): /.exec(message);
    return colon ? { message, type: colon[1] } : { message };
  }
  const exception = exceptionOf(span);
  if (exception) return exception;
  const attrError = textAttr(span.attributes, 'error.message') ?? textAttr(span.attributes, 'error');
  if (attrError !== undefined && attrError !== '' && attrError !== 'false') {
    const type = textAttr(span.attributes, 'error.type');
    return type !== undefined ? { message: attrError, type } : { message: attrError };
  }
  return undefined;
}

function exceptionOf(span: SpanRecord): StepError | undefined {
  for (const event of span.events) {
    if (event.name !== 'exception') continue;
    const message = textAttr(event.attributes, 'exception.message') ?? 'exception';
    const type = textAttr(event.attributes, 'exception.type');
    return type !== undefined ? { message, type } : { message };
  }
  return undefined;
}
