// Terminal output (issue 17, item 10): trace text with escape sequences, carriage returns, C1 controls and bidi
// overrides is printed as visible escapes by every command, in text and JSON, and in the one-line error.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportSession } from '../export/native.ts';
import { makeRun } from '../testing/test-runs.ts';
import { runCli } from '../testing/run-cli.ts';
import { escapeControls, jsonForTerminal, safe } from './terminal.ts';

/** Window title, screen clear + home, colours, a carriage-return overwrite, a C1 CSI, DEL, a right-to-left override. */
const HOSTILE = '\x1b]0;pwned\x07\x1b[2J\x1b[H\x1b[31mred\rfake\x9b1m\x7f\u202eevil';
/** Anything a terminal acts on; a newline only where the output itself breaks lines. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('escapeControls', () => {
  it('shows every control character as a visible escape and leaves other text alone', () => {
    expect(escapeControls(HOSTILE)).toBe('\\x1b]0;pwned\\x07\\x1b[2J\\x1b[H\\x1b[31mred\\rfake\\x9b1m\\x7f\\u{202e}evil');
    expect(escapeControls('a\nb\tc')).toBe('a\\nb\\tc');
    expect(escapeControls('a\nb', { keepNewlines: true })).toBe('a\nb');
    expect(escapeControls('plain ünïcode → 日本 \\ "quotes"')).toBe('plain ünïcode → 日本 \\ "quotes"');
    expect(escapeControls('\u2028\u2066\u0085')).toBe('\\u{2028}\\u{2066}\\x85');
  });

  it('escapes the values of a template, not its own line breaks', () => {
    expect(safe`${'a\nb'}: ${HOSTILE}\n`).toBe(`a\\nb: ${escapeControls(HOSTILE)}\n`);
  });

  it('JSON output carries no raw control character and parses back to the same value', () => {
    const value = { [HOSTILE]: [HOSTILE, '\u2028'] };
    const text = jsonForTerminal(value);
    expect(text.split('\n').some((l) => CONTROL.test(l))).toBe(false);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('no command writes to the terminal except through ./terminal.ts', () => {
    const dir = import.meta.dirname;
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts') && n !== 'terminal.ts' && n !== 'run-cli.ts')) {
      const source = readFileSync(join(dir, name), 'utf8');
      expect(source, name).not.toMatch(/process\.(stdout|stderr)\.write|console\.(log|error|warn|info)/);
    }
  });
});

describe('hostile trace text through the command line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mas-tty-'));
  const runId = `run${HOSTILE}`;
  const run = makeRun(runId, { title: `title ${HOSTILE}`, agents: [{ id: 'manager', name: `agent ${HOSTILE}` }] });
  const file = join(dir, `trace\x1b[2Jname.session.json`);
  writeFileSync(file, exportSession({ runs: [run] }));

  it('inspect: titles, names, ids and file names print escaped, one line each', () => {
    const r = runCli(['inspect', file]);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.some((l) => CONTROL.test(l))).toBe(false);
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe(`${escapeControls(file)} (native)`);
    expect(lines[1]).toBe(`  ${escapeControls(runId)}  title ${escapeControls(HOSTILE)}`);
    expect(lines[4]).toBe(`    - agent ${escapeControls(HOSTILE)}: 1 steps, 15 tokens`);
  });

  it('inspect --json: \\u escapes only, and the same strings after parsing', () => {
    const r = runCli(['inspect', file, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\n').some((l) => CONTROL.test(l))).toBe(false);
    const report = JSON.parse(r.stdout) as { files: { file: string; runs: { id: string; title: string; agents: { name: string }[] }[] }[] };
    expect(report.files[0].file).toBe(file);
    expect(report.files[0].runs[0]).toMatchObject({ id: runId, title: `title ${HOSTILE}`, agents: [{ name: `agent ${HOSTILE}` }] });
  });

  it('stages, clarify, supervise and rectify offline print the run id escaped', () => {
    for (const command of ['stages', 'clarify', 'supervise', 'rectify']) {
      const r = runCli([command, file, '--offline', ...(command === 'rectify' ? ['--zero-shot'] : [])]);
      expect(r.status, `${command}: ${r.stderr}`).toBe(0);
      expect(r.stdout.split('\n').some((l) => CONTROL.test(l)), command).toBe(false);
      expect(r.stdout, command).toContain(escapeControls(runId));
    }
  });

  it('--dry-run estimates print the run id escaped', () => {
    const r = runCli(['clarify', file, '--dry-run']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\n').some((l) => CONTROL.test(l))).toBe(false);
    expect(r.stdout).toContain(`  ${escapeControls(runId)}: `);
  });

  it('a file name with a newline and escape sequences keeps the error on one line', () => {
    const missing = join(dir, `no\nsuch\x1b]0;x\x07\rfile.json`);
    const r = runCli(['inspect', missing]);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n').filter((l) => l !== '' && !l.includes('nodedir'))).toEqual([`error: ${escapeControls(missing)}: no such file`]);
    expect(CONTROL.test(r.stderr)).toBe(false);
  });
});
