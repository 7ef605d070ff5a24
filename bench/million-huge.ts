// Part of bench/million.bench.ts, run in a process of its own for its peak RSS: a JSON Lines file longer than one
// string (> 2^29 characters) written to `dir`, read through the import worker's own readFileInput (a Blob of the file,
// as the browser's File) and imported. Prints one JSON line: bytes, ms, runs, steps, peakRssBytes (and, with `gzip`,
// decodedBytes: the file is written gzip-compressed, its text still longer than one string).
//   npx tsx bench/million-huge.ts <dir> [gzip]
// The file is also opened in Chromium through the Library by bench/million.bench.ts (`hugeweb`): writeHugeJsonl.
import { closeSync, openAsBlob, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync, constants } from 'node:zlib';
import { importFiles, readFileInput } from '../src/workers/import-files.ts';

/**
 * ~600 MB of OTLP/JSON Lines at `path`: 600 exports of 250 tool spans, each with a ~4 KB result (as tools return
 * pages); gzip-compressed with `gzip`. Returns the bytes of its text.
 */
const LINES = 600;
const SPANS_PER_LINE = 250;
/** The file's spans, each a tool step of the run. */
export const HUGE_STEPS = LINES * SPANS_PER_LINE;
const DOCUMENT_HEAD = '{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"huge"},"spans":[\n';
const DOCUMENT_TAIL = '\n]}]}]}\n';

/**
 * Writes the huge file: JSON Lines of one OTLP export each (gzip: each line a gzip member), or with `document` one OTLP
 * export holding every span (its spans a line each), which is read as a stream too (otlp-document-stream.ts).
 * Returns its decoded size.
 */
export function writeHugeJsonl(path: string, gzip = false, document = false): number {
  let decodedBytes = 0;
  const fd = openSync(path, 'w');
  const traceId = 'ab'.repeat(16);
  const result = 'lorem ipsum dolor sit amet, '.repeat(146);
  let id = 1;
  try {
    for (let line = 0; line < LINES; line++) {
      const spans: string[] = [];
      for (let k = 0; k < SPANS_PER_LINE; k++, id++) {
        const start = 1_760_000_000_000_000_000n + BigInt(id) * 1_000_000n;
        spans.push(
          `{"traceId":"${traceId}","spanId":"${id.toString(16).padStart(16, '0')}","name":"execute_tool fetch_page","startTimeUnixNano":"${start}","endTimeUnixNano":"${start + 500_000n}","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"gen_ai.tool.name","value":{"stringValue":"fetch_page"}},{"key":"gen_ai.tool.call.result","value":{"stringValue":"${id} ${result}"}}]}`,
        );
      }
      const text = document
        ? `${line === 0 ? DOCUMENT_HEAD : ',\n'}${spans.join(',\n')}${line === LINES - 1 ? DOCUMENT_TAIL : ''}`
        : `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"huge"},"spans":[${spans.join(',')}]}]}]}\n`;
      decodedBytes += Buffer.byteLength(text);
      // One gzip member per line (a multi-member file, as `cat` of gzip files makes): fast to write, read as one file.
      if (gzip) writeSync(fd, gzipSync(text, { level: constants.Z_BEST_SPEED }));
      else writeSync(fd, text);
    }
  } finally {
    closeSync(fd);
  }
  return decodedBytes;
}

/**
 * The same ~4 KB texts as one chat log (`{question, history:[{content, role, name}]}`, the Who&When shape): one JSON
 * document of HUGE_STEPS messages among 8 agents, longer than one string, read as a stream into its value
 * (json-value-stream.ts). Returns its size.
 */
export function writeHugeChatLog(path: string): number {
  let bytes = 0;
  const fd = openSync(path, 'w');
  const content = 'lorem ipsum dolor sit amet, '.repeat(146);
  try {
    const write = (text: string) => {
      bytes += Buffer.byteLength(text);
      writeSync(fd, text);
    };
    write('{"question": "Summarise the pages the team fetched.",\n "history": [\n');
    for (let line = 0; line < LINES; line++) {
      const messages: string[] = [];
      for (let k = 0; k < SPANS_PER_LINE; k++) {
        const i = line * SPANS_PER_LINE + k;
        messages.push(`  {"content": "${i} ${content}", "role": "${i % 2 ? 'user' : 'assistant'}", "name": "agent-${i % 8}"}`);
      }
      write(`${line === 0 ? '' : ',\n'}${messages.join(',\n')}`);
    }
    write('\n ],\n "mistake_agent": "agent-3", "mistake_step": "17"}\n');
  } finally {
    closeSync(fd);
  }
  return bytes;
}

function peakRss(): number {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: npx tsx bench/million-huge.ts <dir>');
  const gzip = process.argv[3] === 'gzip';
  const path = join(dir, gzip ? 'huge-otlp.jsonl.gz' : 'huge-otlp.jsonl');
  const decodedBytes = writeHugeJsonl(path, gzip);
  const bytes = statSync(path).size;
  const t0 = performance.now();
  const input = await readFileInput(gzip ? 'huge-otlp.jsonl.gz' : 'huge-otlp.jsonl', await openAsBlob(path));
  const { loaded, failures } = await importFiles([input]);
  const ms = performance.now() - t0;
  rmSync(path, { force: true });
  if (failures.length > 0) throw new Error(JSON.stringify(failures[0]));
  const runs = loaded.flatMap((f) => f.runs);
  console.log(JSON.stringify({ bytes, decodedBytes, ms, runs: runs.length, steps: runs.reduce((n, r) => n + r.steps.length, 0), peakRssBytes: peakRss() }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e: unknown) => {
    const dir = process.argv[2];
    if (dir) for (const name of ['huge-otlp.jsonl', 'huge-otlp.jsonl.gz']) rmSync(join(dir, name), { force: true });
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
