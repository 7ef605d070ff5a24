// Pool format, the three-part rule's pieces, BM25, statistics and mining (Algorithm 2, against the test server).
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test-server/server.ts';
import { CallRecorder, LlmClient, withDefaults } from '../../llm/index.ts';
import type { Run } from '../../model/types.ts';
import { GENERAL_INDICATORS, parsePool, PoolFormatError, serializePool, type Indicator } from './indicators.ts';
import { Bm25Index, MemoryEmbeddingCache } from './retrieval.ts';
import { indicatorOverlap, jaccard, rectifierStatistics, type MessageSummary } from './statistics.ts';
import { isConcrete, judge, parseAudit, saysYes } from './verdict.ts';
import { mineIndicators, parseTeacherAnswer } from './mining.ts';

const SHARED_POOL = resolve(import.meta.dirname, '../../../../shared/indicator-pool/agentdropoutv2-math-pool.json');

describe('indicator pools', () => {
  it.skipIf(!existsSync(SHARED_POOL))('reads the published 2000-indicator math pool as-is and writes it back identically', () => {
    const text = readFileSync(SHARED_POOL, 'utf8');
    const pool = parsePool(text, 'agentdropoutv2-math-pool.json');
    expect(pool.indicators).toHaveLength(2000);
    expect(pool.indicators[0].name).toBe('INCORRECT_COMBINATION_OF_PATTERN_ANALYSIS');
    expect(pool.indicators[0].metadata).toEqual({ source_task_id: 237, source_agent_role: 'Inspector' });
    expect(JSON.parse(serializePool(pool))).toEqual(JSON.parse(text));
    // BM25 over 2000 trigger conditions ranks a square-root query on square roots.
    const bm25 = new Bm25Index(pool.indicators.map((i) => i.evaluator_prompt.trigger_condition));
    const top = bm25.search('square root of an integer expression', 5);
    expect(top).toHaveLength(5);
    expect(pool.indicators[top[0].index].evaluator_prompt.trigger_condition.toLowerCase()).toMatch(/square root|radical/);
  });

  it('names the JSON path of a malformed entry', () => {
    expect(() => parsePool('{"x":1}', 'p')).toThrow(/expected a JSON array/);
    expect(() => parsePool('[{"name":"A","detailed_definition":"d","evaluator_prompt":{}}]', 'p')).toThrow(PoolFormatError);
    expect(() => parsePool('[{"name":"A","detailed_definition":"d","evaluator_prompt":{}}]', 'p')).toThrow('$[0].evaluator_prompt.trigger_condition');
    expect(() => parsePool('nope', 'p')).toThrow(/not JSON/);
  });

  it('general indicators exist for each domain and read as pool entries', () => {
    for (const g of Object.values(GENERAL_INDICATORS)) expect(parsePool(JSON.stringify([g]), 'g').indicators[0]).toEqual(g);
  });
});

describe('reading an audit', () => {
  it('needs all five fields and a boolean verdict', () => {
    expect(parseAudit('{"evidence_quote":"a","analysis":"b","suggestion":"c","impact_assessment":"YES","is_flawed":true}')).toMatchObject({ ok: true, repairs: [] });
    expect(parseAudit('```json\n{"evidence_quote":"a","analysis":"b","suggestion":"c","impact_assessment":"YES","is_flawed":"true"}\n```')).toMatchObject({ ok: true, verdict: { is_flawed: true } });
    expect(parseAudit('{"analysis":"b","suggestion":"c","impact_assessment":"YES","is_flawed":true}')).toMatchObject({ ok: false, problem: 'missing evidence_quote' });
    expect(parseAudit('{"evidence_quote":"a","analysis":"b","suggestion":"c","impact_assessment":"YES","is_flawed":"maybe"}')).toMatchObject({ ok: false });
    expect(parseAudit('{"is_flawed":true,"evidence_quote":"a","analysis":"b","suggestion":"c","impact_assessment":"YES"}')).toMatchObject({ ok: true, repairs: ['the fields came in another order'] });
  });

  it('concrete suggestions and yes assessments', () => {
    for (const s of ['N/A', 'n/a', 'NA', 'None', 'none.', '', '  ', '"N/A"', 'No fix needed', 'not applicable', '-']) expect(isConcrete(s), s).toBe(false);
    for (const s of ['Change x to -3', 'Add the missing case n = 0']) expect(isConcrete(s), s).toBe(true);
    for (const s of ['YES', 'Yes, the answer changes', '(YES) it flips', '**YES** because']) expect(saysYes(s), s).toBe(true);
    for (const s of ['NO', 'No: the answer remains 11', 'N/A', '', 'Unclear whether yes or no']) expect(saysYes(s), s).toBe(false);
    const v = { evidence_quote: 'q', analysis: 'a', suggestion: 'Fix it by adding 1', impact_assessment: 'YES', is_flawed: true };
    expect(judge(v)).toEqual({ flawed: true });
    expect(judge({ ...v, is_flawed: false })).toEqual({ flawed: false });
  });
});

describe('statistics', () => {
  it('round distribution per dataset and Jaccard of the top-10 indicator sets', () => {
    const m = (dataset: string, passedAt: number | undefined, retrieved: string[]): MessageSummary => ({ dataset, passedAt, rejected: passedAt === undefined, retrieved });
    const stats = rectifierStatistics([m('gsm8k', 1, ['A', 'B']), m('gsm8k', 2, ['A', 'C']), m('gsm8k', undefined, ['A']), m('aime', 3, ['C', 'D']), m('aime', 1, ['D'])]);
    expect(stats.rounds).toEqual([
      { dataset: 'aime', messages: 2, passAt: [1, 0, 1], rejected: 0 },
      { dataset: 'gsm8k', messages: 3, passAt: [1, 1], rejected: 1 },
    ]);
    expect(stats.top.find((t) => t.dataset === 'gsm8k')!.indicators[0]).toEqual({ name: 'A', count: 3 });
    expect(stats.overlap.datasets).toEqual(['aime', 'gsm8k']);
    // {C, D} vs {A, B, C}: 1 / 4.
    expect(stats.overlap.values[0][1]).toBeCloseTo(0.25);
    expect(stats.overlap.values[1][1]).toBe(1);
    expect(jaccard(new Set(), new Set())).toBe(0);
    expect(indicatorOverlap(new Map()).values).toEqual([]);
  });
});

describe('mining (Algorithm 2)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const candidate = (name: string, trigger: string): Indicator => ({
    name,
    domain_tag: 'Algebra',
    detailed_definition: `This error occurs when the agent ${trigger}.`,
    evaluator_prompt: { trigger_condition: `When the agent attempts to ${trigger}`, risk_alert: 'check it' },
  });

  it('reads the teacher answer: NO_ERROR or a JSON list', () => {
    expect(parseTeacherAnswer('NO_ERROR')).toEqual({ indicators: [] });
    expect(parseTeacherAnswer('```json\n[' + JSON.stringify(candidate('A', 'x')) + ']\n```').indicators).toHaveLength(1);
    expect(parseTeacherAnswer('whatever').problem).toMatch(/neither/);
  });

  it('teacher per agent message of failed runs with a reference; dedup by K_dedup neighbours and a novelty check', async () => {
    const run: Run = {
      id: 'm',
      title: 'failed',
      task: 'Solve x^2 = 9.',
      sourceFormat: 'chat-log',
      models: [],
      outcome: { status: 'failure', referenceAnswer: 'x = 3 or x = -3', finalAnswer: 'x = 3' },
      tags: {},
      agents: [{ id: 'A', name: 'Alice' }, { id: 'B', name: 'Bob' }],
      agentRuns: [],
      steps: [
        { id: 'm:s0', index: 0, kind: 'message', agentId: 'A', output: 'ALICE_MSG x = 3' },
        { id: 'm:s1', index: 1, kind: 'message', agentId: 'B', output: 'BOB_MSG agreed' },
      ],
      handoffs: [],
      annotations: [],
      interventions: [],
      orphanSpans: 0,
    };
    const solved: Run = { ...run, id: 'ok', outcome: { status: 'success', referenceAnswer: '1' } };
    server.setScript({
      rules: [
        { match: { contains: 'Candidate:\n- DUP_ROOTS' }, content: '{"is_novel": false, "reason": "same as MISSING_NEGATIVE_ROOT", "duplicate_of": "MISSING_NEGATIVE_ROOT"}' },
        { match: { contains: 'Candidate:\n' }, content: '{"is_novel": true, "reason": "new pattern", "duplicate_of": null}' },
        { match: { contains: 'ALICE_MSG' }, content: JSON.stringify([candidate('MISSING_NEGATIVE_ROOT', 'take square roots of both sides'), candidate('DUP_ROOTS', 'take square roots of both sides')]) },
        { match: { contains: 'BOB_MSG' }, content: 'NO_ERROR' },
      ],
    });
    const client = new LlmClient(withDefaults({ baseUrl: server.baseUrl, models: { rectifier: 'teacher', embeddings: 'emb' }, retries: 0, jsonMode: false }), { recorder: new CallRecorder() });
    const existing: Indicator = { name: 'UNIT_SLIP', detailed_definition: 'units', evaluator_prompt: { trigger_condition: 'When converting units' } };
    const result = await mineIndicators([run, solved], { name: 'p', indicators: [existing] }, { client, domain: 'math', kDedup: 20, cache: new MemoryEmbeddingCache() });
    expect(result.runsMined).toEqual(['m']);
    expect(result.runsSkipped).toEqual([{ runId: 'ok', why: 'outcome is success, not failure' }]);
    expect(result.candidates.map((c) => [c.indicator.name, c.added])).toEqual([
      ['MISSING_NEGATIVE_ROOT', true],
      ['DUP_ROOTS', false],
    ]);
    expect(result.candidates[1]).toMatchObject({ duplicateOf: 'MISSING_NEGATIVE_ROOT' });
    // The second candidate was compared with the first (now in the pool) and the existing one.
    expect(result.candidates[1].similar.map((s) => s.name).sort()).toEqual(['MISSING_NEGATIVE_ROOT', 'UNIT_SLIP']);
    expect(result.pool.indicators.map((i) => i.name)).toEqual(['UNIT_SLIP', 'MISSING_NEGATIVE_ROOT']);
    expect(result.pool.indicators[1].metadata).toMatchObject({ source: 'mined', source_run: 'm', source_step: 'm:s0', source_agent_role: 'Alice', domain_tag: 'Algebra' });
    const log = server.log();
    // 1 pool embedding + 2 teacher calls + 2 candidate embeddings + 2 novelty checks.
    expect(log.filter((e) => e.path === '/v1/embeddings')).toHaveLength(3);
    expect(log.filter((e) => e.path === '/v1/chat/completions')).toHaveLength(4);
  });
});
