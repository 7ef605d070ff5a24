// `--dry-run` output shared by the commands that can call a model: calls and estimated tokens, nothing sent.
import { estimateJson, type CostEstimate } from '../llm/index.ts';
import { printJson } from './io.ts';
import { printOut } from './terminal.ts';

export function printEstimate(estimate: CostEstimate, json: boolean, offline: boolean): void {
  const note = offline ? 'what a pass against an endpoint would cost; offline spends nothing' : 'no request was sent';
  if (json) {
    printJson({ dry_run: true, note, estimate: estimateJson(estimate) });
    return;
  }
  const t = estimate.tokens;
  // Run ids and arm names come from files and flags: every value goes through printOut, which escapes controls.
  printOut`dry run (${note}): ${estimate.calls} calls, about ${t.total} tokens (${t.input} in, ${t.output} out), estimated\n`;
  if (estimate.oneTime) {
    const o = estimate.oneTime;
    printOut`  one-time: ${o.what}: ${o.cached ? 'served from cache, 0 calls' : `${o.calls} calls, about ${o.tokens.total} tokens`}\n`;
  }
  for (const r of estimate.runs) printOut`  ${r.runId}: ${r.calls} calls, about ${r.tokens.total} tokens\n`;
  for (const a of estimate.perArm ?? []) printOut`  arm ${a.arm}: ${a.calls} calls, about ${a.tokens.total} tokens\n`;
  for (const a of estimate.assumptions) printOut`  assumed: ${a}\n`;
}
