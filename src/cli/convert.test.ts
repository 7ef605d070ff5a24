// `convert` as a user runs it (a subprocess): a real trace to OTLP and to a native session, each read back by
// `inspect` with the same counts; usage errors and an annotation-only file exit 2 with one line.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportSession } from '../export/native.ts';
import { HAVE_SHARED, SHARED_TRACES, SKIP_REASON } from '../testing/fixture-kit.ts';
import { runCli } from '../testing/run-cli.ts';
import { makeRun } from '../testing/test-runs.ts';

const WHO = join(SHARED_TRACES, 'who-and-when/hand-crafted/1.json');
const TRAIL = join(SHARED_TRACES, 'trail/gaia/3205fa0cb2135fe671bf7cd0e5a26151.json');
const TRAIL_NOTES = join(SHARED_TRACES, 'trail/annotations/3205fa0cb2135fe671bf7cd0e5a26151.json');

function inspect(file: string) {
  const r = runCli(['inspect', file, '--json']);
  expect(r.status, r.stderr).toBe(0);
  const run = (JSON.parse(r.stdout) as { files: { format: string; runs: { steps: number; tokens: { total: number }; agents: { name: string; steps: number }[] }[] }[] }).files[0];
  return { format: run.format, runs: run.runs.map((x) => ({ tokens: x.tokens.total, agents: x.agents })) };
}

describe('convert usage', () => {
  it('exit 2 with one line for bad usage', () => {
    for (const [args, re] of [
      [['convert'], /convert needs exactly one input file/],
      [['convert', 'x.json', '--to', 'csv', '--out', 'y'], /--to must be one of native, otlp, got "csv"/],
      [['convert', 'x.json', '--to', 'otlp'], /convert needs --out/],
    ] as [string[], RegExp][]) {
      const r = runCli(args);
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(re);
    }
  });
});

describe('convert of a deeply nested native session', () => {
  it('exits 2 with one line naming the JSON path and the depth limit, for convert and inspect alike', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mas-deep-'));
    const doc = JSON.parse(exportSession({ runs: [makeRun('r1')] })) as { runs: { steps: { raw?: unknown }[] }[] };
    doc.runs[0].steps[0].raw = { deep: '@@' };
    const file = join(dir, 'deep.session.json');
    writeFileSync(file, JSON.stringify(doc).replace('"@@"', `${'['.repeat(10_000)}${']'.repeat(10_000)}`));
    for (const args of [['convert', file, '--to', 'native', '--out', join(dir, 'out.json')], ['convert', file, '--to', 'otlp', '--out', join(dir, 'out.json')], ['inspect', file]]) {
      const r = runCli(args);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^error: .*deep\.session\.json: json at \$\.runs\[0\]\.steps\[0\]\.raw\.deep\[0\].*: objects and arrays nested more than 256 levels deep/);
    }
  });
});

describe.skipIf(!HAVE_SHARED)(`convert real traces (${HAVE_SHARED ? '' : SKIP_REASON})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'mas-convert-'));

  it('a Who&When chat log and a TRAIL span tree to OTLP and to native: inspect finds the same agents, steps, tokens', () => {
    for (const input of [WHO, TRAIL]) {
      const before = inspect(input);
      for (const to of ['otlp', 'native']) {
        const out = join(dir, `out.${to}.json`);
        const r = runCli(['convert', input, '--to', to, '--out', out, '--json']);
        expect(r.status, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout)).toMatchObject({ to, out, runs: 1 });
        const after = inspect(out);
        expect(after.format).toBe(to);
        expect(after.runs[0].tokens).toBe(before.runs[0].tokens);
        expect(after.runs[0].agents.map((a) => a.name).sort()).toEqual(before.runs[0].agents.map((a) => a.name).sort());
        if (to === 'native') expect(after.runs).toEqual(before.runs);
      }
    }
    expect(readFileSync(join(dir, 'out.otlp.json'), 'utf8')).toContain('"resourceSpans"');
  });

  it('a file that only annotates other runs has nothing to convert', () => {
    const r = runCli(['convert', TRAIL_NOTES, '--to', 'otlp', '--out', join(dir, 'x.json')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: .*3205fa0c.*: no runs to convert/);
  });
});
