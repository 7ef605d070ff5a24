// Everything the command line prints goes through here, because trace text is hostile (SPEC §9): an escape sequence
// in a run title could retitle the window, clear the screen or overwrite earlier lines with a carriage return, and a
// bidi override could make a line read differently from what it says. Text output shows such characters as visible
// escapes; JSON output spells them as \u escapes (JSON.stringify leaves C1, DEL and bidi controls raw).

/**
 * C0 controls, DEL, C1 controls, the line and paragraph separators, and the bidi embedding, override and isolate
 * marks. Newline and tab are listed too; `keepNewlines` lets a multi-line block keep its line breaks.
 */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: ReadonlyMap<string, string> = new Map([
  ['\n', '\\n'],
  ['\r', '\\r'],
  ['\t', '\\t'],
]);

function visible(c: string): string {
  const code = c.charCodeAt(0);
  return NAMED.get(c) ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`);
}

/** Text safe for a terminal: every control character shown as an escape (`\x1b`, `\r`, `\u{202e}`). */
export function escapeControls(text: string, { keepNewlines = false } = {}): string {
  return text.replace(CONTROLS, (c) => (keepNewlines && c === '\n' ? c : visible(c)));
}

/** What JSON.stringify leaves raw inside strings (it escapes C0 itself; the only raw newlines are its layout). */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** JSON text whose strings carry no raw control character; still valid JSON that parses to the same value. */
export function jsonForTerminal(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A template whose every interpolated value is escaped onto one line; the template's own text is kept as written. */
export function safe(strings: TemplateStringsArray, ...values: unknown[]): string {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += escapeControls(String(values[i])) + strings[i + 1];
  return out;
}

/** Print to standard output, interpolated values escaped: printOut`${run.id}  ${run.title}\n`. */
export function printOut(strings: TemplateStringsArray, ...values: unknown[]): void {
  process.stdout.write(safe(strings, ...values));
}

/** Print to standard error, interpolated values escaped. */
export function printErr(strings: TemplateStringsArray, ...values: unknown[]): void {
  process.stderr.write(safe(strings, ...values));
}

/** Text written as it is (usage text), for the few prints with no trace text in them. */
export function outVerbatim(text: string): void {
  process.stdout.write(text);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${jsonForTerminal(value)}\n`);
}

/** The one-line error contract (SPEC §7): `error: <file>: <what>`, whatever the file name or message holds. */
export function printError(file: string, message: string): void {
  printErr`error: ${file}: ${message.replace(/\s+/g, ' ')}\n`;
}
