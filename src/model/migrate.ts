// Reading runs stored before the runner's semantics were typed (session version 1, IndexedDB records of that time):
// the runner and forks kept them in `Step.raw` / `Run.raw`; they now live in `Step.runner` / `Run.live` (ADR 0014).
// Pure: the native importer and the library's load both pass every run through `migrateRun`. No zod here: the library
// loads before first paint, and the schema stays out of that bundle (SPEC §8).
import type { ForkStats, Run, RunLive, Step, StepRunner } from './types.ts';

const TEXT_KEYS = ['llmCallId', 'callKey', 'produced', 'editedFrom', 'recordedOutput', 'selector'] as const;
const FLAG_KEYS = ['pruned', 'superseded'] as const;
const STEP_KEYS: readonly string[] = ['origin', 'edit', ...TEXT_KEYS, ...FLAG_KEYS];
const ORIGINS = new Set<string>(['live', 'recorded', 'edited', 'scripted', 'tool-replay']);
const EDITS = new Set<string>(['replace', 'append', 'prune']);
const RUN_STATUSES = new Set<string>(['complete', 'stopped', 'failed', 'cancelled']);
const FORK_COUNTS = ['copied', 'replayed', 'live', 'edited', 'toolReplayed', 'scripted'] as const;

/** The raw bag without `keys`, or undefined when nothing is left. */
function without(raw: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> | undefined {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (!keys.includes(k)) rest[k] = v;
  return Object.keys(rest).length > 0 ? rest : undefined;
}

function migrateStep(step: Step): Step {
  const raw = step.raw;
  if (!raw || !STEP_KEYS.some((k) => k in raw)) return step;
  const runner: StepRunner = {};
  if (typeof raw.origin === 'string' && ORIGINS.has(raw.origin)) runner.origin = raw.origin as StepRunner['origin'];
  if (typeof raw.edit === 'string' && EDITS.has(raw.edit)) runner.edit = raw.edit as StepRunner['edit'];
  for (const k of TEXT_KEYS) if (typeof raw[k] === 'string') runner[k] = raw[k];
  for (const k of FLAG_KEYS) if (typeof raw[k] === 'boolean') runner[k] = raw[k];
  if (Object.keys(runner).length === 0) return step;
  const { raw: _old, ...rest } = step;
  void _old;
  const out: Step = { ...rest, runner: { ...runner, ...step.runner } };
  const left = without(raw, Object.keys(runner)); // a value of an unexpected type stays where it was
  if (left) out.raw = left;
  return out;
}

function migrateLive(run: Run): Pick<Run, 'live' | 'raw'> | undefined {
  const raw = run.raw;
  if (!raw || typeof raw.liveStatus !== 'string' || !RUN_STATUSES.has(raw.liveStatus)) return undefined;
  const live: RunLive = { status: raw.liveStatus as RunLive['status'] };
  if (typeof raw.liveNote === 'string') live.note = raw.liveNote;
  const stats = raw.forkStats;
  if (stats !== null && typeof stats === 'object' && FORK_COUNTS.every((k) => typeof (stats as Record<string, unknown>)[k] === 'number')) {
    live.forkStats = stats as ForkStats;
  }
  if (raw.forkStyle === 'chat' || raw.forkStyle === 'prompts') live.forkStyle = raw.forkStyle;
  const moved = ['liveStatus', ...(live.note !== undefined ? ['liveNote'] : []), ...(live.forkStats ? ['forkStats'] : []), ...(live.forkStyle ? ['forkStyle'] : [])];
  return { live: { ...live, ...run.live }, raw: without(raw, moved) };
}

/**
 * A run with the runner's old raw keys moved to the typed fields. Only runs the runner or a fork made
 * (`sourceFormat: 'runner'`) are touched: an imported run's raw fields are the source's own, whatever their names.
 * Returns the same object when there is nothing to move.
 */
export function migrateRun(run: Run): Run {
  if (run.sourceFormat !== 'runner') return run;
  const live = migrateLive(run);
  let changed = live !== undefined;
  const steps = run.steps.map((s) => {
    const m = migrateStep(s);
    if (m !== s) changed = true;
    return m;
  });
  if (!changed) return run;
  const out: Run = { ...run, steps };
  if (live) {
    out.live = live.live;
    if (live.raw) out.raw = live.raw;
    else delete out.raw;
  }
  return out;
}
