// Import reports of spans (issue 20): the per-run report summed over the runs of a file, the accounting check
// (every span read is mapped, kept or dropped with a reason), and the one-line summary the Library and the CLI show.
import type { SpanReport } from './types.ts';

export function emptySpanReport(): SpanReport {
  return { read: 0, agents: 0, modelCalls: 0, toolCalls: 0, otherSteps: 0, plain: 0, dropped: [], orphans: 0, mergedModelCalls: 0, handoffs: 0, agentRules: [], toolRules: [] };
}

export function droppedCount(report: SpanReport): number {
  let n = 0;
  for (const d of report.dropped) n += d.count;
  return n;
}

/** Spans read that the report does not account for: 0 for an honest report. */
export function unaccounted(report: SpanReport): number {
  return report.read - (report.agents + report.modelCalls + report.toolCalls + report.otherSteps + report.plain + droppedCount(report));
}

/** The reports of several runs (a file's) as one; naming rules listed once per name and rule. */
export function sumSpanReports(reports: Iterable<SpanReport | undefined>): SpanReport | undefined {
  let out: SpanReport | undefined;
  const dropped = new Map<string, number>();
  const rules = { agentRules: new Set<string>(), toolRules: new Set<string>() };
  for (const r of reports) {
    if (!r) continue;
    out ??= emptySpanReport();
    out.read += r.read;
    out.agents += r.agents;
    out.modelCalls += r.modelCalls;
    out.toolCalls += r.toolCalls;
    out.otherSteps += r.otherSteps;
    out.plain += r.plain;
    out.orphans += r.orphans;
    out.mergedModelCalls += r.mergedModelCalls;
    out.handoffs += r.handoffs;
    for (const d of r.dropped) dropped.set(d.reason, (dropped.get(d.reason) ?? 0) + d.count);
    for (const key of ['agentRules', 'toolRules'] as const) {
      for (const rule of r[key]) {
        const k = `${rule.name}\u0000${rule.rule}`;
        if (rules[key].has(k)) continue;
        rules[key].add(k);
        out[key].push(rule);
      }
    }
  }
  if (out) for (const [reason, count] of dropped) out.dropped.push({ reason, count });
  return out;
}

/**
 * "10,000 spans: 1 agent span, 1,000 model calls, 1,000 tool calls, 7,999 kept as spans, none dropped": the parts
 * after the colon sum to the spans read. Figures outside that sum are in spanReportExtras.
 */
export function spanReportLine(r: SpanReport): string {
  const n = (x: number) => x.toLocaleString('en');
  const parts = [`${n(r.agents)} agent span${r.agents === 1 ? '' : 's'}`, `${n(r.modelCalls)} model call${r.modelCalls === 1 ? '' : 's'}${r.mergedModelCalls ? ` (${n(r.mergedModelCalls)} of them inside a wrapper span of the same call, counted once)` : ''}`, `${n(r.toolCalls)} tool call${r.toolCalls === 1 ? '' : 's'}`];
  if (r.otherSteps) parts.push(`${n(r.otherSteps)} other step${r.otherSteps === 1 ? '' : 's'}`);
  parts.push(`${n(r.plain)} kept as span${r.plain === 1 ? '' : 's'}`);
  const dropped = droppedCount(r);
  parts.push(dropped ? `${n(dropped)} dropped (${r.dropped.map((d) => `${n(d.count)} ${d.reason}`).join(', ')})` : 'none dropped');
  const missing = unaccounted(r);
  if (missing) parts.push(`${n(missing)} UNACCOUNTED`);
  return `${n(r.read)} span${r.read === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/**
 * What the report counts beside the sum (issue 20): handoffs made from the agent spans already counted, spans with a
 * missing parent (counted in the sum, kept as roots). Undefined when there is nothing to add.
 */
export function spanReportExtras(r: SpanReport): string | undefined {
  const n = (x: number) => x.toLocaleString('en');
  const parts: string[] = [];
  if (r.handoffs) parts.push(`${n(r.handoffs)} handoff${r.handoffs === 1 ? '' : 's'} made from the agent spans (not spans of their own)`);
  if (r.orphans) parts.push(`${n(r.orphans)} span${r.orphans === 1 ? '' : 's'} naming a parent not in the file (kept as roots, counted above)`);
  return parts.length ? `not in the sum: ${parts.join('; ')}` : undefined;
}
