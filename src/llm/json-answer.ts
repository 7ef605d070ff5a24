// Reading a JSON object out of a model's answer. Models wrap JSON in code fences, add prose around it, leave trailing
// commas or typographic quotes; every engine reads its answers through this one function, and each repair is named so
// the UI can show what had to be fixed.

/** The first balanced `{…}` in the text, skipping braces inside strings. */
export function extractJsonObject(text: string): string | undefined {
  const start = text.indexOf('{');
  if (start === -1) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export type JsonAnswer =
  | { ok: true; value: Record<string, unknown>; repairs: string[] }
  | { ok: false; problem: string; repairs: string[] };

/** The JSON object an answer holds, with the repairs it took, or why there is none. */
export function readJsonAnswer(answer: string): JsonAnswer {
  const repairs: string[] = [];
  const trimmed = answer.trim();
  let value = tryParse(trimmed);
  if (value === undefined) {
    const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(trimmed);
    const candidate = extractJsonObject(fenced ? fenced[1] : trimmed);
    if (candidate === undefined) return { ok: false, problem: 'the answer contains no JSON object', repairs };
    repairs.push(fenced ? 'took the JSON out of a code fence' : 'ignored text around the JSON object');
    value = tryParse(candidate);
    if (value === undefined) {
      value = tryParse(candidate.replace(/,\s*([}\]])/g, '$1').replace(/[“”]/g, '"'));
      if (value === undefined) return { ok: false, problem: 'the JSON object in the answer does not parse', repairs };
      repairs.push('removed trailing commas or typographic quotes');
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, problem: 'the answer is not a JSON object', repairs };
  return { ok: true, value: value as Record<string, unknown>, repairs };
}
