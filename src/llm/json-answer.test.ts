import { describe, expect, it } from 'vitest';
import { extractJsonObject, readJsonAnswer } from './json-answer.ts';

describe('readJsonAnswer', () => {
  it('reads clean JSON with no repair', () => {
    expect(readJsonAnswer(' {"a": 1} ')).toEqual({ ok: true, value: { a: 1 }, repairs: [] });
  });
  it('names each repair it needed', () => {
    expect(readJsonAnswer('Sure:\n```json\n{"a": "x",}\n```')).toEqual({
      ok: true,
      value: { a: 'x' },
      repairs: ['took the JSON out of a code fence', 'removed trailing commas or typographic quotes'],
    });
    expect(readJsonAnswer('My answer is {"b": "}"} as asked.')).toEqual({ ok: true, value: { b: '}' }, repairs: ['ignored text around the JSON object'] });
  });
  it('says why there is no object', () => {
    expect(readJsonAnswer('no idea')).toMatchObject({ ok: false, problem: 'the answer contains no JSON object' });
    expect(readJsonAnswer('{"a": }')).toMatchObject({ ok: false, problem: 'the JSON object in the answer does not parse' });
    expect(readJsonAnswer('[1, 2]')).toMatchObject({ ok: false, problem: 'the answer is not a JSON object' });
  });
  it('finds the first balanced object, braces in strings skipped', () => {
    expect(extractJsonObject('x {"a": "{", "b": {"c": 1}} y {"d": 2}')).toBe('{"a": "{", "b": {"c": 1}}');
    expect(extractJsonObject('{"open": ')).toBeUndefined();
  });
});
