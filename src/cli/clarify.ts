// `clarify <file> [--offline | --endpoint URL --model M] [--window H] --json` (SPEC §7): run the edge clarifier
// (AgentAsk, SPEC §5.3) over every handoff of every run in a trace file. Offline, the heuristic flagger decides.
import type { ImportedFile } from '../import/index.ts';
import { CallRecorder, costJson, DEFAULT_LLM_SETTINGS, LlmClient, sumCosts } from '../llm/index.ts';
import {
  clarificationOf,
  clarifyRun,
  DEFAULT_EDGE_GATE,
  DEFAULT_WINDOW,
  estimateClarifierCost,
  parseEdgeGate,
  type ClarifyResult,
  type EdgeGate,
} from '../engine/clarifier/index.ts';
import { CliError, numberFlag, parseArgs, printJson, readTraceFiles, endpointFlags, endpointSettings, stringFlag } from './io.ts';
import { printEstimate } from './cost.ts';
import { printOut, printError } from './terminal.ts';

export const CLARIFY_USAGE =
  `clarify <file> [--offline | --endpoint URL --model M] [--window H] [--gate all|flagged|flagged+sample[:rate]] [--seed N] [--dry-run] [--json]   ` +
  `run the edge clarifier on the handoffs (history window H, default ${DEFAULT_WINDOW}; the gate picks the edges sent to the model, default all; ` +
  `offline heuristic flagger unless --endpoint; --dry-run prints the calls and estimated tokens and sends nothing)`;

function report(file: ImportedFile, results: ClarifyResult[]) {
  return results.map((r) => {
    const run = file.runs.find((x) => x.id === r.runId)!;
    const name = new Map(run.agents.map((a) => [a.id, a.name]));
    const handoff = new Map(run.handoffs.map((h) => [h.id, h]));
    const s = r.summary;
    return {
      id: r.runId,
      edges: r.interventions.flatMap((iv) => {
        const c = clarificationOf(iv);
        const h = handoff.get(iv.handoffId ?? '');
        if (!c || !h) return [];
        return [
          {
            id: h.id,
            from: name.get(h.from) ?? h.from,
            to: h.to.map((t) => name.get(t) ?? t),
            type: c.type,
            to_agent: c.toAgent,
            question: c.question,
            reply: c.reply ?? null,
            resolved: c.resolved,
            tokens: c.tokens.total,
            latency_ms: c.latencyMs,
            heuristic: c.heuristic,
            ...(c.route ? { route: c.route } : {}),
            ...(c.signal ? { signal: c.signal } : {}),
            ...(c.malformed ? { malformed: c.malformed.problem } : {}),
          },
        ];
      }),
      summary: {
        edges: s.edges,
        checked: s.checked,
        asked: s.asked,
        by_type: s.byType,
        one_shot_pct: s.oneShotPct,
        malformed: s.malformed,
        extra_tokens: s.extraTokens,
        run_tokens: s.runTokens,
        run_tokens_estimated: s.runTokensEstimated,
        extra_cost_pct: s.extraCostPct,
        latency_ms: s.latencyMs,
        heuristic: s.heuristic,
        gate: s.gate,
        sent_to_model: s.sentToModel,
      },
      cost: costJson(r.cost),
    };
  });
}

/** Returns the exit code: 0, or 1 when an endpoint failure stopped a run (its finished part is still printed). */
export async function clarifyCommand(argv: string[]): Promise<number> {
  const args = parseArgs(argv, new Set(['json', 'offline', 'dry-run']), new Set(['endpoint', 'model', 'window', 'gate', 'seed']));
  if (args.positional.length !== 1) throw new CliError('usage', `clarify needs exactly one file, got ${args.positional.length}`);
  const flags = endpointFlags(args);
  const window = numberFlag(args, 'window') ?? DEFAULT_WINDOW;
  if (!Number.isInteger(window) || window < 0) throw new CliError('usage', `--window must be a whole number ≥ 0, got ${window}`);
  const seed = numberFlag(args, 'seed') ?? DEFAULT_EDGE_GATE.seed;
  if (!Number.isInteger(seed)) throw new CliError('usage', `--seed must be a whole number, got ${seed}`);
  const gateText = stringFlag(args, 'gate');
  const gate: EdgeGate | undefined = gateText === undefined ? undefined : parseEdgeGate(gateText, seed);
  if (gateText !== undefined && !gate) throw new CliError('usage', `--gate must be all, flagged or flagged+sample[:rate with 0 ≤ rate ≤ 1], got ${JSON.stringify(gateText)}`);
  const [file] = readTraceFiles(args.positional);

  if (args.flags.has('dry-run')) {
    const estimate = await estimateClarifierCost(file.runs, { window, gate, maxTokens: DEFAULT_LLM_SETTINGS.maxTokens });
    printEstimate(estimate, args.flags.has('json'), flags === undefined);
    return 0;
  }

  // The addressee (an LLM playing the agent) uses the same model as the clarifier.
  const endpointClient = flags && new LlmClient(endpointSettings(flags.endpoint, { clarifier: flags.model, agents: flags.model }), { recorder: new CallRecorder() });
  const results: ClarifyResult[] = [];
  for (const run of file.runs) {
    const result = await clarifyRun(run, { client: endpointClient?.forRun(), window, gate });
    results.push(result);
    if (result.status !== 'complete') break;
  }

  const runs = report(file, results);
  const total = sumCosts(results.map((r) => r.cost));
  if (args.flags.has('json')) printJson({ runs, cost: costJson(total) });
  else {
    for (const r of runs) {
      const s = r.summary;
      printOut`${r.id}: ${s.edges} edges, ${s.asked} asked (DG ${s.by_type.DG}, RD ${s.by_type.RD}, SC ${s.by_type.SC}, CG ${s.by_type.CG}); `;
      printOut`one-shot ${s.one_shot_pct ?? '–'}%; extra ${s.extra_tokens} tokens in ${r.cost.per_run.calls} calls = ${s.extra_cost_pct ?? '–'}% of the run`;
      printOut`${s.heuristic ? ' [heuristic, offline]' : `; gate ${s.gate}, ${s.sent_to_model} edges sent to the model`}\n`;
      for (const e of r.edges) if (e.type !== 'NONE') printOut`  ${e.id} ${e.from} → ${e.to.join(', ')}: ${e.type} ask ${e.to_agent}: ${e.question}\n`;
    }
  }
  const failed = results.find((r) => r.status === 'failed');
  if (failed?.failure) {
    const f = failed.failure;
    printError(file.file, `run ${failed.runId}: clarifier call for edge ${f.edgeId} (${f.sender} → ${f.receiver}) failed: ${f.message}; stopped after ${failed.interventions.length} edges`);
    return 1;
  }
  return 0;
}
