// No spread of an array into a call's arguments anywhere in src/ (issue 17, item 9): `Math.max(...xs)` or
// `push(...xs)` overflows the stack once xs is a few hundred thousand long, and trace arrays are unbounded.
// src/model/large-arrays.ts has the loop versions.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './source-files.ts';

const ROOT = join(import.meta.dirname, '..');
const CALLEES = /(?:Math\.(?:max|min)|\.push|\.unshift|\.splice|String\.fromCharCode|String\.fromCodePoint|\.apply|\.call)\s*\(/g;

/** The lines where an argument of one of CALLEES is a spread. */
export function spreadCalls(source: string): number[] {
  const lines: number[] = [];
  // Comments out, line breaks kept (a `//` inside a string may hide the rest of its line: good enough for a check).
  source = source.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:])\/\/[^\n]*/g, '$1');
  for (const match of source.matchAll(CALLEES)) {
    let depth = 0;
    for (let i = match.index + match[0].length; i < source.length; i++) {
      const c = source[i];
      if (c === '(' || c === '[' || c === '{') depth++;
      else if (c === ')' || c === ']' || c === '}') {
        if (depth === 0) break;
        depth--;
      } else if (depth === 0 && source.startsWith('...', i)) {
        lines.push(source.slice(0, match.index).split('\n').length);
        break;
      }
    }
  }
  return lines;
}

describe('spreads into calls', () => {
  it('are found by the check', () => {
    expect(spreadCalls('const a = Math.max(1, ...xs);\nout.push(\n  ...ys);\nMath.min(...[1, 2]);')).toEqual([1, 2, 4]);
    expect(spreadCalls('Math.max(a, f([...xs]), { ...o }); out.push([...xs]); g(...xs);')).toEqual([]);
  });

  it('appear nowhere in src/', () => {
    const found = sourceFiles(join(ROOT, 'src')).flatMap((file) => spreadCalls(readFileSync(file, 'utf8')).map((line) => `${relative(ROOT, file)}:${line}`));
    expect(found).toEqual([]);
  });
});
