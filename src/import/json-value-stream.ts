// One JSON document of any format too large to be one string, parsed from its text in pieces into the value
// JSON.parse would give (issue 14 goal 2: files larger than one JavaScript string can hold are read as a stream; ADR
// 0081). The OTLP importer reads spans as they come (otlp-document-stream.ts); every other importer reads the whole
// parsed document, so here the document is built whole, but never from one string.
//
// A value whose text closes within SMALL_CHARS characters is parsed by one JSON.parse. A larger object or array is
// opened: its members or elements are read in turn, small ones parsed together in batches of about BATCH_CHARS
// characters (an array's cut where the next element begins as the first one did, found with indexOf, as
// json-pieces.ts cuts a chat log's messages), larger ones opened in their turn. A string longer than SMALL_CHARS is
// read whole (up to MAX_VALUE_CHARS). So a chat log's `history`, a Langfuse export's list of traces, or a span tree's
// spans are parsed a batch at a time while the rest of the file is still being read.
//
// Why the value is JSON.parse's: every character of the text is either scanned here as structure (brackets, commas,
// colons, keys, whitespace) or inside a batch that JSON.parse accepted as a list of whole values (`[` + text + `]`); a
// cut inside a value leaves its brackets or a string unclosed, and the batch is then scanned value by value instead.
// Members are set in the text's order: a key written twice keeps its last value at its first place, and integer-like
// keys come first, as JSON.parse makes them; a `__proto__` key is an own property, as JSON.parse makes it.
//
// An object document's hashJson (the run id of a chat log, an OpenAI chat, a span-attributes file) is computed along,
// as json-pieces.ts does for a text read whole: the JSON of each batch fed to the hash as it is parsed, while the bar
// moves, not in one pass of seconds after it (hash-json.ts rememberJsonHash). Only where the keys' order in the text is JSON.parse's
// (no key written twice, none integer-like, in the objects opened): else the importer hashes the value itself.
import { TextHash } from '../model/hash.ts';
import { ImportError } from './errors.ts';
import { rememberJsonHash } from './hash-json.ts';
import { isIndexLike } from './json-pieces.ts';
import { JsonTextStream, type Reading } from './json-text-stream.ts';
import { MAX_JSON_DEPTH } from './json-depth.ts';

/** A value whose text is longer than this is opened (an object or array) rather than parsed in one call. */
export const SMALL_CHARS = 1 << 20;
/** About this many characters of small elements or members go into each JSON.parse (young strings: ADR 0049). */
export const BATCH_CHARS = 1 << 16;

type JsonObject = Record<string, unknown>;

/** The sizes a stream made without options uses (tests lower them, to open every value of a real file). */
export const valueStreamSizes = { smallChars: SMALL_CHARS, batchChars: BATCH_CHARS };

export interface ValueStreamOptions {
  /** Values longer than this are opened (tests make it small). */
  smallChars?: number;
  batchChars?: number;
  /** Objects and arrays opened deeper than this are refused (the import's nesting limit). */
  maxDepth?: number;
}

/** Text in (push, then finish), the document's value out (`value`). Throws ImportError at a line and column of the file. */
export class JsonValueStream extends JsonTextStream {
  private result: unknown;
  /** hashJson of the document, fed in the text's order (undefined: not an object, or its order is not JSON.parse's). */
  private hash: TextHash | undefined;
  private done = false;
  private readonly smallChars: number;
  private readonly batchChars: number;
  private readonly maxDepth: number;
  /** Whether an object or array was opened (the document was not parsed in one call). */
  private opened = false;

  constructor(file: string, options: ValueStreamOptions = {}) {
    super(file, 'json');
    this.smallChars = options.smallChars ?? valueStreamSizes.smallChars;
    this.batchChars = options.batchChars ?? valueStreamSizes.batchChars;
    this.maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  }

  /** The document's value (after finish). */
  get value(): unknown {
    if (!this.done) throw new Error('the document is not read yet');
    return this.result;
  }

  protected *document(): Reading {
    const c = yield* this.next();
    if (c === -1) throw new ImportError(this.file, 'unknown', '', 'the file is empty');
    if (c !== 123 /* { */ && c !== 91 /* [ */) this.fail(this.base + this.pos, 'not JSON or JSON Lines (a trace file starts with { or [)');
    this.hash = c === 123 ? new TextHash() : undefined;
    this.result = yield* this.valueAt(1);
    yield* this.end();
    // A document parsed in one call (not opened) is hashed by its importer, as when it is read whole.
    if (this.hash && this.opened) rememberJsonHash(this.result as object, this.hash.digest());
    this.done = true;
  }

  /** The value at pos (pos moved past it); `depth`: its level, 1 for the document. */
  private *valueAt(depth: number): Reading<unknown> {
    const c = yield* this.next();
    if (c === -1) this.fail(this.base + this.pos, 'the text ends where a value should be');
    const at = this.base + this.pos;
    if (c === 123 /* { */ || c === 91 /* [ */) {
      const end = yield* this.valueEnd(this.smallChars);
      if (end === -1) {
        if (depth > this.maxDepth) this.fail(at, `objects and arrays nested more than ${this.maxDepth} levels deep (the limit)`);
        this.opened = true;
        return c === 91 ? yield* this.openArray(depth) : yield* this.openObject(depth);
      }
      return this.hashed(this.parseAt(end));
    }
    return this.hashed(this.parseAt(yield* this.valueEnd()));
  }

  /** `value`, its JSON fed to the hash. */
  private hashed(value: unknown): unknown {
    this.hash?.update(JSON.stringify(value));
    return value;
  }

  /** The value from pos to `end` (absolute), parsed alone; pos moved past it. */
  private parseAt(end: number): unknown {
    const text = this.buf.slice(this.pos, end - this.base);
    const parsed = this.parseTexts([text], [this.base + this.pos])[0];
    this.pos = end - this.base;
    return parsed;
  }

  /** An array larger than SMALL_CHARS, at pos: its elements in batches, each larger one opened. */
  private *openArray(depth: number): Reading<unknown[]> {
    this.pos++; // [
    const out: unknown[] = [];
    this.hash?.update('[');
    if ((yield* this.next()) === 93 /* ] */) {
      this.pos++;
      this.hash?.update(']');
      return out;
    }
    const head = yield* this.headAt();
    // Each batch's JSON is fed whole (one stringify per batch, its brackets left out), a comma before all but the first.
    const take = (batch: unknown[]) => {
      if (this.hash && batch.length > 0) this.hash.update(`${out.length > 0 ? ',' : ''}${JSON.stringify(batch).slice(1, -1)}`);
      for (const v of batch) out.push(v);
    };
    for (let more = true; more; ) {
      const batch = head === undefined ? undefined : yield* this.cutBatch(head, this.batchChars);
      if (batch !== undefined) {
        take(batch);
        continue;
      }
      // No cut: the elements scanned one by one, up to a batch's worth, or up to a large one, which is opened.
      const texts = yield* this.elementTexts('an array', this.batchChars, this.smallChars);
      if (texts.texts.length > 0) take(this.parseTexts(texts.texts, texts.starts));
      more = texts.more;
      if (texts.large) {
        if (out.length > 0) this.hash?.update(',');
        out.push(yield* this.valueAt(depth + 1));
        more = yield* this.after(93 /* ] */, 'an array');
      }
    }
    this.hash?.update(']');
    return out;
  }

  /** An object larger than SMALL_CHARS, at pos: its small members' values parsed in batches, each larger one opened. */
  private *openObject(depth: number): Reading<JsonObject> {
    this.pos++; // {
    const out: JsonObject = {};
    const keysSet = new Set<string>();
    let members = 0;
    this.hash?.update('{');
    const feedKey = (key: string) => {
      if (!this.hash) return;
      // JSON.parse puts integer-like keys first, and keeps a repeated key at its first place: the text's order is not
      // the value's, and the hash is left to the importer.
      if (isIndexLike(key) || keysSet.has(key)) this.hash = undefined;
      else this.hash.update(`${keysSet.size > 0 ? ',' : ''}${JSON.stringify(key)}:`);
      keysSet.add(key);
    };
    for (;;) {
      // Small members' values, to about batchChars characters, parsed as one array and set in the text's order.
      const keys: string[] = [];
      const texts: string[] = [];
      const starts: number[] = [];
      let chars = 0;
      let large: string | undefined;
      let more = true;
      for (;;) {
        const key = yield* this.key(undefined, 'an object', members++ === 0);
        if (key === undefined) {
          more = false;
          break;
        }
        const c = yield* this.next();
        if (c === -1) this.fail(this.base + this.pos, 'the text ends inside an object');
        // An object or array not closed within smallChars is large (-1): opened below.
        const end = yield* this.valueEnd(c === 123 /* { */ || c === 91 /* [ */ ? this.smallChars : Infinity);
        if (end === -1) {
          large = key;
          break;
        }
        keys.push(key);
        starts.push(this.base + this.pos);
        texts.push(this.buf.slice(this.pos, end - this.base));
        this.pos = end - this.base;
        chars += key.length + texts[texts.length - 1].length;
        if (!(yield* this.after(125 /* } */, 'an object'))) {
          more = false;
          break;
        }
        if (chars >= this.batchChars) break;
      }
      if (texts.length > 0) {
        const values = this.parseTexts(texts, starts);
        for (let k = 0; k < keys.length; k++) {
          feedKey(keys[k]);
          this.hash?.update(JSON.stringify(values[k]));
          setMember(out, keys[k], values[k]);
        }
      }
      if (large !== undefined) {
        feedKey(large);
        setMember(out, large, yield* this.valueAt(depth + 1));
        more = yield* this.after(125 /* } */, 'an object');
      }
      if (!more) {
        this.hash?.update('}');
        return out;
      }
    }
  }
}

/** out[key] = value, as JSON.parse sets it: `__proto__` is an own property, not the object's prototype. */
function setMember(out: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
  else out[key] = value;
}
