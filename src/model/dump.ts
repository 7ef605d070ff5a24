// A human-readable dump of a run, used by importer snapshot tests: a reviewer can read what an importer made of a
// file without opening the JSON. Long texts are shortened to their start and length.
import type { BusStepData, BusTally, Run, Step } from './types.ts';

function short(text: string | undefined, max = 80): string {
  if (text === undefined) return '-';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? JSON.stringify(flat) : `${JSON.stringify(flat.slice(0, max))}…(${text.length} chars)`;
}

function usage(step: Step): string {
  const u = step.usage;
  if (!u) return '';
  return ` tokens=${u.input}+${u.output}=${u.total}${u.cached ? ` cached=${u.cached}` : ''}${u.estimated ? ' (estimated)' : ''}`;
}

function tally(t: BusTally): string {
  return t.map((e) => `${e.option}:${e.votes}`).join(' ') || '-';
}

function busLine(b: BusStepData): string {
  switch (b.kind) {
    case 'poll':
      return `poll ${b.pollId}${b.pollStepId ? ` (update of ${b.pollStepId})` : ''} status=${b.status ?? '-'} threshold=${b.threshold ?? '-'} options=${b.options.join('/')} votes=${b.voteStepIds.length} tally=${tally(b.tally)} question=${short(b.question, 40)} proposal=${short(b.proposal, 40)}`;
    case 'vote':
      return `vote ${b.voter} ${b.vote} on ${b.pollId}${b.pollStepId ? ` @${b.pollStepId}` : ' (poll not in log)'}${b.confidence !== undefined ? ` confidence=${b.confidence}` : ''} tally=${tally(b.tally)}`;
    case 'final_answer':
      return `final answer ${short(b.answer, 40)}${b.pollId ? ` from poll ${b.pollId}` : ''}${b.pollStepId ? ` @${b.pollStepId}` : ''} reported=${tally(b.reportedTally)} eligible=${b.eligible ?? '-'} threshold=${b.threshold ?? '-'}`;
  }
}

export function dumpRun(run: Run): string {
  const lines: string[] = [];
  lines.push(`run ${run.id} [${run.sourceFormat}${run.framework ? `, ${run.framework}` : ''}] ${short(run.title)}`);
  lines.push(`  task: ${short(run.task, 120)}`);
  lines.push(`  models: ${run.models.join(', ') || '-'}; outcome: ${run.outcome.status}${run.outcome.finalAnswer !== undefined ? ` answer=${short(run.outcome.finalAnswer, 40)}` : ''}${run.outcome.referenceAnswer !== undefined ? ` reference=${short(run.outcome.referenceAnswer, 40)}` : ''}`);
  const bench = run.benchmark;
  if (bench) lines.push(`  benchmark (${bench.rule}): exact_match=${bench.exactMatch} contains=${bench.contains}${bench.durationS !== undefined ? ` duration=${bench.durationS}s` : ''}`);
  const d = run.derived;
  if (d) lines.push(`  derived: ${d.kind} of ${d.sourceRunId} (${d.method}, estimate) tokens ${d.tokens.baseline} -> ${d.tokens.supervisedEstimate} + overhead ${d.tokens.supervisorOverhead}`);
  const tags = Object.entries(run.tags).map(([k, v]) => `${k}=${v}`);
  if (tags.length) lines.push(`  tags: ${tags.join(' ')}`);
  if (run.orphanSpans) lines.push(`  orphan spans: ${run.orphanSpans}`);
  lines.push(`  agents (${run.agents.length}):`);
  for (const a of run.agents) {
    lines.push(`    ${a.id} ${JSON.stringify(a.name)}${a.kind && a.kind !== 'agent' ? ` (${a.kind})` : ''}${a.parentId ? ` parent=${a.parentId}` : ''}${a.model ? ` model=${a.model}` : ''}`);
  }
  lines.push(`  agent runs (${run.agentRuns.length}):`);
  for (const r of run.agentRuns) {
    lines.push(`    ${r.id} agent=${r.agentId}${r.parentRunId ? ` parent=${r.parentRunId}` : ''} task=${short(r.task, 60)}`);
  }
  lines.push(`  steps (${run.steps.length}):`);
  for (const s of run.steps) {
    const indent = s.parentStepId ? '      ' : '    ';
    const calls = (s.toolCalls ?? []).map((c) => `${c.name}(${short(c.arguments, 30)})`).join(', ');
    lines.push(
      `${indent}#${s.index} ${s.kind}${s.number !== undefined ? ` ${s.number}` : ''} ${s.agentId}${s.name ? ` "${s.name}"` : ''}${usage(s)}${s.error ? ` ERROR ${short(s.error.message, 50)}` : ''}`,
    );
    if (s.output !== undefined) lines.push(`${indent}   out: ${short(s.output)}`);
    if (calls) lines.push(`${indent}   calls: ${calls}`);
    if (s.observation !== undefined) lines.push(`${indent}   obs: ${short(s.observation)}`);
    if (s.recipients?.length) lines.push(`${indent}   to: ${s.recipients.join(', ')}`);
    if (s.bus) lines.push(`${indent}   ${busLine(s.bus)}`);
  }
  lines.push(`  handoffs (${run.handoffs.length}):`);
  for (const h of run.handoffs) lines.push(`    ${h.kind} ${h.from} -> ${h.to.join(', ')}${h.stepId ? ` @${h.stepId}` : ''} ${short(h.content, 60)}`);
  lines.push(`  annotations (${run.annotations.length}):`);
  for (const a of run.annotations) {
    const target = a.stepId ? `step ${a.stepId}` : a.handoffId ? `handoff ${a.handoffId}` : 'run';
    lines.push(`    [${a.source}] ${a.taxonomy}:${a.code} on ${target}${a.agentId ? ` agent=${a.agentId}` : ''} ${short(a.description ?? a.evidence, 60)}`);
  }
  return lines.join('\n');
}
