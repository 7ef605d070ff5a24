// The LLM-free flagger (SPEC §5.3 offline): only the obvious Data Gap and Signal Corruption signals that can be read
// off the text — placeholders left in place of values, JSON or tables that do not parse, and numbers given in two
// unit systems of the same quantity. Everything it says is marked heuristic; it never asks anyone (no LLM), so its
// questions are what a clarifier would ask, and the message passes unchanged.
import type { EdgeState } from './edges.ts';
import type { ClarifierDecision } from './parse.ts';

export interface HeuristicFlag extends ClarifierDecision {
  /** Which signal fired, in words a person can check against the message. */
  signal: string;
}

export const PLACEHOLDERS: RegExp[] = [
  /\b(?:TODO|TBD|FIXME)\b/,
  /\[(?:insert|your|placeholder|todo|tbd|fill in|value)[^\]\n]{0,40}\]/i,
  /<(?:insert|your|placeholder|fill[ _-]?in|value)[^>\n]{0,40}>/i,
  /\{\{\s*[\w.]+\s*\}\}/,
  /\?\?\?+/,
  /\blorem ipsum\b/i,
  /\bXXX+\b/,
];

/**
 * What every PLACEHOLDERS pattern needs somewhere in the text (case aside): a message without any of these is passed
 * without running the seven patterns. A chat log's million plain messages each ran them all.
 */
export const PLACEHOLDER_HINT = /TODO|TBD|FIXME|\[|<|\{\{|\?\?\?|lorem ipsum|XXX/i;

function placeholder(text: string): string | undefined {
  if (!PLACEHOLDER_HINT.test(text)) return undefined;
  for (const re of PLACEHOLDERS) {
    const m = re.exec(text);
    if (m) return m[0];
  }
  return undefined;
}

function jsonProblem(text: string): string | undefined {
  const candidates: string[] = [];
  if (text.includes('```')) for (const m of text.matchAll(/```json\s*\n([\s\S]*?)```/gi)) candidates.push(m[1]);
  const whole = text.trim();
  if (candidates.length === 0 && /^[{[]/.test(whole) && /[}\]]$/.test(whole)) candidates.push(whole);
  for (const c of candidates) {
    try {
      JSON.parse(c);
    } catch (e) {
      return e instanceof Error ? e.message.split('\n')[0].slice(0, 120) : 'does not parse';
    }
  }
  return undefined;
}

/** Markdown tables whose rows do not all have the same number of cells. */
function tableProblem(text: string): { expected: number; found: number; row: string } | undefined {
  // A table's rows begin and end with a bar.
  if (!text.includes('|')) return undefined;
  let block: string[] = [];
  const check = (): { expected: number; found: number; row: string } | undefined => {
    if (block.length < 3) return undefined;
    const cells = (row: string) => row.trim().replace(/^\||\|$/g, '').split('|').length;
    const expected = cells(block[0]);
    for (const row of block.slice(1)) {
      const found = cells(row);
      if (found !== expected) return { expected, found, row: row.trim().slice(0, 80) };
    }
    return undefined;
  };
  for (const line of [...text.split('\n'), '']) {
    if (/^\s*\|.*\|\s*$/.test(line)) block.push(line);
    else {
      const p = check();
      if (p) return p;
      block = [];
    }
  }
  return undefined;
}

export interface UnitWord {
  re: RegExp;
  quantity: string;
  system: string;
  name: string;
}

// Numbers followed by a unit; two systems of the same quantity in one message is the signal.
export const UNITS: UnitWord[] = [
  { re: /\d\s*(?:km|kilomet(?:er|re)s?)\b/i, quantity: 'length', system: 'metric', name: 'kilometres' },
  { re: /\d\s*(?:miles?)\b/i, quantity: 'length', system: 'imperial', name: 'miles' },
  { re: /\d\s*(?:cm|centimet(?:er|re)s?)\b/i, quantity: 'length', system: 'metric', name: 'centimetres' },
  { re: /\d\s*(?:inch(?:es)?)\b/i, quantity: 'length', system: 'imperial', name: 'inches' },
  { re: /\d\s*(?:feet|foot|ft)\b/i, quantity: 'length', system: 'imperial', name: 'feet' },
  { re: /\d\s*(?:met(?:er|re)s)\b/i, quantity: 'length', system: 'metric', name: 'metres' },
  { re: /\d\s*(?:kg|kilograms?)\b/i, quantity: 'mass', system: 'metric', name: 'kilograms' },
  { re: /\d\s*(?:grams?)\b/i, quantity: 'mass', system: 'metric', name: 'grams' },
  { re: /\d\s*(?:lbs?|pounds?)\b/i, quantity: 'mass', system: 'imperial', name: 'pounds' },
  { re: /\d\s*(?:ml|millilit(?:er|re)s?|lit(?:er|re)s?)\b/i, quantity: 'volume', system: 'metric', name: 'litres' },
  { re: /\d\s*(?:cups?|teaspoons?|tsp|tablespoons?|tbsp|gallons?|fl\.? ?oz)\b/i, quantity: 'volume', system: 'US customary', name: 'cups/spoons/gallons' },
  { re: /\d\s*(?:°\s?C|degrees? celsius)\b/i, quantity: 'temperature', system: 'Celsius', name: '°C' },
  { re: /\d\s*(?:°\s?F|degrees? fahrenheit)\b/i, quantity: 'temperature', system: 'Fahrenheit', name: '°F' },
];

/**
 * What every UNITS pattern needs (the start of each of its unit words after a digit): a message without it is passed
 * without running the thirteen patterns.
 */
export const UNIT_HINT = /\d\s*(?:km|kilomet|mile|cm|centimet|inch|feet|foot|ft|met|kg|kilogram|gram|lb|pound|ml|millilit|lit|cup|teaspoon|tsp|tablespoon|tbsp|gallon|fl|°|degree)/i;

function unitMix(text: string): [string, string] | undefined {
  if (!UNIT_HINT.test(text)) return undefined;
  const seen = new Map<string, UnitWord>();
  for (const u of UNITS) {
    if (!u.re.test(text)) continue;
    const other = seen.get(u.quantity);
    if (other && other.system !== u.system) return [other.name, u.name];
    if (!other) seen.set(u.quantity, u);
  }
  return undefined;
}

/** The first obvious signal in the message, or undefined (then the heuristic says NONE). */
export function flagEdge(state: EdgeState): HeuristicFlag | undefined {
  const text = state.message;
  const hole = placeholder(text);
  if (hole) {
    return { type: 'DG', toAgent: 'sender', question: `The message has "${hole}" where a value belongs: what is the actual value?`, signal: `placeholder "${hole}"` };
  }
  const json = jsonProblem(text);
  if (json) {
    return { type: 'SC', toAgent: 'sender', question: 'The JSON in the message does not parse: can you resend exactly that structure as valid JSON?', signal: `JSON does not parse (${json})` };
  }
  const table = tableProblem(text);
  if (table) {
    return {
      type: 'SC',
      toAgent: 'sender',
      question: `The table's header has ${table.expected} columns but a row has ${table.found}: which cell is missing or extra in that row?`,
      signal: `table row with ${table.found} cells under a ${table.expected}-column header: "${table.row}"`,
    };
  }
  const units = unitMix(text);
  if (units) {
    return {
      type: 'SC',
      toAgent: 'sender',
      question: `The message gives values in ${units[0]} and in ${units[1]}: which unit should the result be reported in?`,
      signal: `numbers in two unit systems (${units[0]}, ${units[1]})`,
    };
  }
  return undefined;
}
