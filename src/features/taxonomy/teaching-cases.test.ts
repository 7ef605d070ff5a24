// The gallery's cases are complete teaching material: at least three per error type, maths, code and tool use all
// covered, every ask has a question, an addressee, an answer and a revised handoff; and the obvious signals in them
// are the ones the offline flagger is meant to catch.
import { describe, expect, it } from 'vitest';
import { ERROR_TYPES, flagEdge, type EdgeState } from '../../engine/clarifier/index.ts';
import { TEACHING_CASES } from './teaching-cases.ts';
import { maxScoreOf, quizCaseFromTrace, scoreOf, shuffled } from './quiz.tsx';

const asEdge = (message: string): EdgeState => ({ id: 'x', task: '', sender: { id: 's', name: 's' }, receiver: { id: 'r', name: 'r' }, receivers: [{ id: 'r', name: 'r' }], message, history: [] });

describe('teaching cases', () => {
  it('at least 3 per type, 12 in all, each type across maths, code and tool use, ids unique', () => {
    const errors = TEACHING_CASES.filter((c) => c.type !== 'NONE');
    expect(errors.length).toBeGreaterThanOrEqual(12);
    for (const t of ERROR_TYPES) {
      const of = TEACHING_CASES.filter((c) => c.type === t);
      expect(of.length, t).toBeGreaterThanOrEqual(3);
      expect(new Set(of.map((c) => c.domain)), t).toEqual(new Set(['math', 'code', 'tool']));
    }
    expect(new Set(TEACHING_CASES.map((c) => c.id)).size).toBe(TEACHING_CASES.length);
  });

  it('every ask carries the fixing question, its addressee, the answer and a revised handoff; NONE cases ask nobody', () => {
    for (const c of TEACHING_CASES) {
      if (c.type === 'NONE') {
        expect(c.toAgent, c.id).toBeNull();
        expect(c.question, c.id).toBeUndefined();
        continue;
      }
      expect(c.question && c.question.trim().endsWith('?'), c.id).toBe(true);
      expect(['sender', 'receiver'], c.id).toContain(c.toAgent);
      expect(c.reply?.length, c.id).toBeGreaterThan(5);
      expect(c.revised && c.revised !== c.message, c.id).toBe(true);
      expect(c.explanation.length, c.id).toBeGreaterThan(60);
    }
  });

  it('the broken-JSON case is flagged SC by the offline flagger, and its repaired handoff is not', () => {
    const c = TEACHING_CASES.find((x) => x.id === 'sc-code-json')!;
    expect(flagEdge(asEdge(c.message.replace('Failing cases (JSON): ', '')))?.type).toBe('SC');
    expect(flagEdge(asEdge(c.revised!.replace('Failing cases (JSON): ', '')))).toBeUndefined();
  });

  it('the quiz order is a permutation and changes with the seed', () => {
    const ids = TEACHING_CASES.map((c) => c.id);
    const a = shuffled(ids, 1);
    expect([...a].sort()).toEqual([...ids].sort());
    expect(shuffled(ids, 2)).not.toEqual(a);
  });
});

describe('quiz items from traces and scoring', () => {
  const base = { id: 'r::h', runId: 'r', runTitle: 'run', simulated: false, handoffId: 'h', task: 't', sender: 'A', receiver: 'B', message: 'm' };
  const asked = { edgeId: 'h', toAgent: 'receiver' as const, question: 'Can you compute it?', originalMessage: 'm', revisedMessage: 'm+', changed: true, tokens: { input: 1, output: 1, total: 2 }, latencyMs: 1, resolved: true, heuristic: false, repairs: [], llmCallIds: [] };

  it('scores the addressee only where the endpoint clarifier asked the same type (or for NONE)', () => {
    expect(quizCaseFromTrace({ ...base, type: 'CG', clarification: { ...asked, type: 'CG' } })).toMatchObject({ toAgent: 'receiver', whomScored: true, question: 'Can you compute it?', revised: 'm+' });
    expect(quizCaseFromTrace({ ...base, type: 'CG', clarification: { ...asked, type: 'DG' } })).toMatchObject({ toAgent: null, whomScored: false });
    expect(quizCaseFromTrace({ ...base, type: 'CG', clarification: { ...asked, type: 'CG', heuristic: true } }).whomScored).toBe(false);
    expect(quizCaseFromTrace({ ...base, type: 'NONE' })).toMatchObject({ toAgent: null, whomScored: true });
    expect(quizCaseFromTrace({ ...base, type: 'RD', note: 'which one' }).explanation).toMatch(/: which one\. There is no reference addressee/);
  });

  it('a point for the type, a point for a scored addressee', () => {
    const answers = [
      { caseId: 'a', type: 'DG' as const, whom: 'sender' as const, typeRight: true, whomRight: true, whomScored: true },
      { caseId: 'b', type: 'SC' as const, whom: 'sender' as const, typeRight: true, whomRight: false, whomScored: false },
      { caseId: 'c', type: 'RD' as const, whom: 'receiver' as const, typeRight: false, whomRight: true, whomScored: true },
    ];
    expect(scoreOf(answers)).toBe(4);
    expect(maxScoreOf(answers)).toBe(5);
  });
});
