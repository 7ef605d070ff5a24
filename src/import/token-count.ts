// Token counts for the importers, with long texts remembered (ADR 0030, ADR 0082). The counter below does the work:
// src/model/o200k-table.ts splits a text with a scan of its ASCII pieces (the pattern only where a non-ASCII character
// decides a piece) and looks each ASCII piece up among the tokens as it is. What this wrapper adds: texts of LONG_TEXT
// characters or more are remembered whole, since logs repeat system prompts and earlier turns (openai-chat counts every
// message of every request). The cache is bounded and starts over when full. tokens.ts and the CLI's tokens-lazy.ts
// count through this.

/** Texts this long or longer are remembered whole (shorter ones are cheap to count again). */
export const LONG_TEXT = 256;
/** Characters of long texts remembered before that cache starts over. */
const MAX_TEXT_CHARS = 1 << 23;

export interface TokenCounter {
  (text: string): number;
}

/** A counter giving `count(text)` for every text, long texts remembered. */
export function cachedTokenCounter(count: (text: string) => number): TokenCounter {
  let texts = new Map<string, number>();
  let textChars = 0;
  return (text: string): number => {
    if (text.length < LONG_TEXT) return count(text);
    const known = texts.get(text);
    if (known !== undefined) return known;
    const n = count(text);
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
