// A chat log's text is parsed in pieces, its messages in batches (detectOrImportText → parseObjectInPieces, issue
// 14): every file must give exactly what the whole-text path gives (parseText, detection, the chat-log importer),
// runs with their ids, warnings, or the error; and the import says how far into the text the parse is.
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { HAVE_SHARED, SKIP_REASON, sharedFiles } from '../testing/fixture-kit.ts';
import { detectOrImportText, detectText, importDetected, importText, type ImportOptions } from './index.ts';
import { parseObjectInPieces } from './json-pieces.ts';
import { MAX_JSON_DEPTH } from './json-depth.ts';

/** What a call gives: its result, or the error's class and message. */
function outcome(run: () => unknown): unknown {
  try {
    return { ok: run() };
  } catch (e) {
    return { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

/** importText, checked against the whole-text path (parseText, detection, importDetected) for the same file. */
function expectSame(text: string, file = 'log.json', options: ImportOptions = {}): unknown {
  const inPieces = outcome(() => importText(file, text, options));
  const whole = outcome(() => importDetected(detectText(file, text, options)));
  expect(isDeepStrictEqual(inPieces, whole)).toBe(true);
  // Byte for byte, as the run store would write it.
  expect(JSON.stringify(inPieces)).toBe(JSON.stringify(whole));
  return inPieces;
}

const pieces = (text: string) => parseObjectInPieces(text, { arrayKeys: ['history', 'chat_history'] });

const AGENTS = ['Planner', 'Coder', 'Executor', 'Critic'];

function chatLog(messages: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    question: 'Plan, write and check the report.',
    history: Array.from({ length: messages }, (_, i) =>
      i % 7 === 3 ? { content: `thinking about "${i}" {"content":"x"},`, role: 'Orchestrator (thought)' } : i % 11 === 5 ? { content: `to coder ${i}`, role: 'Orchestrator (-> Coder)' } : { content: `step ${i}: ${'é'.repeat(i % 5)}`, role: 'assistant', name: AGENTS[i % AGENTS.length] },
    ),
    ...extra,
  };
}

describe('a chat log read in pieces', () => {
  it('gives the whole-text import’s runs, run ids and warnings, written in any way', () => {
    const labelled = chatLog(300, { ground_truth: '42', mistake_agent: 'Coder', mistake_step: '999', mistake_reason: 'r', level: '1', system_prompt: { Coder: 'You code.' }, extra: [1, { a: 2 }] });
    const final = chatLog(40);
    (final.history as unknown[]).push({ content: 'FINAL ANSWER: 42', role: 'assistant', name: 'Writer' });
    for (const value of [chatLog(1), chatLog(500), labelled, { ...final, ground_truth: '42' }, { chat_history: chatLog(20).history, summary: 's' }, { question: 'q', history: [] }]) {
      for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2), `\ufeff\n${JSON.stringify(value, null, '\t')}\r\n`]) {
        expect(pieces(text)).toBeDefined();
        const got = expectSame(text) as { ok?: { format: string; runs: { id: string }[] } };
        expect(got.ok?.format).toBe('chat-log');
      }
    }
  });

  it('reads a log of many batches as the whole text (a million messages are ~1,180 batches)', () => {
    // Over 1 MB: batches of 64 kB, the last cut by scanning to the array's end.
    const text = JSON.stringify(chatLog(25_000));
    expect(text.length).toBeGreaterThan(1 << 20);
    const ends: number[] = [];
    expect(parseObjectInPieces(text, { arrayKeys: ['history'], onProgress: (end) => ends.push(end) })).toBeDefined();
    expect(ends.length).toBeGreaterThanOrEqual(16);
    expect(expectSame(text)).toHaveProperty('ok');
  });

  it('tells the import how far into the text the parse is, batch by batch, to its end', () => {
    // Without the reading in pieces, one JSON.parse of the whole text told nothing until it ended.
    const text = JSON.stringify(chatLog(40_000));
    const told: [number, boolean][] = [];
    const read = detectOrImportText('group-chat.json', text, { dropText: true, onDocument: (end, all) => told.push([end, all]) });
    expect('importer' in read && read.importer.id).toBe('chat-log');
    expect(told.length).toBeGreaterThanOrEqual(3);
    expect(told.every(([end, all], i) => !all && (i === 0 || end > told[i - 1][0]))).toBe(true);
    expect(told[0][0]).toBeLessThan(text.length / 2);
    expect(told.at(-1)![0]).toBe(text.length);
  });

  it('leaves every unusual text to the whole-text path, which reads it or fails as before', () => {
    const good = JSON.stringify(chatLog(5, { ground_truth: 'g' }));
    const cases = [
      good.replace('"ground_truth"', '"question"'), // a key written twice
      good.replace('{"question"', '{"history":[],"question"'), // the array's key twice
      good.slice(0, -1), // cut short
      `${good} x`, // text after the object
      good.replace('"step 1', '"step 1" "'), // a syntax error in a message
      good.replace('}]', '},]'), // a trailing comma
      JSON.stringify(chatLog(5, { deep: [(function deep(n: number): unknown { return n === 0 ? 1 : { x: deep(n - 1) }; })(MAX_JSON_DEPTH)] })), // too deep
      JSON.stringify({ question: 'q', history: [{ content: 'a', role: 'r' }, { content: [(function deep(n: number): unknown { return n === 0 ? 1 : [deep(n - 1)]; })(MAX_JSON_DEPTH)], role: 'r' }] }), // a message too deep
      `${good}\n${good}`, // JSON Lines
    ];
    for (const text of cases.slice(0, -3)) expect(pieces(text)).toBeUndefined();
    for (const text of cases) expectSame(text);
  });

  it('reads in pieces whatever the file name or forced format, detection unchanged', () => {
    const text = JSON.stringify({ history: [{ content: 'hi', role: 'user' }], question: 'q' });
    for (const [file, options] of [
      ['log.json', {}],
      ['who-and-when-7.json', {}],
      ['my-traces.json', {}],
      ['x.session.json', {}],
      ['log.json', { format: 'chat-log' }],
      ['log.json', { format: 'otlp' }],
      ['log.json', { format: 'nope' }],
    ] as const) {
      expectSame(text, file, options);
    }
  });
});

describe.skipIf(!HAVE_SHARED)(`real chat logs (${HAVE_SHARED ? 'Who&When: AG2 CaptainAgent and Magentic-One' : SKIP_REASON})`, () => {
  it('read in pieces as the whole text: each file, its messages many times over, and as `chat_history`', () => {
    const files = sharedFiles('who-and-when');
    expect(files.length).toBe(12);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const value = JSON.parse(text) as Record<string, unknown>;
      const history = value.history as unknown[];
      // Over 1 MB of messages: many batches, cut where a message begins as the first one does.
      const many = { ...value, history: Array.from({ length: Math.ceil((1.2 * (1 << 20)) / text.length) }, () => history).flat() };
      const renamed = Object.fromEntries(Object.entries(value).map(([k, v]) => [k === 'history' ? 'chat_history' : k, v]));
      for (const t of [text, JSON.stringify(value), JSON.stringify(many), JSON.stringify(renamed, null, 1)]) {
        expect(pieces(t)).toBeDefined();
        expect(expectSame(t, file)).toHaveProperty('ok');
      }
    }
  });
});
