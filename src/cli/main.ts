// The command line: the same importers and engines as the studio, for batches and checks (SPEC §7).
// Each command lives in its own module and registers here.
import { recordOf } from '../model/record.ts';
import { CliError } from './io.ts';
import { outVerbatim, printError } from './terminal.ts';

/** A command may return its exit code (e.g. 1 when an endpoint failure stopped it after printing partial results). */
type Command = (argv: string[]) => void | number | Promise<void | number>;

// Each command's module is loaded when it runs (in the bundle, a chunk of its own: ADR 0019), so `inspect` does not
// load the engines and the endpoint client of the others.
const COMMANDS: Record<string, () => Promise<Command>> = recordOf({
  inspect: async () => (await import('./inspect.ts')).inspectCommand,
  supervise: async () => (await import('./supervise.ts')).superviseCommand,
  stages: async () => (await import('./stages.ts')).stagesCommand,
  rectify: async () => (await import('./rectify.ts')).rectifyCommand,
  batch: async () => (await import('./batch.ts')).batchCommand,
  convert: async () => (await import('./convert.ts')).convertCommand,
  clarify: async () => (await import('./clarify.ts')).clarifyCommand,
});

async function usage(): Promise<string> {
  const [supervise, stages, rectify, batch, clarify, convert] = await Promise.all([
    import('./supervise.ts'),
    import('./stages.ts'),
    import('./rectify.ts'),
    import('./batch.ts'),
    import('./clarify.ts'),
    import('./convert.ts'),
  ]);
  return `usage: mas-replay <command> [options]
commands:
  inspect <file|folder…> [--format <id>] [--json]   list the runs, agents, steps and tokens in trace files (a folder: all traces in it)
  ${supervise.SUPERVISE_USAGE}
  ${stages.STAGES_USAGE}
  ${rectify.RECTIFY_USAGE}
  ${batch.BATCH_USAGE}
  ${clarify.CLARIFY_USAGE}
  ${convert.CONVERT_USAGE}`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    outVerbatim(`${await usage()}\n`);
    return name === undefined ? 2 : 0;
  }
  const load = COMMANDS[name];
  try {
    if (!load) throw new CliError('usage', `unknown command ${JSON.stringify(name)}; try --help`);
    const command = await load();
    const code = await command(rest);
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    if (e instanceof CliError) {
      printError(e.file, e.message);
      return 2;
    }
    const message = e instanceof Error ? e.message : String(e);
    printError('internal', message);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
