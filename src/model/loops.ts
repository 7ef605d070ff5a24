// The one loop analysis (issue 13): repeated work in a run, used by the run view header, the `l` jump, the loop panel
// and the CLI. Repeated work is an agent doing the same or nearly the same thing again within a short stretch of its
// own steps: the same tool with (nearly) the same arguments, or a near-duplicate message to the same recipients.
// Interleaved repeats of agents that talk to each other form one cycle (A asks B for the same thing, B answers the
// same way). Short templated routing lines that name an agent ("Next speaker WebSurfer") repeat by design and are
// never a loop on their own; inside a loop's window they are listed beside it.
//
// Near-duplicates are judged on token sets (lower-cased words, every number read as one token "#", at most
// MAX_TOKENS per item, a message read from its beginning) by Jaccard similarity. Numbers are folded on purpose:
// "scrolled down, viewport at 3%" and a retry with date 20221230 instead of 20221231 are the same work again.
// One exception, for calls only: when a number in the arguments moves the same way at every repeat (page 1, 2, 3;
// offset 0, 20, 40) the agent is paging through something, which is progress, not a loop. A number that comes back
// (the same page again, a date tried, changed and tried again) keeps the loop. Messages keep the plain rule: numbered
// retries ("try 2", "try 3") are still the same request. (The bench's generated run has no per-agent loops; what it
// reports there are a manager's "Please handle sub-task N" sent to the same worker three times in a short stretch.)
// Each item is compared only with the open clusters of its own agent (at most maxGap + 1 of them), so the pass is
// linear in the steps, and reading an item allocates only its token set (words are hashed into a shared buffer,
// arguments are read as text, not parsed). Framework verdicts (loopVerdicts) are evidence shown beside the findings, never read here.
import { finish, SLICE, type Sliced } from './slices.ts';
import type { Annotation, Intervention, Step, ToolCall } from './types.ts';
import { lowerBound } from './large-arrays.ts';

export interface LoopOptions {
  /** Occurrences of one repeated item needed to count as a loop. */
  minRepeats: number;
  /** Two occurrences belong to the same loop when at most this many of the agent's own steps lie between them. */
  maxGap: number;
  /**
   * ...and at most this many replay steps apart: the same work far away in the run (after a replan) is a new
   * attempt, not the same loop.
   */
  maxSpan: number;
  /** Token-set Jaccard similarity at or above which two items are the same work. */
  similarity: number;
  /**
   * The same for two messages to other agents of at least PARAPHRASE_MIN_WORDS distinct words each: a request asked again in other
   * words shares fewer words than a retried call, and long enough texts rarely share half their words by chance.
   */
  paraphraseSimilarity: number;
}

export const DEFAULT_LOOP_OPTIONS: LoopOptions = { minRepeats: 3, maxGap: 8, maxSpan: 24, similarity: 0.8, paraphraseSimilarity: 0.5 };

const MAX_TOKENS = 48;
/** A message's first line stands for it when it has at least this many words (see messageWords). */
const LEAD_MIN_WORDS = 3;
/** See LoopOptions.paraphraseSimilarity. */
const PARAPHRASE_MIN_WORDS = 10;
/** A routing line is at most this many words once agent names are taken out. */
const ROUTING_MAX_WORDS = 6;

export interface Loop {
  /** First agent that repeats work (kept for the graph's outline). */
  agentId: string;
  /** Every agent whose repeated work belongs to the loop, in order of first occurrence. */
  agentIds: string[];
  /** 'cycle' when several agents repeat in turn. */
  kind: 'calls' | 'messages' | 'cycle';
  /** Comparison key of the first repeated item. */
  signature: string;
  /** What repeats, readable: the call or the text (several joined by " ⇄ " in a cycle). */
  label: string;
  /** Replay positions of every occurrence of the repeated work, ascending. */
  positions: number[];
  /** Replay positions of routing lines of the loop's agents inside its window (not counted as occurrences). */
  routing: number[];
  first: number;
  last: number;
  /** Tokens (input + output, nested steps included) of every step from first to last. */
  tokens: number;
}

export interface CallSignature {
  key: string;
  label: string;
}

// ---------------------------------------------------------------------------------------------------------------------
// Items: what a replay step does, as a key for exact repeats and a token set for near ones.

type Call = Pick<ToolCall, 'name' | 'arguments'>;

function toolCallsOf(step: Step, children: readonly Step[]): Call[] | undefined {
  if (step.toolCalls && step.toolCalls.length > 0) return step.toolCalls;
  const nestedTools = children.filter((c) => c.kind === 'tool' && c.name);
  if (nestedTools.length > 0) return nestedTools.map((c) => ({ name: c.name ?? '', arguments: c.inputText ?? '' }));
  if (step.kind === 'tool' && step.name) return [{ name: step.name, arguments: step.inputText ?? '' }];
  return undefined;
}

/** The text a step sends when it calls no tool (message, planning and action steps); model calls send none. */
function sentText(step: Step): string | undefined {
  if (step.kind === 'llm' || step.kind === 'tool') return undefined;
  return step.output ?? step.thought;
}

const recipientsOf = (step: Step) => (step.recipients && step.recipients.length > 0 ? ` → ${step.recipients.join(', ')}` : '');
const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();
const short = (text: string, n = 80) => (text.length > n ? `${text.slice(0, n)}…` : text);

const FNV_OFFSET = 0x811c9dc5 | 0;
/** The hash of "#", the one token every number becomes. */
const HASH_NUMBER = Math.imul(FNV_OFFSET ^ 35, 0x01000193);

/**
 * Scratch buffers shared by every item: word hashes are written here and only the final sorted, de-duplicated set
 * is copied out, so reading a step allocates one small Int32Array. `numbers` holds the values of the numbers read
 * (for the progress rule), at most MAX_NUMBERS of them.
 */
const scratch = { hashes: new Int32Array(MAX_TOKENS), count: 0, numbers: new Float64Array(8), numberCount: 0 };
const MAX_NUMBERS = 8;

function pushHash(h: number) {
  if (scratch.count < MAX_TOKENS) scratch.hashes[scratch.count++] = h;
}

function pushNumber(value: number) {
  pushHash(HASH_NUMBER);
  if (scratch.numberCount < MAX_NUMBERS) scratch.numbers[scratch.numberCount++] = value;
}

/**
 * Words of `text` (letters and digits, lower-cased; a run of digits is "#"), hashed as they are read (FNV-1a) into
 * the scratch buffer until it holds MAX_TOKENS, without building strings. Reads the text only as far as it needs.
 */
function words(text: string, from = 0, to = text.length): void {
  let h = FNV_OFFSET;
  let inWord = false;
  let digits = false;
  let value = 0;
  for (let i = from; i < to && scratch.count < MAX_TOKENS; i++) {
    let c = text.charCodeAt(i);
    // An escape (\n, \t, \") separates words like the character it stands for.
    if (c === 92) {
      i++;
      c = 32;
    }
    const digit = c >= 48 && c <= 57;
    const letter = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c > 127;
    if (digit && !inWord) {
      if (!digits) value = 0;
      digits = true;
      value = value * 10 + (c - 48);
      continue;
    }
    if (letter || digit) {
      if (digits) {
        pushNumber(value);
        digits = false;
      }
      if (c >= 65 && c <= 90) c += 32;
      h = Math.imul(h ^ c, 0x01000193);
      inWord = true;
      continue;
    }
    if (inWord) pushHash(h);
    else if (digits) pushNumber(value);
    h = FNV_OFFSET;
    inWord = false;
    digits = false;
  }
  if (inWord) pushHash(h);
  else if (digits) pushNumber(value);
}

function resetScratch() {
  scratch.count = 0;
  scratch.numberCount = 0;
}

/**
 * The scratch buffer's words made a sorted set of distinct values in place (insertion sort: at most MAX_TOKENS of
 * them); returns how many. Copied out only where a set is kept (a new cluster's first item).
 */
function tokenSetInPlace(): number {
  const a = scratch.hashes;
  const n = scratch.count;
  for (let i = 1; i < n; i++) {
    const v = a[i];
    let j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = v;
  }
  let m = 0;
  for (let i = 0; i < n; i++) if (i === 0 || a[i] !== a[i - 1]) a[m++] = a[i];
  scratch.count = m;
  return m;
}

/** A hash of a token set (its first `n` values), for exact repeats (confirmed by sameSet). */
function setHash(set: Int32Array, n: number): number {
  let h = FNV_OFFSET ^ n;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ set[i], 0x01000193);
  return h;
}

/** Whether `a` is the set of `b`'s first `bn` values. */
function sameSet(a: Int32Array, b: Int32Array, bn: number): boolean {
  if (a.length !== bn) return false;
  for (let i = 0; i < bn; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Jaccard similarity of `a` and the set of `b`'s first `bn` values. */
function jaccard(a: Int32Array, b: Int32Array, bn: number): number {
  if (a.length === 0 && bn === 0) return 1;
  let i = 0;
  let j = 0;
  let common = 0;
  while (i < a.length && j < bn) {
    if (a[i] === b[j]) {
      common++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return common / (a.length + bn - common);
}

/**
 * Argument text as words, read straight from the text: a JSON object's keys and values read the same as its raw text
 * (quotes, braces and colons separate words; an escape such as \n separates them too), so nothing is parsed.
 * smolagents' args/kwargs wrapper adds the same two words to every call of a tool, which changes no comparison.
 */
function argumentWords(args: string): void {
  words(args.length > 4000 ? args.slice(0, 4000) : args);
}

const NO_STEPS: readonly Step[] = [];

interface Item {
  /** Items with different kinds never match: tool names, or "say" and the recipients. */
  kind: string;
  /**
   * The token set: its first `count` values. The scratch buffer itself (one item is read at a time, nothing is
   * allocated per message): copy what is kept.
   */
  tokens: Int32Array;
  count: number;
  /** setHash(tokens): equal sets are exact repeats. */
  hash: number;
  /** The numbers in a call's arguments, in order (see the progress rule in detectLoops); undefined for messages. */
  numbers?: Float64Array;
}

/**
 * The kind of a step of one call, by tool name: one string per name, so that comparing an item's kind with every open
 * cluster's is a pointer compare, not a compare of two equal strings built apart. Bounded like the other caches.
 */
const CALL_KINDS = new Map<string, string>();

/** `call:` and the calls' names joined by `;`. */
function callKind(calls: readonly Call[]): string {
  if (calls.length === 1) {
    const name = calls[0].name;
    let kind = CALL_KINDS.get(name);
    if (kind === undefined) {
      if (CALL_KINDS.size >= 10_000) CALL_KINDS.clear();
      CALL_KINDS.set(name, (kind = `call:${name}`));
    }
    return kind;
  }
  let kind = 'call:';
  for (let i = 0; i < calls.length; i++) kind += i === 0 ? calls[i].name : `;${calls[i].name}`;
  return kind;
}

/** The kind of a message item, `say` and its recipients: one string per single recipient, as CALL_KINDS. */
const SAY_KINDS = new Map<string, string>();

function sayKind(step: Step): string {
  const r = step.recipients;
  if (!r || r.length === 0) return 'say';
  if (r.length > 1) return `say${recipientsOf(step)}`;
  let kind = SAY_KINDS.get(r[0]);
  if (kind === undefined) {
    if (SAY_KINDS.size >= 10_000) SAY_KINDS.clear();
    SAY_KINDS.set(r[0], (kind = `say${recipientsOf(step)}`));
  }
  return kind;
}

/** The item being read (itemOf fills it in and returns it): one object for every step. */
const ITEM: Item = { kind: '', tokens: scratch.hashes, count: 0, hash: 0, numbers: undefined };

function itemOf(step: Step, children: readonly Step[]): Item | undefined {
  const calls = toolCallsOf(step, children);
  resetScratch();
  if (calls) {
    for (let i = 0; i < calls.length; i++) argumentWords(calls[i].arguments);
    ITEM.kind = callKind(calls);
    ITEM.count = tokenSetInPlace();
    ITEM.hash = setHash(scratch.hashes, ITEM.count);
    ITEM.numbers = scratch.numberCount > 0 ? scratch.numbers.slice(0, scratch.numberCount) : undefined;
    return ITEM;
  }
  const text = sentText(step);
  if (text === undefined) return undefined;
  messageWords(text);
  const count = tokenSetInPlace();
  if (count === 0) return undefined;
  ITEM.kind = sayKind(step);
  ITEM.count = count;
  ITEM.hash = setHash(scratch.hashes, count);
  ITEM.numbers = undefined;
  return ITEM;
}

/** JavaScript's white space (what trim() removes), by UTF-16 unit. */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || (c > 127 && (c === 160 || c === 5760 || (c >= 8192 && c <= 8202) || c === 8232 || c === 8233 || c === 8239 || c === 8287 || c === 12288 || c === 65279));
}

/** Where `text` starts once trimmed (text.length when it is all white space). */
function trimmedStart(text: string): number {
  let i = 0;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Where `text`'s part before `end` ends once trimmed (at least `start`). */
function trimmedEnd(text: string, start: number, end: number): number {
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return end;
}

/**
 * The words that say what a message does: its first line when that line is a sentence of its own (an agent's report
 * of its action, "I scrolled down one page in the browser."), else the start of the text. What follows a report
 * (page text, screenshots' OCR) is the observation, which differs on every repeat of the same action.
 */
function messageWords(text: string): void {
  // firstLine(text) shorter than text.trim(), read in place (no substring per message).
  const start = trimmedStart(text);
  const nl = text.indexOf('\n', start);
  if (nl !== -1 && nl < trimmedEnd(text, start, text.length)) {
    words(text, start, nl);
    if (scratch.count >= LEAD_MIN_WORDS) return;
    resetScratch();
  }
  words(text);
}

/** A readable description of what a replay step does (its first tool call, else the start of its text). */
export function callSignature(step: Step, children: readonly Step[] = []): CallSignature | undefined {
  const item = itemOf(step, children);
  if (!item) return undefined;
  const calls = toolCallsOf(step, children);
  const key = `${item.kind}:${item.tokens.slice(0, item.count).join(',')}`;
  if (calls) {
    const first = calls[0];
    return { key, label: `${first.name}(${short(readableArguments(first.arguments), 90)})${calls.length > 1 ? ` +${calls.length - 1}` : ''}` };
  }
  return { key, label: `“${short(collapse(firstLine(sentText(step) ?? '')))}”${recipientsOf(step)}` };
}

/**
 * Arguments as a person reads them: a JSON object as `key: value` pairs (smolagents' args/kwargs wrapper and its
 * boolean switches left out), anything else as its text with whitespace collapsed.
 */
function readableArguments(args: string): string {
  const text = collapse(args);
  if (!text.startsWith('{') || text.length > 20_000) return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return text;
  let entries = Object.entries(value);
  const kwargs = entries.find(([k]) => k === 'kwargs')?.[1];
  if (kwargs && typeof kwargs === 'object' && !Array.isArray(kwargs)) {
    const positional = entries.find(([k]) => k === 'args')?.[1];
    entries = [...(Array.isArray(positional) ? positional.map((v, i): [string, unknown] => [String(i), v]) : []), ...Object.entries(kwargs)];
  }
  const parts = entries
    .filter(([, v]) => v !== null && v !== undefined && typeof v !== 'boolean')
    .map(([k, v]) => `${/^\d+$/.test(k) ? '' : `${k}: `}${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return parts.length > 0 ? parts.join(', ') : text;
}

function firstLine(text: string): string {
  const trimmed = text.trimStart();
  const end = trimmed.indexOf('\n');
  return end < 0 ? trimmed : trimmed.slice(0, end);
}

// ---------------------------------------------------------------------------------------------------------------------
// Routing lines: short first lines that name an agent and, with the names taken out, recur for the same agent.

interface AgentNames {
  /** Lower-cased, distinct, at least two characters, in the order given. */
  lower: string[];
  /** The names by their first two characters, so a line is checked with one lookup per character. */
  byLead: Map<number, string[]>;
  /** 1 where a name's first two characters' low bytes (leadKey) may start a name: a filter read before byLead. */
  lead: Uint8Array;
  /** Every name is ASCII, so namesAny can lower-case as it reads. */
  ascii: boolean;
}

function agentNamesOf(names: readonly string[]): AgentNames {
  const lower = [...new Set(names.map((n) => n.toLowerCase()))].filter((n) => n.length >= 2);
  const byLead = new Map<number, string[]>();
  const lead = new Uint8Array(65536);
  for (const name of lower) {
    lead[leadKey(name.charCodeAt(0), name.charCodeAt(1))] = 1;
    const key = (name.charCodeAt(0) << 16) | name.charCodeAt(1);
    const list = byLead.get(key);
    if (list) list.push(name);
    else byLead.set(key, [name]);
  }
  return { lower, byLead, lead, ascii: lower.every((n) => /^[\x00-\x7f]*$/.test(n)) };
}

const lowerCode = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);
/** Two (lower-cased) characters' low bytes as one number: where the `lead` filter is read. */
const leadKey = (a: number, b: number) => ((a & 0xff) << 8) | (b & 0xff);

/**
 * Whether `line[from, to)` contains one of the names, ignoring ASCII case (names are lower-cased), without copying
 * it. Each pair of characters is looked up in a byte table first: the Map only where a name may start.
 */
function namesAny(line: string, names: AgentNames, from = 0, to = line.length): boolean {
  const lead = names.lead;
  let next = from < to ? lowerCode(line.charCodeAt(from)) : 0;
  for (let i = from; i + 1 < to; i++) {
    const c = next;
    next = lowerCode(line.charCodeAt(i + 1));
    if (lead[leadKey(c, next)] === 0) continue;
    const list = names.byLead.get((c << 16) | next);
    if (!list) continue;
    for (const name of list) {
      let j = 2;
      while (j < name.length && i + j < to && lowerCode(line.charCodeAt(i + j)) === name.charCodeAt(j)) j++;
      if (j === name.length) return true;
    }
  }
  return false;
}

function routingTemplate(step: Step, names: AgentNames): string | undefined {
  if (step.toolCalls && step.toolCalls.length > 0) return undefined;
  const text = sentText(step);
  if (text === undefined) return undefined;
  // firstLine(text).trim(), found in place: most lines name no agent, and are left without a substring made.
  const start = trimmedStart(text);
  const nl = text.indexOf('\n', start);
  const end = trimmedEnd(text, start, nl === -1 ? text.length : nl);
  if (end - start > 200) return undefined;
  // Non-ASCII names are matched on the lower-cased line only.
  if (names.ascii && !namesAny(text, names, start, end)) return undefined;
  const line = text.slice(start, end);
  let template = ` ${line.toLowerCase()} `;
  for (const lower of names.lower) {
    if (!template.includes(lower)) continue;
    template = template.split(lower).join(' <agent> ');
  }
  const rest = template.replace(/<agent>/g, ' ').split(/[^a-z0-9_]+/).filter((w) => w !== '');
  if (rest.length > ROUTING_MAX_WORDS) return undefined;
  return `${step.agentId}\u0000${template.replace(/\s+/g, ' ').trim()}`;
}

// ---------------------------------------------------------------------------------------------------------------------
// Detection.

interface Cluster {
  agentId: string;
  kind: string;
  hash: number;
  firstTokens: Int32Array;
  positions: number[];
  lastOrdinal: number;
  /** Created on the first step with recipients. */
  recipients?: Set<string>;
  /** A call's argument numbers at its last occurrence, and which of them rose (falls) at every occurrence so far. */
  numbers?: Float64Array;
  rising: number;
  falling: number;
}

/** Bits 0..n-1 set. */
const allBits = (n: number) => (n >= 31 ? -1 : (1 << n) - 1);

/** Updates `c`'s monotone number slots with the next occurrence's numbers. */
function trackNumbers(c: Cluster, next: Float64Array | undefined) {
  const prev = c.numbers;
  c.numbers = next;
  if (!prev || !next || prev.length !== next.length) {
    c.rising = 0;
    c.falling = 0;
    return;
  }
  for (let i = 0; i < next.length; i++) {
    const bit = 1 << i;
    if (!(next[i] > prev[i])) c.rising &= ~bit;
    if (!(next[i] < prev[i])) c.falling &= ~bit;
  }
}


/** Usage of a step and every step nested in it. */
function stepTokens(step: Step, childrenOf: ReadonlyMap<string, readonly Step[]>): number {
  // A flat run (a chat log's loop can span a million positions): no stack per step.
  if (childrenOf.size === 0) return step.usage ? step.usage.input + step.usage.output : 0;
  let total = 0;
  const stack: Step[] = [step];
  let seen = 0;
  while (stack.length > 0 && seen < 100_000) {
    const s = stack.pop()!;
    seen++;
    if (s.usage) total += s.usage.input + s.usage.output;
    // A flat run has no nested steps: no lookup by id (the first lookup of each id hashes it).
    const nested = childrenOf.size > 0 ? childrenOf.get(s.id) : undefined;
    if (nested) for (const c of nested) stack.push(c);
  }
  return total;
}

/**
 * Loops over the replay steps (those a playhead moves over), ordered by their first occurrence. `childrenOf` supplies
 * nested steps, whose tool calls count as their parent's; `agentNames` (ids and display names) lets routing lines be
 * recognised; without it the agent ids seen in the steps are used.
 */
export function detectLoops(
  replaySteps: readonly Step[],
  childrenOf: ReadonlyMap<string, readonly Step[]>,
  options: Partial<LoopOptions> = {},
  agentNames?: readonly string[],
): Loop[] {
  return finish(detectLoopsSlices(replaySteps, childrenOf, options, agentNames));
}

/** detectLoops in slices (src/model/slices.ts). */
export function* detectLoopsSlices(
  replaySteps: readonly Step[],
  childrenOf: ReadonlyMap<string, readonly Step[]>,
  options: Partial<LoopOptions> = {},
  agentNames?: readonly string[],
): Sliced<Loop[]> {
  const { minRepeats, maxGap, maxSpan, similarity, paraphraseSimilarity } = { ...DEFAULT_LOOP_OPTIONS, ...options };
  const n = replaySteps.length;
  const names = agentNamesOf(agentNames ?? [...new Set(replaySteps.map((s) => s.agentId))]);

  const hasNested = childrenOf.size > 0;
  // Pass 1: routing templates that recur for their agent.
  const templateAt: (string | undefined)[] = new Array(n);
  const templateCount = new Map<string, number>();
  for (let p = 0; p < n; p++) {
    if (p % SLICE === SLICE - 1) yield (0.3 * p) / n;
    const t = routingTemplate(replaySteps[p], names);
    templateAt[p] = t;
    if (t !== undefined) templateCount.set(t, (templateCount.get(t) ?? 0) + 1);
  }
  const isRouting = (p: number) => {
    const t = templateAt[p];
    return t !== undefined && (templateCount.get(t) ?? 0) >= minRepeats;
  };

  // Pass 2: per agent, open clusters of its last maxGap + 1 steps; each item joins the most similar open cluster.
  interface AgentState {
    ordinal: number;
    open: Cluster[];
  }
  const agents = new Map<string, AgentState>();
  const found: Cluster[] = [];
  const routingByAgent = new Map<string, number[]>();
  const retire = (c: Cluster) => {
    // Progress, not a loop: a call whose arguments differ in a number that moves one way at every repeat (the next
    // page, offset or item), as in paging through results.
    if (c.positions.length >= minRepeats && (c.rising | c.falling) === 0) found.push(c);
  };
  for (let p = 0; p < n; p++) {
    if (p % SLICE === SLICE - 1) yield 0.3 + (0.7 * p) / n;
    const step = replaySteps[p];
    let agent = agents.get(step.agentId);
    if (!agent) agents.set(step.agentId, (agent = { ordinal: -1, open: [] }));
    const ordinal = ++agent.ordinal;
    const open = agent.open;
    if (open.length > 0) {
      let kept = 0;
      for (let i = 0; i < open.length; i++) {
        const c = open[i];
        if (ordinal - c.lastOrdinal - 1 > maxGap || p - c.positions[c.positions.length - 1] > maxSpan) retire(c);
        else open[kept++] = c;
      }
      open.length = kept;
    }
    if (isRouting(p)) {
      const list = routingByAgent.get(step.agentId);
      if (list) list.push(p);
      else routingByAgent.set(step.agentId, [p]);
      continue;
    }
    const item = itemOf(step, (hasNested ? childrenOf.get(step.id) : undefined) ?? NO_STEPS);
    if (!item) continue;
    let best: Cluster | undefined;
    let bestScore = 0;
    // Read once per item: the clusters compared below have the item's kind.
    const toOthers = item.kind.startsWith('say →');
    for (const c of open) {
      if (c.kind !== item.kind) continue;
      if (c.hash === item.hash && sameSet(c.firstTokens, item.tokens, item.count)) {
        best = c;
        break;
      }
      const score = jaccard(c.firstTokens, item.tokens, item.count);
      const paraphrase = toOthers && c.firstTokens.length >= PARAPHRASE_MIN_WORDS && item.count >= PARAPHRASE_MIN_WORDS;
      if (score >= (paraphrase ? paraphraseSimilarity : similarity) && score > bestScore) {
        best = c;
        bestScore = score;
      }
    }
    if (best) {
      best.positions.push(p);
      best.lastOrdinal = ordinal;
      trackNumbers(best, item.numbers);
    } else {
      const slots = item.numbers ? allBits(item.numbers.length) : 0;
      best = { agentId: step.agentId, kind: item.kind, hash: item.hash, firstTokens: item.tokens.slice(0, item.count), positions: [p], lastOrdinal: ordinal, numbers: item.numbers, rising: slots, falling: slots };
      open.push(best);
    }
    if (step.recipients && step.recipients.length > 0) {
      best.recipients ??= new Set();
      for (const r of step.recipients) best.recipients.add(r);
    }
  }
  for (const agent of agents.values()) for (const c of agent.open) retire(c);
  yield 0.97;

  // Pass 3: clusters whose windows overlap join into one loop when they share an agent or one talks to the other.
  found.sort((a, b) => a.positions[0] - b.positions[0]);
  yield 0.98;
  const groups: Cluster[][] = [];
  let current: Cluster[] = [];
  let currentLast = -1;
  const related = (group: Cluster[], c: Cluster) =>
    group.some((g) => g.agentId === c.agentId || g.recipients?.has(c.agentId) === true || c.recipients?.has(g.agentId) === true);
  for (let i = 0; i < found.length; i++) {
    if (i % SLICE === SLICE - 1) yield 0.98;
    const c = found[i];
    if (current.length > 0 && c.positions[0] <= currentLast && related(current, c)) {
      current.push(c);
    } else {
      if (current.length > 0) groups.push(current);
      current = [c];
      currentLast = -1;
    }
    currentLast = Math.max(currentLast, c.positions[c.positions.length - 1]);
  }
  if (current.length > 0) groups.push(current);

  const tokensAt = (p: number) => stepTokens(replaySteps[p], childrenOf);
  const loops: Loop[] = [];
  for (let g = 0; g < groups.length; g++) {
    if (g % 256 === 255) yield 0.99;
    loops.push(yield* loopOf(groups[g], replaySteps, childrenOf, routingByAgent, tokensAt));
  }
  return loops;
}

/**
 * The positions of a group's clusters, ascending, each once. A chat log's one loop can hold a million positions: they
 * are gathered in slices into a typed array sorted natively (a flattened list through a Set and a comparator sort
 * was one task of ~0.7 s at 1M steps).
 */
function* groupPositions(group: Cluster[]): Sliced<number[]> {
  let count = 0;
  for (const c of group) count += c.positions.length;
  if (count < SLICE) return [...new Set(group.flatMap((c) => c.positions))].sort((a, b) => a - b);
  const all = new Int32Array(count);
  let k = 0;
  for (const c of group) {
    for (const p of c.positions) {
      all[k++] = p;
      if (k % SLICE === 0) yield 0.99;
    }
  }
  all.sort();
  yield 0.99;
  const positions: number[] = [];
  for (let i = 0; i < count; i++) {
    if (i % SLICE === SLICE - 1) yield 0.99;
    if (i === 0 || all[i] !== all[i - 1]) positions.push(all[i]);
  }
  return positions;
}

function* loopOf(
  group: Cluster[],
  replaySteps: readonly Step[],
  childrenOf: ReadonlyMap<string, readonly Step[]>,
  routingByAgent: ReadonlyMap<string, number[]>,
  tokensAt: (p: number) => number,
): Sliced<Loop> {
  const positions = yield* groupPositions(group);
  const first = positions[0];
  const last = positions[positions.length - 1];
  const agentIds = [...new Set(group.map((c) => c.agentId))];
  const routing: number[] = [];
  for (const id of agentIds) {
    const list = routingByAgent.get(id) ?? [];
    for (let i = lowerBound(list, first); i < list.length && list[i] <= last; i++) routing.push(list[i]);
  }
  routing.sort((a, b) => a - b);
  // The label names the most repeated work first.
  const byCount = [...group].sort((a, b) => b.positions.length - a.positions.length || a.positions[0] - b.positions[0]);
  const labels = byCount.slice(0, 2).map((c) => {
    const s = replaySteps[c.positions[0]];
    return `${callSignature(s, childrenOf.get(s.id))?.label ?? c.kind} ×${c.positions.length}`;
  });
  let tokens = 0;
  for (let p = first; p <= last; p++) {
    if (p % SLICE === SLICE - 1) yield 0.99;
    tokens += tokensAt(p);
  }
  return {
    agentId: agentIds[0],
    agentIds,
    kind: agentIds.length > 1 ? 'cycle' : group[0].kind.startsWith('call:') ? 'calls' : 'messages',
    signature: `${group[0].kind}:${group[0].firstTokens.join(',')}`,
    label: `${labels.join(' ⇄ ')}${byCount.length > 2 ? ` +${byCount.length - 2}` : ''}`,
    positions,
    routing,
    first,
    last,
    tokens,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Framework verdicts: evidence shown beside the findings, labelled by source. The detector above never reads them.

export type VerdictSource = 'magentic-one-ledger' | 'trail-annotation' | 'supervisor-filter';

export interface LoopVerdict {
  source: VerdictSource;
  /** Who says so, for a badge. */
  sourceLabel: string;
  position: number;
  /** The verdict's own reason, when it gives one. */
  reason: string;
}

const LEDGER_LABEL = 'Magentic-One ledger: is_in_loop';

/** The Magentic-One orchestrator's ledger verdicts `is_in_loop: true`, at the positions of their ledger messages. */
export function ledgerVerdicts(replaySteps: readonly Step[]): LoopVerdict[] {
  return finish(ledgerVerdictsSlices(replaySteps));
}

/** ledgerVerdicts in slices (src/model/slices.ts). */
export function* ledgerVerdictsSlices(replaySteps: readonly Step[]): Sliced<LoopVerdict[]> {
  const out: LoopVerdict[] = [];
  for (let position = 0; position < replaySteps.length; position++) {
    if (position % SLICE === SLICE - 1) yield position / replaySteps.length;
    const step = replaySteps[position];
    const text = sentText(step);
    if (text === undefined || !text.includes('"is_in_loop"')) continue;
    const open = text.indexOf('{');
    if (open < 0) continue;
    let ledger: unknown;
    try {
      ledger = JSON.parse(text.slice(open, text.lastIndexOf('}') + 1));
    } catch {
      continue;
    }
    const verdict = ledger && typeof ledger === 'object' ? (ledger as { is_in_loop?: { answer?: unknown; reason?: unknown } }).is_in_loop : undefined;
    if (verdict?.answer !== true) continue;
    out.push({ source: 'magentic-one-ledger', sourceLabel: LEDGER_LABEL, position, reason: typeof verdict.reason === 'string' ? verdict.reason : '' });
  }
  return out;
}

/** TRAIL "Resource Abuse" labels and the supervisor filter's `inefficient` triggers, placed by `positionOf`. */
export function markVerdicts(
  annotations: readonly Annotation[],
  interventions: readonly Intervention[],
  positionOf: (stepId: string | undefined, handoffId: string | undefined) => number | undefined,
): LoopVerdict[] {
  const out: LoopVerdict[] = [];
  for (const a of annotations) {
    if (!/resource abuse/i.test(a.code)) continue;
    const position = positionOf(a.stepId, a.handoffId);
    if (position === undefined) continue;
    out.push({ source: 'trail-annotation', sourceLabel: `${a.taxonomy}: ${a.code}`, position, reason: a.description ?? a.evidence ?? '' });
  }
  for (const iv of interventions) {
    if (iv.engine !== 'supervisor' || iv.context !== 'inefficient') continue;
    const position = positionOf(iv.stepId, iv.handoffId);
    if (position === undefined) continue;
    const rule = typeof iv.details?.rule === 'string' ? iv.details.rule : undefined;
    out.push({
      source: 'supervisor-filter',
      sourceLabel: `Supervisor filter: inefficient${rule ? ` (paper's ${rule} rule)` : ''}`,
      position,
      reason: iv.reason,
    });
  }
  return out.sort((a, b) => a.position - b.position);
}

/** How far after a loop's last occurrence a verdict still speaks about it (a ledger is written after the work). */
export const VERDICT_REACH = 4;

/** The verdicts about `loop`: those inside its window or at most VERDICT_REACH positions after it. */
export function verdictsFor(loop: Pick<Loop, 'first' | 'last'>, verdicts: readonly LoopVerdict[]): LoopVerdict[] {
  return verdicts.filter((v) => v.position >= loop.first && v.position <= loop.last + VERDICT_REACH);
}
