// The engine switches as plain data → the runner's gates: order, fresh gates per run, the pool checked and prepared.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RECTIFY_PARAMS } from '../rectifier/index.ts';
import { enginesOn, prepareGates, type EngineConfig } from './index.ts';

const all: EngineConfig = {
  supervisor: { tauStep: 8, tauLoop: 5, tauLen: 3000, heuristic: true },
  rectifier: { params: { ...DEFAULT_RECTIFY_PARAMS, domain: 'math', gamma: 2 } },
  clarifier: { heuristic: true },
};

describe('prepareGates', () => {
  it('builds the switched-on gates in order rectifier → clarifier → supervisor, fresh for every run', async () => {
    expect(enginesOn(undefined)).toEqual([]);
    expect(enginesOn({ clarifier: { heuristic: false } })).toEqual(['clarifier']);
    const make = await prepareGates(all);
    const a = make();
    expect(a.map((g) => g.engine)).toEqual(['rectifier', 'clarifier', 'supervisor']);
    // γ from the rectifier's parameters is the runner's global-fallback threshold.
    expect(a[0].minSurvivors).toBe(2);
    expect(a[1].minSurvivors).toBeUndefined();
    const b = make();
    expect(b[2]).not.toBe(a[2]);
    expect((await prepareGates({}))()).toEqual([]);
  });

  it('refuses a pool whose indicators have no trigger condition', async () => {
    await expect(prepareGates({ rectifier: { params: all.rectifier!.params, pool: { name: 'bad.json', indicators: [{ name: 'X' }] } } })).rejects.toThrow(/bad\.json: an indicator lacks/);
    const ok = await prepareGates({ rectifier: { params: all.rectifier!.params, pool: { name: 'p.json', indicators: [{ name: 'X', detailed_definition: 'd', evaluator_prompt: { trigger_condition: 't', risk_alert: 'r' }, metadata: {} }] } } });
    expect(ok().map((g) => g.engine)).toEqual(['rectifier']);
  });
});
