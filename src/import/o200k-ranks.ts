// The o200k_base ranks read from gpt-tokenizer's own rank file (data/o200k_base.tiktoken: one `base64 rank` line per
// token) in pieces, instead of by evaluating the package's 2.4 MB module of them in one go (ADR 0041). The array is the
// one that module exports — index = rank; a token whose bytes are UTF-8 that re-encodes to the same bytes is its
// string, any other token the array of its bytes — so the encoder built on it counts exactly as gpt-tokenizer's
// `countTokens` (checked in o200k-ranks.test.ts against the module, token by token).

/** One token's value in gpt-tokenizer's rank array. */
export type RankValue = string | number[];

/** Lines read between two reports of progress (and two turns of the event loop). */
const LINES_PER_PIECE = 16_384;

/** Each base64 character's 6 bits; -1 for any other character. */
const BASE64 = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) BASE64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;

/** A token's bytes (tokens are short: o200k's longest is 128 bytes). */
let bytes = new Uint8Array(256);

/** Decodes the base64 text[from, to) into `bytes`; returns how many; -1 when it is not base64. */
function decodeBase64(text: string, from: number, to: number): number {
  if ((to - from) * 0.75 > bytes.length) bytes = new Uint8Array(Math.ceil((to - from) * 0.75) + 4);
  let n = 0;
  let acc = 0;
  let bits = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 61) break; // '=' padding ends it
    const v = c < 128 ? BASE64[c] : -1;
    if (v < 0) return -1;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[n++] = (acc >> bits) & 255;
    }
  }
  return n;
}

/**
 * The token's string when its `n` bytes are UTF-8 that decodes and re-encodes to the same bytes — what the package's
 * generator keeps as a string (a strict decoder: no overlong forms, surrogates or code points past U+10FFFF; a leading
 * byte-order mark would be dropped by the decoder, so such a token keeps its bytes) — else the array of its bytes.
 */
function valueOf(n: number): RankValue {
  let text = '';
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      text += String.fromCharCode(b);
      i++;
      continue;
    }
    // The second byte's bounds and the sequence's length, as the WHATWG UTF-8 decoder has them.
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    let cp: number;
    if (b >= 0xc2 && b <= 0xdf) {
      length = 2;
      cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      cp = b & 0x0f;
      if (b === 0xe0) low = 0xa0;
      else if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      cp = b & 0x07;
      if (b === 0xf0) low = 0x90;
      else if (b === 0xf4) high = 0x8f;
    } else return Array.from(bytes.subarray(0, n));
    if (i + length > n) return Array.from(bytes.subarray(0, n));
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if (next < low || next > high) return Array.from(bytes.subarray(0, n));
      low = 0x80;
      high = 0xbf;
      cp = (cp << 6) | (next & 0x3f);
    }
    if (i === 0 && cp === 0xfeff) return Array.from(bytes.subarray(0, n));
    text += String.fromCodePoint(cp);
    i += length;
  }
  return text;
}

/**
 * Reads a `.tiktoken` rank file into gpt-tokenizer's rank array, `LINES_PER_PIECE` lines at a time, reporting the
 * characters read of the whole after each piece and letting the event loop turn between pieces (`pause`).
 * Throws on a line that is not `base64 rank`.
 */
export async function ranksFromTiktoken(
  text: string,
  onProgress?: (done: number, total: number) => void,
  pause: () => Promise<void> = () => new Promise((resolve) => setTimeout(resolve, 0)),
): Promise<RankValue[]> {
  const ranks: RankValue[] = [];
  let at = 0;
  let line = 0;
  while (at < text.length) {
    const pieceEnd = line + LINES_PER_PIECE;
    for (; line < pieceEnd && at < text.length; line++) {
      let end = text.indexOf('\n', at);
      if (end < 0) end = text.length;
      const space = text.indexOf(' ', at);
      if (space < 0 || space >= end) throw new Error(`token rank file, line ${line + 1}: not "base64 rank"`);
      const rank = space + 1 < end ? Number(text.slice(space + 1, end)) : NaN;
      if (!Number.isInteger(rank) || rank < 0 || rank > 1 << 24) throw new Error(`token rank file, line ${line + 1}: not "base64 rank"`);
      const n = decodeBase64(text, at, space);
      if (n < 0) throw new Error(`token rank file, line ${line + 1}: not "base64 rank"`);
      ranks[rank] = valueOf(n);
      at = end + 1;
    }
    onProgress?.(Math.min(at, text.length), text.length);
    if (at < text.length) await pause();
  }
  return ranks;
}
