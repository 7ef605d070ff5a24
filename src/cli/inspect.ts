// `inspect <file…> [--format <id>] --json` (SPEC §7).
import { spanReportLine, sumSpanReports } from '../model/span-report.ts';
import { summarizeRun } from '../model/summary.ts';
import type { Run, SpanReport } from '../model/types.ts';
import { CliError, parseArgs, printJson, readTraceFiles, stringFlag } from './io.ts';

export function inspectCommand(argv: string[]): void {
  const args = parseArgs(argv, new Set(['json']), new Set(['format']));
  if (args.positional.length === 0) throw new CliError('usage', 'inspect needs at least one file');
  const files = readTraceFiles(args.positional, stringFlag(args, 'format'), { folders: true });
  const report = {
    files: files.map((f) => ({
      file: f.file,
      format: f.format,
      // Span imports: what became of every span read (issue 20); absent for formats without spans.
      ...spanReportOf(f.runs),
      runs: f.runs.map((run) => {
        const s = summarizeRun(run);
        return {
          id: s.id,
          title: s.title,
          agents: s.agents,
          steps: s.steps,
          handoffs: s.handoffs,
          tokens: { input: s.tokens.input, output: s.tokens.output, total: s.tokens.total },
          annotations: s.annotations,
          outcome: s.outcome,
          // Every span of the run in the file (the runs of a file sum to its span count).
          ...(run.spanReport ? { spans: run.spanReport.read } : {}),
          // Result-only runs: the benchmark's own scores and the duration it recorded (SPEC §7).
          ...(run.benchmark
            ? {
                scores: { exact_match: run.benchmark.exactMatch, contains: run.benchmark.contains },
                ...(run.benchmark.durationS !== undefined ? { duration_s: run.benchmark.durationS } : {}),
              }
            : {}),
        };
      }),
    })),
  };
  if (args.flags.has('json')) {
    printJson(report);
    return;
  }
  for (const f of report.files) {
    process.stdout.write(`${f.file} (${f.format})\n`);
    if (f.report) {
      process.stdout.write(`  ${spanReportLine(f.report)}\n`);
      const rules = [...f.report.agentRules.map((r) => `agent ${r.name} by ${r.rule}`), ...f.report.toolRules.map((r) => `tool ${r.name} by ${r.rule}`)];
      if (rules.length) process.stdout.write(`  named: ${rules.join('; ')}\n`);
    }
    for (const r of f.runs) {
      process.stdout.write(
        `  ${r.id}  ${r.title}\n    ${r.steps} steps, ${r.handoffs} handoffs, ${r.tokens.total} tokens, ${r.annotations} annotations, outcome ${r.outcome}\n`,
      );
      for (const a of r.agents) process.stdout.write(`    - ${a.name}: ${a.steps} steps, ${a.tokens} tokens\n`);
    }
  }
}

function spanReportOf(runs: Run[]): { report?: SpanReport } {
  const report = sumSpanReports(runs.map((r) => r.spanReport));
  return report ? { report } : {};
}
