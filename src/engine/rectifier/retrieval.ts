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

/**
 * Highest score first; ties keep pool order, so the ranking is deterministic. The best `k` are kept in order as the
 * scores are read (k is a few indicators, the pool thousands): no object per indicator and no sort of the pool per
 * query, which was a third of an offline pass.
 */
export function topK(scores: ArrayLike<number>, k: number): Scored[] {
  const best: Scored[] = [];
  if (k <= 0) return best;
  for (let index = 0; index < scores.length; index++) {
    const score = scores[index];
    // A later index never wins a tie, so only a higher score gets in once the list is full.
    if (best.length === k && !(score > best[k - 1].score)) continue;
    let at = best.length;
    while (at > 0 && score > best[at - 1].score) at--;
    best.splice(at, 0, { index, score });
    if (best.length > k) best.pop();
  }
  return best;
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

/**
 * Okapi BM25 (k1 1.2, b 0.75) over a fixed list of documents. Each term lists the documents that have it (an inverted
 * index), so a query reads only those: reading every document of a 2,000-indicator pool for each message was most of
 * an offline rectify pass.
 */
export class Bm25Index {
  /** Per term: the documents that have it, in document order, and how often each has it. */
  private readonly postings = new Map<string, { docs: number[]; tf: number[] }>();
  private readonly lengths: number[];
  private readonly avgdl: number;
  private readonly n: number;

  constructor(texts: readonly string[]) {
    this.n = texts.length;
    this.lengths = [];
    texts.forEach((t, doc) => {
      const words = tokenize(t);
      this.lengths.push(words.length);
      const tf = new Map<string, number>();
      for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const [w, f] of tf) {
        const list = this.postings.get(w);
        if (list) {
          list.docs.push(doc);
          list.tf.push(f);
        } else this.postings.set(w, { docs: [doc], tf: [f] });
      }
    });
    this.avgdl = this.lengths.reduce((s, x) => s + x, 0) / Math.max(1, texts.length) || 1;
  }

  /** Each document's score, summed over the query's terms in their order (as a pass per document summed them). */
  scores(query: string): number[] {
    const n = this.n;
    const out: number[] = new Array<number>(n).fill(0);
    for (const w of new Set(tokenize(query))) {
      const list = this.postings.get(w);
      if (!list) continue;
      const df = list.docs.length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let j = 0; j < list.docs.length; j++) {
        const i = list.docs[j];
        const f = list.tf[j];
        out[i] += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * this.lengths[i]) / this.avgdl));
      }
    }
    return out;
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
