import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionJsonSchema } from './json-schema.ts';

describe('published session schema', () => {
  it('public/session.schema.json is what src/model/schema.ts generates (run `npm run schema` after a model change)', () => {
    const published = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../public/session.schema.json'), 'utf8'));
    expect(published).toEqual(sessionJsonSchema());
  });

  it('requires the fields every run must have', () => {
    const schema = sessionJsonSchema() as { required: string[] };
    expect(schema.required).toEqual(expect.arrayContaining(['format', 'version', 'runs', 'engineSettings', 'llmCalls']));
  });
});
