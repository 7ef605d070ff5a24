// Shared checks for importer tests over the real traces in ../shared/traces (never copied into the repository).
// Each fixture: imports, matches a committed readable dump, and re-imports under an unknown name identically.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { expect } from 'vitest';
import { dumpRun } from '../model/dump.ts';
import { ImportError, importBytes, type ImportedFile } from '../import/index.ts';

export const SHARED_TRACES = resolve(import.meta.dirname, '../../../shared/traces');
export const HAVE_SHARED = existsSync(SHARED_TRACES);
export const SKIP_REASON = `../shared/traces is absent (${SHARED_TRACES}); real-trace tests skipped`;

if (!HAVE_SHARED) console.warn(SKIP_REASON);

/** Files under ../shared/traces/<folder> whose names match, sorted; [] when the folder is absent. */
export function sharedFiles(folder: string, pattern = /\.(json|jsonl)$/): string[] {
  const dir = join(SHARED_TRACES, folder);
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (pattern.test(name)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/**
 * Every run of every file under ../shared/traces an importer takes, with its file; files no importer takes
 * (annotation sets, ground truth, fixtures) are passed over. Nothing when the folder is absent.
 */
export function* sharedRuns(): Generator<{ file: string; run: ImportedFile['runs'][number] }> {
  for (const file of sharedFiles('')) {
    let imported: ImportedFile;
    try {
      imported = importBytes(file, readFileSync(file));
    } catch {
      continue;
    }
    for (const run of imported.runs) yield { file, run };
  }
}

export function importShared(path: string, asName = relative(SHARED_TRACES, path)): ImportedFile {
  return importBytes(asName, readFileSync(path));
}

export function dumpFile(imported: ImportedFile): string {
  const head = `format: ${imported.format}\nwarnings: ${imported.warnings.length ? imported.warnings.join(' | ') : '-'}\n`;
  const sets = imported.annotationSets.map((s) => `annotation set for ${s.runId}: ${s.annotations.length} annotations`);
  return `${head}${sets.join('\n')}${sets.length ? '\n' : ''}${imported.runs.map(dumpRun).join('\n\n')}\n`;
}

/**
 * The three checks every fixture gets. `dumpDir` is where the readable dumps are committed (one `.txt` per fixture,
 * named after the fixture's path below ../shared/traces).
 */
export async function checkFixture(path: string, expectedFormat: string, dumpDir: string): Promise<ImportedFile> {
  const imported = importShared(path);
  expect(imported.format).toBe(expectedFormat);
  const dumpName = relative(SHARED_TRACES, path).replace(/[\\/]/g, '__').replace(/\.(jsonl?|json)$/, '.txt');
  await expect(dumpFile(imported)).toMatchFileSnapshot(join(dumpDir, dumpName));
  const again = importBytes(`unknown-${basename(path).length}`, readFileSync(path));
  expect({ ...again, file: imported.file }).toEqual(imported);
  return imported;
}

/** The ImportError a call throws; fails the test when it throws something else or nothing. */
export function importError(run: () => unknown): ImportError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(ImportError);
    return e as ImportError;
  }
  throw new Error('expected an ImportError, but the call succeeded');
}
