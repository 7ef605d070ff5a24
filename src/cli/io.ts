// Shared plumbing of the command line: argument parsing, reading trace files, the one-line error contract (SPEC §7).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { attachAnnotationSets, importBytes, ImportError, type ImportedFile } from '../import/index.ts';
import { MAX_FILE_BYTES } from '../import/parse-input.ts';
import { originOf, withDefaults, type LlmRole, type LlmSettings } from '../llm/index.ts';

/** Bad input or usage: printed as `error: <file>: <what>` and exit code 2. */
export class CliError extends Error {
  constructor(
    readonly file: string,
    what: string,
  ) {
    super(what);
  }
}

export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string | true>;
}

/**
 * `--name value`, `--name=value` and boolean `--name`. `booleans` lists the flags that take no value, `values` those
 * that take one; any other flag is a usage error.
 */
export function parseArgs(argv: string[], booleans: Set<string>, values: Set<string>): ParsedArgs {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      if (!booleans.has(name) && !values.has(name)) throw new CliError('usage', `unknown option --${name}`);
      if (eq !== -1) flags.set(name, arg.slice(eq + 1));
      else if (booleans.has(name)) flags.set(name, true);
      else {
        const value = argv[i + 1];
        if (value === undefined || value.startsWith('--')) throw new CliError('usage', `--${name} needs a value`);
        flags.set(name, value);
        i++;
      }
    } else positional.push(arg);
  }
  return { positional, flags };
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  if (v === true) throw new CliError('usage', `--${name} needs a value`);
  return v;
}

export function numberFlag(args: ParsedArgs, name: string): number | undefined {
  const v = stringFlag(args, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new CliError('usage', `--${name} must be a number, got ${JSON.stringify(v)}`);
  return n;
}

export function readTraceFile(file: string, format?: string): ImportedFile {
  if (!existsSync(file)) throw new CliError(file, 'no such file');
  const stat = statSync(file);
  if (stat.isDirectory()) throw new CliError(file, 'is a directory, not a trace file');
  if (stat.size > MAX_FILE_BYTES) throw new CliError(file, `file is larger than the ${MAX_FILE_BYTES / 1048576} MB limit`);
  try {
    return importBytes(file, readFileSync(file), { format });
  } catch (e) {
    if (e instanceof ImportError) {
      const where = [e.format !== 'unknown' ? `${e.format}` : '', e.location].filter(Boolean).join(' at ');
      throw new CliError(file, where ? `${where}: ${e.detail}` : e.detail);
    }
    throw e;
  }
}

/** TRAIL keeps annotations in `annotations/<trace_id>.json` beside the traces' folder: load them when present. */
function companionAnnotationFiles(file: string, runIds: string[]): string[] {
  const found: string[] = [];
  for (const id of runIds) {
    if (!/^[\w.-]+$/.test(id)) continue;
    for (const dir of [join(dirname(file), 'annotations'), join(dirname(file), '..', 'annotations')]) {
      const candidate = join(dir, `${id}.json`);
      if (existsSync(candidate)) found.push(candidate);
    }
  }
  return found;
}

/** Read several files; annotation files attach to the runs they name, from any of the files. */
export function readTraceFiles(files: string[], format?: string): ImportedFile[] {
  const imported = files.map((f) => readTraceFile(f, format));
  const allRuns = imported.flatMap((f) => f.runs);
  const sets = imported.flatMap((f) => f.annotationSets);
  if (sets.length === 0) {
    for (const f of imported) {
      for (const companion of companionAnnotationFiles(f.file, f.runs.map((r) => r.id))) {
        try {
          sets.push(...readTraceFile(companion).annotationSets);
        } catch {
          // A broken companion file must not stop the trace from being read; it is simply not attached.
        }
      }
    }
  }
  attachAnnotationSets(allRuns, sets);
  return imported;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * `[--offline | --endpoint URL --model M]`, checked the same way by every command that can call a model: the endpoint
 * and model, or undefined for offline. `alsoNeedEndpoint` names further flags that only make sense with an endpoint.
 */
export function endpointFlags(args: ParsedArgs, alsoNeedEndpoint: string[] = []): { endpoint: string; model: string } | undefined {
  const endpoint = stringFlag(args, 'endpoint');
  const model = stringFlag(args, 'model');
  if (endpoint !== undefined && args.flags.has('offline')) throw new CliError('usage', '--offline and --endpoint exclude each other');
  if (endpoint !== undefined && model === undefined) throw new CliError('usage', '--endpoint needs --model');
  const orphans = ['model', ...alsoNeedEndpoint].filter((f) => stringFlag(args, f) !== undefined).map((f) => `--${f}`);
  if (endpoint === undefined && orphans.length > 0) throw new CliError('usage', `${orphans.join(' and ')} need${orphans.length === 1 ? 's' : ''} --endpoint`);
  if (endpoint !== undefined && !/^https?:\/\/[^\s]+$/.test(endpoint)) throw new CliError('usage', `--endpoint must be an http(s) URL, got ${JSON.stringify(endpoint)}`);
  return endpoint === undefined ? undefined : { endpoint, model: model! };
}

/**
 * Endpoint settings for a command. The API key comes from MAS_REPLAY_API_KEY, never from a flag, so it shows in no
 * process list or shell history; MAS_REPLAY_RETRY_BASE_MS shortens the backoff (tests).
 */
export function endpointSettings(baseUrl: string, models: Partial<Record<LlmRole, string>>): LlmSettings {
  return withDefaults({
    baseUrl,
    models,
    // The key in the environment is meant for the endpoint named on this command line, and for its origin only.
    apiKey: process.env.MAS_REPLAY_API_KEY ? { key: process.env.MAS_REPLAY_API_KEY, origin: originOf(baseUrl) ?? '' } : undefined,
    retryBaseMs: Number(process.env.MAS_REPLAY_RETRY_BASE_MS ?? 1000),
  });
}
