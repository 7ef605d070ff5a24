// The import worker is replaced once a large import's work has ended (ADR 0077): its leftovers go with it. Driven
// through the real client (import-client.ts) over real message ports, against a stand-in worker whose background
// work (the writes an import leaves running) the test ends when it chooses.
import * as Comlink from 'comlink';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { importInWorker, readSpansInWorker, RECYCLE_BYTES, RECYCLE_ROWS } from './import-client.ts';
import type { RunStorage } from './import-storage.ts';

interface Stand {
  terminated: boolean;
  /** Ends the background work of the imports so far (the worker's `settled`). */
  finish(): void;
  /** Ends the span read under way. */
  endRead(): void;
}

const made: Stand[] = [];

class StandInWorker {
  /** The rows the next imports hand over (0: no hand-over announced). */
  static rows = 0;
  private readonly port: MessagePort;
  readonly stand: Stand;
  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    let finish = () => {};
    let background = Promise.resolve();
    let endRead = () => {};
    const stand: Stand = { terminated: false, finish: () => finish(), endRead: () => endRead() };
    this.stand = stand;
    made.push(stand);
    Comlink.expose(
      {
        importFiles: async (_sources: unknown, callbacks: { onProgress?(p: object): Promise<void> }) => {
          background = new Promise<void>((resolve) => (finish = resolve));
          // A file of `rows` rows says so before its hand-over, as the worker does.
          if (StandInWorker.rows > 0) await callbacks.onProgress?.({ file: 'run.json', fileIndex: 0, fileCount: 1, phase: 'handing-over', done: 0, total: StandInWorker.rows });
          return [];
        },
        settled: () => background,
        readSpans: () => new Promise<number>((resolve) => (endRead = () => resolve(0))),
      },
      port2,
    );
  }
  postMessage(message: unknown, transfer?: Transferable[]): void {
    this.port.postMessage(message, transfer ?? []);
  }
  addEventListener(type: string, listener: EventListener): void {
    this.port.addEventListener(type, listener);
    this.port.start();
  }
  removeEventListener(type: string, listener: EventListener): void {
    this.port.removeEventListener(type, listener);
  }
  terminate(): void {
    this.stand.terminated = true;
    this.port.close();
  }
}

const storage = { name: 'mas-replay-test' } as unknown as RunStorage;
const bytes = (n: number) => ({ name: 'run.json', bytes: new ArrayBuffer(n) });
/** Lets the messages on the ports run their course. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

beforeAll(() => {
  vi.stubGlobal('Worker', StandInWorker);
});
afterAll(() => {
  vi.unstubAllGlobals();
});

describe('import worker replaced after a large import', () => {
  it('keeps the worker after a small import', async () => {
    await importInWorker([bytes(1024)], { storage });
    made[0].finish();
    await settle();
    expect(made).toHaveLength(1);
    expect(made[0].terminated).toBe(false);
  });

  it('replaces it once a large import has written its runs, not before', async () => {
    await importInWorker([bytes(RECYCLE_BYTES)], { storage });
    await settle();
    // Answered, its writes still under way: the worker stays.
    expect(made[0].terminated).toBe(false);
    made[0].finish();
    await settle();
    expect(made[0].terminated).toBe(true);
    // The next call gets a fresh worker (in a page, one is made when it is idle).
    await importInWorker([bytes(1024)], { storage });
    expect(made).toHaveLength(2);
    made[1].finish();
    await settle();
    expect(made[1].terminated).toBe(false);
  });

  it('waits for every call under way on it: a span read outlasting the import', async () => {
    const read = readSpansInWorker(storage, 'run-1');
    await importInWorker([bytes(RECYCLE_BYTES)], { storage });
    made[1].finish();
    await settle();
    expect(made[1].terminated).toBe(false);
    made[1].endRead();
    expect(await read).toBeUndefined();
    await settle();
    expect(made[1].terminated).toBe(true);
  });

  it('counts the files of one import together', async () => {
    await importInWorker([bytes(RECYCLE_BYTES / 2), bytes(RECYCLE_BYTES / 2)], { storage });
    made[2].finish();
    await settle();
    expect(made[2].terminated).toBe(true);
  });

  it('replaces it after a small file that hands over many rows (a gzip file, say), not after one of fewer', async () => {
    StandInWorker.rows = RECYCLE_ROWS - 1;
    await importInWorker([bytes(1024)], { storage });
    made[3].finish();
    await settle();
    expect(made[3].terminated).toBe(false);
    StandInWorker.rows = RECYCLE_ROWS;
    await importInWorker([bytes(1024)], { storage });
    made[3].finish();
    await settle();
    expect(made[3].terminated).toBe(true);
    StandInWorker.rows = 0;
  });
});
