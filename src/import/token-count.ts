// The same token counts as gpt-tokenizer's `countTokens` (o200k_base), for less CPU (ADR 0030). That function splits
// the text with o200k's pre-tokenizer regex (Unicode property classes, ~1.5 µs a piece in V8: most of its time on
// short messages) and counts each piece; a count is the sum of its pieces' counts. Here:
//   - ASCII text without `<|` (every special token starts so) is split by a hand-written scanner that takes exactly
//     the pieces the regex takes, and each distinct piece is counted once by the library (pieces repeat: words,
//     numbers, punctuation) and remembered;
//   - any other text (non-ASCII, or a possible special token, which the library refuses) goes to the library whole;
//   - texts of LONG_TEXT characters or more are remembered whole too: logs repeat system prompts and earlier turns.
// Both caches are bounded and start over when full. tokens.ts and the CLI's tokens-lazy.ts count through this.

/** Texts this long or longer are remembered whole (shorter ones are cheap to split again). */
export const LONG_TEXT = 256;
/** Distinct pieces remembered before the piece cache starts over. */
const MAX_PIECES = 1 << 16;
/** Pieces longer than this are counted and not remembered (runs of `=` or spaces, base64 without punctuation). */
const MAX_PIECE_LENGTH = 64;
/** Characters of long texts remembered before that cache starts over. */
const MAX_TEXT_CHARS = 1 << 23;

const enum C {
  Other = 0,
  Upper = 1,
  Lower = 2,
  Digit = 3,
  /** Whitespace other than CR and LF: tab, VT, FF, space. */
  Space = 4,
  /** CR or LF. */
  Newline = 5,
}

/** The class of each ASCII code in o200k's pattern: \p{Lu}, \p{Ll}, \p{N}, \s (JavaScript's) and the rest. */
const CLASS = new Uint8Array(128);
for (let c = 65; c <= 90; c++) CLASS[c] = C.Upper;
for (let c = 97; c <= 122; c++) CLASS[c] = C.Lower;
for (let c = 48; c <= 57; c++) CLASS[c] = C.Digit;
for (const c of [9, 11, 12, 32]) CLASS[c] = C.Space;
CLASS[10] = C.Newline;
CLASS[13] = C.Newline;

/** Class of the code at `i`, or -1 past the end or for a non-ASCII code. */
function classAt(s: string, i: number): number {
  if (i >= s.length) return -1;
  const c = s.charCodeAt(i);
  return c < 128 ? CLASS[c] : -1;
}

/** Lower-cased ASCII code at `i` (or -1 past the end). */
function lowerAt(s: string, i: number): number {
  if (i >= s.length) return -1;
  return s.charCodeAt(i) | 0x20;
}

/** End of an optional contraction suffix (`'s|'d|'m|'t|'ll|'ve|'re`, either case per letter) at `i`. */
function contractionEnd(s: string, i: number): number {
  if (s.charCodeAt(i) !== 39) return i;
  const a = lowerAt(s, i + 1);
  if (a === 115 || a === 116 || a === 109 || a === 100) return i + 2; // s t m d
  const b = lowerAt(s, i + 2);
  if ((a === 114 && b === 101) || (a === 118 && b === 101) || (a === 108 && b === 108)) return i + 3; // re ve ll
  return i;
}

/**
 * End of the o200k piece starting at `i` of an ASCII string, the alternatives of its pattern taken in order:
 *   1. [^\r\n\p{L}\p{N}]?[\p{Lu}…]*[\p{Ll}…]+(contraction)?   2. [^\r\n\p{L}\p{N}]?[\p{Lu}…]+[\p{Ll}…]*(contraction)?
 *   3. \p{N}{1,3}   4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`   5. \s*[\r\n]+   6. \s+(?!\S)   7. \s+
 * Exported for its tests.
 */
export function pieceEnd(s: string, i: number): number {
  const n = s.length;
  const c = classAt(s, i);
  // 1 and 2: an optional prefix (neither CR/LF, letter nor digit), then letters.
  let j = -1;
  if (c === C.Upper || c === C.Lower) j = i;
  else if (c === C.Other || c === C.Space) {
    const next = classAt(s, i + 1);
    if (next === C.Upper || next === C.Lower) j = i + 1;
  }
  if (j !== -1) {
    let u = j;
    while (classAt(s, u) === C.Upper) u++;
    let l = u;
    while (classAt(s, l) === C.Lower) l++;
    // Lower-case letters after the capitals: alternative 1; capitals only: alternative 2 (no lower-case follows).
    return contractionEnd(s, l > u ? l : u);
  }
  if (c === C.Digit) {
    let k = i + 1;
    while (k < i + 3 && classAt(s, k) === C.Digit) k++;
    return k;
  }
  // 4: an optional space, then symbols, then CR, LF or slashes.
  let k = -1;
  if (c === C.Other) k = i;
  else if (s.charCodeAt(i) === 32 && classAt(s, i + 1) === C.Other) k = i + 1;
  if (k !== -1) {
    while (classAt(s, k) === C.Other) k++;
    for (let ch = s.charCodeAt(k); k < n && (ch === 10 || ch === 13 || ch === 47); ch = s.charCodeAt(++k));
    return k;
  }
  // Whitespace: 5 up to the run's last CR/LF; else 6, the run less its last character unless the text ends there;
  // else 7, the one character.
  let end = i;
  let lastNewline = -1;
  for (let cl = c; cl === C.Space || cl === C.Newline; cl = classAt(s, ++end)) if (cl === C.Newline) lastNewline = end;
  if (lastNewline !== -1) return lastNewline + 1;
  if (end === n || end - i < 2) return end;
  return end - 1;
}

/** Whether the scanner may split `s`: ASCII only, and no `<|`. */
function scannable(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || (c === 60 && s.charCodeAt(i + 1) === 124)) return false;
  }
  return true;
}

export interface TokenCounter {
  (text: string): number;
}

/** A counter giving `count(text)` for every text, through the scanner and the caches above. */
export function cachedTokenCounter(count: (text: string) => number): TokenCounter {
  let pieces = new Map<string, number>();
  let shortPieces = new Map<number, number>();
  let texts = new Map<string, number>();
  let textChars = 0;

  function pieceCount(piece: string): number {
    let n = pieces.get(piece);
    if (n === undefined) {
      n = count(piece);
      if (pieces.size >= MAX_PIECES) pieces = new Map();
      pieces.set(piece, n);
    }
    return n;
  }

  /** Count of a piece of 2–4 characters, remembered under a number made of its codes (no string to make). */
  function shortPieceCount(text: string, i: number, end: number): number {
    let key = 0;
    for (let k = i; k < end; k++) key = (key << 7) | text.charCodeAt(k);
    key = key * 8 + (end - i);
    let n = shortPieces.get(key);
    if (n === undefined) {
      n = count(text.slice(i, end));
      if (shortPieces.size >= MAX_PIECES) shortPieces = new Map();
      shortPieces.set(key, n);
    }
    return n;
  }

  function split(text: string): number {
    let total = 0;
    for (let i = 0; i < text.length; ) {
      const end = pieceEnd(text, i);
      const length = end - i;
      // One ASCII character is one token (each byte is a token of its own in o200k; checked in the tests).
      if (length === 1) total += 1;
      else if (length <= 4) total += shortPieceCount(text, i, end);
      else total += length > MAX_PIECE_LENGTH ? count(text.slice(i, end)) : pieceCount(text.slice(i, end));
      i = end;
    }
    return total;
  }

  return (text: string): number => {
    if (text.length < LONG_TEXT) return scannable(text) ? split(text) : count(text);
    const known = texts.get(text);
    if (known !== undefined) return known;
    const n = scannable(text) ? split(text) : count(text);
    if (textChars + text.length > MAX_TEXT_CHARS) {
      texts = new Map();
      textChars = 0;
    }
    if (text.length <= MAX_TEXT_CHARS) {
      texts.set(text, n);
      textChars += text.length;
    }
    return n;
  };
}
