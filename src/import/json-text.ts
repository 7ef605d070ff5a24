// Scanning JSON text without parsing it, for the readers that take a document in pieces (ADR 0047, 0049, 0050).

/** Whether the character code is JSON whitespace (space, line feed, carriage return, tab). */
export function isJsonSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** The index of the first character at or after `i` that is not JSON whitespace (the text's length at its end). */
export function skipJsonSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return i;
    i++;
  }
}
