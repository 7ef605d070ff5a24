// `batch <tasks.jsonl> --endpoint URL --model M [--limit N] [--arms baseline,supervised] [--concurrency N]
//   [--budget N] [--mode chain|group-chat] [--max-turns N] [--preset P] [--engines supervisor,rectifier,clarifier]
//   [--pool FILE] [--embed-model M] [--state FILE] [--out FILE] [--json]`
// The supervised arm runs the engines named by --engines (default: the supervisor); the rectifier audits against
// --pool (embedded with --embed-model, else BM25 retrieval) or, without one, the general indicator (zero-shot).
// (SPEC §5.5): the studio's batch runner headless. With --state the batch resumes where an earlier run of the same
// command stopped (finished tasks are never repeated); --out writes every finished run as a native session.
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { isBatchState, newBatch, runBatch, runBatchItem, sameItem, summarizeBatch, type Arm, type BatchItem, type BatchState } from '../engine/runner/batch.ts';
import { defaultTeam, type TeamConfig } from '../engine/runner/runner.ts';
import { parseTaskSet, TaskSetError } from '../engine/runner/tasks.ts';
import { estimateBatchCost } from '../engine/runner/estimate.ts';
import { printEstimate } from './cost.ts';
import { prepareGates } from '../engine/live-engines/index.ts';
import { DEFAULT_RECTIFY_PARAMS, parsePool } from '../engine/rectifier/index.ts';
import type { EngineConfig } from '../engine/runner/gates.ts';
import { DEFAULT_PRESET, isPresetName, PRESET_NAMES, PRESETS } from '../engine/supervisor/presets.ts';
import { exportSession } from '../export/native.ts';
import { CallRecorder, LlmClient } from '../llm/index.ts';
import type { LlmCallRecord, Run, Session } from '../model/types.ts';
import { hashText } from '../model/hash.ts';
import { CliError, numberFlag, parseArgs, printJson, stringFlag, type ParsedArgs, endpointSettings } from './io.ts';
import { printOut, printError } from './terminal.ts';
import { appendAll } from '../model/large-arrays.ts';

export const BATCH_USAGE =
  'batch <tasks.jsonl> --endpoint URL --model M [--limit N] [--arms baseline,supervised] [--concurrency N] [--budget N] ' +
  '[--mode chain|group-chat] [--max-turns N] [--preset P] [--engines supervisor,rectifier,clarifier] [--pool FILE] [--embed-model M] ' +
  '[--state FILE] [--out FILE] [--dry-run] [--json]   run a task set through the built-in team in two arms (--dry-run prints the calls and estimated tokens per arm and sends nothing)';

function wholeFlag(args: ParsedArgs, name: string, min: number): number | undefined {
  const n = numberFlag(args, name);
  if (n !== undefined && (!Number.isInteger(n) || n < min)) throw new CliError('usage', `--${name} must be a whole number ≥ ${min}, got ${n}`);
  return n;
}

/** Write through a temporary file and a rename, so an interrupted write never leaves half a file. */
function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CliError(file, `not readable JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}

type JournalLine =
  | { kind: 'spec'; spec: BatchState['spec'] }
  | { kind: 'header'; status: BatchState['status']; tokensUsed: number; message?: string; updatedAt: number }
  | { kind: 'item'; item: BatchItem };

/**
 * The state file is a journal (JSON Lines): the spec once, then a header and the items that changed at every save,
 * appended, so a batch of thousands of tasks never rewrites its whole state. Reading folds the lines; a torn last
 * line (the process died mid-write) is ignored.
 */
export function readJournal(file: string): BatchState {
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  let spec: BatchState['spec'] | undefined;
  let header: Extract<JournalLine, { kind: 'header' }> | undefined;
  const items = new Map<string, BatchItem>();
  lines.forEach((text, i) => {
    let line: JournalLine;
    try {
      line = JSON.parse(text) as JournalLine;
    } catch {
      if (i === lines.length - 1) return;
      throw new CliError(file, `line ${i + 1} is not JSON`);
    }
    if (line.kind === 'spec') spec = line.spec;
    else if (line.kind === 'header') header = line;
    else if (line.kind === 'item') items.set(line.item.key, line.item);
  });
  if (!spec || !header) throw new CliError(file, 'not a batch state journal');
  const ordered = spec.tasks.flatMap((t) => spec!.arms.flatMap((arm) => items.get(`${t.id}:${arm}`) ?? []));
  const state = { spec, items: ordered, status: header.status, tokensUsed: header.tokensUsed, message: header.message, updatedAt: header.updatedAt };
  if (!isBatchState(state) || ordered.length !== spec.tasks.length * spec.arms.length) throw new CliError(file, 'the batch state journal is incomplete');
  return state;
}

/** The first save writes the whole state afresh (dropping any torn line a crash left); later saves append. */
function journalWriter(file: string) {
  const written = new Map<string, BatchItem>();
  let started = false;
  return (s: BatchState) => {
    const header: JournalLine = { kind: 'header', status: s.status, tokensUsed: s.tokensUsed, message: s.message, updatedAt: s.updatedAt };
    const lines: JournalLine[] = [];
    if (!started) lines.push({ kind: 'spec', spec: s.spec });
    for (const item of s.items) {
      if (sameItem(written.get(item.key), item)) continue;
      lines.push({ kind: 'item', item });
      written.set(item.key, item);
    }
    lines.push(header);
    const text = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
    if (started) appendFileSync(file, text);
    else writeAtomic(file, text);
    started = true;
  };
}

function engineConfig(names: string[], thresholds: { tauStep: number; tauLoop: number; tauLen: number }, domain: 'math' | 'code', poolPath: string | undefined): EngineConfig {
  const config: EngineConfig = {};
  if (names.includes('supervisor')) config.supervisor = { ...thresholds, heuristic: false };
  if (names.includes('rectifier')) {
    config.rectifier = { params: { ...DEFAULT_RECTIFY_PARAMS, domain } };
    if (poolPath !== undefined) {
      if (!existsSync(poolPath)) throw new CliError(poolPath, 'no such file');
      try {
        config.rectifier.pool = parsePool(readFileSync(poolPath, 'utf8'), basename(poolPath));
      } catch (e) {
        throw new CliError(poolPath, e instanceof Error ? e.message : String(e));
      }
    }
  }
  if (names.includes('clarifier')) config.clarifier = { heuristic: false };
  return config;
}

/** Returns 0 when the batch completed, 1 when it stopped (endpoint failure, budget) with the rest resumable. */
export async function batchCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, new Set(['json', 'dry-run']), new Set(['endpoint', 'model', 'limit', 'arms', 'concurrency', 'budget', 'mode', 'max-turns', 'preset', 'engines', 'pool', 'embed-model', 'state', 'out']));
  if (args.positional.length !== 1) throw new CliError('usage', `batch needs exactly one task file, got ${args.positional.length}`);
  const endpoint = stringFlag(args, 'endpoint');
  const model = stringFlag(args, 'model');
  if (endpoint === undefined || model === undefined) throw new CliError('usage', 'batch needs --endpoint and --model');
  if (!/^https?:\/\/[^\s]+$/.test(endpoint)) throw new CliError('usage', `--endpoint must be an http(s) URL, got ${JSON.stringify(endpoint)}`);
  const arms = (stringFlag(args, 'arms') ?? 'baseline,supervised').split(',').map((a) => a.trim());
  for (const a of arms) if (a !== 'baseline' && a !== 'supervised') throw new CliError('usage', `--arms takes baseline and/or supervised, got ${JSON.stringify(a)}`);
  const mode = stringFlag(args, 'mode') ?? 'chain';
  if (mode !== 'chain' && mode !== 'group-chat') throw new CliError('usage', `--mode is chain or group-chat, got ${JSON.stringify(mode)}`);
  const preset = stringFlag(args, 'preset') ?? DEFAULT_PRESET;
  if (!isPresetName(preset)) throw new CliError('usage', `unknown preset ${JSON.stringify(preset)}; known: ${PRESET_NAMES.join(', ')}`);
  const engineNames = (stringFlag(args, 'engines') ?? 'supervisor').split(',').map((e) => e.trim());
  for (const e of engineNames) if (e !== 'supervisor' && e !== 'rectifier' && e !== 'clarifier') throw new CliError('usage', `--engines takes supervisor, rectifier and/or clarifier, got ${JSON.stringify(e)}`);
  const poolPath = stringFlag(args, 'pool');
  if (poolPath !== undefined && !engineNames.includes('rectifier')) throw new CliError('usage', '--pool is for the rectifier: add it to --engines');
  const embedModel = stringFlag(args, 'embed-model');
  const limit = wholeFlag(args, 'limit', 1);
  const statePath = stringFlag(args, 'state');
  const outPath = stringFlag(args, 'out');

  const [file] = args.positional;
  if (!existsSync(file)) throw new CliError(file, 'no such file');
  let tasks;
  try {
    tasks = parseTaskSet(readFileSync(file, 'utf8'));
  } catch (e) {
    if (e instanceof TaskSetError) throw new CliError(file, e.message);
    throw e;
  }
  if (tasks.length === 0) throw new CliError(file, 'no tasks in the file');
  tasks = tasks.slice(0, limit ?? tasks.length);

  let state: BatchState;
  const resumed = statePath && existsSync(statePath) ? readJournal(statePath) : undefined;
  if (resumed) state = resumed;
  else {
    const dataset = basename(file).replace(/\.jsonl?$/i, '');
    const team: TeamConfig = defaultTeam(tasks[0].domain, mode);
    const maxTurns = wholeFlag(args, 'max-turns', 1);
    if (maxTurns !== undefined) team.maxTurns = maxTurns;
    const createdAt = Date.now();
    state = newBatch({
      id: `batch-${hashText(`${dataset}\n${createdAt}`)}`,
      name: `${dataset} × ${tasks.length}`,
      dataset,
      tasks,
      arms: arms as Arm[],
      team,
      concurrency: wholeFlag(args, 'concurrency', 1) ?? 2,
      tokenBudget: wholeFlag(args, 'budget', 0) ?? 0,
      supervisor: { ...PRESETS[preset] },
      engines: engineConfig(engineNames, PRESETS[preset], tasks[0].domain, poolPath),
      createdAt,
    });
  }

  if (args.flags.has('dry-run')) {
    printEstimate(await estimateBatchCost(state.spec, { embedModel }), args.flags.has('json'), false);
    return 0;
  }

  const runs: Run[] = [];
  const calls: LlmCallRecord[] = [];
  if (outPath && existsSync(outPath)) {
    const session = readJson(outPath) as Partial<Session>;
    if (!Array.isArray(session.runs)) throw new CliError(outPath, 'not a native session (no runs)');
    appendAll(runs, session.runs);
    appendAll(calls, session.llmCalls ?? []);
  }
  const client = new LlmClient(
    endpointSettings(endpoint, { agents: model, supervisor: model, rectifier: model, clarifier: model, ...(embedModel ? { embeddings: embedModel } : {}) }),
    { recorder: new CallRecorder((r) => void calls.push(r)) },
  );
  // The pool's embeddings belong to no run: their own client, not recorded into the session.
  const poolClient = embedModel ? new LlmClient(client.settings, { recorder: new CallRecorder() }) : undefined;
  const gates = state.spec.engines ? await prepareGates(state.spec.engines, { client: poolClient }) : undefined;
  const final = await runBatch(state, {
    runItem: (item, task, signal) => runBatchItem(item, task, signal, { spec: state.spec, client: client.forRun(), gates }),
    save: statePath ? journalWriter(statePath) : () => {},
    onRun: (run) => {
      runs.push(run);
      if (outPath) writeAtomic(outPath, exportSession({ runs, llmCalls: calls, title: state.spec.name }));
    },
  });

  const summary = summarizeBatch(final);
  if (args.flags.has('json')) printJson({ batch: final.spec.id, status: final.status, message: final.message ?? null, tokens: final.tokensUsed, summary });
  else {
    printOut`${final.spec.name}: ${final.status}; ${summary.done} of ${summary.total} done, ${summary.failed} failed, ${final.tokensUsed} tokens\n`;
    for (const [arm, a] of Object.entries(summary.perArm)) printOut`  ${arm}: ${a.correct} / ${a.scored} correct, ${a.done} done\n`;
  }
  if (final.status !== 'complete') {
    printError(file, `${final.message ?? `batch ${final.status}`}${statePath ? '' : ' (pass --state FILE to resume)'}`);
    return 1;
  }
  return 0;
}
