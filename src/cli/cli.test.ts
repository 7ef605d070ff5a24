// The command line as a user runs it: a real subprocess, exit codes and the one-line error contract (SPEC §7).
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON } from '../testing/fixture-kit.ts';
import { runCli } from '../testing/run-cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'mas-cli-'));
function tmpFile(name: string, content: string | Uint8Array): string {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
}

function expectOneLineError(r: ReturnType<typeof runCli>, file: string, pattern: RegExp) {
  expect(r.status).toBe(2);
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '' && !l.includes('nodedir'));
  expect(lines).toHaveLength(1);
  expect(lines[0].startsWith(`error: ${file}: `)).toBe(true);
  expect(lines[0]).toMatch(pattern);
  expect(r.stdout).toBe('');
}

describe('cli errors', () => {
  it('a missing file exits 2 with one line', () => {
    const missing = join(tmp, 'nope.json');
    expectOneLineError(runCli(['inspect', missing, '--json']), missing, /no such file/);
  });

  it('truncated JSON names the line and column', () => {
    const f = tmpFile('truncated.json', '{\n  "history": [\n    {"role": "user", "content": "hi"');
    expectOneLineError(runCli(['inspect', f, '--json']), f, /line \d+, column \d+/);
  });

  it('valid JSON of no known format says so and lists the formats tried', () => {
    const f = tmpFile('other.json', '{"hello": "world"}');
    expectOneLineError(runCli(['inspect', f, '--json']), f, /not a recognised trace format \(tried: native/);
  });

  it('binary garbage is refused with its byte offset', () => {
    const f = tmpFile('garbage.bin', new Uint8Array([0x7b, 0x22, 0x00, 0xff, 0x13]));
    expectOneLineError(runCli(['inspect', f]), f, /byte 2/);
  });

  it('an empty file is refused', () => {
    const f = tmpFile('empty.json', '');
    expectOneLineError(runCli(['inspect', f, '--json']), f, /empty/);
  });

  it('usage errors exit 2', () => {
    expectOneLineError(runCli(['inspect']), 'usage', /at least one file/);
    expectOneLineError(runCli(['frobnicate']), 'usage', /unknown command/);
    const f = tmpFile('x.json', '{}');
    expectOneLineError(runCli(['inspect', f, '--bogus']), 'usage', /unknown option --bogus/);
  });
});

function allSharedTraceFiles(): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(json|jsonl)$/.test(name)) out.push(p);
    }
  };
  walk(SHARED_TRACES);
  return out;
}

describe.skipIf(!HAVE_SHARED)(`inspect on every real trace (${HAVE_SHARED ? '' : SKIP_REASON})`, () => {
  it('exits 0 with the SPEC §7 shape for every file in ../shared/traces', () => {
    const files = allSharedTraceFiles();
    expect(files.length).toBeGreaterThan(30);
    const r = runCli(['inspect', ...files, '--json']);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error'))).toEqual([]);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as { files: { file: string; format: string; runs: Record<string, unknown>[] }[] };
    expect(report.files.map((f) => f.file)).toEqual(files);
    for (const f of report.files) {
      expect(f.format).not.toBe('unknown');
      for (const run of f.runs) {
        // Result-only files (the benchmark's result lines) add their scores and duration (SPEC §7).
        const resultOnly = /smolagents-bus\/[^/]+\.jsonl$/.test(f.file);
        // Span files add every span of the run (issue 20).
        const extra = resultOnly ? ['scores', 'duration_s'] : ['otlp', 'span-tree', 'span-attributes'].includes(f.format) ? ['spans'] : [];
        expect(Object.keys(run)).toEqual(['id', 'title', 'agents', 'steps', 'steps_by_kind', 'tool_calls', 'handoffs', 'tokens', 'annotations', 'outcome', 'loops', ...extra]);
        expect(Object.keys(run.tokens as object)).toEqual(['input', 'output', 'total']);
        for (const agent of run.agents as Record<string, unknown>[]) expect(Object.keys(agent)).toEqual(['name', 'steps', 'tokens']);
      }
    }
    const trailAndWhoWhen = report.files.filter((f) => /trail\/(gaia|swe)|who-and-when/.test(f.file));
    for (const f of trailAndWhoWhen) expect(f.runs).toHaveLength(1);
  });
});
