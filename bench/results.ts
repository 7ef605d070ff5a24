// Where each benchmark leaves its figures for `npm run bench` (bench/all.ts) to collect: bench/results/<name>.json
// (gitignored). Each file holds the SPEC §8 figure(s) of one benchmark with its target and whether it was met.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';

export const RESULTS_DIR = join(import.meta.dirname, 'results');

export interface Figure {
  /** What is measured, in words. */
  name: string;
  value: number;
  unit: string;
  /** The SPEC §8 target, in words ("≤ 1.5 × JSON.parse"). */
  target: string;
  pass: boolean;
  /** How it was measured, where it helps reading the value. */
  note?: string;
}

export function machine(): { cpu: string; cores: number; memoryGb: number; node: string; platform: string } {
  const list = cpus();
  return { cpu: list[0]?.model ?? 'unknown', cores: list.length, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform} ${process.arch}` };
}

export function writeResults(bench: string, figures: Figure[], details: Record<string, unknown> = {}): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const body = { bench, date: new Date().toISOString(), machine: machine(), figures, details };
  writeFileSync(join(RESULTS_DIR, `${bench}.json`), `${JSON.stringify(body, null, 2)}\n`);
}
