// BM25 and top-K as the rectifier ranks indicators offline: the inverted index and the kept-best selection give the
// same scores and the same ranking as the plain pass over every document and a sort (the oracle below).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Bm25Index, tokenize, topK } from './retrieval.ts';

/** BM25 as a pass over every document, each summing the query's terms in their order. */
function plainScores(texts: string[], query: string): number[] {
  const docs = texts.map((t) => {
    const tf = new Map<string, number>();
    for (const w of tokenize(t)) tf.set(w, (tf.get(w) ?? 0) + 1);
    return tf;
  });
  const lengths = texts.map((t) => tokenize(t).length);
  const avgdl = lengths.reduce((s, x) => s + x, 0) / Math.max(1, texts.length) || 1;
  const df = new Map<string, number>();
  for (const tf of docs) for (const w of tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const terms = [...new Set(tokenize(query))];
  return docs.map((tf, i) => {
    let s = 0;
    for (const w of terms) {
      const f = tf.get(w);
      if (!f) continue;
      const d = df.get(w) ?? 0;
      const idf = Math.log(1 + (texts.length - d + 0.5) / (d + 0.5));
      s += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * lengths[i]) / avgdl));
    }
    return s;
  });
}

const sortedTopK = (scores: number[], k: number) =>
  scores
    .map((score, index) => ({ index, score }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, Math.max(0, k));

describe('Bm25Index and topK', () => {
  const word = fc.constantFrom('sum', 'root', 'square', 'units', 'table', 'row', 'count', 'the', 'x', 'rate', 'error', 'total');
  const text = fc.array(word, { maxLength: 12 }).map((w) => w.join(' '));
  it('score and rank as a pass over every document and a sort did, ties in pool order (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 40 }), text, fc.integer({ min: 0, max: 45 }), (texts, query, k) => {
        const index = new Bm25Index(texts);
        const scores = index.scores(query);
        expect(scores).toEqual(plainScores(texts, query));
        expect(index.search(query, k)).toEqual(sortedTopK(scores, k));
      }),
      { numRuns: 1000 },
    );
  });
  it('keeps the best k of any scores, equal scores in index order', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(0, 0.5, 1, 2, 2, 3.25, -1)), fc.integer({ min: -1, max: 10 }), (scores, k) => {
        expect(topK(scores, k)).toEqual(sortedTopK(scores, k));
      }),
      { numRuns: 2000 },
    );
  });
});
