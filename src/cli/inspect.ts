// `inspect <file…> [--format <id>] --json` (SPEC §7).
import { detectLoops } from '../model/loops.ts';
import { indexRun } from '../model/run-index.ts';
import { summarizeRun } from '../model/summary.ts';
import { CliError, parseArgs, printJson, readTraceFiles, stringFlag } from './io.ts';

export function inspectCommand(argv: string[]): void {
  const args = parseArgs(argv, new Set(['json']), new Set(['format']));
  if (args.positional.length === 0) throw new CliError('usage', 'inspect needs at least one file');
  const files = readTraceFiles(args.positional, stringFlag(args, 'format'), { folders: true });
  const report = {
    files: files.map((f) => ({
      file: f.file,
      format: f.format,
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
          loops: loopsOf(run),
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
    for (const r of f.runs) {
      process.stdout.write(
        `  ${r.id}  ${r.title}\n    ${r.steps} steps, ${r.handoffs} handoffs, ${r.tokens.total} tokens, ${r.annotations} annotations, outcome ${r.outcome}\n`,
      );
      for (const a of r.agents) process.stdout.write(`    - ${a.name}: ${a.steps} steps, ${a.tokens} tokens\n`);
      for (const l of r.loops) process.stdout.write(`    loop (${l.agents.join(', ')}): ${l.label} at steps ${l.steps.join(', ')}, ${l.tokens} tokens\n`);
    }
  }
}

/** The run's loops as the run view shows them: step numbers are 1-based positions in its step list. */
function loopsOf(run: Parameters<typeof summarizeRun>[0]) {
  const index = indexRun(run);
  const names = new Map(run.agents.map((a) => [a.id, a.name]));
  return detectLoops(index.replaySteps, index.childrenOf, {}, run.agents.flatMap((a) => [a.id, a.name])).map((l) => ({
    agents: l.agentIds.map((id) => names.get(id) ?? id),
    label: l.label,
    steps: l.positions.map((p) => p + 1),
    tokens: l.tokens,
  }));
}
