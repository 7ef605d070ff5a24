// Streaming gzip decoding (RFC 1952) for the browser worker and the command line alike. Every member of a
// multi-member file is decoded; the size in a member's trailer is never used (it can be wrong, or wrap past 4 GiB);
// each member's CRC-32 is checked; the caller's limit applies to the decoded bytes as they come out, so a small file
// that expands without end is stopped at the limit in bounded memory and time. fflate inflates the raw DEFLATE data;
// this module reads the gzip framing around it.
import { Inflate } from 'fflate';

/** Why decoding stopped: `limit` when the decoded bytes pass the limit, `corrupt` or `truncated` for bad input. */
export class GunzipError extends Error {
  constructor(
    readonly kind: 'limit' | 'corrupt' | 'truncated',
    message: string,
  ) {
    super(message);
    this.name = 'GunzipError';
  }
}

/**
 * What a gzip file says it decodes to, from its last 4 bytes (its trailer's ISIZE): the size of its last member,
 * modulo 2^32, so the size of what it holds for a file of one member under 4 GiB. 0 for a file too short to have one.
 */
export function gzipTrailerSize(fileSize: number, last4: Uint8Array): number {
  if (fileSize < GZIP_MIN_BYTES || last4.length < 4) return 0;
  return new DataView(last4.buffer, last4.byteOffset, 4).getUint32(0, true);
}

/**
 * Whether a file of `fileSize` bytes is too large to read whole under `maxBytes`, by its size or, for gzip (`gzipLast4`:
 * its last 4 bytes), by what its trailer says it decodes to. The studio's worker and the command line decide by this
 * which files they read as a stream (a gzip file of several members may still decode past the limit: DecodedPastLimitError).
 */
export function pastWholeLimit(fileSize: number, maxBytes: number, gzipLast4?: Uint8Array): boolean {
  return fileSize > maxBytes || (gzipLast4 !== undefined && gzipTrailerSize(fileSize, gzipLast4) > maxBytes);
}

/** The shortest gzip file: a 10-byte header, an empty deflate block and an 8-byte trailer. */
const GZIP_MIN_BYTES = 18;

export function isGzipStart(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

function crcUpdate(crc: number, data: Uint8Array): number {
  let c = ~crc;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/** fflate's Inflate state, read (as its own Gunzip does) to learn where a member's DEFLATE data ends. */
interface InflateInternals {
  p: Uint8Array;
  s: { f?: number; l?: unknown; p?: number };
}

const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;

/** Length of the gzip header at the start of `b`; 0 when more bytes are needed; throws when it is not a header. */
function headerLength(b: Uint8Array, at: number, member: number): number {
  if ((b.length >= 1 && b[0] !== 0x1f) || (b.length >= 2 && b[1] !== 0x8b)) {
    throw new GunzipError('corrupt', member === 1 ? `byte ${at}: not gzip data` : `byte ${at}: the data after gzip member ${member - 1} is not another gzip member`);
  }
  if (b.length >= 3 && b[2] !== 8) throw new GunzipError('corrupt', `byte ${at}: unknown gzip compression method ${b[2]}`);
  if (b.length < 10) return 0;
  const flags = b[3];
  if (flags & 0xe0) throw new GunzipError('corrupt', `byte ${at}: reserved gzip header flags are set`);
  let n = 10;
  if (flags & FEXTRA) {
    if (b.length < n + 2) return 0;
    n += 2 + (b[n] | (b[n + 1] << 8));
  }
  for (const flag of [FNAME, FCOMMENT]) {
    if (flags & flag) {
      const end = b.indexOf(0, n);
      if (end === -1) return 0;
      n = end + 1;
    }
  }
  if (flags & FHCRC) n += 2;
  return b.length >= n ? n : 0;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Compressed input is fed to the inflater in slices of this size, so one push expands to at most ~16 MB. */
const SLICE = 16 * 1024;

export interface GunzipStreamOptions {
  /** Decoded bytes allowed in all; one more and decoding stops with a `limit` GunzipError. */
  maxBytes: number;
  /** Receives the decoded bytes, in order. */
  onData: (chunk: Uint8Array) => void;
}

/** Push compressed chunks, then call finish(); errors are GunzipErrors with a one-line message. */
export class GunzipStream {
  private state: 'header' | 'body' | 'trailer' = 'header';
  /** Bytes held while a header or trailer is incomplete. */
  private pending: Uint8Array = new Uint8Array(0);
  /** Offset in the compressed input of the first byte of `pending` (for messages). */
  private pendingAt = 0;
  private consumed = 0;
  private inflater: Inflate | undefined;
  private crc = 0;
  private members = 0;
  private decoded = 0;
  private trailingZeros = false;

  constructor(private readonly options: GunzipStreamOptions) {}

  /** Decoded bytes so far. */
  get decodedBytes(): number {
    return this.decoded;
  }

  push(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length; i += SLICE) this.feed(chunk.subarray(i, Math.min(chunk.length, i + SLICE)));
  }

  private feed(input: Uint8Array): void {
    let data = input;
    while (data.length > 0) {
      if (this.trailingZeros) {
        // Zero padding after the last member (tape blocks, preallocated files) is ignored, as gunzip does.
        const nonZero = data.findIndex((b) => b !== 0);
        if (nonZero !== -1) throw new GunzipError('corrupt', `byte ${this.consumed + nonZero}: the data after gzip member ${this.members} is not another gzip member`);
        this.consumed += data.length;
        return;
      }
      if (this.state === 'header') {
        if (this.pending.length === 0) this.pendingAt = this.consumed;
        const held = this.pending.length;
        const buf = concat(this.pending, data);
        if (this.members > 0 && buf[0] === 0) {
          this.trailingZeros = true;
          this.pending = new Uint8Array(0);
          data = buf;
          this.consumed -= held;
          continue;
        }
        const n = headerLength(buf, this.pendingAt, this.members + 1);
        if (n === 0) {
          this.pending = buf.slice();
          this.consumed += data.length;
          return;
        }
        this.pending = new Uint8Array(0);
        this.consumed += n - held;
        data = buf.subarray(n);
        this.state = 'body';
        this.crc = 0;
        this.inflater = new Inflate((chunk) => this.emit(chunk));
      } else if (this.state === 'body') {
        const inflater = this.inflater!;
        this.inflate(() => inflater.push(data, false));
        const rest = this.memberEnd();
        this.consumed += data.length - (rest?.length ?? 0);
        if (!rest) return;
        data = rest;
        this.state = 'trailer';
        this.inflater = undefined;
        this.pendingAt = this.consumed;
      } else {
        const buf = concat(this.pending, data);
        const held = this.pending.length;
        if (buf.length < 8) {
          this.pending = buf.slice();
          this.consumed += data.length;
          return;
        }
        const stored = (buf[0] | (buf[1] << 8) | (buf[2] << 16) | (buf[3] << 24)) >>> 0;
        if (stored !== this.crc) {
          throw new GunzipError('corrupt', `gzip member ${this.members + 1} is corrupt (CRC-32 mismatch at byte ${this.pendingAt})`);
        }
        // The stored size (bytes 4–7) is not checked: it is only the length modulo 4 GiB, and some writers get it wrong.
        this.members++;
        this.pending = new Uint8Array(0);
        this.consumed += 8 - held;
        data = buf.subarray(8);
        this.state = 'header';
      }
    }
  }

  private emit(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.decoded += chunk.length;
    if (this.decoded > this.options.maxBytes) {
      throw new GunzipError('limit', `decompressed size exceeds the ${formatMb(this.options.maxBytes)} limit`);
    }
    this.crc = crcUpdate(this.crc, chunk);
    this.options.onData(chunk);
  }

  private inflate(run: () => void): void {
    try {
      run();
    } catch (e) {
      if (e instanceof GunzipError) throw e;
      const why = e instanceof Error ? e.message : String(e);
      if (/unexpected EOF/i.test(why)) throw new GunzipError('truncated', `gzip member ${this.members + 1} is truncated (the compressed data ends early)`);
      throw new GunzipError('corrupt', `gzip member ${this.members + 1} is corrupt (${why}) near byte ${this.consumed}`);
    }
  }

  /** When the member's DEFLATE data has ended: the input left after it (its trailer onward); otherwise undefined. */
  private memberEnd(): Uint8Array | undefined {
    const inner = this.inflater as unknown as InflateInternals;
    if (!(inner.s.f && !inner.s.l)) return undefined;
    return inner.p.subarray(Math.ceil((inner.s.p ?? 0) / 8));
  }

  finish(): void {
    if (this.state === 'body') {
      const inflater = this.inflater!;
      this.inflate(() => inflater.push(new Uint8Array(0), true));
      const rest = this.memberEnd();
      if (!rest) throw new GunzipError('truncated', `gzip member ${this.members + 1} is truncated (the compressed data ends early)`);
      this.state = 'trailer';
      this.pending = new Uint8Array(0);
      this.consumed -= rest.length;
      this.pendingAt = this.consumed;
      if (rest.length > 0) this.feed(rest);
    }
    if (this.state === 'trailer') throw new GunzipError('truncated', `gzip member ${this.members + 1} is truncated (its trailer is incomplete)`);
    if (this.pending.length > 0) throw new GunzipError('truncated', `byte ${this.pendingAt}: the gzip header is truncated`);
    if (this.members === 0) throw new GunzipError('truncated', 'the gzip data is empty');
  }
}

export function formatMb(bytes: number): string {
  const mb = bytes / 1048576;
  return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
}
