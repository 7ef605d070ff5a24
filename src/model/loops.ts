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
// Each item is compared only with the open clusters of its own agent (at most maxGap + 1 of them, and at most maxSpan + 1
// are open in all), so the pass is linear in the steps. Reading an item allocates nothing (words are hashed into a
// shared buffer, arguments are read as text, not parsed); open clusters live in reused typed-array slots, and an item
// with no open cluster of its kind to join is not read at all unless one comes (see Clustering). Only the clusters
// that make a loop become objects. Framework verdicts (loopVerdicts) are evidence shown beside the findings, never read
// here; the ledger's own verdicts are read in the detector's first pass when asked (loopAnalysisSlices).
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
  // Most steps hold no nested steps: no list is made for them.
  const nestedTools = children.length > 0 ? children.filter((c) => c.kind === 'tool' && c.name) : NO_STEPS;
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
 * them); returns how many. Copied into a slot only where a set is kept (a new cluster's first item).
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

/**
 * Argument text as words, read straight from the text: a JSON object's keys and values read the same as its raw text
 * (quotes, braces and colons separate words; an escape such as \n separates them too), so nothing is parsed.
 * smolagents' args/kwargs wrapper adds the same two words to every call of a tool, which changes no comparison.
 */
function argumentWords(args: string): void {
  words(args.length > 4000 ? args.slice(0, 4000) : args);
}

const NO_STEPS: readonly Step[] = [];

/**
 * Reads what `step` does into the scratch buffer: its token set (the first scratch.count values of scratch.hashes,
 * sorted and distinct) and, for calls, the numbers of their arguments (scratch.numbers). Returns the calls, null for a
 * message, undefined when the step does nothing comparable. Allocates nothing: the detector copies what it keeps.
 */
function readItem(step: Step, children: readonly Step[]): readonly Call[] | null | undefined {
  const calls = toolCallsOf(step, children);
  if (calls) {
    readCalls(calls);
    return calls;
  }
  return readMessage(step) ? null : undefined;
}

/** readItem for a step of these calls. */
function readCalls(calls: readonly Call[]): void {
  resetScratch();
  for (let i = 0; i < calls.length; i++) argumentWords(calls[i].arguments);
  tokenSetInPlace();
}

/** readItem for a step that calls no tool: whether it sends a text of at least one word. */
function readMessage(step: Step): boolean {
  resetScratch();
  const text = sentText(step);
  if (text === undefined) return false;
  messageWords(text);
  return tokenSetInPlace() > 0;
}

/**
 * Whether `text` has a word as `words` reads it (a letter or digit not taken by an escape): whether readMessage finds
 * an item in a message of this text, without hashing its words (messageWords reads the whole text when its first line
 * has too few words, so one word anywhere is enough).
 */
function hasWord(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if ((c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c > 127) return true;
  }
  return false;
}

/** The kind of a call item, `call:` and the calls' names joined by `;`: items with different kinds never match. */
function callKind(calls: readonly Call[]): string {
  let kind = 'call:';
  for (let i = 0; i < calls.length; i++) kind += i === 0 ? calls[i].name : `;${calls[i].name}`;
  return kind;
}

/** The kind of a message item, `say` and its recipients. */
const sayKind = (step: Step) => `say${recipientsOf(step)}`;

/**
 * The item kinds of one detection as small numbers, equal kinds (by their text) one number, so that comparing an item
 * with an open cluster is an integer compare. A step of one call or one recipient finds its kind with one lookup by
 * the tool or recipient name, without building the kind's text.
 */
class Kinds {
  readonly names: string[] = [];
  /** Whether the kind is a message to other agents (`say →`), for which the paraphrase rule holds. */
  readonly toOthers: boolean[] = [];
  /** Whether the kind is of calls (`call:`), not of a message. */
  readonly calls: boolean[] = [];
  private readonly ids = new Map<string, number>();
  private readonly byTool = new Map<string, number>();
  private readonly byRecipient = new Map<string, number>();

  private id(kind: string): number {
    let id = this.ids.get(kind);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(kind, id);
      this.names.push(kind);
      this.toOthers.push(kind.startsWith('say →'));
      this.calls.push(kind.startsWith('call:'));
    }
    return id;
  }

  ofCalls(calls: readonly Call[]): number {
    if (calls.length > 1) return this.id(callKind(calls));
    const name = calls[0].name;
    let id = this.byTool.get(name);
    if (id === undefined) this.byTool.set(name, (id = this.id(callKind(calls))));
    return id;
  }

  ofMessage(step: Step): number {
    const r = step.recipients;
    if (!r || r.length !== 1) return this.id(sayKind(step));
    let id = this.byRecipient.get(r[0]);
    if (id === undefined) this.byRecipient.set(r[0], (id = this.id(sayKind(step))));
    return id;
  }
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
  const calls = readItem(step, children);
  if (calls === undefined) return undefined;
  const key = `${calls ? callKind(calls) : sayKind(step)}:${scratch.hashes.slice(0, scratch.count).join(',')}`;
  if (calls) {
    const first = calls[0];
    return { key, label: `${first.name}(${short(readableArguments(first.arguments), 90)})${calls.length > 1 ? ` +${calls.length - 1}` : ''}` };
  }
  return { key, label: `“${short(collapse(firstLine(sentText(step) ?? '')))}”${recipientsOf(step)}` };
}

/**
 * What the detector reads of a step, as plain values, for the straightforward reference detector of loops.test.ts: its
 * item (kind, token set and, for a call, its arguments' numbers) and its routing template when its first line may be
 * a routing line.
 */
export function stepReader(agentNames: readonly string[]) {
  const names = agentNamesOf(agentNames);
  return (step: Step, children: readonly Step[]) => {
    const text = sentText(step);
    const routing = text === undefined ? undefined : routingTemplate(step, text, names);
    const calls = readItem(step, children);
    const item =
      calls === undefined
        ? undefined
        : {
            kind: calls ? callKind(calls) : sayKind(step),
            tokens: Array.from(scratch.hashes.subarray(0, scratch.count)),
            numbers: calls ? Array.from(scratch.numbers.subarray(0, scratch.numberCount)) : [],
          };
    return { item, routing };
  };
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

/** The routing template of `step`, whose sent text is `text`, when its first line may be a routing line. */
function routingTemplate(step: Step, text: string, names: AgentNames): string | undefined {
  if (step.toolCalls && step.toolCalls.length > 0) return undefined;
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

/** A cluster of repeated work that makes a loop (enough occurrences, no paging): what the grouping reads. */
interface FoundCluster {
  agentId: string;
  kind: string;
  firstTokens: Int32Array;
  positions: number[];
  /** The recipients of its steps, when any has some. */
  recipients?: Set<string>;
}

/**
 * The work of the last detection, for the test that keeps it linear (timings are for the benchmarks): items compared
 * with open clusters, and the most clusters open at once (at most maxSpan + 1, and maxGap + 2 per agent).
 */
export const lastLoopWork = { steps: 0, comparisons: 0, openPeak: 0 };

/** Bits 0..n-1 set. */
const allBits = (n: number) => (n >= 31 ? -1 : (1 << n) - 1);

/**
 * The open clusters of one detection, as columns over slots that are used again once their cluster closes: starting a
 * cluster (which most items do, and most clusters stay one item) copies the item's tokens and numbers into its slot's
 * rows and allocates nothing. Only the clusters that make a loop become objects (FoundCluster), when they close.
 */
class Slots {
  capacity = 0;
  agent = new Int32Array(0);
  kind = new Int32Array(0);
  hash = new Int32Array(0);
  /**
   * Size of the first item's token set, whose values are `tokens[slot * MAX_TOKENS ...]`; -1 while its tokens are
   * not read (see `unread` in the detector).
   */
  count = new Int32Array(0);
  tokens = new Int32Array(0);
  /** Position of the first occurrence, and of the last (-1 once the slot is free). */
  first = new Int32Array(0);
  last = new Int32Array(0);
  /** The agent's own step ordinal of the last occurrence. */
  lastOrdinal = new Int32Array(0);
  /** A call's argument numbers at its last occurrence (`numbers[slot * MAX_NUMBERS ...]`), and which of them rose (fell) at every occurrence so far. */
  numberCount = new Int32Array(0);
  numbers = new Float64Array(0);
  rising = new Int32Array(0);
  falling = new Int32Array(0);
  /** Every occurrence, once there are two (a one-item cluster has only `first`). */
  positions: (number[] | undefined)[] = [];
  private readonly free: number[] = [];

  /** Slots in use now, and at most so far. */
  used = 0;
  peak = 0;

  take(): number {
    if (this.free.length === 0) this.grow();
    if (++this.used > this.peak) this.peak = this.used;
    return this.free.pop()!;
  }

  release(slot: number) {
    this.positions[slot] = undefined;
    this.last[slot] = -1;
    this.free.push(slot);
    this.used--;
  }

  private grow() {
    const old = this.capacity;
    const capacity = Math.max(64, old * 2);
    const int = (a: Int32Array, width = 1) => {
      const b = new Int32Array(capacity * width);
      b.set(a);
      return b;
    };
    this.agent = int(this.agent);
    this.kind = int(this.kind);
    this.hash = int(this.hash);
    this.count = int(this.count);
    this.tokens = int(this.tokens, MAX_TOKENS);
    this.first = int(this.first);
    this.last = int(this.last);
    this.lastOrdinal = int(this.lastOrdinal);
    this.numberCount = int(this.numberCount);
    const numbers = new Float64Array(capacity * MAX_NUMBERS);
    numbers.set(this.numbers);
    this.numbers = numbers;
    this.rising = int(this.rising);
    this.falling = int(this.falling);
    for (let s = capacity - 1; s >= old; s--) this.free.push(s);
    this.capacity = capacity;
  }
}

/** Fills `slot`'s first item's rows (token set, its hash, numbers) from the scratch buffer and its first `numberCount` numbers. */
function fill(slots: Slots, slot: number, numberCount: number) {
  const count = scratch.count;
  const tokens = scratch.hashes;
  slots.count[slot] = count;
  slots.hash[slot] = setHash(tokens, count);
  for (let i = 0; i < count; i++) slots.tokens[slot * MAX_TOKENS + i] = tokens[i];
  slots.numberCount[slot] = numberCount;
  for (let i = 0; i < numberCount; i++) slots.numbers[slot * MAX_NUMBERS + i] = scratch.numbers[i];
  const bits = numberCount > 0 ? allBits(numberCount) : 0;
  slots.rising[slot] = bits;
  slots.falling[slot] = bits;
}

/** Whether `slot`'s token set is the set of `b`'s first `bn` values. */
function sameSetAt(slots: Slots, slot: number, b: Int32Array, bn: number): boolean {
  if (slots.count[slot] !== bn) return false;
  const a = slots.tokens;
  const off = slot * MAX_TOKENS;
  for (let i = 0; i < bn; i++) if (a[off + i] !== b[i]) return false;
  return true;
}

/** Jaccard similarity of `slot`'s token set and the set of `b`'s first `bn` values. */
function jaccardAt(slots: Slots, slot: number, b: Int32Array, bn: number): number {
  const an = slots.count[slot];
  if (an === 0 && bn === 0) return 1;
  const a = slots.tokens;
  const off = slot * MAX_TOKENS;
  let i = 0;
  let j = 0;
  let common = 0;
  while (i < an && j < bn) {
    const x = a[off + i];
    const y = b[j];
    if (x === y) {
      common++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return common / (an + bn - common);
}

/** Updates `slot`'s monotone number slots with the next occurrence's numbers (the scratch buffer's first `count`). */
function trackNumbers(slots: Slots, slot: number, count: number) {
  const prevCount = slots.numberCount[slot];
  const off = slot * MAX_NUMBERS;
  const values = slots.numbers;
  const next = scratch.numbers;
  slots.numberCount[slot] = count;
  if (prevCount === 0 || count === 0 || prevCount !== count) {
    slots.rising[slot] = 0;
    slots.falling[slot] = 0;
  } else {
    let rising = slots.rising[slot];
    let falling = slots.falling[slot];
    for (let i = 0; i < count; i++) {
      const bit = 1 << i;
      if (!(next[i] > values[off + i])) rising &= ~bit;
      if (!(next[i] < values[off + i])) falling &= ~bit;
    }
    slots.rising[slot] = rising;
    slots.falling[slot] = falling;
  }
  for (let i = 0; i < count; i++) values[off + i] = next[i];
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
  return (yield* analyse(replaySteps, childrenOf, options, agentNames, false)).loops;
}

/** The loops and the Magentic-One ledger's verdicts of a run, found in the same passes over its steps. */
export interface LoopAnalysis {
  loops: Loop[];
  /** ledgerVerdicts(replaySteps). */
  ledger: LoopVerdict[];
}

/**
 * detectLoops and ledgerVerdicts together, in slices: the ledger is read in the loop analysis's first pass, which
 * reads every step's sent text anyway (the run view's first render does both).
 */
export function* loopAnalysisSlices(
  replaySteps: readonly Step[],
  childrenOf: ReadonlyMap<string, readonly Step[]>,
  options: Partial<LoopOptions> = {},
  agentNames?: readonly string[],
  /** 1 at the positions whose step has nested steps (nestedPositions), when known: the others are not looked up. */
  nestedAt?: Uint8Array,
): Sliced<LoopAnalysis> {
  return yield* analyse(replaySteps, childrenOf, options, agentNames, true, nestedAt);
}

/**
 * Pass 1 of the analysis, over a range of positions: what every step is (its agent and its item's kind, written into
 * per-position columns for pass 2), routing templates that recur for their agent, and the ledger's verdicts. Only the
 * few lines that may be routing (short, naming an agent) are kept, with their positions. Reading each step's fields
 * once here lets pass 2 leave most steps unread: an item with no open cluster of its kind (most items when agents are
 * many) is handled from the columns alone.
 * The passes are plain methods over a range, called between the generator's yields: small functions the engine
 * optimises early, where the same loops in the generator's body ran longer in the interpreter and were deoptimised at
 * each path first taken.
 */
class FirstPass {
  readonly ledger: LoopVerdict[] = [];
  readonly candidates: number[] = [];
  readonly candidateTemplates: string[] = [];
  readonly templateCount = new Map<string, number>();
  readonly agentIndex = new Map<string, number>();
  /** The agents' ids, by index, in the order of their first step. */
  readonly agentIds: string[] = [];
  readonly kinds = new Kinds();
  /** The index of each position's agent. */
  readonly agentAt: Int32Array;
  /** The kind (Kinds) of each position's item, its calls or its message; -1 where its step is no item. */
  readonly kindAt: Int32Array;
  /** The agent of the last step read, and its index. */
  private agentId: string | undefined;
  private a = -1;

  constructor(
    private readonly replaySteps: readonly Step[],
    private readonly names: AgentNames,
    private readonly withLedger: boolean,
    private readonly nestedOf: (p: number) => readonly Step[],
  ) {
    this.agentAt = new Int32Array(replaySteps.length);
    this.kindAt = new Int32Array(replaySteps.length);
  }

  /** The index of the agent of `step` (its first step seen makes one). Steps of one agent often come in runs. */
  private agentOf(step: Step): number {
    if (step.agentId === this.agentId && this.a >= 0) return this.a;
    const agentId = step.agentId;
    this.agentId = agentId;
    let index = this.agentIndex.get(agentId);
    if (index === undefined) {
      index = this.agentIds.length;
      this.agentIndex.set(agentId, index);
      this.agentIds.push(agentId);
    }
    this.a = index;
    return index;
  }

  read(from: number, to: number): void {
    const { replaySteps, names, withLedger, agentAt, kindAt, kinds } = this;
    for (let p = from; p < to; p++) {
      const step = replaySteps[p];
      agentAt[p] = this.agentOf(step);
      const calls = toolCallsOf(step, this.nestedOf(p));
      const text = sentText(step);
      // A message is an item when its text has a word (what readMessage would find, without hashing its words).
      kindAt[p] = calls ? kinds.ofCalls(calls) : text !== undefined && hasWord(text) ? kinds.ofMessage(step) : -1;
      if (text === undefined) continue;
      if (withLedger) {
        const verdict = ledgerVerdictOf(text, p);
        if (verdict) this.ledger.push(verdict);
      }
      const t = routingTemplate(step, text, names);
      if (t === undefined) continue;
      this.candidates.push(p);
      this.candidateTemplates.push(t);
      this.templateCount.set(t, (this.templateCount.get(t) ?? 0) + 1);
    }
  }

  /** The positions of routing lines (templates seen at least `minRepeats` times), ascending. */
  routing(minRepeats: number): number[] {
    const routing: number[] = [];
    const { candidates, candidateTemplates, templateCount } = this;
    for (let i = 0; i < candidates.length; i++) if ((templateCount.get(candidateTemplates[i]) ?? 0) >= minRepeats) routing.push(candidates[i]);
    return routing;
  }
}

/**
 * Pass 2 of the analysis: per agent, open clusters of its last maxGap + 1 steps; each item joins the most similar open
 * cluster. Its state lives on the object and `read(from, to)` runs over a range of positions, between the generator's
 * yields (see FirstPass).
 */
class Clustering {
  readonly agentIds: readonly string[];
  readonly ordinals: Int32Array;
  /** Per agent, the slots of its open clusters, oldest first. */
  readonly open: number[][] = [];
  readonly slots = new Slots();
  readonly kinds: Kinds;
  readonly found: FoundCluster[] = [];
  readonly routingByAgent = new Map<string, number[]>();
  comparisons = 0;
  private readonly agentAt: Int32Array;
  private readonly kindAt: Int32Array;
  /**
   * A cluster whose last occurrence is maxSpan + 1 positions back can take no more: it is closed then, whatever its
   * agent does, so at most maxSpan + 1 clusters are ever open (each position starts or joins at most one). `lastAt`
   * holds the slot whose last occurrence is each of the last maxSpan + 1 positions.
   */
  private readonly reach: number;
  private readonly lastAt: Int32Array | undefined;
  private nextRouting = 0;

  constructor(
    private readonly replaySteps: readonly Step[],
    private readonly nestedOf: (p: number) => readonly Step[],
    private readonly options: LoopOptions,
    /** The positions of routing lines, ascending. */
    private readonly routing: readonly number[],
    firstPass: FirstPass,
  ) {
    this.agentIds = firstPass.agentIds;
    this.kinds = firstPass.kinds;
    this.agentAt = firstPass.agentAt;
    this.kindAt = firstPass.kindAt;
    this.ordinals = new Int32Array(this.agentIds.length).fill(-1);
    for (let a = 0; a < this.agentIds.length; a++) this.open.push([]);
    const { maxSpan } = options;
    this.reach = maxSpan + 1;
    this.lastAt = Number.isInteger(maxSpan) && maxSpan >= 0 && this.reach < replaySteps.length ? new Int32Array(this.reach).fill(-1) : undefined;
  }

  /** Reads the tokens and, for a call, the numbers of `slot`'s first item into its rows (see `unread` below). */
  private readFirst(slot: number): void {
    const first = this.slots.first[slot];
    const calls = readItem(this.replaySteps[first], this.nestedOf(first));
    fill(this.slots, slot, calls ? scratch.numberCount : 0);
  }

  close(slot: number): void {
    const { slots, options } = this;
    const more = slots.positions[slot];
    const size = more ? more.length : 1;
    if (size >= options.minRepeats) this.keep(slot, more);
    slots.release(slot);
  }

  /** `close` for a cluster of enough occurrences: kept as found unless it is paging. */
  private keep(slot: number, more: number[] | undefined): void {
    const { slots, replaySteps } = this;
    if (slots.count[slot] < 0) this.readFirst(slot);
    // Progress, not a loop: a call whose arguments differ in a number that moves one way at every repeat (the next
    // page, offset or item), as in paging through results.
    if ((slots.rising[slot] | slots.falling[slot]) !== 0) return;
    const positions = more ?? [slots.first[slot]];
    let recipients: Set<string> | undefined;
    for (const q of positions) {
      const r = replaySteps[q].recipients;
      if (!r || r.length === 0) continue;
      recipients ??= new Set();
      for (const name of r) recipients.add(name);
    }
    const off = slot * MAX_TOKENS;
    this.found.push({
      agentId: this.agentIds[slots.agent[slot]],
      kind: this.kinds.names[slots.kind[slot]],
      firstTokens: slots.tokens.slice(off, off + slots.count[slot]),
      positions,
      recipients,
    });
  }

  /** Closes the cluster whose last occurrence is `reach` positions before `p`, if it is still open. */
  private closeStale(p: number, lastAt: Int32Array): void {
    const { slots, reach } = this;
    const r = p % reach;
    const stale = lastAt[r];
    lastAt[r] = -1;
    if (stale >= 0 && slots.last[stale] === p - reach) {
      // Taken out of its agent's list, the others kept in order.
      const list = this.open[slots.agent[stale]];
      let k = list.indexOf(stale);
      for (; k + 1 < list.length; k++) list[k] = list[k + 1];
      list.pop();
      this.close(stale);
    }
  }

  read(from: number, to: number): void {
    const { replaySteps, slots, kinds, lastAt, reach, routing, agentAt, kindAt, ordinals } = this;
    const { maxGap, maxSpan, similarity, paraphraseSimilarity } = this.options;
    for (let p = from; p < to; p++) {
      if (lastAt) this.closeStale(p, lastAt);
      const a = agentAt[p];
      const ordinal = ++ordinals[a];
      const list = this.open[a];
      if (list.length > 0) {
        let kept = 0;
        for (let i = 0; i < list.length; i++) {
          const s = list[i];
          if (ordinal - slots.lastOrdinal[s] - 1 > maxGap || p - slots.last[s] > maxSpan) this.close(s);
          else list[kept++] = s;
        }
        if (kept < list.length) list.length = kept;
      }
      if (this.nextRouting < routing.length && routing[this.nextRouting] === p) {
        this.nextRouting++;
        const agentId = this.agentIds[a];
        const mine = this.routingByAgent.get(agentId);
        if (mine) mine.push(p);
        else this.routingByAgent.set(agentId, [p]);
        continue;
      }
      const kind = kindAt[p];
      if (kind < 0) continue;
      const isCall = kinds.calls[kind];
      // The open clusters of the same kind are compared below: their tokens are read first (the scratch buffer then
      // holds this item's).
      let unread = true;
      for (let i = 0; i < list.length; i++) {
        const s = list[i];
        if (slots.kind[s] !== kind) continue;
        unread = false;
        if (slots.count[s] < 0) this.readFirst(s);
      }
      if (unread) {
        // Nothing to compare the item with: it starts a cluster whose tokens are read only if another item of the kind
        // comes while it is open (with many agents, most items' clusters close before their agent's next step).
        const slot = slots.take();
        slots.agent[slot] = a;
        slots.kind[slot] = kind;
        slots.count[slot] = -1;
        slots.first[slot] = p;
        slots.last[slot] = p;
        slots.lastOrdinal[slot] = ordinal;
        list.push(slot);
        if (lastAt) lastAt[p % reach] = slot;
        continue;
      }
      if (isCall) readCalls(toolCallsOf(replaySteps[p], this.nestedOf(p))!);
      else readMessage(replaySteps[p]);
      const tokens = scratch.hashes;
      const count = scratch.count;
      const hash = setHash(tokens, count);
      const toOthers = kinds.toOthers[kind];
      let best = -1;
      let bestScore = 0;
      for (let i = 0; i < list.length; i++) {
        const s = list[i];
        if (slots.kind[s] !== kind) continue;
        this.comparisons++;
        if (slots.hash[s] === hash && sameSetAt(slots, s, tokens, count)) {
          best = s;
          break;
        }
        const score = jaccardAt(slots, s, tokens, count);
        const paraphrase = toOthers && slots.count[s] >= PARAPHRASE_MIN_WORDS && count >= PARAPHRASE_MIN_WORDS;
        if (score >= (paraphrase ? paraphraseSimilarity : similarity) && score > bestScore) {
          best = s;
          bestScore = score;
        }
      }
      // The numbers of a call's arguments (a message has none).
      const numberCount = isCall ? scratch.numberCount : 0;
      if (best >= 0) {
        const positions = slots.positions[best];
        if (positions) positions.push(p);
        else slots.positions[best] = [slots.first[best], p];
        slots.last[best] = p;
        slots.lastOrdinal[best] = ordinal;
        trackNumbers(slots, best, numberCount);
      } else {
        best = slots.take();
        slots.agent[best] = a;
        slots.kind[best] = kind;
        slots.first[best] = p;
        slots.last[best] = p;
        slots.lastOrdinal[best] = ordinal;
        fill(slots, best, numberCount);
        list.push(best);
      }
      if (lastAt) lastAt[p % reach] = best;
    }
  }
}

function* analyse(
  replaySteps: readonly Step[],
  childrenOf: ReadonlyMap<string, readonly Step[]>,
  options: Partial<LoopOptions>,
  agentNames: readonly string[] | undefined,
  withLedger: boolean,
  nestedAt?: Uint8Array,
): Sliced<LoopAnalysis> {
  const settings: LoopOptions = { ...DEFAULT_LOOP_OPTIONS, ...options };
  const n = replaySteps.length;
  const names = agentNamesOf(agentNames ?? [...new Set(replaySteps.map((s) => s.agentId))]);

  const hasNested = childrenOf.size > 0;
  /** The nested steps of the step at position p: looked up only where it may have some. */
  const nestedOf = (p: number): readonly Step[] =>
    (hasNested && (nestedAt === undefined || nestedAt[p] === 1) ? childrenOf.get(replaySteps[p].id) : undefined) ?? NO_STEPS;

  // Pass 1: what each step is, routing lines and the ledger's verdicts (FirstPass), a slice at a time.
  const firstPass = new FirstPass(replaySteps, names, withLedger, nestedOf);
  for (let from = 0; from < n; from += SLICE) {
    const to = Math.min(n, from + SLICE);
    firstPass.read(from, to);
    if (to < n) yield (0.3 * to) / n;
  }
  const { ledger } = firstPass;

  // Pass 2: the clusters of repeated work (Clustering), a slice at a time.
  const clustering = new Clustering(replaySteps, nestedOf, settings, firstPass.routing(settings.minRepeats), firstPass);
  for (let from = 0; from < n; from += SLICE) {
    const to = Math.min(n, from + SLICE);
    clustering.read(from, to);
    if (to < n) yield 0.3 + (0.7 * to) / n;
  }
  const { open, slots, found, routingByAgent } = clustering;
  // The clusters still open at the end: a chat log's agents' clusters hold a million positions between them, each
  // read once more by its close (one task of 100–200 ms at 1M steps when closed in one go).
  let closing = 0;
  for (const list of open) {
    for (const s of list) {
      const more = slots.positions[s];
      closing += more ? more.length : 1;
      clustering.close(s);
      if (closing > SLICE) {
        closing = 0;
        yield 0.97;
      }
    }
  }
  lastLoopWork.steps = n;
  lastLoopWork.comparisons = clustering.comparisons;
  lastLoopWork.openPeak = slots.peak;
  yield 0.97;
  // Pass 3: clusters whose windows overlap join into one loop when they share an agent or one talks to the other.
  found.sort((a, b) => a.positions[0] - b.positions[0]);
  yield 0.98;
  const groups: FoundCluster[][] = [];
  let current: FoundCluster[] = [];
  let currentLast = -1;
  const related = (group: FoundCluster[], c: FoundCluster) =>
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
  return { loops, ledger };
}

/**
 * The positions of a group's clusters, ascending, each once. A chat log's one loop can hold a million positions: they
 * are gathered in slices into a typed array, then, each cluster's positions being ascending already, its clusters'
 * runs merged pairwise a slice at a time (a flattened list through a Set and a comparator sort was one task of ~0.7 s
 * at 1M steps; a native sort of the typed array, one of 50–100 ms).
 */
function* groupPositions(group: FoundCluster[]): Sliced<number[]> {
  let count = 0;
  for (const c of group) count += c.positions.length;
  if (count < SLICE) return [...new Set(group.flatMap((c) => c.positions))].sort((a, b) => a - b);
  let all = new Int32Array(count);
  /** Where each cluster's run starts in `all`, and its end. */
  let bounds: number[] = [0];
  let ascending = true;
  let k = 0;
  for (const c of group) {
    const from = k;
    for (const p of c.positions) {
      if (k > from && p <= all[k - 1]) ascending = false;
      all[k++] = p;
      if (k % SLICE === 0) yield 0.99;
    }
    bounds.push(k);
  }
  if (!ascending) {
    all.sort();
    yield 0.99;
  } else if (bounds.length > 2) {
    let other = new Int32Array(count);
    let moved = 0;
    while (bounds.length > 2) {
      const next: number[] = [0];
      for (let r = 0; r + 1 < bounds.length; r += 2) {
        let i = bounds[r];
        const iEnd = bounds[r + 1];
        let j = iEnd;
        const jEnd = r + 2 < bounds.length ? bounds[r + 2] : iEnd;
        let out = i;
        while (i < iEnd || j < jEnd) {
          other[out++] = j >= jEnd || (i < iEnd && all[i] <= all[j]) ? all[i++] : all[j++];
          if (++moved % SLICE === 0) yield 0.99;
        }
        next.push(jEnd);
      }
      [all, other] = [other, all];
      bounds = next;
    }
  }
  const positions: number[] = [];
  for (let i = 0; i < count; i++) {
    if (i % SLICE === SLICE - 1) yield 0.99;
    if (i === 0 || all[i] !== all[i - 1]) positions.push(all[i]);
  }
  return positions;
}

function* loopOf(
  group: FoundCluster[],
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
    const text = sentText(replaySteps[position]);
    const verdict = text === undefined ? undefined : ledgerVerdictOf(text, position);
    if (verdict) out.push(verdict);
  }
  return out;
}

/** The ledger verdict `is_in_loop: true` in a step's sent text `text`, if it holds one. */
function ledgerVerdictOf(text: string, position: number): LoopVerdict | undefined {
  // Every step's text is read here: the brace first (a one-character search is the engine's fastest, and most texts
  // hold no brace), the key only where there is one. Either missing, there is no ledger.
  const open = text.indexOf('{');
  if (open < 0 || text.indexOf('"is_in_loop"') < 0) return undefined;
  let ledger: unknown;
  try {
    ledger = JSON.parse(text.slice(open, text.lastIndexOf('}') + 1));
  } catch {
    return undefined;
  }
  const verdict = ledger && typeof ledger === 'object' ? (ledger as { is_in_loop?: { answer?: unknown; reason?: unknown } }).is_in_loop : undefined;
  if (verdict?.answer !== true) return undefined;
  return { source: 'magentic-one-ledger', sourceLabel: LEDGER_LABEL, position, reason: typeof verdict.reason === 'string' ? verdict.reason : '' };
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
