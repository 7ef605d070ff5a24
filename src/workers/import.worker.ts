// The import worker: parsing happens here, off the main thread (SPEC §3). Reached only through ./import-client.ts.
import * as Comlink from 'comlink';
import { importFiles, type FileInput, type ImportProgress } from './import-files.ts';

const api = {
  importFiles(inputs: FileInput[], onProgress?: (p: ImportProgress) => void) {
    return importFiles(inputs, onProgress);
  },
};

export type ImportWorkerApi = typeof api;

Comlink.expose(api);
