// The import worker: parsing happens here, off the main thread (SPEC §3). Reached only through ./import-client.ts.
import * as Comlink from 'comlink';
import type { LoadedFile } from '../import/index.ts';
import { deliverEach, importFiles, type FileInput, type ImportFailureInfo, type ImportProgress } from './import-files.ts';

const api = {
  /** Each loaded file goes to `onFile` in a message of its own; the failures are the answer. */
  importFiles(inputs: FileInput[], onFile: (file: LoadedFile) => Promise<void>, onProgress?: (p: ImportProgress) => void): Promise<ImportFailureInfo[]> {
    return deliverEach(importFiles(inputs, onProgress), onFile);
  },
};

export type ImportWorkerApi = typeof api;

Comlink.expose(api);
