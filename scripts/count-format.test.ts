// One format for counts in every view (src/ui/format.ts formatCount, 'en'): a bare `toLocaleString()` follows the
// browser's locale, so the run view said "7.397 tokens" where the library, the corpus and the CLI said "7,397".
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './source-files.ts';

const SRC = join(import.meta.dirname, '..', 'src');

/** The lines that format a number in the browser's locale (`toLocaleString()` or `new Intl.NumberFormat()` with no locale). */
export function localeDependent(source: string): number[] {
  const lines: number[] = [];
  source.split('\n').forEach((line, i) => {
    if (/\.toLocaleString\(\s*\)|new Intl\.NumberFormat\(\s*\)/.test(line)) lines.push(i + 1);
  });
  return lines;
}

describe('counts are formatted the same in every view', () => {
  it('finds a bare toLocaleString and a locale-less NumberFormat', () => {
    expect(localeDependent('a\nconst s = n.toLocaleString();\nconst t = n.toLocaleString("en");\nnew Intl.NumberFormat()')).toEqual([2, 4]);
  });

  it('no source file in src/ formats in the browser locale', () => {
    const found = sourceFiles(SRC).flatMap((file) => localeDependent(readFileSync(file, 'utf8')).map((line) => `${relative(SRC, file)}:${line}`));
    expect(found).toEqual([]);
  });
});
