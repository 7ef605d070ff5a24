// The main thread's side of the import worker: read files (with byte progress), hand the bytes over as transferable
// buffers, and get plain results back. Cancelling terminates the worker, the only way to stop a synchronous parse;
// the next import starts a fresh one.
import * as Comlink from 'comlink';
import { MAX_FILE_BYTES } from '../import/parse-input.ts';
import type { ImportBatchResult, ImportFailureInfo, ImportProgress } from './import-files.ts';
import type { LoadedFile } from '../import/index.ts';
import type { ImportWorkerApi } from './import.worker.ts';

export type { ImportBatchResult, ImportFailureInfo, ImportProgress } from './import-files.ts';

/** A file to import: a browser File (picker, drop) or bytes already in hand (paste, fetch). */
export type ImportSource = File | { name: string; bytes: ArrayBuffer };

export interface ImportOptions {
  onProgress?: (p: ImportProgress) => void;
  signal?: AbortSignal;
}

let worker: Worker | undefined;
let remote: Comlink.Remote<ImportWorkerApi> | undefined;

function connect(): Comlink.Remote<ImportWorkerApi> {
  if (!remote) {
    worker = new Worker(new URL('./import.worker.ts', import.meta.url), { type: 'module', name: 'import' });
    remote = Comlink.wrap<ImportWorkerApi>(worker);
  }
  return remote;
}

function disconnect(): void {
  worker?.terminate();
  worker = undefined;
  remote = undefined;
}

export class ImportCancelled extends Error {
  constructor() {
    super('import cancelled');
    this.name = 'ImportCancelled';
  }
}

async function readFile(file: File, report: (bytesRead: number) => void, signal?: AbortSignal): Promise<ArrayBuffer> {
  const reader = file.stream().getReader();
  const chunks: Uint8Array[] = [];
  let read = 0;
  for (;;) {
    if (signal?.aborted) {
      await reader.cancel();
      throw new ImportCancelled();
    }
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    read += value.length;
    report(read);
  }
  const out = new Uint8Array(read);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out.buffer;
}

/** Import files in the worker. Rejects with ImportCancelled when the signal aborts; per-file errors are in the result. */
export async function importInWorker(sources: ImportSource[], { onProgress, signal }: ImportOptions = {}): Promise<ImportBatchResult> {
  if (signal?.aborted) throw new ImportCancelled();
  const fileCount = sources.length;
  const inputs: { name: string; bytes: ArrayBuffer }[] = [];
  // Too big to hold as one string: refused before reading a byte of it.
  const refused: ImportFailureInfo[] = [];
  for (const [fileIndex, source] of sources.entries()) {
    if (source instanceof File && source.size > MAX_FILE_BYTES) {
      const mb = (n: number) => `${Math.round(n / 1048576)} MB`;
      refused.push({ file: source.name, format: 'unknown', location: '', detail: `file is ${mb(source.size)}; the limit is ${mb(MAX_FILE_BYTES)}` });
    } else if (source instanceof File) {
      const bytes = await readFile(
        source,
        (bytesRead) => onProgress?.({ file: source.name, fileIndex, fileCount, phase: 'reading', bytesRead, bytesTotal: source.size }),
        signal,
      );
      inputs.push({ name: source.name, bytes });
    } else {
      inputs.push(source);
    }
  }
  const api = connect();
  const loaded: LoadedFile[] = [];
  const imported = api.importFiles(
    Comlink.transfer(inputs, inputs.map((i) => i.bytes)),
    Comlink.proxy(async (file: LoadedFile) => {
      loaded.push(file);
    }),
    onProgress ? Comlink.proxy(onProgress) : undefined,
  );
  const work = imported.then((failures) => ({ loaded, failures: [...refused, ...failures] }));
  const running = worker!;
  return new Promise<ImportBatchResult>((resolve, reject) => {
    const onAbort = () => {
      disconnect();
      reject(new ImportCancelled());
    };
    // A worker that fails to load or dies (out of memory) never answers: fail the call instead of hanging.
    const onError = (e: ErrorEvent) => {
      disconnect();
      reject(new Error(e.message || 'the import worker stopped unexpectedly'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    running.addEventListener('error', onError, { once: true });
    work.then(resolve, reject).finally(() => {
      signal?.removeEventListener('abort', onAbort);
      running.removeEventListener('error', onError);
    });
  });
}
