// Bytes → text → JSON or JSON Lines, with the location of any syntax error. gzip input is accepted.
import { gunzipSync } from 'fflate';
import { ImportError } from './errors.ts';

/** Files above this size are refused before reading (V8 cannot hold a longer string). */
export const MAX_FILE_BYTES = 400 * 1024 * 1024;

export type ParsedInput =
  | { kind: 'json'; value: unknown; text: string }
  | { kind: 'jsonl'; values: unknown[]; text: string };

function isGzip(bytes: Uint8Array): boolean {
  return bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

export function decodeBytes(file: string, bytes: Uint8Array): string {
  if (bytes.length > MAX_FILE_BYTES) {
    throw new ImportError(file, 'unknown', '', `file is ${(bytes.length / 1048576).toFixed(0)} MB; the limit is ${MAX_FILE_BYTES / 1048576} MB`);
  }
  let data = bytes;
  if (isGzip(bytes)) {
    try {
      data = gunzipSync(bytes);
    } catch (e) {
      throw new ImportError(file, 'gzip', '', `cannot decompress: ${(e as Error).message}`);
    }
    if (data.length > MAX_FILE_BYTES) throw new ImportError(file, 'gzip', '', `decompressed size exceeds ${MAX_FILE_BYTES / 1048576} MB`);
  }
  const nul = data.indexOf(0);
  if (nul !== -1) throw new ImportError(file, 'unknown', `byte ${nul}`, 'binary data (a NUL byte), not a text trace');
  return new TextDecoder('utf-8').decode(data);
}

/** `line L, column C` of a character offset. */
export function lineColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return `line ${line}, column ${offset - lineStart + 1}`;
}

function syntaxLocation(text: string, err: unknown, base = 0): string {
  const msg = err instanceof Error ? err.message : String(err);
  const pos = /position (\d+)/.exec(msg);
  if (pos) return lineColumn(text, base + Number(pos[1]));
  const lc = /line (\d+) column (\d+)/.exec(msg);
  if (lc) return `line ${lc[1]}, column ${lc[2]}`;
  return /end of (JSON )?input|Unterminated/i.test(msg) ? `${lineColumn(text, text.length)} (end of file)` : '';
}

function syntaxDetail(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return `invalid JSON: ${msg.replace(/ in JSON at position \d+.*$/, '').replace(/, "[\s\S]*$/, '')}`;
}

function parsesAlone(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

export function parseText(file: string, text: string): ParsedInput {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const trimmed = body.trim();
  if (trimmed === '') throw new ImportError(file, 'unknown', '', 'the file is empty');
  if (trimmed[0] !== '{' && trimmed[0] !== '[') {
    throw new ImportError(file, 'unknown', 'line 1, column 1', 'not JSON or JSON Lines (a trace file starts with { or [)');
  }
  try {
    return { kind: 'json', value: JSON.parse(body), text: body };
  } catch (wholeError) {
    // JSON Lines: several documents, one per line. Only when the first line is a document on its own — otherwise
    // this is one (broken) JSON document and the error belongs where JSON.parse found it.
    const lines = body.split('\n');
    const values: unknown[] = [];
    const firstLine = lines.find((l) => l.trim() !== '') ?? '';
    if (lines.filter((l) => l.trim() !== '').length < 2 || !parsesAlone(firstLine)) {
      throw new ImportError(file, 'json', syntaxLocation(body, wholeError), syntaxDetail(wholeError));
    }
    let offset = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (line.trim() !== '') {
        try {
          values.push(JSON.parse(line));
        } catch (lineError) {
          throw new ImportError(file, 'jsonl', syntaxLocation(body, lineError, offset) || `line ${i + 1}`, syntaxDetail(lineError));
        }
      }
      offset += line.length + 1;
    }
    return { kind: 'jsonl', values, text: body };
  }
}
