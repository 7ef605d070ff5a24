// Token estimates in Node (ADR 0070, 0082): the importers' counter (the o200k table's, long texts remembered) on texts
// the studio meets, as ratios so that a busy machine moves them little. Printed, each with its target:
//   - one piece of 400,000 characters (a run of `=`, as padding in a log) vs 400,000 characters of prose     ≤ 200 ×
//     (our bound: the merge of a long piece is O(n log n); the plain merge took minutes, ~10^5 × the prose)
//   - prose with a non-ASCII character in every sentence vs the same prose in ASCII                          ≤ 2 ×
//     (our bound: the pattern is matched only where a non-ASCII character decides a piece)
// Also reported: characters counted per second on the ASCII prose.
//
//   npx tsx bench/tokens.bench.ts
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { O200K_RANK_FILE, tableCounter, tableFromTiktoken } from '../src/model/o200k-table.ts';
import { cachedTokenCounter } from '../src/import/token-count.ts';
import { writeResults, type Figure } from './results.ts';

const CHARS = Number(process.env.BENCH_CHARS ?? 400_000);
const REPEATS = 7;
const LONG_PIECE_TARGET = 200;
const MIXED_TARGET = 2;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

/** Prose of about `chars` characters in sentences that differ (numbers in them), so no cache answers for the text. */
function prose(chars: number, accent: boolean): string[] {
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < chars; i++) {
    const s = `Step ${i}: the agent fetched page ${i * 7} and ${accent ? 'noted the café’s' : "noted the cafe's"} figures, then asked the critic whether item ${i % 97} had changed since the last report.`;
    out.push(s);
    n += s.length;
  }
  return out;
}

/** Median ms of counting every text with a fresh counter (each repeat starts with empty caches). */
function timeCount(texts: string[], table: ReturnType<typeof tableFromTiktoken>): number {
  const times: number[] = [];
  for (let r = 0; r < REPEATS; r++) {
    const count = cachedTokenCounter(tableCounter(table));
    const t0 = performance.now();
    let total = 0;
    for (const t of texts) total += count(t);
    times.push(performance.now() - t0);
    if (total <= 0) throw new Error('no tokens counted');
  }
  return median(times);
}

const table = tableFromTiktoken(readFileSync(createRequire(import.meta.url).resolve(O200K_RANK_FILE), 'utf8'));
const ascii = prose(CHARS, false);
const mixed = prose(CHARS, true);
// Warm-up: the code compiled before anything is timed.
timeCount(ascii.slice(0, 200), table);
timeCount(['='.repeat(10_000)], table);
const asciiMs = timeCount(ascii, table);
const mixedMs = timeCount(mixed, table);
const longMs = timeCount(['='.repeat(CHARS)], table);
const asciiChars = ascii.reduce((n, s) => n + s.length, 0);
const figures: Figure[] = [
  {
    name: `token count of one piece of ${CHARS.toLocaleString('en')} characters (a run of "=") vs as many characters of prose`,
    value: longMs / asciiMs,
    unit: '×',
    target: `≤ ${LONG_PIECE_TARGET} × (our bound)`,
    pass: longMs / asciiMs <= LONG_PIECE_TARGET,
    note: `${longMs.toFixed(1)} ms vs ${asciiMs.toFixed(1)} ms; medians of ${REPEATS}`,
  },
  {
    name: 'token count of prose with a non-ASCII character in every sentence vs the same prose in ASCII',
    value: mixedMs / asciiMs,
    unit: '×',
    target: `≤ ${MIXED_TARGET} × (our bound)`,
    pass: mixedMs / asciiMs <= MIXED_TARGET,
    note: `${mixedMs.toFixed(1)} ms vs ${asciiMs.toFixed(1)} ms`,
  },
  {
    name: 'token count of ASCII prose, characters a second',
    value: asciiChars / asciiMs / 1000,
    unit: 'M chars/s',
    target: 'reported',
    pass: true,
  },
];
writeResults('tokens', figures);
for (const f of figures) console.log(`  ${f.pass ? 'PASS' : 'FAIL'}  ${f.value.toFixed(2)} ${f.unit}  target ${f.target}  ${f.name} (${f.note ?? ''})`);
process.exitCode = figures.every((f) => f.pass) ? 0 : 1;
