// The only entry point for reading trace files. Detection runs in two passes (SPEC §3): importers whose file-name
// pattern matches are tried first, then every importer by content. Importers' sniffers are exact enough that the
// file name only breaks ties, so a file re-imported under an unknown name gives the identical result.
import { implausibleValueWarnings } from './implausible-values.ts';
import { checkJsonDepth, MAX_JSON_DEPTH } from './json-depth.ts';
import { parseObjectInPieces } from './json-pieces.ts';
import { FormatProblem, ImportError } from './errors.ts';
import type { FormatId, FormatImporter, ImportResult } from './format.ts';
import { agentRxGroundTruthImporter } from './formats/agentrx-ground-truth.ts';
import { chatLogImporter } from './formats/chat-log.ts';
import { langfuseImporter } from './formats/langfuse.ts';
import { busMessagesImporter } from './formats/bus-messages.ts';
import { messageBusImporter } from './formats/message-bus.ts';
import { nativeImporter } from './formats/native.ts';
import { openAiChatImporter } from './formats/openai-chat.ts';
import { importOtlpArrayText, importOtlpDocumentText, OtlpLinesReader, otlpImporter } from './formats/otlp.ts';
import type { JsonLinesReader } from './jsonl-stream.ts';
import { decodeBytes, parseText, type ParsedInput } from './parse-input.ts';
import { spanAttributesImporter } from './formats/span-attributes.ts';
import { isSpanTreeFormatted, spanTreeImporter } from './formats/span-tree.ts';
import { trailAnnotationsImporter } from './formats/trail-annotations.ts';

export { ImportError } from './errors.ts';
export type { FormatId, ImportResult, AnnotationSet, LoadedFile } from './format.ts';

/** Order matters only among sniffers that could both accept a document: the more specific comes first. */
export const IMPORTERS: FormatImporter[] = [
  nativeImporter,
  spanTreeImporter,
  trailAnnotationsImporter,
  otlpImporter,
  langfuseImporter,
  chatLogImporter,
  openAiChatImporter,
  agentRxGroundTruthImporter,
  busMessagesImporter,
  messageBusImporter,
  // Last: a bare attribute map is the least specific shape.
  spanAttributesImporter,
];

export interface ImportedFile extends ImportResult {
  file: string;
  format: FormatId;
  formatLabel: string;
}

export function findImporter(id: string): FormatImporter | undefined {
  return IMPORTERS.find((i) => i.id === id);
}

function detect(file: string, doc: ParsedInput): FormatImporter {
  const byName = IMPORTERS.filter((i) => i.fileName?.test(file));
  for (const importer of byName) if (safeSniff(importer, doc)) return importer;
  for (const importer of IMPORTERS) if (safeSniff(importer, doc)) return importer;
  throw new ImportError(
    file,
    'unknown',
    '',
    `not a recognised trace format (tried: ${IMPORTERS.map((i) => i.id).join(', ')})`,
  );
}

function safeSniff(importer: FormatImporter, doc: ParsedInput): boolean {
  try {
    return importer.sniff(doc);
  } catch {
    return false;
  }
}

export interface ImportOptions {
  /** Skip detection and use this format. */
  format?: string;
}

export function importText(file: string, text: string, options: ImportOptions = {}): ImportedFile {
  const read = detectOrImportText(file, text, options);
  return 'importer' in read ? importDetected(read) : read;
}

/**
 * detectText, except that a JSON array of OTLP documents is imported here already, a document at a time from the
 * text (ADR 0047), and so is one OTLP document, its spans a batch at a time (importOtlpInPieces), and
 * a chat log's messages are parsed in batches (parseChatLogText); `onDocument`
 * is told how far into the text either is. The one place importText, the command line and the import worker decide
 * which path a text takes.
 */
export function detectOrImportText(
  file: string,
  text: string,
  options: ImportOptions & { dropText?: boolean; onDocument?: (end: number, read: boolean) => void } = {},
): DetectedInput | ImportedFile {
  const early = importOtlpInPieces(file, text, options, options.onDocument);
  if (early) return early;
  // A chat log's messages are parsed in batches, `onDocument` told how far (the same value as parseText's).
  const doc = parseChatLogText(text, options.onDocument);
  return doc ? detectDoc(file, doc, options) : detectText(file, text, options);
}

/**
 * A text that is one object with a `history` or `chat_history` array (a chat log's shape, SPEC §3) parsed as
 * parseText would parse it, the array's elements in batches (parseObjectInPieces), with the run id's hash computed
 * along and its depth checked; undefined for any other text, or anything unusual in it (then parseText parses it, and
 * raises any error).
 */
function parseChatLogText(text: string, onDocument?: (end: number, read: boolean) => void): ParsedInput | undefined {
  const pieces = parseObjectInPieces(text, { arrayKeys: CHAT_LOG_ARRAYS, hash: true, maxDepth: MAX_JSON_DEPTH, onProgress: onDocument && ((end) => onDocument(end, false)) });
  if (!pieces) return undefined;
  // Its depth checked as it was parsed (a document too deep was left to parseText, whose check says where).
  return { kind: 'json', value: pieces.value, text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, depthUnchecked: !pieces.depthChecked };
}

const CHAT_LOG_ARRAYS = ['history', 'chat_history'];

/**
 * An OTLP file read from its text in pieces: a JSON array of OTLP documents a document at a time (importOtlpArrayText,
 * ADR 0047), or one document whose only key is `resourceSpans` a batch of spans at a time (importOtlpDocumentText). The
 * same file as the whole-text path would give, or undefined (then that path runs, and raises any error). Only where
 * detection would try OTLP on it first: no format forced but OTLP, and no importer matched by the file name before it
 * except those that never take such an array or object (the native session needs its `format`, a span tree its
 * `spans`, TRAIL annotations their `errors`).
 */
function importOtlpInPieces(file: string, text: string, options: ImportOptions, onDocument?: (end: number, read: boolean) => void): ImportedFile | undefined {
  if (!otlpTriedFirst(file, options)) return undefined;
  try {
    const result = importOtlpArrayText(text, onDocument) ?? importOtlpDocumentText(text, onDocument);
    return result && withFileFacts(file, otlpImporter, result);
  } catch {
    return undefined;
  }
}

/** No format forced but OTLP, and no importer matched by the file name that could come before OTLP (see importOtlpInPieces). */
function otlpTriedFirst(file: string, options: ImportOptions): boolean {
  if (options.format !== undefined) return options.format === 'otlp';
  for (const importer of IMPORTERS) {
    if (importer === otlpImporter || importer === nativeImporter || importer === spanTreeImporter || importer === trailAnnotationsImporter) continue;
    if (importer.fileName?.test(file)) return false;
  }
  return true;
}

/** An importer's result as a file's: the implausible-value warnings added, the file and format named. */
function withFileFacts(file: string, importer: FormatImporter, result: ImportResult): ImportedFile {
  // The importer's progress goes on through the checks when its total kept room for a tick per step (chat logs).
  const { checksProgress: progress, ...rest } = result;
  const room = progress !== undefined && progress.left >= result.runs.reduce((n, r) => n + r.steps.length, 0);
  const implausible = implausibleValueWarnings(result.runs, room ? progress : undefined);
  const warnings = implausible.length > 0 ? [...result.warnings, ...implausible] : result.warnings;
  return { ...rest, warnings, file, format: importer.id, formatLabel: importer.label };
}

/** A parsed file and the importer that reads it: importText in two halves, for callers that hold the text apart. */
export interface DetectedInput {
  file: string;
  doc: ParsedInput;
  importer: FormatImporter;
}

/**
 * Parse and pick the importer (importText's first half). With `dropText`, the parsed input keeps no reference to the
 * text unless the importer reads it (`readsText`), so that a caller holding only the result lets the text go while
 * the run is built (the command line: a 100 MB file is otherwise held twice over, as text and as parsed values).
 */
export function detectText(file: string, text: string, options: ImportOptions & { dropText?: boolean } = {}): DetectedInput {
  // The depth check waits for the importer: one that reads the whole document checks it as it reads (checksDepth).
  return detectDoc(file, parseText(file, text, { deferDepth: true }), options);
}

/** detectText's second half: the importer for a text parsed with `deferDepth`. */
function detectDoc(file: string, doc: ParsedInput, options: ImportOptions & { dropText?: boolean }): DetectedInput {
  let importer: FormatImporter;
  try {
    importer = importerFor(file, doc, options.format);
  } catch (e) {
    // A document nested too deeply is refused for that first, as when parseText checked it.
    checkDepth(file, doc);
    throw e;
  }
  if (!importer.checksDepth) checkDepth(file, doc);
  if (options.dropText && !importer.readsText) doc.text = '';
  return { file, doc, importer };
}

/** The importer for `doc`: the one `format` names (an ImportError when none has that id), else the one detection picks. */
function importerFor(file: string, doc: ParsedInput, format: string | undefined): FormatImporter {
  if (!format) return detect(file, doc);
  const forced = findImporter(format);
  if (!forced) throw new ImportError(file, format, '', `unknown format; known: ${IMPORTERS.map((i) => i.id).join(', ')}`);
  return forced;
}

/** The nesting-depth check parseText left to its caller (`deferDepth`), if not made yet. */
function checkDepth(file: string, doc: ParsedInput): void {
  if (doc.kind !== 'json' || !doc.depthUnchecked) return;
  checkJsonDepth(file, doc.value);
  doc.depthUnchecked = false;
}

/** Build the runs of a detected input (importText's second half). */
export function importDetected({ file, doc, importer }: DetectedInput): ImportedFile {
  try {
    if (!importer.checksDepth) checkDepth(file, doc);
    const result = importer.importDoc(doc);
    // An importer that checks the depth as it reads has cleared the flag; if not, the check is made here.
    checkDepth(file, doc);
    return withFileFacts(file, importer, result);
  } catch (e) {
    // The first problem of a document nested too deeply is its depth, whatever the importer met before it.
    checkDepth(file, doc);
    if (e instanceof ImportError) throw e;
    if (e instanceof FormatProblem) throw new ImportError(file, importer.id, e.path, e.message);
    const message = e instanceof Error ? e.message : String(e);
    throw new ImportError(file, importer.id, '', `could not be read: ${message}`);
  }
}

/**
 * A reader of JSON Lines as they are parsed (jsonl-stream.ts), for a file of this name: OTLP's (OtlpLinesReader) when
 * OTLP is the first importer detection could pick for JSON Lines of this name. Detection tries the importers whose
 * file-name pattern matches, then all, in IMPORTERS' order; before OTLP there may come only importers that never take
 * JSON Lines (the native session and TRAIL annotations read one document) or take them when every line passes a test
 * the reader can make on each line as it comes (span trees: the reader gives the lines up when all pass it).
 */
export function jsonLinesReaderFor(file: string): JsonLinesReader | undefined {
  const order = IMPORTERS.filter((i) => i.fileName?.test(file)).concat(IMPORTERS);
  for (const importer of order) {
    if (importer === otlpImporter) return new OtlpLinesReader([isSpanTreeLine]);
    if (importer !== nativeImporter && importer !== trailAnnotationsImporter && importer !== spanTreeImporter) return undefined;
  }
  return undefined;
}

/** The span-tree importer's test of each line of JSON Lines (isSpanTreeFormatted: every line a span tree). */
function isSpanTreeLine(value: unknown): boolean {
  return isSpanTreeFormatted({ kind: 'json', value, text: '' });
}

/** Detect the format of an input parsed elsewhere (JSON Lines read as a stream, jsonl-stream.ts), or take `format`'s. */
export function detectParsed(file: string, doc: ParsedInput, format?: string): DetectedInput {
  return { file, doc, importer: importerFor(file, doc, format) };
}

/** Import an input parsed elsewhere: detection, then the runs. */
export function importParsed(file: string, doc: ParsedInput): ImportedFile {
  return importDetected(detectParsed(file, doc));
}

export function importBytes(file: string, bytes: Uint8Array, options: ImportOptions = {}): ImportedFile {
  return importText(file, decodeBytes(file, bytes), options);
}
