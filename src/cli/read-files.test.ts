// How the command line reads files (SPEC §9): only regular files, gzip with every member and the limit on the decoded
// bytes, UTF-16 text, folders as the traces in them, and one precise line for whatever cannot be read.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { busLines, multiMemberGzip } from '../testing/gzip-kit.ts';
import { runCli } from '../testing/run-cli.ts';

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
