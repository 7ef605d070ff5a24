// `inspect` on span files (issue 20): per file the import report, per run its spans, which sum to the file's.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateAgentTrace } from '../../bench/gen-agent-otlp.ts';
import { runCliAsync } from '../testing/run-cli.ts';

describe('inspect on an agent-shaped OTLP trace', () => {
  const dir = mkdtempSync(join(tmpdir(), 'inspect-spans-'));
  const file = join(dir, 'agent.otlp.jsonl');
  // Two traces in one file: each run's spans, summed, are the file's.
  writeFileSync(file, `${JSON.stringify(generateAgentTrace(30, 'genai', 0))}\n${JSON.stringify(generateAgentTrace(20, 'custom', 1))}\n`);

  it('prints the report and the spans of each run (--json)', async () => {
    const r = await runCliAsync('inspect', [file, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { files: Array<{ report: { read: number; toolCalls: number; plain: number; dropped: unknown[] }; runs: Array<{ spans: number }> }> };
    const [f] = out.files;
    expect(f.report).toMatchObject({ read: 500, toolCalls: 50, modelCalls: 50, agents: 2, dropped: [] });
    expect(f.runs.map((run) => run.spans)).toEqual([300, 200]);
  });

  it('prints a line per file in text', async () => {
    const r = await runCliAsync('inspect', [file]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('500 spans: 2 agent spans, 50 model calls, 50 tool calls, 398 kept as spans, none dropped');
    expect(r.stdout).toContain('agent research-agent by gen_ai.agent.name');
  });
});
