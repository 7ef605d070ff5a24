// Rectify-or-reject as a message gate of the live runner (ADR 0011, SPEC §5.2): every message a role produces is
// audited with `gateMessage` before the others see it. Flaws → the same agent writes again from its own input, its
// previous message and the composed feedback (through the runner's `regenerate`), up to T_max attempts; the passing
// attempt is delivered, a message still flawed after T_max is pruned. Without an indicator pool the gate audits
// against the domain's single general indicator (zero-shot mode), and says so on every verdict. The global fallback
// (fewer than γ survivors) is the runner's: the gate declares γ as `minSurvivors`.
import type { GateContext, MessageGate } from '../runner/gates.ts';
import type { Intervention } from '../../model/types.ts';
import { GateFailed, gateMessage, type PreparedPool, type RectifyParams } from './gate.ts';
import { GENERAL_INDICATORS, type Domain } from './indicators.ts';
import { gateIntervention } from './replay.ts';

export interface RectifierGateOptions {
  params: RectifyParams;
  /** The indicator pool, prepared (embeddings when an endpoint is used, else BM25). Absent: zero-shot mode. */
  pool?: PreparedPool;
}

/** The pool a zero-shot audit names (nothing is retrieved from it: the general indicator is audited alone). */
function zeroShotPool(domain: Domain): PreparedPool {
  return { name: `general indicator (zero-shot): ${GENERAL_INDICATORS[domain].name}`, indicators: [], retrieval: 'bm25' };
}

/** The agent's regeneration through the runner, with its recorded call found by the feedback it was given. */
function regenerateThroughRunner(ctx: GateContext) {
  return async (previous: string, feedback: string) => {
    const records = ctx.client?.recorder.records;
    const before = records?.length ?? 0;
    const text = await ctx.regenerate(feedback, previous);
    const needle = JSON.stringify(feedback).slice(1, -1);
    const record = records?.slice(before).find((r) => JSON.stringify(r.request ?? '').includes(needle));
    return { text, usage: record?.usage, llmCallId: record?.id };
  };
}

export function rectifierGate(options: RectifierGateOptions): MessageGate {
  const zeroShot = options.params.zeroShot || !options.pool || options.pool.indicators.length === 0;
  const params: RectifyParams = { ...options.params, zeroShot };
  const pool = zeroShot ? zeroShotPool(params.domain) : options.pool!;
  return {
    engine: 'rectifier',
    minSurvivors: params.gamma,
    async review(ctx) {
      const agent = ctx.run.agents.find((a) => a.id === ctx.step.agentId);
      const input = (ctx.step.input ?? []).map((m) => ({ role: m.role, content: m.content }));
      let g;
      try {
        g = await gateMessage(
          { task: ctx.task, agent: { name: agent?.name ?? ctx.step.agentId, role: agent?.role }, input, output: ctx.text },
          { pool, params, client: ctx.client, signal: ctx.signal, regenerate: regenerateThroughRunner(ctx) },
        );
      } catch (e) {
        // The runner tells endpoint failures (which stop a batch) and cancellation by the error itself.
        throw e instanceof GateFailed ? e.cause : e;
      }
      const iv: Intervention = gateIntervention(ctx.step, agent?.name ?? ctx.step.agentId, g, pool, params);
      const details = iv.details!;
      details.originalOutput = ctx.text;
      details.zeroShot = zeroShot;
      if (zeroShot) details.pool = { name: pool.name, size: 0, zeroShot: true };
      if (g.state === 'rejected') {
        details.finalState = 'rejected';
        return { action: 'prune', interventions: [iv] };
      }
      if (g.state === 'pass') {
        details.finalState = `pass@${g.passedAt}`;
        if (g.finalOutput !== null && g.finalOutput !== ctx.text) {
          details.revisedMessage = g.finalOutput;
          return { action: 'revise', text: g.finalOutput, interventions: [iv] };
        }
      }
      // Passed at the first attempt, or offline (retrieval only, nothing audited, labelled by gateIntervention).
      return { action: 'pass', interventions: [iv] };
    },
  };
}
