// One JSON object read in pieces (parseObjectInPieces, issue 14): for any text the result is JSON.parse's value (and
// hashJson's hash of it) or undefined, never another value.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { hashJson, knownJsonHash } from './hash-json.ts';
import { nestsDeeperThan } from './json-depth.ts';
import { parseObjectInPieces, type PiecesOptions } from './json-pieces.ts';

const KEYS = ['history', 'chat_history'];

/** parseObjectInPieces's answer checked against JSON.parse's: the same value (and hash), or none. */
function check(text: string, options: Partial<PiecesOptions> = {}): ReturnType<typeof parseObjectInPieces> {
  const got = parseObjectInPieces(text, { arrayKeys: KEYS, hash: true, ...options });
  let whole: unknown;
  let parses = true;
  try {
    whole = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    parses = false;
  }
  if (got === undefined) return got;
  expect(parses).toBe(true);
  expect(isDeepStrictEqual(got.value, whole)).toBe(true);
  expect(Object.keys(got.value)).toEqual(Object.keys(whole as object));
  if (got.hash !== undefined) {
    expect(got.hash).toBe(hashJson(whole));
    expect(knownJsonHash(got.value)).toBe(got.hash);
  }
  return got;
}

/** A small seeded generator (mulberry32): the same cases on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TRICKY = ['plain', '{"content":"x"}', '},{"content":', 'a\\"b', '"', '\\', '\u00e9\u2028\ud83d\ude00', ']}', '[', '{', ''];

function message(r: () => number, i: number): unknown {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const content = r() < 0.1 ? { content: pick(TRICKY), parts: [pick(TRICKY), i] } : r() < 0.05 ? null : `${pick(TRICKY)} ${i} ${pick(TRICKY)}`;
  const m: Record<string, unknown> = r() < 0.1 ? { role: 'user', content } : { content, role: 'assistant', name: pick(['Planner', 'Coder', 'Orchestrator (-> Coder)']) };
  if (r() < 0.05) m.extra = { history: [1, 2], n: r() < 0.5 ? 1.5e300 : -0 };
  return m;
}

function log(r: () => number, n: number): Record<string, unknown> {
  const history = Array.from({ length: n }, (_, i) => message(r, i));
  const key = r() < 0.3 ? 'chat_history' : 'history';
  const o: Record<string, unknown> = {};
  if (r() < 0.5) o.question = `Q ${TRICKY[Math.floor(r() * TRICKY.length)]}`;
  if (r() < 0.3) o.system_prompt = { Planner: 'plan', history: 'not an array' };
  o[key] = history;
  if (r() < 0.5) o.ground_truth = '42';
  if (r() < 0.3) o.mistake_step = '3';
  return o;
}

/** The same value written otherwise: compact, indented, or with odd JSON whitespace between tokens. */
function write(r: () => number, value: unknown): string {
  const x = r();
  if (x < 0.4) return JSON.stringify(value);
  if (x < 0.7) return JSON.stringify(value, null, Math.floor(r() * 4) + 1);
  // Line breaks in indented JSON are all between tokens (a string's are escaped).
  return ` \r\n${JSON.stringify(value, null, '\t').replace(/\n/g, ' \r\n ')}\n`;
}

describe('one JSON object read in pieces', () => {
  it('gives JSON.parse’s value and hashJson’s hash for generated chat logs, in batches of any size', () => {
    const r = random(14);
    for (let round = 0; round < 300; round++) {
      const value = log(r, Math.floor(r() * 40));
      const text = write(r, value);
      const batchChars = [1, 7, 50, 200, 1 << 20][Math.floor(r() * 5)];
      const got = check(text, { batchChars });
      expect(got).toBeDefined();
      expect(got!.hash).toBeDefined();
    }
  });

  it('tells how far into the text each batch ends, to the end of the text', () => {
    const value = log(random(1), 2000);
    const text = JSON.stringify(value);
    const ends: number[] = [];
    expect(check(text, { batchChars: 4096, onProgress: (end) => ends.push(end) })).toBeDefined();
    expect(ends.length).toBeGreaterThan(10);
    expect(ends.every((e, i) => i === 0 || e > ends[i - 1])).toBe(true);
    expect(ends.at(-1)).toBe(text.length);
  });

  it('gives the same value where the keys are written in another order than JSON.parse lists them, without a hash', () => {
    for (const text of [
      '{"question":"q","history":[{"content":"a","role":"x"}],"2":1,"1":0}',
      '{"history":[{"content":"a"}],"__proto__":{"x":1},"b":2}',
      '{"__proto__":[],"history":[1,2,{"a":[]}]}',
      '\ufeff{"history":[] , "q" : null}',
      '{"a":{"history":[9]},"b":[1,{"c":"]"}],"history":[{"x":"}"},[],"s",1,true,null]}',
    ]) {
      const got = check(text, { batchChars: 1 });
      expect(got).toBeDefined();
    }
    expect(check('{"history":[1],"7":0}')!.hash).toBeUndefined();
  });

  it('steps aside (undefined) for anything unusual, and never answers with another value', () => {
    const good = JSON.stringify({ question: 'q', history: [{ content: 'a', role: 'r' }, { content: 'b', role: 'r' }], ground_truth: 'g' });
    const cases = [
      '{"history":[1],"history":[2]}', // a key written twice
      '{"history":[1],"q":1,"q":2}',
      '{"h\\u0069story":[1],"history":[2]}', // twice, once escaped
      '{"history":[1,]}', // a trailing comma
      '{"history":[,1]}',
      '{"history":{"a":1}}', // not an array
      '{"question":"q"}',
      '[{"history":[]}]',
      '{}',
      `${good} x`,
      good.slice(0, -1),
      good.replace('"b"', '"b" "'),
      good.replace('},{', '}{'),
      '{"history":[1] "q":2}',
      '',
      ' ',
    ];
    for (const text of cases) expect(check(text, { batchChars: 1 })).toBeUndefined();
  });

  it('with a depth limit, is undefined exactly when the value nests past it, in the array or around it', () => {
    const nest = (levels: number): unknown => (levels === 0 ? 'x' : levels % 2 ? [nest(levels - 1)] : { a: nest(levels - 1) });
    const r = random(3);
    for (let round = 0; round < 200; round++) {
      const value = log(r, 1 + Math.floor(r() * 20));
      const history = (value.history ?? value.chat_history) as unknown[];
      const levels = Math.floor(r() * 12);
      if (r() < 0.5) history[Math.floor(r() * history.length)] = { content: nest(levels) };
      else value.meta = nest(levels);
      const maxDepth = 4 + Math.floor(r() * 8);
      const got = check(write(r, value), { batchChars: [1, 100, 1 << 20][Math.floor(r() * 3)], maxDepth });
      expect(got === undefined).toBe(nestsDeeperThan(value, maxDepth));
      if (got) expect(got.depthChecked).toBe(true);
    }
  });

  it('reads only an array that opens within 1 MB of the object: other documents are given up after a short scan', () => {
    const big = 'x'.repeat(1.2 * (1 << 20));
    const history = [{ content: 'a', role: 'r' }];
    expect(check(JSON.stringify({ system_prompt: big, history }))).toBeUndefined();
    expect(check(JSON.stringify({ meta: { a: [big] }, history }))).toBeUndefined();
    expect(check(JSON.stringify({ resourceSpans: [{ big }] }))).toBeUndefined();
    // After the array, members of any size.
    expect(check(JSON.stringify({ history, summary: big, meta: { a: [big] } }))).toBeDefined();
  });

  it('is JSON.parse or undefined for damaged texts (characters dropped, repeated or replaced)', () => {
    const r = random(7);
    const marks = ['{', '}', '[', ']', ',', '"', '\\', ':', ' ', 'x', '0'];
    let read = 0;
    for (let round = 0; round < 600; round++) {
      const text = write(r, log(r, 1 + Math.floor(r() * 12)));
      const at = Math.floor(r() * text.length);
      const kind = r();
      const damaged = kind < 0.33 ? text.slice(0, at) + text.slice(at + 1) : kind < 0.66 ? text.slice(0, at) + text[at] + text.slice(at) : text.slice(0, at) + marks[Math.floor(r() * marks.length)] + text.slice(at + 1);
      if (check(damaged, { batchChars: Math.floor(r() * 100) + 1 })) read++;
    }
    // Many damages still leave valid JSON (a space, a digit in a string): those are read.
    expect(read).toBeGreaterThan(0);
  });
});
