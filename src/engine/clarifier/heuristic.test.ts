// The offline flagger's quick gates (PLACEHOLDER_HINT, UNIT_HINT and the bar and fence checks) only skip messages that
// none of its patterns could match: each gate is a superset of its patterns, and every signal still fires.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EdgeState } from './edges.ts';
import { flagEdge, PLACEHOLDER_HINT, PLACEHOLDERS, UNIT_HINT, UNITS } from './heuristic.ts';

const agent = (id: string) => ({ id, name: id });
const state = (message: string): EdgeState => ({ id: 'h0', task: 'task', sender: agent('a'), receiver: agent('b'), receivers: [agent('b')], message, history: [] });

/** Texts made of the pieces the patterns look for, and of ordinary ones between them. */
const pieces = fc.constantFrom(
  ...['TODO', 'tbd', 'FixMe', '[', ']', '<', '>', '{{', '}}', '{', '?', '???', 'lorem ipsum', 'Lorem Ipsum', 'XXX', 'xxxx', 'insert', 'your', 'placeholder', 'fill in', 'fill_in', 'value', 'todo'],
  ...['1', '42', '3.5', ' ', '  ', '\n', 'a', 'the', '.', ',', '|', '```', 'json'],
  ...['km', 'kilometres', 'kilometers', 'mile', 'miles', 'cm', 'centimetre', 'inch', 'inches', 'feet', 'foot', 'ft', 'metres', 'meters', 'kg', 'kilograms', 'gram', 'grams', 'lb', 'lbs', 'pound', 'ml', 'millilitre', 'litres', 'liter', 'cup', 'cups', 'tsp', 'teaspoon', 'tablespoons', 'tbsp', 'gallon', 'fl oz', 'fl. oz', 'floz', '°C', '° C', '°F', 'degrees celsius', 'degree fahrenheit', 'KM', 'Miles'],
);
const texts = fc.array(pieces, { maxLength: 12 }).map((xs) => xs.join(''));

describe('the heuristic flagger gates', () => {
  it('PLACEHOLDER_HINT matches every text a placeholder pattern matches', () => {
    fc.assert(
      fc.property(texts, (text) => {
        if (PLACEHOLDERS.some((re) => re.test(text))) expect(PLACEHOLDER_HINT.test(text)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('UNIT_HINT matches every text a unit pattern matches', () => {
    fc.assert(
      fc.property(texts, (text) => {
        if (UNITS.some((u) => u.re.test(text))) expect(UNIT_HINT.test(text)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('every signal still fires', () => {
    expect(flagEdge(state('The total is [insert value here] dollars.'))).toMatchObject({ type: 'DG', signal: 'placeholder "[insert value here]"' });
    expect(flagEdge(state('Result: {{ answer }}'))).toMatchObject({ type: 'DG' });
    expect(flagEdge(state('Here:\n```json\n{"a": 1,}\n```'))).toMatchObject({ type: 'SC', toAgent: 'sender' });
    expect(flagEdge(state('{"a": [1, 2}'))).toMatchObject({ type: 'SC' });
    expect(flagEdge(state('| a | b |\n|---|---|\n| 1 | 2 | 3 |'))).toMatchObject({ type: 'SC', signal: expect.stringContaining('3 cells under a 2-column header') });
    expect(flagEdge(state('Add 2 cups of flour and 250 ml of milk.'))).toMatchObject({ type: 'SC', signal: 'numbers in two unit systems (litres, cups/spoons/gallons)' });
    expect(flagEdge(state('It is 20 °C outside, about 68 °F.'))).toMatchObject({ type: 'SC' });
  });

  it('passes plain messages, digits and bars included', () => {
    for (const text of ['step 5: noted item 5', 'a | b', 'Ran 3 tests in 2 s.', '', 'x < y and y > z', '1 metre'])
      expect(flagEdge(state(text)), text).toBeUndefined();
  });
});
