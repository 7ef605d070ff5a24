// gzip input as the worker and the command line read it: every member, the trailer's size ignored, the size limit on
// the decoded bytes as they stream, precise errors for damaged data; and UTF-16 text.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { importFiles } from '../workers/import-files.ts';
import { GunzipError, GunzipStream, pastWholeLimit } from './gunzip.ts';
import { busLines, gzipBomb, multiMemberGzip } from '../testing/gzip-kit.ts';
import { importBytes } from './index.ts';
import { decodeBytes } from './parse-input.ts';
import { importError } from '../testing/fixture-kit.ts';


describe('gzip: every member, the trailer not trusted', () => {
  const lines = busLines(6);

  it('a three-member file imports every run, through importBytes and through the worker’s importFiles', async () => {
    const gz = multiMemberGzip(lines, 3);
    expect(importBytes('bus.jsonl.gz', gz).runs.map((r) => r.task)).toEqual(lines.map((_, i) => `Question ${i}?`));
    const { loaded, failures } = await importFiles([{ name: 'bus.jsonl.gz', bytes: new Uint8Array(gz) }]);
    expect(failures).toEqual([]);
    expect(loaded[0].runs).toHaveLength(6);
  });

  it('a member boundary inside a line still joins into the same text', () => {
    const text = lines.map((l) => `${l}\n`).join('');
    const cut = Math.floor(text.length / 2) + 3;
    const gz = Buffer.concat([gzipSync(text.slice(0, cut)), gzipSync(text.slice(cut))]);
    expect(decodeBytes('x.gz', gz)).toBe(text);
  });

  it('a wrong size in the trailer (too small, or wrapped) does not truncate', () => {
    const gz = multiMemberGzip(lines, 2);
    for (const size of [10, 0, 0xffffffff]) {
      const patched = Buffer.from(gz);
      patched.writeUInt32LE(size, patched.length - 4);
      expect(importBytes('bus.jsonl.gz', patched).runs).toHaveLength(6);
    }
  });

  it('fed a byte at a time, the result is the same', () => {
    const gz = multiMemberGzip(lines, 3);
    let text = '';
    const stream = new GunzipStream({ maxBytes: 1 << 20, onData: (c) => (text += new TextDecoder().decode(c)) });
    for (const b of gz) stream.push(new Uint8Array([b]));
    stream.finish();
    expect(text).toBe(lines.map((l) => `${l}\n`).join(''));
  });

  it('zero padding after the last member is ignored, as gunzip does', () => {
    const gz = Buffer.concat([multiMemberGzip(lines, 2), Buffer.alloc(512)]);
    expect(importBytes('bus.jsonl.gz', gz).runs).toHaveLength(6);
  });
});

describe('gzip: damaged data gives a precise error', () => {
  const gz = multiMemberGzip(busLines(4), 2);
  const detail = (bytes: Uint8Array) => importError(() => decodeBytes('t.gz', bytes));

  it('cut inside the compressed data of the second member', () => {
    const e = detail(gz.subarray(0, gz.length - 40));
    expect(e.format).toBe('gzip');
    expect(e.detail).toBe('gzip member 2 is truncated (the compressed data ends early)');
  });

  it('cut inside a trailer, or inside a header', () => {
    expect(detail(gz.subarray(0, gz.length - 3)).detail).toBe('gzip member 2 is truncated (its trailer is incomplete)');
    expect(detail(gz.subarray(0, 6)).detail).toBe('byte 0: the gzip header is truncated');
  });

  it('a flipped byte fails the CRC-32 check', () => {
    const bad = Buffer.from(gz);
    bad[20] ^= 0x01;
    expect(detail(bad).detail).toMatch(/^gzip member 1 is corrupt \(/);
  });

  it('data after the last member that is not gzip', () => {
    const e = detail(Buffer.concat([gz, Buffer.from('hello')]));
    expect(e.detail).toBe(`byte ${gz.length}: the data after gzip member 2 is not another gzip member`);
  });
});

describe('gzip: the size limit applies to the decoded bytes as they stream', () => {
  it('a 1 GiB bomb stops at an 8 MB limit, in bounded memory', async () => {
    const bomb = await gzipBomb(1 << 30);
    expect(bomb.length).toBeLessThan(2 << 20);
    const before = process.memoryUsage().rss;
    const e = importError(() => decodeBytes('bomb.json.gz', bomb, { maxBytes: 8 << 20 }));
    expect(e.format).toBe('gzip');
    expect(e.detail).toBe('decompressed size exceeds the 8 MB limit');
    // How soon it stops is counted in bytes by the next test (decoding stops within one slice of the limit), not timed.
    // The old decoder sized its buffer from the trailer and inflated all of it: 1 GiB before refusing.
    expect(process.memoryUsage().rss - before).toBeLessThan(200 << 20);
  }, 30_000);

  it('the stream stops within one slice of the limit', async () => {
    const bomb = await gzipBomb(256 << 20, 0);
    let seen = 0;
    const stream = new GunzipStream({ maxBytes: 4 << 20, onData: (c) => (seen += c.length) });
    expect(() => stream.push(bomb)).toThrow(GunzipError);
    expect(seen).toBeLessThanOrEqual(4 << 20);
    expect(stream.decodedBytes).toBeLessThan(24 << 20);
  }, 30_000);
});

describe('UTF-16 text', () => {
  const lines = busLines(3);
  const text = lines.map((l) => `${l}\n`).join('');
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);

  it('little- and big-endian with a byte order mark import like UTF-8', async () => {
    for (const bytes of [le, be]) expect(importBytes('bus.jsonl', bytes).runs.map((r) => r.task)).toEqual(['Question 0?', 'Question 1?', 'Question 2?']);
    const { loaded, failures } = await importFiles([{ name: 'le.jsonl', bytes: new Uint8Array(le) }, { name: 'be.jsonl', bytes: new Uint8Array(be) }]);
    expect(failures).toEqual([]);
    expect(loaded.map((f) => f.runs.length)).toEqual([3, 3]);
  });

  it('without a mark, JSON’s first character gives the byte order away; gzip of UTF-16 works too', () => {
    expect(decodeBytes('x.json', Buffer.from('{"a":"é"}', 'utf16le'))).toBe('{"a":"é"}');
    expect(decodeBytes('x.json', Buffer.from('{"a":"é"}', 'utf16le').swap16())).toBe('{"a":"é"}');
    expect(importBytes('bus.jsonl.gz', gzipSync(le)).runs).toHaveLength(3);
  });

  it('a NUL character in UTF-16 text is still binary data', () => {
    const e = importError(() => decodeBytes('x.json', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"a":\u0000}', 'utf16le')])));
    expect(e.detail).toMatch(/binary data \(a NUL character in UTF-16 LE text\)/);
  });
});

describe('pastWholeLimit: which files the worker and the command line read as a stream', () => {
  const trailer = (size: number) => new Uint8Array(new Uint32Array([size]).buffer);
  it('says so by the file size, or for gzip by the size its trailer gives', () => {
    expect(pastWholeLimit(101, 100)).toBe(true);
    expect(pastWholeLimit(100, 100)).toBe(false);
    expect(pastWholeLimit(50, 100, trailer(101))).toBe(true);
    expect(pastWholeLimit(50, 100, trailer(100))).toBe(false);
    expect(pastWholeLimit(101, 100, trailer(10))).toBe(true);
    // Too short to hold a trailer: the last bytes say nothing.
    expect(pastWholeLimit(10, 100, trailer(1_000))).toBe(false);
    expect(pastWholeLimit(50, 100, undefined)).toBe(false);
  });
});
