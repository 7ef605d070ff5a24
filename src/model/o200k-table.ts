// The o200k_base token counter on a table of typed arrays (ADR 0070): the same counts as gpt-tokenizer's
// `countTokens`, with no Map of 200,000 strings to build first. The package's encoder takes 250–350 ms to build, in
// Node and in a worker (its rank array, then a Map of every token's string and a sorted list of the rest). This table
// is read straight from the package's rank file (data/o200k_base.tiktoken, `base64 rank` per line) into one byte
// array and an open-addressing hash over it (70–115 ms in Node), or taken as it is from tableToBuffer's bytes.
//
// What must match the package exactly (checked in o200k-table.test.ts against `countTokens`, on every text of
// ../shared/traces and on generated ones):
// - a text holding a special token (`<|endoftext|>`, …) is refused with the package's own error;
// - the text is split with the package's own o200k regex; a piece that is a token's string counts 1;
// - any other piece is UTF-8 encoded and merged as byte-pair encoding does: the adjacent pair of parts whose joined
//   bytes have the lowest rank (the leftmost of equals) is joined, until no pair has a rank; its count is the parts left;
// - the rank of a pair's bytes is looked up as the package does: bytes that are valid UTF-8 by its strict check are
//   decoded (a leading byte-order mark dropped, as its decoder does) and looked up among the tokens kept as strings;
//   other bytes among the tokens kept as bytes. A token is kept as a string when its bytes are valid UTF-8 not starting
//   with a byte-order mark (the rule of the package's generator).

/**
 * The package's o200k pre-tokenizer pattern and special tokens, written out so that this module imports nothing of it
 * (o200k-table.test.ts checks both against the package's own).
 */
const CONTRACTION = String.raw`(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?`;
export const O200K_SPLIT = new RegExp(
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+${CONTRACTION}|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*${CONTRACTION}|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
  'gu',
);
/** gpt-tokenizer's rank file, as a module specifier: each place that reads it (in Node) resolves it from its own module. */
export const O200K_RANK_FILE = 'gpt-tokenizer/data/o200k_base.tiktoken';

export const O200K_SPECIAL_TOKENS = ['<|endoftext|>', '<|fim_prefix|>', '<|fim_middle|>', '<|fim_suffix|>', '<|im_start|>', '<|im_end|>', '<|im_sep|>', '<|endofprompt|>'];

/** The tokens' bytes and a hash over them. `value[i]` is token i's rank × 2, plus 1 when it is kept as bytes. */
export interface O200kTable {
  bytes: Uint8Array;
  /** Token i's bytes are bytes[start[i], start[i + 1]). */
  start: Int32Array;
  value: Int32Array;
  /** Open addressing, linear probing: a token's index + 1, or 0 for an empty slot. Length a power of two. */
  slots: Int32Array;
}

const STRING = 0;
const BYTES = 1;

/** Each base64 character's 6 bits; -1 for any other character. */
const BASE64 = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) BASE64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;

function hash(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

/** The package's strict UTF-8 check: no overlong forms, surrogates or code points past U+10FFFF. */
function validUtf8(b: Uint8Array, from: number, to: number): boolean {
  let i = from;
  while (i < to) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let cp: number;
    if ((c & 0xe0) === 0xc0) {
      if (c <= 0xc1) return false;
      n = 2;
      cp = c & 0x1f;
    } else if ((c & 0xf0) === 0xe0) {
      n = 3;
      cp = c & 0x0f;
    } else if ((c & 0xf8) === 0xf0) {
      if (c > 0xf4) return false;
      n = 4;
      cp = c & 0x07;
    } else return false;
    if (i + n > to) return false;
    for (let k = 1; k < n; k++) {
      const next = b[i + k];
      if ((next & 0xc0) !== 0x80) return false;
      cp = (cp << 6) | (next & 0x3f);
    }
    if ((n === 3 && cp < 0x800) || (n === 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return false;
    i += n;
  }
  return true;
}

const startsWithBom = (b: Uint8Array, from: number, to: number) => to - from >= 3 && b[from] === 0xef && b[from + 1] === 0xbb && b[from + 2] === 0xbf;

/**
 * Reads a `.tiktoken` rank file into a table. Throws on a line that is not `base64 rank`, on a rank given twice and
 * on bytes given twice.
 */
export function tableFromTiktoken(text: string): O200kTable {
  // Lines first: how many tokens, and an upper bound of their bytes (3 bytes per 4 base64 characters).
  let lines = 0;
  for (let at = 0; at < text.length; ) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    if (end > at) lines++;
    at = end + 1;
  }
  let bytes = new Uint8Array(Math.ceil(text.length * 0.75) + 4);
  const start = new Int32Array(lines + 1);
  const value = new Int32Array(lines);
  let slotCount = 1;
  while (slotCount < lines * 2.5) slotCount *= 2;
  const slots = new Int32Array(slotCount);
  const mask = slotCount - 1;
  // Ranks seen, a bit each (a rank is at most 2^24).
  const seen = new Uint8Array((1 << 21) + 1);
  let n = 0;
  let size = 0;
  let line = 0;
  for (let at = 0; at < text.length; ) {
    line++;
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    if (end === at) {
      at = end + 1;
      continue;
    }
    const space = text.indexOf(' ', at);
    if (space < 0 || space >= end) throw notRankLine(line);
    let rank = 0;
    for (let i = space + 1; i < end; i++) {
      const d = text.charCodeAt(i) - 48;
      if (d < 0 || d > 9 || rank > 1 << 24) throw notRankLine(line);
      rank = rank * 10 + d;
    }
    if (space + 1 === end || rank > 1 << 24) throw notRankLine(line);
    if (seen[rank >> 3] & (1 << (rank & 7))) throw new Error(`token rank file, line ${line}: rank ${rank} given twice`);
    seen[rank >> 3] |= 1 << (rank & 7);
    // Base64 into bytes[size, …).
    const from = size;
    let acc = 0;
    let bits = 0;
    for (let i = at; i < space; i++) {
      const c = text.charCodeAt(i);
      if (c === 61) break; // '=' padding ends it
      const v = c < 128 ? BASE64[c] : -1;
      if (v < 0) throw notRankLine(line);
      acc = ((acc << 6) | v) & 0xffffff;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        bytes[size++] = (acc >> bits) & 255;
      }
    }
    if (size === from) throw notRankLine(line);
    const kind = validUtf8(bytes, from, size) && !startsWithBom(bytes, from, size) ? STRING : BYTES;
    let slot = hash(bytes, from, size) & mask;
    for (; slots[slot] !== 0; slot = (slot + 1) & mask) {
      const other = slots[slot] - 1;
      if (equalAt(bytes, start[other], start[other + 1], bytes, from, size)) throw new Error(`token rank file, line ${line}: the bytes of rank ${value[other] >> 1} given again`);
    }
    slots[slot] = n + 1;
    start[n] = from;
    value[n] = rank * 2 + kind;
    n++;
    start[n] = size;
    at = end + 1;
  }
  bytes = bytes.slice(0, size);
  return { bytes, start, value, slots };
}

const notRankLine = (line: number) => new Error(`token rank file, line ${line}: not "base64 rank"`);

function equalAt(a: Uint8Array, aFrom: number, aTo: number, b: Uint8Array, bFrom: number, bTo: number): boolean {
  if (aTo - aFrom !== bTo - bFrom) return false;
  for (let i = 0; i < aTo - aFrom; i++) if (a[aFrom + i] !== b[bFrom + i]) return false;
  return true;
}

/** The rank of the token kept as `kind` whose bytes are key[from, to), or -1. */
function rankOf(t: O200kTable, key: Uint8Array, from: number, to: number, kind: number): number {
  const { slots, start, value, bytes } = t;
  const mask = slots.length - 1;
  for (let slot = hash(key, from, to) & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
    const i = slots[slot] - 1;
    if ((value[i] & 1) === kind && equalAt(bytes, start[i], start[i + 1], key, from, to)) return value[i] >> 1;
  }
  return -1;
}

/**
 * Whether the ASCII text[from, to) is a token's string: rankOf on its characters, which are its UTF-8 bytes (hashed
 * and compared as they are, with no copy).
 */
function isAsciiToken(t: O200kTable, text: string, from: number, to: number): boolean {
  let h = 0x811c9dc5;
  for (let k = from; k < to; k++) h = Math.imul(h ^ text.charCodeAt(k), 0x01000193);
  const { slots, start, value, bytes } = t;
  const mask = slots.length - 1;
  const len = to - from;
  for (let slot = (h >>> 0) & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
    const i = slots[slot] - 1;
    const at = start[i];
    if ((value[i] & 1) !== STRING || start[i + 1] - at !== len) continue;
    let k = 0;
    while (k < len && bytes[at + k] === text.charCodeAt(from + k)) k++;
    if (k === len) return true;
  }
  return false;
}

/** The rank the package gives the bytes key[from, to) when merging: see the header. */
function pairRank(t: O200kTable, key: Uint8Array, from: number, to: number): number {
  if (!validUtf8(key, from, to)) return rankOf(t, key, from, to, BYTES);
  return startsWithBom(key, from, to) ? rankOf(t, key, from + 3, to, STRING) : rankOf(t, key, from, to, STRING);
}

// The split's fast path (ADR 0082): the pattern's pieces found by a scan of ASCII characters, without the regular
// expression. Each character below 128 has one of these classes; any other character is NON_ASCII, and a piece whose
// end depends on one is left to the pattern itself (from that piece's start: the pattern has no look-behind, so a
// piece depends only on the text from its start on).
const UPPER = 1;
const LOWER = 2;
const DIGIT = 4;
/** \r and \n. */
const LINE = 8;
/** \t, \v, \f and the space: whitespace that is not a line break. */
const BLANK = 16;
/** Any other ASCII character: punctuation and control characters (not whitespace, letter or digit). */
const MARK = 32;
const NON_ASCII = 64;
/** Past the text's end. */
const END = 0;
const LETTER = UPPER | LOWER;
const ASCII_CLASS = new Uint8Array(128).fill(MARK);
for (let c = 65; c <= 90; c++) ASCII_CLASS[c] = UPPER;
for (let c = 97; c <= 122; c++) ASCII_CLASS[c] = LOWER;
for (let c = 48; c <= 57; c++) ASCII_CLASS[c] = DIGIT;
ASCII_CLASS[10] = LINE;
ASCII_CLASS[13] = LINE;
for (const c of [9, 11, 12, 32]) ASCII_CLASS[c] = BLANK;

function classAt(text: string, i: number): number {
  if (i >= text.length) return END;
  const c = text.charCodeAt(i);
  return c < 128 ? ASCII_CLASS[c] : NON_ASCII;
}

/** The length of the contraction (`'s`, `'ll`, …, any case) at `i`, or 0: the pattern's optional tail of a word. */
function contractionAt(text: string, i: number): number {
  if (text.charCodeAt(i) !== 39 /* ' */) return 0;
  // A letter's lower case (other characters map to no letter this checks: x | 0x20 is 's' only for 'S' and 's').
  const a = text.charCodeAt(i + 1) | 0x20;
  if (a === 115 /* s */ || a === 100 /* d */ || a === 109 /* m */ || a === 116 /* t */) return 2;
  const b = text.charCodeAt(i + 2) | 0x20;
  if ((a === 108 /* l */ && b === 108) || ((a === 118 /* v */ || a === 114 /* r */) && b === 101 /* e */)) return 3;
  return 0;
}

/**
 * Where the pattern's piece that starts at `i` ends, found from ASCII characters alone; -1 when a character at or
 * past 128 could change it (the caller then matches the pattern there). The pattern's alternatives, in their order,
 * on ASCII text:
 * 1–2. an optional character that is no letter, digit or line break, then a word: upper-case letters and then
 *    lower-case ones, at least one letter, and a contraction;
 * 3. one to three digits;
 * 4. an optional space, then a run of marks (no whitespace, letter or digit), then any \r, \n or /;
 * 5. whitespace up to and including its last line break;
 * 6. whitespace to the text's end, or all of it but its last character;
 * 7. one whitespace character.
 */
export function asciiPieceEnd(text: string, i: number): number {
  const c = classAt(text, i);
  if (c === NON_ASCII) return -1;
  // 1–2: a word, after one mark or blank.
  let word = -1;
  if (c & LETTER) word = i;
  else if (c & (BLANK | MARK)) {
    const next = classAt(text, i + 1);
    if (next === NON_ASCII) return -1;
    if (next & LETTER) word = i + 1;
  }
  if (word >= 0) {
    let end = word;
    while (classAt(text, end) === UPPER) end++;
    let after = classAt(text, end);
    if (after === LOWER) {
      while (classAt(text, end) === LOWER) end++;
      after = classAt(text, end);
    }
    if (after === NON_ASCII) return -1;
    return end + contractionAt(text, end);
  }
  // 3: digits, three at most.
  if (c === DIGIT) {
    let end = i + 1;
    for (; end < i + 3; end++) {
      const k = classAt(text, end);
      if (k === NON_ASCII) return -1;
      if (k !== DIGIT) break;
    }
    return end;
  }
  // 4: marks, after one space.
  let marks = -1;
  if (c === MARK) marks = i;
  else if (text.charCodeAt(i) === 32 && classAt(text, i + 1) === MARK) marks = i + 1;
  if (marks >= 0) {
    let end = marks + 1;
    while (classAt(text, end) === MARK) end++;
    if (classAt(text, end) === NON_ASCII) return -1;
    for (let k = text.charCodeAt(end); k === 13 || k === 10 || k === 47 /* / */; k = text.charCodeAt(++end));
    return end;
  }
  // 5–7: whitespace (a blank before a non-ASCII character was left to the pattern above).
  let end = i + 1;
  while (classAt(text, end) & (LINE | BLANK)) end++;
  if (classAt(text, end) === NON_ASCII) return -1;
  for (let k = end - 1; k >= i; k--) if (classAt(text, k) === LINE) return k + 1;
  if (end === text.length) return end;
  return end - i >= 2 ? end - 1 : end;
}

/**
 * The text's pieces as the pattern splits it, each given to `each` as its start and end: ASCII pieces by
 * asciiPieceEnd, the others by the pattern matched at their start (sticky).
 */
export function eachO200kPiece(text: string, sticky: RegExp, each: (start: number, end: number) => void): void {
  const n = text.length;
  for (let i = 0; i < n; ) {
    const ascii = asciiPieceEnd(text, i);
    const end = ascii < 0 ? patternPieceEnd(text, i, sticky) : ascii;
    each(i, end);
    i = end;
  }
}

/** Where the pattern's piece that starts at `i` ends: the pattern matched there (sticky). */
function patternPieceEnd(text: string, i: number, sticky: RegExp): number {
  sticky.lastIndex = i;
  const m = sticky.exec(text);
  // Every character starts a match of some alternative, so a sticky match is always found.
  if (m === null || m[0].length === 0) throw new Error(`o200k split: no piece at ${i}`);
  return i + m[0].length;
}

/** The pattern as a sticky expression: a match only where it is asked for (eachO200kPiece). */
export function stickyO200kSplit(): RegExp {
  return new RegExp(O200K_SPLIT.source, `${O200K_SPLIT.flags.replace('g', '')}y`);
}

/**
 * Pieces longer than this many bytes are merged with a heap (heapMergeCount). The plain merge scans every pair for the
 * lowest rank after each join: quadratic, 1.3 s for a run of 40,000 `=` (one piece), minutes for a run of 400 KB in an
 * untrusted trace.
 */
const HEAP_MERGE_FROM = 256;

/**
 * The byte-pair merge of key[0, n) by a heap of its pairs, with the plain merge's result: the pair of lowest rank is
 * joined first, the leftmost of equal ranks (the heap orders by rank, then by where the pair starts). Parts are a linked
 * list over their first bytes; a heap entry whose parts have changed since it was pushed is passed over. Returns the
 * parts left (and, for tests, where each starts in `partStarts`). O(n log n).
 */
export function heapMergeCount(t: O200kTable, key: Uint8Array, n: number, partStarts?: number[]): number {
  if (n < 2) {
    if (n === 1) partStarts?.push(0);
    return n;
  }
  // Part p covers key[p, next[p]); prev[p] is the part before it (-1 for the first).
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  for (let p = 0; p < n; p++) {
    next[p] = p + 1;
    prev[p] = p - 1;
  }
  // The heap: each entry a pair's rank, its left part's start and the pair's end when pushed. At most n - 1 pairs at
  // first and two new ones per join.
  const capacity = 3 * n;
  const ranks = new Int32Array(capacity);
  const lefts = new Int32Array(capacity);
  const ends = new Int32Array(capacity);
  let size = 0;
  const before = (a: number, b: number) => ranks[a] < ranks[b] || (ranks[a] === ranks[b] && lefts[a] < lefts[b]);
  const swap = (a: number, b: number) => {
    const r = ranks[a], l = lefts[a], e = ends[a];
    ranks[a] = ranks[b];
    lefts[a] = lefts[b];
    ends[a] = ends[b];
    ranks[b] = r;
    lefts[b] = l;
    ends[b] = e;
  };
  const push = (left: number, end: number) => {
    const rank = pairRank(t, key, left, end);
    if (rank < 0) return;
    let i = size++;
    ranks[i] = rank;
    lefts[i] = left;
    ends[i] = end;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (!before(i, up)) break;
      swap(i, up);
      i = up;
    }
  };
  const pop = () => {
    size--;
    if (size === 0) return;
    swap(0, size);
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && before(l, m)) m = l;
      if (r < size && before(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  };
  for (let p = 0; p + 1 < n; p++) push(p, p + 2);
  let parts = n;
  while (size > 0) {
    const left = lefts[0];
    const end = ends[0];
    pop();
    // Still a pair of two live parts covering key[left, end)? (A joined-away part keeps next[] pointing inside.)
    const right = next[left];
    if (right >= n || prev[right] !== left || next[right] !== end) continue;
    if (left > 0 && next[prev[left]] !== left) continue;
    // Join them.
    next[left] = end;
    if (end < n) prev[end] = left;
    prev[right] = -2;
    parts--;
    if (prev[left] >= 0) push(prev[left], end);
    if (end < n) push(left, next[end]);
  }
  // Tests: where each part left starts.
  if (partStarts) for (let p = 0; p < n; p = next[p]) partStarts.push(p);
  return parts;
}

/** Pieces whose merge was counted, remembered up to this many (the package keeps as many of its merges). */
const MERGE_CACHE = 100_000;

/** `countTokens` of gpt-tokenizer's o200k_base encoding, on the table. */
export function tableCounter(t: O200kTable): (text: string) => number {
  const encoder = new TextEncoder();
  let buffer = new Uint8Array(1024);
  let starts = new Int32Array(1025);
  let pairRanks = new Float64Array(1025);
  let merges = new Map<string, number>();
  const special = new RegExp(`(${O200K_SPECIAL_TOKENS.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`);
  const sticky = stickyO200kSplit();

  /** Parts left once the n bytes of `buffer` are merged. */
  function mergeCount(n: number): number {
    if (n > HEAP_MERGE_FROM) return heapMergeCount(t, buffer, n);
    if (starts.length < n + 1) {
      starts = new Int32Array(n + 1);
      pairRanks = new Float64Array(n + 1);
    }
    // parts[i] = buffer[starts[i], starts[i + 1]); pairRanks[i] = rank of parts i and i + 1 joined.
    let parts = n;
    for (let i = 0; i <= n; i++) starts[i] = i;
    const rankAt = (i: number) => {
      if (i + 2 > parts) return Infinity;
      const r = pairRank(t, buffer, starts[i], starts[i + 2]);
      return r < 0 ? Infinity : r;
    };
    for (let i = 0; i < parts - 1; i++) pairRanks[i] = rankAt(i);
    while (parts > 1) {
      let lowest = Infinity;
      let at = -1;
      for (let i = 0; i < parts - 1; i++) {
        if (pairRanks[i] < lowest) {
          lowest = pairRanks[i];
          at = i;
        }
      }
      if (at < 0) break;
      // Join parts at and at + 1: drop the start of at + 1 and the pair rank of (at, at + 1).
      starts.copyWithin(at + 1, at + 2, parts + 1);
      pairRanks.copyWithin(at, at + 1, parts - 1);
      parts--;
      pairRanks[at] = rankAt(at);
      if (at > 0) pairRanks[at - 1] = rankAt(at - 1);
    }
    return parts;
  }

  /** The count of the ASCII piece text[from, to) that is no token (pieceCount's cache). */
  function mergedAscii(text: string, from: number, to: number): number {
    const piece = text.slice(from, to);
    const known = merges.get(piece);
    if (known !== undefined) return known;
    const len = to - from;
    if (buffer.length < len) buffer = new Uint8Array(len * 2);
    for (let k = 0; k < len; k++) buffer[k] = text.charCodeAt(from + k);
    const count = mergeCount(len);
    if (merges.size >= MERGE_CACHE) merges = new Map();
    merges.set(piece, count);
    return count;
  }

  function pieceCount(piece: string): number {
    // A single ASCII character is a token of its own.
    if (piece.length === 1 && piece.charCodeAt(0) < 0x80) return 1;
    const known = merges.get(piece);
    if (known !== undefined) return known;
    if (buffer.length < piece.length * 3) buffer = new Uint8Array(piece.length * 3);
    const n = encoder.encodeInto(piece, buffer).written;
    // The piece as a token's string: its UTF-8 bytes among the tokens kept as strings. (A piece with a lone surrogate
    // is no token's string, and the package merges its bytes, U+FFFD for the surrogate; the merge ends in the one token
    // of those bytes as well: checked on every token that holds U+FFFD, in o200k-table.test.ts.)
    const count = rankOf(t, buffer, 0, n, STRING) >= 0 ? 1 : mergeCount(n);
    if (merges.size >= MERGE_CACHE) merges = new Map();
    merges.set(piece, count);
    return count;
  }

  return (text: string): number => {
    // Every special token begins with `<|`: a plain search for it first, the expression only where it is found.
    const disallowed = text.indexOf('<|') === -1 ? null : text.match(special);
    if (disallowed !== null) throw new Error(`Disallowed special token found: ${disallowed[0]}`);
    let total = 0;
    // eachO200kPiece's loop, written out: with a callback per piece (and the piece checked for ASCII again), the count
    // took 20–25% longer (Node, 2026-11-30).
    for (let i = 0; i < text.length; ) {
      const ascii = asciiPieceEnd(text, i);
      if (ascii < 0) {
        // A piece the pattern cut (a non-ASCII character decided it): counted from its text.
        const end = patternPieceEnd(text, i, sticky);
        total += pieceCount(text.slice(i, end));
        i = end;
        continue;
      }
      // An ASCII piece: one character is a token; a longer one is looked up among the tokens from its characters (its
      // UTF-8 bytes), with no string made and no cache asked, and only a piece that is no token is merged (and cached).
      if (ascii - i === 1) total++;
      else total += isAsciiToken(t, text, i, ascii) ? 1 : mergedAscii(text, i, ascii);
      i = ascii;
    }
    return total;
  };
}

/** 'o2kt', then the format's version: a table file of another kind or version is refused (src/llm/token-table.ts). */
const MAGIC = 0x746b326f;
const VERSION = 1;

/** The table as one buffer (the CLI's build writes it beside the bundle; tableFromBuffer reads it back as it is). */
export function tableToBuffer(t: O200kTable): Uint8Array {
  const n = t.value.length;
  const words = 5 + (n + 1) + n + t.slots.length;
  const out = new Uint8Array(words * 4 + t.bytes.length);
  const head = new Uint32Array(out.buffer, 0, words);
  head.set([MAGIC, VERSION, n, t.slots.length, t.bytes.length]);
  let at = 5;
  for (const part of [t.start, t.value, t.slots]) {
    head.set(part, at);
    at += part.length;
  }
  out.set(t.bytes, words * 4);
  return out;
}

/**
 * A table from tableToBuffer's bytes, as views over them (no copy when they start on a 4-byte boundary). Throws when
 * they are not such a table.
 */
export function tableFromBuffer(data: Uint8Array): O200kTable {
  const aligned = data.byteOffset % 4 === 0 ? data : data.slice();
  const words = (count: number, at: number) => new Int32Array(aligned.buffer, aligned.byteOffset + at * 4, count);
  if (aligned.length < 20) throw new Error('not a token table: too short');
  const [magic, version, n, slotCount, byteCount] = new Uint32Array(aligned.buffer, aligned.byteOffset, 5);
  if (magic !== MAGIC || version !== VERSION) throw new Error('not a token table of this version');
  const size = (5 + (n + 1) + n + slotCount) * 4 + byteCount;
  if (aligned.length !== size || (slotCount & (slotCount - 1)) !== 0 || slotCount <= n) throw new Error('not a token table: its sizes do not add up');
  const start = words(n + 1, 5);
  const value = words(n, 5 + n + 1);
  const slots = words(slotCount, 5 + 2 * n + 1);
  const bytes = aligned.subarray((5 + 2 * n + 1 + slotCount) * 4);
  if (start[0] !== 0 || start[n] !== byteCount) throw new Error('not a token table: its token bytes do not add up');
  for (let i = 0; i < n; i++) if (start[i + 1] <= start[i]) throw new Error('not a token table: a token has no bytes');
  // Every token in one slot: a lookup then always meets an empty slot and ends.
  let filled = 0;
  for (let i = 0; i < slotCount; i++) {
    if (slots[i] < 0 || slots[i] > n) throw new Error('not a token table: a slot names no token');
    if (slots[i] !== 0) filled++;
  }
  if (filled !== n) throw new Error('not a token table: its slots do not name every token once');
  return { bytes, start, value, slots };
}
