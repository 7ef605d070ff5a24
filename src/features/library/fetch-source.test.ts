// `?src=` bodies (issue 17, item 6): streamed with progress, refused up front when Content-Length is over the limit,
// stopped at the limit when the body grows past it, stopped at once by a cancel; foreign origins are told apart.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FetchCancelled, FetchProblem, fetchSource, isForeignUrl, type FetchProgress } from './open-files.ts';

/** A body of `chunks` chunks of `size` bytes ('x'), counting how many were pulled and whether it was cancelled. */
function body(chunks: number, size: number) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled >= chunks) return controller.close();
      seen.pulled++;
      controller.enqueue(new Uint8Array(size).fill(0x78));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

function serve(stream: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) {
  const fetchMock = vi.fn(async (_url: string, init?: RequestInit) => {
    init?.signal?.throwIfAborted();
    return new Response(stream, { status: 200, headers });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('fetchSource', () => {
  it('reads the body as a stream and reports progress against Content-Length', async () => {
    const { stream } = body(10, 1000);
    serve(stream, { 'Content-Length': '10000' });
    const seen: FetchProgress[] = [];
    const got = await fetchSource('http://studio.test/t.json', { onProgress: (p) => seen.push(p) });
    expect(got.bytes.byteLength).toBe(10_000);
    expect(seen[0]).toEqual({ received: 0, total: 10_000 });
    expect(seen.at(-1)).toEqual({ received: 10_000, total: 10_000 });
  });

  it('keeps every byte in order whether the body is announced, unannounced, or longer than announced', async () => {
    const make = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 40; i++) controller.enqueue(new Uint8Array(100_000).fill(i));
          controller.close();
        },
      });
    const announced: Record<string, string>[] = [{ 'Content-Length': '4000000' }, {}, { 'Content-Length': '1000' }];
    for (const headers of announced) {
      serve(make(), headers);
      const got = new Uint8Array((await fetchSource('http://studio.test/t.json')).bytes);
      expect(got.length).toBe(4_000_000);
      for (let i = 0; i < 40; i++) expect([got[i * 100_000], got[i * 100_000 + 99_999]]).toEqual([i, i]);
    }
  });

  it('refuses a Content-Length over the limit before reading the body', async () => {
    const { stream, seen } = body(1_000_000, 1000);
    serve(stream, { 'Content-Length': String(10 * 1024 ** 3) });
    const error = await fetchSource('http://studio.test/huge.json', { maxBytes: 400 * 1024 * 1024 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchProblem);
    expect((error as Error).message).toBe('the server announces 10,240 MB; the limit is 400 MB, so nothing was read');
    expect(seen.pulled).toBeLessThanOrEqual(1); // a stream may pull once ahead on its own; nothing is read
  });

  it('stops reading a body that grows past the limit (no Content-Length), and cancels it', async () => {
    const { stream, seen } = body(1_000_000, 1000);
    serve(stream);
    const error = await fetchSource('http://studio.test/endless.json', { maxBytes: 50_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchProblem);
    expect((error as Error).message).toBe('the body is larger than the 50,000 bytes limit; stopped reading there');
    expect(seen.pulled).toBeLessThan(60);
    expect(seen.cancelled).toBe(true);
  });

  it('stops at once on cancel, as FetchCancelled, and cancels the body', async () => {
    let release!: () => void;
    const seen = { cancelled: false, pulled: 0 };
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        seen.pulled++;
        if (seen.pulled > 2) await new Promise<void>((r) => (release = r)); // a slow server
        controller.enqueue(new Uint8Array(100));
      },
      cancel() {
        seen.cancelled = true;
      },
    });
    serve(stream, { 'Content-Length': '100000' });
    const stop = new AbortController();
    const progress: FetchProgress[] = [];
    const pending = fetchSource('http://studio.test/slow.json', { signal: stop.signal, onProgress: (p) => progress.push(p) });
    await vi.waitFor(() => expect(seen.pulled).toBeGreaterThan(2));
    stop.abort();
    const error = await pending.catch((e: unknown) => e);
    release?.();
    expect(error).toBeInstanceOf(FetchCancelled);
    expect(progress[0]).toEqual({ received: 0, total: 100_000 });
  });

  it('says why when the request itself fails or the server answers an error', async () => {
    vi.stubGlobal('fetch', async () => new Response('no', { status: 404, statusText: 'Not Found' }));
    await expect(fetchSource('http://studio.test/missing.json')).rejects.toThrow('the server answered HTTP 404 Not Found');
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(fetchSource('http://studio.test/down.json')).rejects.toThrow('the request failed (Failed to fetch)');
  });
});

describe('isForeignUrl', () => {
  const here = 'http://127.0.0.1:4173/?src=x';
  it('tells the studio’s own origin from any other', () => {
    expect(isForeignUrl('/samples/a.json', here)).toBe(false);
    expect(isForeignUrl('samples/a.json', here)).toBe(false);
    expect(isForeignUrl('http://127.0.0.1:4173/t.json', here)).toBe(false);
    expect(isForeignUrl('http://127.0.0.1:9/t.json', here)).toBe(true);
    expect(isForeignUrl('https://127.0.0.1:4173/t.json', here)).toBe(true);
    expect(isForeignUrl('//evil.example/t.json', here)).toBe(true);
    expect(isForeignUrl('data:application/json,{}', here)).toBe(true);
    expect(isForeignUrl('http://[bad', here)).toBe(true);
  });
});
