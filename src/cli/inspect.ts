// `inspect <file…> [--format <id>] --json` (SPEC §7).
import { detectLoops } from '../model/loops.ts';
import { stepTree, type StepTree } from '../model/run-index.ts';
import { countStepKinds, stepsByKindRecord } from '../model/steps.ts';
import { summarizeRun } from '../model/summary.ts';
import { toolCallCounts } from '../model/tool-calls.ts';
import type { Run, SpanReport } from '../model/types.ts';
import { spanReportExtras, spanReportLine, sumSpanReports } from '../model/span-report.ts';
import { CliError, parseArgs, printJson, readTraceFiles, stringFlag } from './io.ts';
import { printOut } from './terminal.ts';

export function inspectCommand(argv: string[]): void {
  const args = parseArgs(argv, new Set(['json']), new Set(['format']));
  if (args.positional.length === 0) throw new CliError('usage', 'inspect needs at least one file');
  const files = readTraceFiles(args.positional, stringFlag(args, 'format'), { folders: true });
  const report = inspectReport(files);
  if (args.flags.has('json')) {
    printJson(report);
    return;
  }
  writeText(report);
}

/** The `inspect --json` report of files already read (SPEC §7). */
export function inspectReport(files: readonly { file: string; format: string; runs: readonly Run[] }[]) {
  return {
    files: files.map((f) => ({
      file: f.file,
      format: f.format,
      // Span imports: what became of every span read (issue 20); absent for formats without spans.
      ...spanReportOf(f.runs),
      runs: f.runs.map((run) => {
        // The rows and their nested steps, found once for every figure below.
        const tree = stepTree(run.steps);
        const s = summarizeRun(run);
        // Tool names come from the file: a record without a prototype.
        const toolCalls: Record<string, number> = Object.create(null);
        for (const [name, n] of toolCallCounts(run, tree)) toolCalls[name] = n;
        return {
          id: s.id,
          title: s.title,
          agents: s.agents,
          // Rows of the run view's step list (SPEC §7, model/steps.ts), the count every view shows.
          steps: s.steps,
          steps_by_kind: stepsByKindRecord(countStepKinds(tree.replaySteps)),
          tool_calls: toolCalls,
          handoffs: s.handoffs,
          tokens: { input: s.tokens.input, output: s.tokens.output, total: s.tokens.total },
          annotations: s.annotations,
          outcome: s.outcome,
          loops: loopsOf(run, tree),
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
}

function writeText(report: ReturnType<typeof inspectReport>): void {
  for (const f of report.files) {
    printOut`${f.file} (${f.format})\n`;
    if (f.report) {
      printOut`  ${spanReportLine(f.report)}\n`;
      const extras = spanReportExtras(f.report);
      if (extras) printOut`  ${extras}\n`;
      const rules = [...f.report.agentRules.map((r) => `agent ${r.name} by ${r.rule}`), ...f.report.toolRules.map((r) => `tool ${r.name} by ${r.rule}`)];
      if (rules.length) printOut`  named: ${rules.join('; ')}\n`;
    }
    for (const r of f.runs) {
      printOut`  ${r.id}  ${r.title}\n    ${r.steps} steps, ${r.handoffs} handoffs, ${r.tokens.total} tokens, ${r.annotations} annotations, outcome ${r.outcome}\n`;
      const kinds = Object.entries(r.steps_by_kind).map(([kind, n]) => `${n} ${kind}`);
      if (kinds.length > 0) printOut`    steps by kind: ${kinds.join(', ')}\n`;
      const calls = Object.entries(r.tool_calls).map(([name, n]) => `${name} ×${n}`);
      if (calls.length > 0) printOut`    tool calls: ${calls.join(', ')}\n`;
      for (const a of r.agents) printOut`    - ${a.name}: ${a.steps} steps, ${a.tokens} tokens\n`;
      for (const l of r.loops) printOut`    loop (${l.agents.join(', ')}): ${l.label} at ${stepList(l.steps)}, ${l.tokens} tokens\n`;
    }
  }
}

/** Pieces of a loop's step list the text output writes before it says how many more there are. */
const STEP_PIECES = 12;

/**
 * A loop's 1-based step numbers for a person to read: runs of consecutive steps as ranges (`18–21`), at most
 * STEP_PIECES pieces and then the count of the rest and the last step. A loop over a million-step chat log listed
 * every number, a line of 7.8 MB; `--json` still gives them all (SPEC §7).
 */
export function stepList(steps: readonly number[]): string {
  if (steps.length === 0) return 'no steps';
  const pieces: string[] = [];
  let i = 0;
  while (i < steps.length && pieces.length < STEP_PIECES) {
    let j = i;
    while (j + 1 < steps.length && steps[j + 1] === steps[j] + 1) j++;
    pieces.push(j === i ? String(steps[i]) : j === i + 1 ? `${steps[i]}, ${steps[j]}` : `${steps[i]}–${steps[j]}`);
    i = j + 1;
  }
  const word = steps.length === 1 && !pieces[0].includes('–') ? 'step' : 'steps';
  if (i >= steps.length) return `${word} ${pieces.join(', ')}`;
  const rest = steps.length - i;
  return `steps ${pieces.join(', ')} and ${rest.toLocaleString('en')} more to step ${steps[steps.length - 1]} (${steps.length.toLocaleString('en')} in all)`;
}

/** The run's loops as the run view shows them: step numbers are 1-based positions in its step list. */
function loopsOf(run: Run, tree: StepTree) {
  const names = new Map(run.agents.map((a) => [a.id, a.name]));
  return detectLoops(tree.replaySteps, tree.childrenOf, {}, run.agents.flatMap((a) => [a.id, a.name])).map((l) => ({
    agents: l.agentIds.map((id) => names.get(id) ?? id),
    label: l.label,
    steps: l.positions.map((p) => p + 1),
    tokens: l.tokens,
  }));
}

function spanReportOf(runs: readonly Run[]): { report?: SpanReport } {
  const report = sumSpanReports(runs.map((r) => r.spanReport));
  return report ? { report } : {};
}
