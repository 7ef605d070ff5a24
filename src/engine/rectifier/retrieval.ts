// Indicator retrieval (SPEC §5.2 step 2): top-K by cosine similarity between a query embedding and the indicators'
// trigger-condition embeddings; offline, BM25 over the trigger conditions (a lexical stand-in, labelled as such).
import type { LlmClient } from '../../llm/client.ts';
import type { TokenUsage } from '../../model/types.ts';
import { poolTextHash } from './indicators.ts';
import type { EmbeddingCache } from '../../llm/embedding-cache.ts';
import { appendAll } from '../../model/large-arrays.ts';

export interface Scored {
  /** Position in the pool. */
  index: number;
  score: number;
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Highest score first; ties keep pool order, so the ranking is deterministic. */
export function topK(scores: readonly number[], k: number): Scored[] {
  const all = scores.map((score, index) => ({ index, score }));
  all.sort((a, b) => b.score - a.score || a.index - b.index);
  return all.slice(0, Math.max(0, k));
}

export function topKByCosine(query: readonly number[], vectors: readonly (readonly number[])[], k: number): Scored[] {
  return topK(vectors.map((v) => cosine(query, v)), k);
}

const STOP = new Set(
  'a an and are as at be by for from has have in into is it its of on or that the this to was were when which while with will the agent problem involves'.split(' '),
);

export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOP.has(w));
}

/** Okapi BM25 (k1 1.2, b 0.75) over a fixed list of documents. */
export class Bm25Index {
  private readonly docs: Map<string, number>[];
  private readonly lengths: number[];
  private readonly avgdl: number;
  private readonly df = new Map<string, number>();

  constructor(texts: readonly string[]) {
    this.docs = texts.map((t) => {
      const tf = new Map<string, number>();
      for (const w of tokenize(t)) tf.set(w, (tf.get(w) ?? 0) + 1);
      return tf;
    });
    this.lengths = texts.map((t) => tokenize(t).length);
    this.avgdl = this.lengths.reduce((s, x) => s + x, 0) / Math.max(1, texts.length) || 1;
    for (const tf of this.docs) for (const w of tf.keys()) this.df.set(w, (this.df.get(w) ?? 0) + 1);
  }

  scores(query: string): number[] {
    const n = this.docs.length;
    const terms = [...new Set(tokenize(query))];
    return this.docs.map((tf, i) => {
      let s = 0;
      for (const w of terms) {
        const f = tf.get(w);
        if (!f) continue;
        const df = this.df.get(w) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        s += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * this.lengths[i]) / this.avgdl));
      }
      return s;
    });
  }

  search(query: string, k: number): Scored[] {
    return topK(this.scores(query), k);
  }
}

export type { EmbeddingCache };

export class MemoryEmbeddingCache implements EmbeddingCache {
  readonly entries = new Map<string, number[][]>();
  async get(key: string) {
    return this.entries.get(key);
  }
  async put(key: string, vectors: number[][]) {
    this.entries.set(key, vectors);
  }
}

/** The cache key: what was embedded (kind + hash of the texts) and with which model. */
export function embeddingKey(kind: 'trigger' | 'dedup', texts: readonly string[], model: string): string {
  return `${kind}|${poolTextHash(texts)}|${model}`;
}

export interface EmbedTextsResult {
  vectors: number[][];
  fromCache: boolean;
  /** Endpoint requests made (0 when cached). */
  requests: number;
  usage: TokenUsage;
}

export const EMBED_BATCH = 250;

/** Embeddings of many texts, in batches, from the cache when it has them. */
export async function embedTexts(
  texts: readonly string[],
  kind: 'trigger' | 'dedup',
  client: LlmClient,
  model: string,
  options: { cache?: EmbeddingCache; signal?: AbortSignal; onProgress?: (done: number, total: number) => void; batch?: number } = {},
): Promise<EmbedTextsResult> {
  const key = embeddingKey(kind, texts, model);
  const usage: TokenUsage = { input: 0, output: 0, total: 0 };
  const cached = await options.cache?.get(key);
  if (cached && cached.length === texts.length) {
    options.onProgress?.(texts.length, texts.length);
    return { vectors: cached, fromCache: true, requests: 0, usage };
  }
  const batch = options.batch ?? EMBED_BATCH;
  const vectors: number[][] = [];
  let requests = 0;
  for (let at = 0; at < texts.length; at += batch) {
    const r = await client.embed(texts.slice(at, at + batch), options.signal);
    requests++;
    appendAll(vectors, r.vectors);
    usage.input += r.usage.input;
    usage.total += r.usage.total;
    if (r.usage.estimated) usage.estimated = true;
    options.onProgress?.(vectors.length, texts.length);
  }
  await options.cache?.put(key, vectors);
  return { vectors, fromCache: false, requests, usage };
}
