// The command line: the same importers and engines as the studio, for batches and checks (SPEC §7).
// Each command lives in its own module and registers here.
import { recordOf } from '../model/record.ts';
import { batchCommand, BATCH_USAGE } from './batch.ts';
import { clarifyCommand, CLARIFY_USAGE } from './clarify.ts';
import { convertCommand, CONVERT_USAGE } from './convert.ts';
import { inspectCommand } from './inspect.ts';
import { CliError } from './io.ts';
import { outVerbatim, printError } from './terminal.ts';
import { stagesCommand, STAGES_USAGE } from './stages.ts';
import { rectifyCommand, RECTIFY_USAGE } from './rectify.ts';
import { superviseCommand, SUPERVISE_USAGE } from './supervise.ts';

/** A command may return its exit code (e.g. 1 when an endpoint failure stopped it after printing partial results). */
type Command = (argv: string[]) => void | number | Promise<void | number>;

const COMMANDS: Record<string, Command> = recordOf({
  inspect: inspectCommand,
  supervise: superviseCommand,
  stages: stagesCommand,
  rectify: rectifyCommand,
  batch: batchCommand,
  convert: convertCommand,
  clarify: clarifyCommand,
});

const USAGE = `usage: mas-replay <command> [options]
commands:
  inspect <file|folder…> [--format <id>] [--json]   list the runs, agents, steps and tokens in trace files (a folder: all traces in it)
  ${SUPERVISE_USAGE}
  ${STAGES_USAGE}
  ${RECTIFY_USAGE}
  ${BATCH_USAGE}
  ${CLARIFY_USAGE}
  ${CONVERT_USAGE}`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    outVerbatim(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  try {
    if (!command) throw new CliError('usage', `unknown command ${JSON.stringify(name)}; try --help`);
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
