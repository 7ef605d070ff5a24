// `stages <file> [--offline | --endpoint URL --model M] [--out <session.json>] [--json]` (SPEC §5.4): the stages of
// every run in a trace file: segmented at manager steps offline (heuristic), or with the Planner → Evaluator →
// Updater pass against an endpoint. `--out` writes a native session with the stages (and the recorded calls) attached.
import { writeFileSync } from 'node:fs';
import { exportSession } from '../export/native.ts';
import type { ImportedFile } from '../import/index.ts';
import { CallRecorder, costJson, DEFAULT_LLM_SETTINGS, engineCost, LlmClient, sumCosts, zeroCounts, type EngineCost } from '../llm/index.ts';
import { printEstimate } from './cost.ts';
import type { Run } from '../model/types.ts';
import { deriveOfflineStages, estimateStagesCost, stagePass, type StagePassResult } from '../engine/stages/index.ts';
import { CliError, parseArgs, printJson, readTraceFiles, stringFlag, endpointFlags, endpointSettings } from './io.ts';
import { escapeControls, printOut, printError } from './terminal.ts';

export const STAGES_USAGE =
  'stages <file> [--offline | --endpoint URL --model M] [--out <file>] [--dry-run] [--json]   stages per run: task state and layered workflow (offline segmentation heuristic unless --endpoint; --dry-run prints the calls and estimated tokens and sends nothing)';

const costOf = (r: StagePassResult): EngineCost => r.cost ?? engineCost({ calls: r.calls, tokens: { ...r.tokens }, estimated: r.tokens.estimated === true });

function report(run: Run, result: StagePassResult, mode: 'offline' | 'endpoint') {
  const position = new Map(run.steps.filter((s) => s.parentStepId === undefined).map((s, i) => [s.id, i]));
  const agentName = new Map(run.agents.map((a) => [a.id, a.name]));
  return {
    id: run.id,
    mode,
    heuristic: result.stages.some((s) => s.heuristic === true),
    status: result.status,
    stages: result.stages.map((s) => ({
      id: s.id,
      /** 0-based replay positions of the stage's first and last step; null for the closing state. */
      steps: s.closing ? null : [position.get(s.startStepId ?? '') ?? null, position.get(s.endStepId ?? '') ?? null],
      active: s.nextSubtaskId ?? null,
      subtasks: s.subtasks.map((t) => ({ id: t.id, title: t.title, status: t.status })),
      verdict: s.verdict ?? null,
      confidence: s.confidence ?? null,
      layers: s.layers.map((layer) =>
        layer.map((e) => ({ agent: agentName.get(e.agentId) ?? e.agentId, ...(e.probability !== undefined ? { probability: e.probability } : {}), ...(e.frequency !== undefined ? { frequency: e.frequency } : {}) })),
      ),
    })),
    tokens: result.tokens.total,
    cost: costJson(costOf(result)),
  };
}

function offlineResult(run: Run): StagePassResult {
  const { stages } = deriveOfflineStages(run);
  return { runId: run.id, status: 'complete', stages, tokens: { input: 0, output: 0, total: 0 }, calls: 0, total: stages.length, cost: engineCost({ calls: 0, tokens: zeroCounts(), estimated: false }) };
}

/** Returns the exit code: 0, or 1 when an endpoint failure stopped a run (its finished part is still printed). */
export async function stagesCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, new Set(['json', 'offline', 'dry-run']), new Set(['endpoint', 'model', 'out']));
  if (args.positional.length !== 1) throw new CliError('usage', `stages needs exactly one file, got ${args.positional.length}`);
  const flags = endpointFlags(args);
  const [file]: ImportedFile[] = readTraceFiles(args.positional);
  if (args.flags.has('dry-run')) {
    printEstimate(await estimateStagesCost(file.runs, { maxTokens: DEFAULT_LLM_SETTINGS.maxTokens }), args.flags.has('json'), flags === undefined);
    return 0;
  }

  const recorder = new CallRecorder();
  const client = flags && new LlmClient(endpointSettings(flags.endpoint, { supervisor: flags.model }), { recorder });
  const mode = client ? 'endpoint' : 'offline';
  const done: { run: Run; result: StagePassResult }[] = [];
  for (const run of file.runs) {
    const result: StagePassResult = client
      ? await stagePass(run, { client: client.forRun() })
      : offlineResult(run);
    done.push({ run, result });
    if (result.status !== 'complete') break;
  }

  const runs = done.map(({ run, result }) => report(run, result, mode));
  if (args.flags.has('json')) printJson({ runs, cost: costJson(sumCosts(done.map((d) => costOf(d.result)))) });
  else {
    for (const r of runs) {
      const placed = r.stages.filter((s) => s.steps !== null).length;
      printOut`${r.id}: ${placed} stages${mode === 'offline' ? ' [heuristic, offline]' : `, ${r.tokens} LLM tokens`}\n`;
      for (const s of r.stages) {
        const active = s.subtasks.find((t) => t.id === s.active);
        printOut`  ${s.id}${s.steps ? ` steps ${s.steps[0]}–${s.steps[1]}` : ''}: ${s.verdict ?? '-'}${active ? ` · next: ${escapeControls(active.title)}` : ''}\n`;
      }
    }
  }
  const out = stringFlag(args, 'out');
  if (out !== undefined) {
    const withStages = done.map(({ run, result }) => ({ ...run, stages: result.stages }));
    writeFileSync(out, exportSession({ runs: withStages, llmCalls: recorder.records }));
  }
  const failed = done.find((d) => d.result.status === 'failed');
  if (failed?.result.failure) {
    const f = failed.result.failure;
    printError(file.file, `run ${failed.run.id}: the ${f.role} call for stage ${f.stage + 1} failed: ${f.message}; stopped after ${failed.result.stages.length} stages`);
    return 1;
  }
  return 0;
}
