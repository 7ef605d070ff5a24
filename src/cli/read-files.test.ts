// How the command line reads files (SPEC §9): only regular files, gzip with every member and the limit on the decoded
// bytes, UTF-16 text, folders as the traces in them, and one precise line for whatever cannot be read.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { busLines, multiMemberGzip } from '../testing/gzip-kit.ts';
import { runCli } from '../testing/run-cli.ts';
import { readTraceFile } from './io.ts';

const tmp = mkdtempSync(join(tmpdir(), 'mas-read-'));
const POSIX = process.platform !== 'win32';

function expectOneLineError(r: ReturnType<typeof runCli>, file: string, pattern: RegExp) {
  expect(r.status).toBe(2);
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '' && !l.includes('nodedir'));
  expect(lines).toHaveLength(1);
  expect(lines[0].startsWith(`error: ${file}: `)).toBe(true);
  expect(lines[0]).toMatch(pattern);
  expect(r.stdout).toBe('');
}

function runCount(r: ReturnType<typeof runCli>): number[] {
  expect(r.stderr.split('\n').filter((l) => l.trim() !== '' && !l.includes('nodedir'))).toEqual([]);
  expect(r.status).toBe(0);
  return (JSON.parse(r.stdout) as { files: { runs: unknown[] }[] }).files.map((f) => f.runs.length);
}

describe('inspect reads compressed and UTF-16 input whole', () => {
  const lines = busLines(6);

  it('a multi-member gzip: the runs of every member', () => {
    const f = join(tmp, 'bus.jsonl.gz');
    writeFileSync(f, multiMemberGzip(lines, 3));
    expect(runCount(runCli(['inspect', f, '--json']))).toEqual([6]);
  });

  it('a wrong size in the last trailer changes nothing', () => {
    const gz = multiMemberGzip(lines, 2);
    gz.writeUInt32LE(7, gz.length - 4);
    const f = join(tmp, 'bad-size.jsonl.gz');
    writeFileSync(f, gz);
    expect(runCount(runCli(['inspect', f, '--json']))).toEqual([6]);
  });

  it('UTF-16 LE and BE files with a byte order mark', () => {
    const text = lines.map((l) => `${l}\n`).join('');
    const le = join(tmp, 'le.jsonl');
    const be = join(tmp, 'be.jsonl');
    writeFileSync(le, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    writeFileSync(be, Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]));
    expect(runCount(runCli(['inspect', le, be, '--json']))).toEqual([6, 6]);
  });
});

describe('inspect reads only regular files', () => {
  const fifo = join(tmp, 'pipe.json');
  afterAll(() => {
    // Should a reader still be blocked on the FIFO, give it end of file so no process is left behind.
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // no reader: nothing to release
    }
  });

  it.skipIf(!POSIX)('a FIFO with no writer is refused at once, not waited on', () => {
    execFileSync('mkfifo', [fifo]);
    // Opening a FIFO with no writer blocks: a CLI that opened it would be killed at the timeout having printed nothing,
    // so the message itself says the file was refused before it was opened.
    expectOneLineError(runCli(['inspect', fifo], { timeoutMs: 20_000 }), fifo, /is a named pipe \(FIFO\), not a regular file/);
  }, 30_000);

  it.skipIf(!existsSync('/dev/zero'))('/dev/zero is refused, not read without end', () => {
    expectOneLineError(runCli(['inspect', '/dev/zero'], { timeoutMs: 20_000 }), '/dev/zero', /is a character device, not a regular file/);
  }, 30_000);

  it.skipIf(!POSIX)('a symbolic link loop and a broken link are named as such', () => {
    const loop = join(tmp, 'loop.json');
    symlinkSync(loop, loop);
    expectOneLineError(runCli(['inspect', loop]), loop, /symbolic link loop/);
    const dangling = join(tmp, 'dangling.json');
    symlinkSync(join(tmp, 'gone.json'), dangling);
    expectOneLineError(runCli(['inspect', dangling]), dangling, /broken symbolic link/);
  });

  it('a folder is read as the trace files in it, subfolders included; other files are left out', () => {
    const dir = join(tmp, 'corpus');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    writeFileSync(join(dir, 'a.jsonl'), `${busLines(2).join('\n')}\n`);
    writeFileSync(join(dir, 'sub', 'b.jsonl.gz'), multiMemberGzip(busLines(3), 2));
    writeFileSync(join(dir, 'README.md'), '# not a trace');
    const r = runCli(['inspect', dir, '--json']);
    expect(runCount(r)).toEqual([2, 3]);
    expect((JSON.parse(r.stdout) as { files: { file: string }[] }).files.map((f) => f.file)).toEqual([join(dir, 'a.jsonl'), join(dir, 'sub', 'b.jsonl.gz')]);
    const empty = join(tmp, 'empty-folder');
    mkdirSync(empty);
    expectOneLineError(runCli(['inspect', empty]), empty, /no trace files/);
  });
});

describe('a file over the limit is read as a stream when it is UTF-8 JSON Lines or one JSON document (ADR 0080, 0081)', () => {
  const OTLP = join(import.meta.dirname, '../../../shared/traces/otlp/rag_earnings_agent.json');

  it('JSON Lines and an OTLP export over a lowered limit, plain or gzip-compressed, give the runs the whole file gives', () => {
    const lines = join(tmp, 'bus-stream.jsonl');
    writeFileSync(lines, `${busLines(40).join('\n')}\n`);
    expect(readTraceFile(lines, undefined, 100)).toEqual(readTraceFile(lines));
    // gzip-compressed, decoding to more than the limit: the same runs, decoded as read.
    const zippedLines = join(tmp, 'bus-stream.jsonl.gz');
    writeFileSync(zippedLines, gzipSync(readFileSync(lines)));
    expect(readTraceFile(zippedLines, undefined, 100)).toEqual(readTraceFile(zippedLines));
    if (!existsSync(OTLP)) {
      console.warn(`skipped the OTLP half: ${OTLP} is absent (../shared)`);
      return;
    }
    const otlp = join(tmp, 'export.json');
    writeFileSync(otlp, readFileSync(OTLP));
    const streamed = readTraceFile(otlp, undefined, 1000);
    expect(streamed.runs.length).toBeGreaterThan(0);
    expect(streamed).toEqual(readTraceFile(otlp));
    // --format as for a file read whole: the importer named, or the list of known ones.
    expect(readTraceFile(otlp, 'otlp', 1000)).toEqual(streamed);
    const unknownFormat = (max?: number) => {
      try {
        readTraceFile(otlp, 'nope', max);
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(unknownFormat(1000)).toMatch(/^nope: unknown format; known: .*otlp/);
    expect(unknownFormat(1000)).toBe(unknownFormat());
    const zipped = join(tmp, 'export.json.gz');
    writeFileSync(zipped, gzipSync(readFileSync(OTLP)));
    const whole = readTraceFile(zipped);
    expect(whole.runs).toEqual(streamed.runs);
    expect(readTraceFile(zipped, undefined, 1000)).toEqual(whole);
  });

  it('any other JSON document over the limit is read as a stream into its value (ADR 0081); UTF-16 is refused as before', () => {
    const doc = join(tmp, 'chat-doc.json');
    writeFileSync(doc, JSON.stringify({ question: 'q', history: Array.from({ length: 50 }, (_, i) => ({ role: 'user', name: `a${i % 3}`, content: `m${i}` })) }));
    const whole = readTraceFile(doc);
    expect(whole.runs[0].steps).toHaveLength(50);
    expect(readTraceFile(doc, undefined, 100)).toEqual(whole);
    const zipped = join(tmp, 'chat-doc.json.gz');
    writeFileSync(zipped, gzipSync(readFileSync(doc)));
    expect(readTraceFile(zipped, undefined, 100)).toEqual(readTraceFile(zipped));
    // A broken one says where, as the whole text does.
    const broken = join(tmp, 'broken-doc.json');
    writeFileSync(broken, readFileSync(doc, 'utf8').replace('"m17"', '"m17" x'));
    const message = (max?: number) => {
      try {
        readTraceFile(broken, undefined, max);
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(message(100)).toMatch(/line 1, column \d+/);
    expect(message(100)).toBe(message());
    // gzip of two members, the last one small (its trailer says 10 bytes): read again as a stream once past the limit.
    const members = join(tmp, 'members-doc.json.gz');
    const docText = readFileSync(doc, 'utf8');
    writeFileSync(members, Buffer.concat([gzipSync(docText.slice(0, -10)), gzipSync(docText.slice(-10))]));
    expect(statSync(members).size).toBeLessThan(1000);
    expect(docText.length).toBeGreaterThan(1000);
    expect(readTraceFile(members, undefined, 1000)).toEqual(readTraceFile(members));
    const wide = join(tmp, 'wide-doc.json');
    writeFileSync(wide, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(readFileSync(doc, 'utf8'), 'utf16le')]));
    expect(() => readTraceFile(wide, undefined, 100)).toThrow(/larger than the .* limit/);
  });

  it('inspect opens an OTLP export over 400 MB (a real process)', () => {
    // One export of three spans with ~134 MB of spaces after each (JSON allows them there): past the limit, cheap to read.
    const spans = [1, 2, 3].map((i) => `{"traceId":"${'ab'.repeat(16)}","spanId":"${String(i).padStart(16, '0')}","name":"step ${i}","startTimeUnixNano":"${1_700_000_000_000_000_000n + BigInt(i)}","endTimeUnixNano":"${1_700_000_000_000_000_001n + BigInt(i)}"}`);
    const big = join(tmp, 'big-export.json');
    const fd = openSync(big, 'w');
    const pad = Buffer.alloc(134 * 1024 * 1024, 0x20);
    try {
      writeSync(fd, '{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{},"spans":[');
      for (const [i, span] of spans.entries()) {
        writeSync(fd, `${i > 0 ? ',' : ''}${span}`);
        writeSync(fd, pad);
      }
      writeSync(fd, ']}]}]}');
    } finally {
      closeSync(fd);
    }
    try {
      expect(statSync(big).size).toBeGreaterThan(400 * 1024 * 1024);
      const r = runCli(['inspect', big, '--json'], { timeoutMs: 120_000 });
      expect(runCount(r)).toEqual([1]);
      expect((JSON.parse(r.stdout) as { files: { runs: { spans: number }[] }[] }).files[0].runs[0].spans).toBe(3);
      // Every span read, none dropped: what the same export read whole gives.
      expect(runCli(['inspect', big]).stdout).toContain('3 spans: 0 agent spans, 0 model calls, 0 tool calls, 3 kept as spans');
    } finally {
      rmSync(big, { force: true });
    }
  }, 120_000);
});
