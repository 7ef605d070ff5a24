// The browser's token counter (ADR 0041): gpt-tokenizer's o200k_base encoder built on ranks read from the package's
// rank file in pieces (o200k-ranks.ts), so the import worker reports progress and answers messages while they load,
// instead of evaluating the package's 2.4 MB module of ranks in one synchronous block (0.4–1.1 s in the worker).
// The rank file is bundled as an asset of our own origin (no third-party request). Node loads the package as is
// (tokens.ts).
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import ranksUrl from 'gpt-tokenizer/data/o200k_base.tiktoken?url';
import { ranksFromTiktoken } from './o200k-ranks.ts';

/** Fetches and reads the ranks (`onProgress`: characters read of the file) and returns the encoder's `countTokens`. */
export async function loadO200kCounter(onProgress?: (done: number, total: number) => void): Promise<(text: string) => number> {
  const response = await fetch(ranksUrl);
  if (!response.ok) throw new Error(`the token ranks (${ranksUrl}) could not be fetched: HTTP ${response.status}`);
  const ranks = await ranksFromTiktoken(await response.text(), onProgress);
  return GptEncoding.getEncodingApi('o200k_base', () => ranks).countTokens;
}
