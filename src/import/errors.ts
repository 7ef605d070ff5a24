// A typed import failure: the file, the format tried and where in the file the problem is (SPEC §3, §9).

export class ImportError extends Error {
  readonly file: string;
  readonly format: string;
  /** A JSON path (`$.spans[3].child_spans`), `line L, column C` / `byte N`, or '' when the whole file is at fault. */
  readonly location: string;
  readonly detail: string;

  constructor(file: string, format: string, location: string, detail: string) {
    super(`${file}: ${format === 'unknown' ? '' : `${format}: `}${location ? `${location}: ` : ''}${detail}`);
    this.name = 'ImportError';
    this.file = file;
    this.format = format;
    this.location = location;
    this.detail = detail;
  }
}

/**
 * Thrown by importers (through the readers in ./read.ts) with a JSON path; the registry adds file and format.
 */
export class FormatProblem extends Error {
  readonly path: string;
  constructor(path: string, detail: string) {
    super(detail);
    this.name = 'FormatProblem';
    this.path = path;
  }
}

/** A JSON.parse error's message as a detail: what was wrong, without its position (the location says where). */
export function syntaxDetail(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return `invalid JSON: ${msg.replace(/ in JSON at position \d+.*$/, '').replace(/, "[\s\S]*$/, '')}`;
}
