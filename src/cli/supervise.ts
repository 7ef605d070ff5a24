// `supervise <file> [--offline | --endpoint URL --model M] [--preset …] [--tau-step N --tau-loop N --tau-len N] --json`
// (SPEC §7): shadow-replay the runtime supervisor over every run in a trace file.
import type { ImportedFile } from '../import/index.ts';
import { writeFileSync } from 'node:fs';
import { stepNumbersById } from '../model/steps.ts';
import { exportSession } from '../export/native.ts';
import { CallRecorder, Cassette, costJson, DEFAULT_LLM_SETTINGS, LlmClient, replaySettings, sumCosts } from '../llm/index.ts';
import { loadTokenCounter } from '../llm/usage.ts';
import { printEstimate } from './cost.ts';
import { compareReplay, type ReplayCheck } from '../engine/supervisor/replay-check.ts';
import {
  DEFAULT_PRESET,
  filterParams,
  isPresetName,
  PRESET_NAMES,
  PRESETS,
  deriveShadowRun,
  shadowReplay,
  estimateSupervisorCost,
  type FilterParams,
  type ShadowResult,
} from '../engine/supervisor/index.ts';
import { CliError, numberFlag, parseArgs, printJson, readTraceFiles, stringFlag, type ParsedArgs, endpointFlags, endpointSettings } from './io.ts';
import { printOut, printError } from './terminal.ts';

export const SUPERVISE_USAGE =
  'supervise <file> [--offline | --endpoint URL --model M] [--preset gaia|humaneval|mbpp|aime|drop|gsm-hard|oagents] ' +
  `[--tau-step N --tau-loop N --tau-len N] [--replay] [--out <session.json>] [--emit-run <session.json>] [--dry-run] [--json]   shadow-replay the runtime supervisor (default preset ${DEFAULT_PRESET}, offline heuristics unless --endpoint; --replay answers from the session's recorded calls; --emit-run writes each run's shadow-supervised estimate as a run of its own; --dry-run prints the calls and estimated tokens and sends nothing)`;

function positiveInt(args: ParsedArgs, name: string): number | undefined {
  const n = numberFlag(args, name);
  if (n !== undefined && (!Number.isInteger(n) || n < 1)) throw new CliError('usage', `--${name} must be a positive whole number, got ${n}`);
  return n;
}

function thresholds(args: ParsedArgs): FilterParams {
  const preset = stringFlag(args, 'preset') ?? DEFAULT_PRESET;
  if (!isPresetName(preset)) throw new CliError('usage', `unknown preset ${JSON.stringify(preset)}; known: ${PRESET_NAMES.join(', ')}`);
  const base = PRESETS[preset];
  return filterParams({
    tauStep: positiveInt(args, 'tau-step') ?? base.tauStep,
    tauLoop: positiveInt(args, 'tau-loop') ?? base.tauLoop,
    tauLen: positiveInt(args, 'tau-len') ?? base.tauLen,
  });
}

function report(file: ImportedFile, results: ShadowResult[]) {
  return results.map((r) => {
    const run = file.runs.find((x) => x.id === r.runId)!;
    const stepById = new Map(run.steps.map((s) => [s.id, s]));
    const agentName = new Map(run.agents.map((a) => [a.id, a.name]));
    const rows = stepNumbersById(run);
    return {
      id: r.runId,
      triggers: r.interventions.map((iv) => {
        const step = stepById.get(iv.stepId ?? '');
        return {
          agent: step ? (agentName.get(step.agentId) ?? step.agentId) : '',
          step: step?.number ?? null,
          row: rows.get(iv.stepId ?? '') ?? null,
          context: iv.context,
          action: iv.action,
          reason: iv.reason,
          ...(r.tokens.notShortened.includes(iv.id) ? { did_not_shorten: true } : {}),
        };
      }),
      tokens: {
        baseline: r.tokens.baseline,
        supervised_estimate: r.tokens.supervisedEstimate,
        supervisor_overhead: r.tokens.supervisorOverhead,
        net_saving_pct: r.tokens.netSavingPct,
        // Purifications whose new text is not shorter: counted as saving nothing (left out of the net saving).
        ...(r.tokens.notShortened.length > 0 ? { not_shortened: r.tokens.notShortened.length } : {}),
      },
      cost: costJson(r.cost),
    };
  });
}

/** Returns the exit code: 0, or 1 when an endpoint failure stopped a run (its finished part is still printed). */
export async function superviseCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, new Set(['json', 'offline', 'replay', 'dry-run']), new Set(['endpoint', 'model', 'preset', 'tau-step', 'tau-loop', 'tau-len', 'out', 'emit-run']));
  if (args.positional.length !== 1) throw new CliError('usage', `supervise needs exactly one file, got ${args.positional.length}`);
  const flags = endpointFlags(args);
  const endpoint = flags?.endpoint;
  const replay = args.flags.has('replay');
  if (replay && (endpoint !== undefined || args.flags.has('offline'))) throw new CliError('usage', '--replay answers from recorded calls: it excludes --offline and --endpoint');
  const params = thresholds(args);
  const [file] = readTraceFiles(args.positional);
  if (args.flags.has('dry-run')) {
    printEstimate(await estimateSupervisorCost(file.runs, { params, maxTokens: DEFAULT_LLM_SETTINGS.maxTokens }), args.flags.has('json'), flags === undefined);
    return 0;
  }

  const recorder = new CallRecorder();
  let replayClient: LlmClient | undefined;
  if (replay) {
    // A native session's recorded calls answer every request: nothing goes to the network.
    const calls = file.llmCalls ?? [];
    const settings = replaySettings(calls, 'supervisor');
    if (!settings) throw new CliError(file.file, 'no recorded supervisor calls to replay (a native session saved after a run against an endpoint has them)');
    replayClient = new LlmClient(settings, { recorder, cassette: new Cassette(calls) });
  }
  const endpointClient =
    replayClient ??
    (flags && new LlmClient(endpointSettings(flags.endpoint, { supervisor: flags.model }), { recorder }));
  const results: ShadowResult[] = [];
  for (const run of file.runs) {
    const client = endpointClient?.forRun();
    const result = await shadowReplay(run, { params, client });
    results.push(result);
    if (result.status !== 'complete') break;
  }

  const out = stringFlag(args, 'out');
  if (out !== undefined) {
    // The runs with the supervisor's decisions and every recorded call: `--replay` on this file reproduces them.
    const supervised = file.runs.map((run) => {
      const result = results.find((r) => r.runId === run.id);
      return result ? { ...run, interventions: [...run.interventions.filter((i) => i.engine !== 'supervisor'), ...result.interventions] } : run;
    });
    const llmCalls = [...(replay ? [] : (file.llmCalls ?? [])), ...recorder.records];
    try {
      writeFileSync(out, `${exportSession({ runs: supervised, llmCalls, title: file.file })}\n`);
    } catch (e) {
      throw new CliError(out, `cannot write: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  const emit = stringFlag(args, 'emit-run');
  if (emit !== undefined) {
    // One derived run per finished replay: verdicts applied, tokens = supervised_estimate, labelled an estimate.
    const countTokens = await loadTokenCounter();
    const derived = results
      .filter((r) => r.status === 'complete')
      .map((r) => deriveShadowRun(file.runs.find((x) => x.id === r.runId)!, r, { params, countTokens }));
    const llmCalls = [...(replay ? (file.llmCalls ?? []) : []), ...recorder.records];
    try {
      writeFileSync(emit, `${exportSession({ runs: derived, llmCalls, title: `${file.file} (shadow-supervised estimates)` })}\n`);
    } catch (e) {
      throw new CliError(emit, `cannot write: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  const runs = report(file, results);
  // With --replay: the decisions the session recorded against those the replay made, run by run.
  const checks = new Map<string, ReplayCheck>();
  if (replay) {
    for (const r of results) {
      const recorded = file.runs.find((x) => x.id === r.runId)?.interventions.filter((i) => i.engine === 'supervisor') ?? [];
      checks.set(r.runId, compareReplay(recorded, r.interventions));
    }
  }
  const cost = costJson(sumCosts(results.map((r) => r.cost)));
  if (args.flags.has('json')) printJson(replay ? { runs: runs.map((r) => ({ ...r, replay: checks.get(r.id) })), cost } : { runs, cost });
  else {
    for (const r of runs) {
      const t = r.tokens;
      printOut`${r.id}: ${r.triggers.length} interventions; tokens baseline ${t.baseline}, supervised (estimate) ${t.supervised_estimate}, `;
      printOut`supervisor ${t.supervisor_overhead}, net saving ${t.net_saving_pct}% (estimate)${endpoint || replay ? '' : ' [heuristic, offline]'}\n`;
      for (const tr of r.triggers) printOut`  ${tr.agent} step ${tr.step ?? '?'}: ${tr.context} → ${tr.action} (${tr.reason})\n`;
      const check = checks.get(r.id);
      if (check) {
        printOut`  replay from recorded calls: ${check.same} decisions as recorded, ${check.differences.length} different\n`;
        for (const d of check.differences) printOut`    step ${d.stepId ?? '?'}: recorded ${d.recorded ?? 'nothing'}, replayed ${d.replayed ?? 'nothing'}\n`;
      }
    }
  }
  const failed = results.find((r) => r.status === 'failed');
  if (failed?.failure) {
    const f = failed.failure;
    const left = file.runs.length - results.length;
    printError(
      file.file,
      `run ${failed.runId}: supervisor call for ${f.agent} step ${f.stepNumber ?? '?'} (${f.context}) failed: ${f.message}; ` +
        `stopped after ${failed.interventions.length} interventions${left > 0 ? `, ${left} more runs not started` : ''}`,
    );
    return 1;
  }
  return 0;
}
