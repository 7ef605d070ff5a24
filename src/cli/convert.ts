// `convert <file> --to native|otlp --out <file>` (SPEC §7): any readable trace file as a native session (lossless,
// recorded LLM calls included) or as strict OTLP/JSON (interventions and labels as `gen_ai.evaluation.result`
// events; see src/export/otlp.ts for what OTLP cannot hold).
import { writeFileSync } from 'node:fs';
import { exportSession } from '../export/native.ts';
import { exportOtlp } from '../export/otlp.ts';
import { CliError, parseArgs, printJson, readTraceFile, stringFlag } from './io.ts';
import { printOut } from './terminal.ts';

export const CONVERT_USAGE = 'convert <file> --to native|otlp --out <file> [--json]   write the runs of a trace file as a native session or as OTLP/JSON';

const TARGETS = ['native', 'otlp'] as const;

export function convertCommand(argv: string[]): void {
  const args = parseArgs(argv, new Set(['json']), new Set(['to', 'out', 'format']));
  if (args.positional.length !== 1) throw new CliError('usage', 'convert needs exactly one input file');
  const to = stringFlag(args, 'to');
  if (!to || !(TARGETS as readonly string[]).includes(to)) throw new CliError('usage', `--to must be one of ${TARGETS.join(', ')}${to ? `, got ${JSON.stringify(to)}` : ''}`);
  const out = stringFlag(args, 'out');
  if (!out) throw new CliError('usage', 'convert needs --out <file>');
  const [input] = args.positional;
  const file = readTraceFile(input, stringFlag(args, 'format'));
  if (file.runs.length === 0) throw new CliError(input, `no runs to convert (a ${file.formatLabel} file only annotates runs from other files)`);
  const text = to === 'native' ? exportSession({ runs: file.runs, llmCalls: file.llmCalls, engineSettings: file.engineSettings, title: input }) : exportOtlp(file.runs);
  try {
    writeFileSync(out, `${text}\n`);
  } catch (e) {
    throw new CliError(out, `cannot write: ${e instanceof Error ? e.message : String(e)}`);
  }
  const report = { file: input, format: file.format, to, out, runs: file.runs.length, bytes: Buffer.byteLength(text) + 1 };
  if (args.flags.has('json')) printJson(report);
  else printOut`${input} (${file.format}) → ${out} (${to}): ${report.runs} run${report.runs === 1 ? '' : 's'}, ${report.bytes} bytes\n`;
}
