// How deeply a trace's JSON may nest. Values nested thousands deep parse, but then overflow the stack of whatever
// walks them recursively (an importer, JSON.stringify on export, the structured clone that carries a worker's result
// to the page), and one such file used to fail every file opened with it. Real traces nest under 20 levels.
import { ImportError } from './errors.ts';

/** Objects and arrays nested deeper than this are refused, with the JSON path of the first value past the limit. */
export const MAX_JSON_DEPTH = 256;

/**
 * The character offset of the first `{` or `[` that opens level `maxDepth + 1` in JSON or JSON Lines text, or -1.
 * A scan of the text (strings skipped), so nothing recursive ever sees the value.
 */
export function offsetPastDepth(text: string, maxDepth: number): number {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i);
        if (s === 92 /* \ */) i++;
        else if (s === 34) break;
      }
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > maxDepth) return i;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      if (depth > 0) depth--;
    }
  }
  return -1;
}

function pathKey(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** A long path with its middle cut: the start says where in the trace, the end how the nesting goes on. */
function shortPath(keys: (string | number)[]): string {
  const parts = keys.map(pathKey);
  if (parts.length <= 12) return `$${parts.join('')}`;
  return `$${parts.slice(0, 8).join('')}…${parts.slice(-3).join('')}`;
}

/** The keys down to the first object or array at level `maxDepth + 1` of a parsed value, walked without recursion. */
export function pathPastDepth(value: unknown, maxDepth: number): (string | number)[] | undefined {
  const stack: { value: unknown; depth: number; keys: (string | number)[] }[] = [{ value, depth: 1, keys: [] }];
  while (stack.length > 0) {
    const top = stack.pop()!;
    if (typeof top.value !== 'object' || top.value === null) continue;
    if (top.depth > maxDepth) return top.keys;
    const entries: [string | number, unknown][] = Array.isArray(top.value)
      ? top.value.map((v, i) => [i, v])
      : Object.entries(top.value as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i];
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: top.depth + 1, keys: [...top.keys, key] });
    }
  }
  return undefined;
}

/**
 * Refuse text whose JSON nests deeper than `maxDepth`. `parse` yields the document holding the offending offset
 * (the whole text, or its line for JSON Lines), so the error can name the JSON path.
 */
export function checkJsonDepth(file: string, text: string, maxDepth = MAX_JSON_DEPTH): void {
  const at = offsetPastDepth(text, maxDepth);
  if (at === -1) return;
  const lineStart = text.lastIndexOf('\n', at) + 1;
  const lineNumber = countLines(text, lineStart);
  let doc: unknown;
  let prefix = '';
  try {
    doc = JSON.parse(text);
  } catch {
    const lineEnd = text.indexOf('\n', at);
    try {
      doc = JSON.parse(text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd));
      prefix = `line ${lineNumber}: `;
    } catch {
      doc = undefined;
    }
  }
  const keys = doc === undefined ? undefined : pathPastDepth(doc, maxDepth);
  const location = keys ? `${prefix}${shortPath(keys)}` : `line ${lineNumber}, column ${at - lineStart + 1}`;
  throw new ImportError(file, 'json', location, `objects and arrays nested more than ${maxDepth} levels deep (the limit)`);
}

function countLines(text: string, upTo: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < upTo; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
