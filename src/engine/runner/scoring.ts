// Answer extraction and scoring against a task's reference answer (math: the boxed answer, else the FINAL ANSWER
// line, else `#### x`, else the last number; compared as numbers when both are numbers, else as normalised LaTeX).

/** The contents of the last \boxed{…} (braces balanced), or undefined. */
export function lastBoxed(text: string): string | undefined {
  const at = text.lastIndexOf('\\boxed');
  if (at === -1) return undefined;
  const open = text.indexOf('{', at);
  if (open === -1) return undefined;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(open + 1, i).trim();
  }
  return undefined;
}

const NUMBER = /-?\d[\d,]*(?:\.\d+)?|-?\.\d+/g;

export function lastNumber(text: string): string | undefined {
  const all = text.match(NUMBER);
  return all ? all[all.length - 1] : undefined;
}

/** The answer a model's message gives (math). */
export function extractMathAnswer(text: string): string | undefined {
  const boxed = lastBoxed(text);
  if (boxed !== undefined) return boxed;
  const lines = [...text.matchAll(/FINAL ANSWER:\s*(.+)/gi)];
  if (lines.length > 0) {
    const line = lines[lines.length - 1][1].trim();
    return lastBoxed(line) ?? line.replace(/^\$+|\$+$/g, '').trim();
  }
  const hashes = /####\s*(.+)\s*$/m.exec(text);
  if (hashes) return hashes[1].trim();
  return lastNumber(text);
}

/** GSM8K's reference is a worked solution ending `#### 18`; other sets give the bare answer. */
export function referenceAnswer(answer: string): string {
  const m = /####\s*(.+?)\s*$/.exec(answer.trim());
  return m ? m[1] : answer.trim();
}

function asNumber(text: string): number | undefined {
  let t = text.trim().replace(/^\$+|\$+$/g, '').replace(/\\[!,;: ]/g, '').replace(/\\(?:text|mathrm)\{[^}]*\}/g, '');
  t = t.replace(/\\%|%|\\\$|\$|dollars?|units?/gi, '').replace(/(\d),(?=\d{3}\b)/g, '$1').trim();
  const frac = /^(-?)\\[dt]?frac\{(-?\d+)\}\{(-?\d+)\}$/.exec(t);
  if (frac) return (frac[1] ? -1 : 1) * (Number(frac[2]) / Number(frac[3]));
  const slash = /^(-?\d+)\s*\/\s*(\d+)$/.exec(t);
  if (slash) return Number(slash[1]) / Number(slash[2]);
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(t)) return undefined;
  return Number(t);
}

export function normalizeLatex(text: string): string {
  return text
    .replace(/^\$+|\$+$/g, '')
    .replace(/\\left|\\right|\\!|\\,|\\;|\\ /g, '')
    .replace(/\\[dt]frac/g, '\\frac')
    .replace(/\\text\{([^}]*)\}/g, '$1')
    .replace(/\^\{?\\circ\}?/g, '')
    .replace(/\s+/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

/** true / false; undefined when there is nothing to compare. */
export function answersMatch(answer: string | undefined, reference: string): boolean | undefined {
  if (answer === undefined || answer.trim() === '') return false;
  const ref = referenceAnswer(reference);
  if (ref === '') return undefined;
  const a = asNumber(answer);
  const b = asNumber(ref);
  if (a !== undefined && b !== undefined) return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
  return normalizeLatex(answer) === normalizeLatex(ref);
}

/** The last fenced code block of a message (code tasks), or the whole text when there is none. */
export function extractCode(text: string): string {
  const blocks = [...text.matchAll(/```[\w-]*\n([\s\S]*?)```/g)];
  return blocks.length > 0 ? blocks[blocks.length - 1][1].trim() : text.trim();
}
