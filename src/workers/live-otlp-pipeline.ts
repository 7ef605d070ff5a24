// The live OTLP pipeline of the live worker (issue 19), without the worker around it (so Node tests drive it): exports
// go into the per-trace span sets (src/import/live-otlp.ts); a round imports each changed trace again with the OTLP
// file importer, runs the supervisor on it (its LLM-free filter always; its actions through the endpoint when one is
// given, earlier decisions reused by step, SPEC §5.1) and returns, per trace, only what changed since the run the page
// last received (a RunPatch), or the whole run the first time the page hears of it.
import { shadowReplay, type FilterParams } from '../engine/supervisor/index.ts';
import type { LlmClient } from '../llm/index.ts';
import { diffRun, isEmptyPatch, LiveTraces, type AddedSpan, type KeptSpan, type RunPatch } from '../import/live-otlp.ts';
import type { Intervention, Run } from '../model/types.ts';

export interface LiveUpdate {
  traceId: string;
  /** 1 for the first run the page receives for this trace, then one more per update. */
  rev: number;
  /** The whole run (first update of a trace in this worker, or after the page asked to resync)… */
  full?: Run;
  /** …or what changed since revision `rev - 1`. */
  patch?: RunPatch;
  done: boolean;
  spans: number;
  lastSpanAt: number;
  warnings: string[];
}

export interface SupervisorSetup {
  params: FilterParams;
  /** A client for the supervisor's actions (an endpoint is set); undefined: the LLM-free heuristics decide. */
  client?: () => LlmClient;
}

interface Sent {
  run: Run;
  rev: number;
  done: boolean;
}

/** The cheap character estimate: the tokenizer is not worth loading for every live update. */
const countTokens = (t: string) => Math.ceil(t.length / 4);

export class LiveOtlpPipeline {
  readonly traces = new LiveTraces();
  private readonly sent = new Map<string, Sent>();
  private readonly pending = new Set<string>();
  /** Supervisor decisions the page already holds for a trace this worker has not imported yet (after a reload). */
  private readonly seeded = new Map<string, readonly Intervention[]>();

  constructor(
    private supervisor: SupervisorSetup,
    private readonly quietMs: number,
  ) {}

  configure(supervisor: SupervisorSetup): void {
    this.supervisor = supervisor;
  }

  /** One export; returns the spans it kept (for storage). */
  add(doc: unknown, now = Date.now()): AddedSpan[] {
    const added: AddedSpan[] = [];
    for (const t of this.traces.add(doc, now, added)) this.pending.add(t);
    return added;
  }

  /** Spans read back from storage (a trace received before this worker started). */
  restore(traceId: string, spans: Array<{ spanId: string; kept: KeptSpan }>, lastSpanAt: number): void {
    for (const { spanId, kept } of spans) this.traces.keep(traceId, spanId, kept, lastSpanAt);
    if (spans.length > 0) this.pending.add(traceId);
  }

  seedDecisions(traceId: string, interventions: readonly Intervention[]): void {
    if (!this.sent.has(traceId)) this.seeded.set(traceId, interventions);
  }

  /** The page lost track of the trace (its run was removed, a patch did not fit): send the whole run next. */
  resync(traceId: string): void {
    this.sent.delete(traceId);
    if (this.traces.has(traceId)) this.pending.add(traceId);
  }

  get hasPending(): boolean {
    return this.pending.size > 0;
  }

  /** Import every changed trace again and say what changed; `between` runs after each trace (a chance to yield). */
  async round(now = Date.now(), between?: () => Promise<void>): Promise<LiveUpdate[]> {
    const updates: LiveUpdate[] = [];
    for (const traceId of [...this.pending]) {
      this.pending.delete(traceId);
      const update = await this.update(traceId, now);
      if (update) updates.push(update);
      if (between) await between();
    }
    return updates;
  }

  /** Traces that went quiet for `quietMs` since their last update: marked done (no import needed). */
  quiet(now = Date.now()): LiveUpdate[] {
    const out: LiveUpdate[] = [];
    for (const [traceId, sent] of this.sent) {
      if (sent.done || this.pending.has(traceId) || !this.traces.isDone(traceId, now, this.quietMs)) continue;
      sent.done = true;
      sent.rev++;
      out.push({ traceId, rev: sent.rev, patch: { lists: Object.create(null), set: Object.create(null), unset: [] }, ...this.state(traceId, now), warnings: [] });
    }
    return out;
  }

  private state(traceId: string, now: number) {
    return { done: this.traces.isDone(traceId, now, this.quietMs), spans: this.traces.spanCount(traceId), lastSpanAt: this.traces.lastSpanAt(traceId) ?? now };
  }

  private async update(traceId: string, now: number): Promise<LiveUpdate | undefined> {
    const imported = this.traces.importTrace(traceId);
    if (!imported.run) return undefined;
    const before = this.sent.get(traceId);
    const previous = before ? before.run.interventions : (this.seeded.get(traceId) ?? []);
    const run = await this.supervised(imported.run, previous);
    this.seeded.delete(traceId);
    const state = this.state(traceId, now);
    if (!before) {
      this.sent.set(traceId, { run, rev: 1, done: state.done });
      return { traceId, rev: 1, full: run, ...state, warnings: imported.warnings };
    }
    const patch = diffRun(before.run, run);
    if (isEmptyPatch(patch) && before.done === state.done) return undefined;
    const rev = before.rev + 1;
    this.sent.set(traceId, { run, rev, done: state.done });
    return { traceId, rev, patch, ...state, warnings: imported.warnings };
  }

  private async supervised(run: Run, previous: readonly Intervention[]): Promise<Run> {
    const { params, client } = this.supervisor;
    // Only the endpoint's decisions are kept between imports (not asked twice); the heuristics decide again on the
    // step as it now is, which is what importing the same spans as a file gives.
    const earlier = client ? previous.filter((i) => i.engine === 'supervisor') : [];
    const result = await shadowReplay(run, { params, previous: earlier, client: client?.(), countTokens });
    const others = run.interventions.filter((i) => i.engine !== 'supervisor');
    return { ...run, interventions: [...others, ...result.interventions] };
  }
}
