// JSON text in parts (SPEC §8: files larger than one JavaScript string can hold). JSON.stringify of a whole session or
// OTLP document builds one string: a 200k-message chat log as OTLP/JSON is ~800 MB of text, past V8's limit of about
// 512 MiB characters, and the export failed. Here the long arrays are written item by item, the text gathered in parts
// of about `partChars` characters each, and a Blob made of the parts can be any size. The text is the one
// JSON.stringify(value, null, indent) gives, character for character.

export interface JsonPartsOptions {
  /** Spaces per level, as JSON.stringify's third argument (0: none). */
  indent?: number;
  /** Characters per part, about (a part may be longer by one item's text). */
  partChars?: number;
  /** An array this long or longer is written item by item. */
  longArray?: number;
}

/** How deep the writer looks for a long array inside an item before writing the item in one call. */
const LOOK_DEPTH = 6;

export function jsonParts(value: unknown, { indent = 0, partChars = 1 << 20, longArray = 256 }: JsonPartsOptions = {}): string[] {
  const parts: string[] = [];
  let buffer: string[] = [];
  let buffered = 0;
  const emit = (text: string) => {
    buffer.push(text);
    buffered += text.length;
    if (buffered >= partChars) {
      parts.push(buffer.join(''));
      buffer = [];
      buffered = 0;
    }
  };
  const pad = Math.min(10, Math.max(0, Math.floor(indent)));
  const newline = (depth: number) => (pad > 0 ? `\n${' '.repeat(pad * depth)}` : '');
  /** Whether `v` holds a long array within LOOK_DEPTH levels (and must be written in pieces). */
  const holdsLong = (v: unknown, depth: number): boolean => {
    if (typeof v !== 'object' || v === null) return false;
    if (Array.isArray(v)) {
      if (v.length >= longArray) return true;
      return depth > 0 && v.some((x) => holdsLong(x, depth - 1));
    }
    if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
    if (depth === 0) return false;
    for (const k in v) if (Object.hasOwn(v, k) && holdsLong((v as Record<string, unknown>)[k], depth - 1)) return true;
    return false;
  };
  const omitted = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';
  const write = (v: unknown, depth: number): void => {
    if (!holdsLong(v, LOOK_DEPTH)) {
      const text = JSON.stringify(v, null, pad || undefined) ?? 'null';
      emit(pad > 0 && depth > 0 && text.includes('\n') ? text.replace(/\n/g, newline(depth)) : text);
      return;
    }
    if (Array.isArray(v)) {
      if (v.length === 0) return emit('[]');
      emit('[');
      for (let i = 0; i < v.length; i++) {
        emit(`${i > 0 ? ',' : ''}${newline(depth + 1)}`);
        write(omitted(v[i]) ? null : v[i], depth + 1);
      }
      emit(`${newline(depth)}]`);
      return;
    }
    const record = v as Record<string, unknown>;
    let first = true;
    emit('{');
    for (const k in record) {
      if (!Object.hasOwn(record, k) || omitted(record[k])) continue;
      emit(`${first ? '' : ','}${newline(depth + 1)}${JSON.stringify(k)}:${pad > 0 ? ' ' : ''}`);
      write(record[k], depth + 1);
      first = false;
    }
    emit(first ? '}' : `${newline(depth)}}`);
  };
  write(value, 0);
  if (buffer.length > 0) parts.push(buffer.join(''));
  return parts;
}
