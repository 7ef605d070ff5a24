// Shared plumbing of the command line: argument parsing, reading trace files, the one-line error contract (SPEC §7).
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readdirSync, readSync, statSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import { detectOrImportText, detectParsed, importDetected, ImportError, jsonLinesReaderFor, type DetectedInput, type ImportedFile } from '../import/index.ts';
import { isBusMessage } from '../import/formats/bus-messages.ts';
import { documentKind, gunzipPieces, JSON_LINES_NAME, readJsonLinesSync, startsJsonLines } from '../import/jsonl-stream.ts';
import { attachAnnotationSets } from '../model/annotations.ts';
import { formatMb, isGzipStart, pastWholeLimit } from '../import/gunzip.ts';
import { DecodedPastLimitError, MAX_FILE_BYTES, TraceDecoder, TRACE_FILE_NAME } from '../import/parse-input.ts';
import { originOf, withDefaults, type LlmRole, type LlmSettings } from '../llm/index.ts';
import { appendAll } from '../model/large-arrays.ts';

/** Bad input or usage: printed as `error: <file>: <what>` and exit code 2. */
export class CliError extends Error {
  constructor(
    readonly file: string,
    what: string,
    options?: { cause?: unknown },
  ) {
    super(what, options);
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

/** What a path is when it is not a regular file, for the error line. */
function kindOf(stat: Stats): string | undefined {
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a directory';
  return stat.isFile() ? undefined : 'not a regular file';
}

/** The one-line reason a path cannot be opened, from its error code. */
function openProblem(file: string, e: unknown): CliError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') {
    let dangling = false;
    try {
      dangling = lstatSync(file).isSymbolicLink();
    } catch {
      // not there at all
    }
    return new CliError(file, dangling ? 'is a broken symbolic link (what it points to does not exist)' : 'no such file');
  }
  if (code === 'ELOOP') return new CliError(file, 'is a symbolic link loop (too many levels of symbolic links)');
  if (code === 'EACCES' || code === 'EPERM') return new CliError(file, 'permission denied');
  if (code === 'ENOTDIR') return new CliError(file, 'no such file (a part of the path is not a folder)');
  if (code === 'ENAMETOOLONG') return new CliError(file, 'the file name is too long');
  return new CliError(file, `cannot be read (${code ?? (e instanceof Error ? e.message : String(e))})`);
}

/**
 * The text of a trace file. Only regular files are read: pipes, devices and sockets are refused from what stat says,
 * before anything is opened (a FIFO with no writer would block the open), and again from the opened descriptor. The
 * bytes are read in chunks and decoded as they come, with the size limit applied to what is read and decoded.
 */
export function readTraceText(file: string, maxBytes = MAX_FILE_BYTES): string {
  let stat: Stats;
  try {
    stat = statSync(file);
  } catch (e) {
    throw openProblem(file, e);
  }
  const kind = kindOf(stat);
  if (kind === 'a directory') throw new CliError(file, 'is a directory, not a trace file');
  if (kind) throw new CliError(file, `is ${kind}, not a regular file; only regular files are read`);
  if (stat.size > maxBytes) throw new CliError(file, `file is larger than the ${formatMb(maxBytes)} limit`);
  let fd: number;
  try {
    // Non-blocking, so that a path swapped for a FIFO after the stat above still cannot hang the open.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    throw openProblem(file, e);
  }
  try {
    const openedStat = fstatSync(fd);
    const opened = kindOf(openedStat);
    if (opened) throw new CliError(file, `is ${opened}, not a regular file; only regular files are read`);
    const decoder = new TraceDecoder(file, { maxBytes });
    // The whole file into one buffer of its size, decoded in one call into one string: read in pieces, the text
    // was decoded piece by piece and joined, a second copy of it (ADR 0019). One byte past the limit is enough for
    // the decoder to refuse a file that grew past it since the stat above.
    const size = Math.min(openedStat.size, maxBytes + 1);
    const whole = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const n = readSync(fd, whole, filled, size - filled, null);
      if (n === 0) break;
      filled += n;
    }
    if (filled > 0) decoder.push(whole.subarray(0, filled));
    // Whatever is left (a file that grew since its size was taken, or one whose size says nothing), in pieces.
    for (;;) {
      // A fresh buffer each time: the decoder keeps a reference to the last bytes it was given.
      const buf = new Uint8Array(1 << 20);
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      decoder.push(buf.subarray(0, n));
    }
    return decoder.finish();
  } catch (e) {
    if (e instanceof ImportError) throw cliErrorOf(file, e);
    throw e;
  } finally {
    closeSync(fd);
  }
}

function cliErrorOf(file: string, e: ImportError): CliError {
  const where = [e.format !== 'unknown' ? `${e.format}` : '', e.location].filter(Boolean).join(' at ');
  return new CliError(file, where ? `${where}: ${e.detail}` : e.detail, { cause: e });
}

export function readTraceFile(file: string, format?: string, maxBytes = MAX_FILE_BYTES): ImportedFile {
  try {
    const read = readStreamed(file, format, maxBytes) ?? readAndDetect(file, format, maxBytes, () => readStreamed(file, format, maxBytes, true));
    return 'importer' in read ? importDetected(read) : read;
  } catch (e) {
    if (e instanceof ImportError) throw cliErrorOf(file, e);
    throw e;
  }
}

/**
 * Read, parse and detect in a frame of its own: when it returns, nothing refers to the text any longer (the parsed
 * input drops it unless its importer reads it), so the text can be collected while the runs are built (ADR 0019).
 * A JSON array of OTLP documents is imported here already, one document at a time from the text (detectOrImportText:
 * the same file, without the whole parse tree; ADR 0047).
 */
function readAndDetect(file: string, format: string | undefined, maxBytes: number, streamed: () => DetectedInput | undefined): DetectedInput | ImportedFile {
  let text: string;
  try {
    text = readTraceText(file, maxBytes);
  } catch (e) {
    // gzip of several members, the last one small: its trailer said it fits, and it did not. Read as a stream.
    const doc = e instanceof CliError && e.cause instanceof DecodedPastLimitError ? streamed() : undefined;
    if (doc) return doc;
    throw e;
  }
  return detectOrImportText(file, text, { format, dropText: true });
}

/** Bytes looked at to tell JSON Lines or an OTLP document (read as a stream past the limit) from anything else. */
const HEAD_BYTES = 1 << 20;

/** The first `size` bytes (or all, if fewer) of what `next` gives. */
function firstBytes(next: () => Uint8Array | undefined, size: number): Uint8Array {
  const head = new Uint8Array(size);
  let filled = 0;
  for (let bytes = next(); bytes !== undefined && filled < size; bytes = filled < size ? next() : undefined) {
    const n = Math.min(bytes.length, size - filled);
    head.set(bytes.subarray(0, n), filled);
    filled += n;
  }
  return head.subarray(0, filled);
}

/**
 * A regular file over `maxBytes` that is UTF-8 JSON Lines or one OTLP/JSON document, plain or gzip-compressed (and
 * then decoding to more than `maxBytes`), read as a stream as the studio reads it (jsonl-stream.ts, ADR 0023, 0028
 * and 0080), so that it is never one string; undefined for anything else, which readTraceText reads whole or refuses
 * with its reason.
 */
function readStreamed(file: string, format: string | undefined, maxBytes: number, pastLimit = false): DetectedInput | undefined {
  let stat: Stats;
  try {
    stat = statSync(file);
  } catch {
    return undefined; // readTraceText says why
  }
  if (!stat.isFile()) return undefined;
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    // A file within the limit is read whole, unless it is gzip decoding to more than the limit (its trailer says so).
    // A gzip file past the limit is read as a stream whatever its trailer says (several members: the last one's size).
    const magic = new Uint8Array(2);
    const gzip = readSync(fd, magic, 0, 2, 0) === 2 && isGzipStart(magic);
    const last4 = new Uint8Array(4);
    if (gzip) readSync(fd, last4, 0, 4, Math.max(0, stat.size - 4));
    // `pastLimit`: a gzip file that decoded past the limit though its trailer said less (several members).
    if (!pastLimit && !pastWholeLimit(stat.size, maxBytes, gzip ? last4 : undefined)) return undefined;
    // A reading of the file from its start, decoded when it is gzip.
    const open = (): (() => Uint8Array | undefined) => {
      let at = 0;
      const next = () => {
        // A fresh buffer each time: the decoder keeps a reference to the last bytes it was given.
        const buf = new Uint8Array(1 << 20);
        const n = readSync(fd, buf, 0, buf.length, at);
        at += n;
        return n === 0 ? undefined : buf.subarray(0, n);
      };
      return gzip ? gunzipPieces(file, next) : next;
    };
    const first = firstBytes(open(), HEAD_BYTES);
    const lines = startsJsonLines(first, JSON_LINES_NAME.test(file.replace(/\.gz$/i, '')));
    const document = lines ? undefined : documentKind(first);
    if (!lines && !document) return undefined;
    const doc = readJsonLinesSync(file, open, { hashWhen: isBusMessage, lineReader: jsonLinesReaderFor, document });
    return detectParsed(file, doc, format);
  } finally {
    closeSync(fd);
  }
}

/** The trace files in a folder and all its subfolders (as the studio's "Open folder…"), in path order. */
export function traceFilesInFolder(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    const entries = readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(d, entry.name);
      // Linked folders are not followed (a link back up would never end); linked files are read like any other.
      if (entry.isDirectory()) walk(path);
      else if (TRACE_FILE_NAME.test(entry.name)) found.push(path);
    }
  };
  walk(dir);
  if (found.length === 0) throw new CliError(dir, 'is a folder with no trace files (.json, .jsonl, .ndjson, .gz) in it');
  return found;
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

/**
 * Read several files; annotation files attach to the runs they name, from any of the files. With `folders`, a folder
 * named among them stands for the trace files in it.
 */
export function readTraceFiles(paths: string[], format?: string, { folders = false } = {}): ImportedFile[] {
  const files = folders ? paths.flatMap((p) => (isFolder(p) ? traceFilesInFolder(p) : [p])) : paths;
  const imported = files.map((f) => readTraceFile(f, format));
  const allRuns = imported.flatMap((f) => f.runs);
  const sets = imported.flatMap((f) => f.annotationSets);
  if (sets.length === 0) {
    for (const f of imported) {
      for (const companion of companionAnnotationFiles(f.file, f.runs.map((r) => r.id))) {
        try {
          appendAll(sets, readTraceFile(companion).annotationSets);
        } catch {
          // A broken companion file must not stop the trace from being read; it is simply not attached.
        }
      }
    }
  }
  attachAnnotationSets(allRuns, sets);
  return imported;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export { printJson } from './terminal.ts';

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
