// One span's attribute map as a file: the OpenInference / OTel GenAI fixtures in ../shared/traces/format-fixtures
// import as one-span runs, both standards read the same call the same way, and other objects are not taken for one.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFixture, HAVE_SHARED, SKIP_REASON, sharedFiles } from '../../testing/fixture-kit.ts';
import { importText, ImportError } from '../index.ts';
import { parseText } from '../parse-input.ts';
import { isSpanAttributesFormatted } from './span-attributes.ts';

const DUMPS = join(import.meta.dirname, 'dumps');
const FIXTURES = sharedFiles('format-fixtures');

describe.skipIf(!HAVE_SHARED)(`span attribute fixtures (${HAVE_SHARED ? `${FIXTURES.length} files` : SKIP_REASON})`, () => {
  it('finds the fixtures', () => expect(FIXTURES.length).toBeGreaterThanOrEqual(5));
  for (const path of FIXTURES) {
    it(path.split('/').pop()!, async () => {
      const imported = await checkFixture(path, 'span-attributes', DUMPS);
      expect(imported.runs).toHaveLength(1);
      expect(imported.runs[0].steps).toHaveLength(1);
    });
  }

  it('a chat call reads the same in both standards: 97 in, 52 out', async () => {
    const chats = FIXTURES.filter((p) => /client_span/.test(p));
    expect(chats.length).toBe(4);
    for (const path of chats) {
      const [run] = (await checkFixture(path, 'span-attributes', DUMPS)).runs;
      expect(run.steps[0].kind).toBe('llm');
      expect(run.steps[0].usage).toMatchObject({ input: 97, output: 52, total: 149 });
    }
  });
});

describe('what is not one span’s attributes', () => {
  const sniff = (text: string) => isSpanAttributesFormatted(parseText('x.json', text));
  it('needs a key of a known attribute standard', () => {
    expect(sniff('{"gen_ai.operation.name":"chat"}')).toBe(true);
    expect(sniff('{"llm.token_count.total":"12","input.value":"hi"}')).toBe(true);
    expect(sniff('{"service.name":"x","http.method":"GET"}')).toBe(false);
    expect(sniff('{}')).toBe(false);
    expect(sniff('[{"gen_ai.operation.name":"chat"}]')).toBe(false);
  });
  it('refuses nested objects and keys that are not attribute names', () => {
    expect(sniff('{"gen_ai.operation.name":"chat","spans":[{"a":1}]}')).toBe(false);
    expect(sniff('{"gen_ai.operation.name":"chat","meta":{"a":1}}')).toBe(false);
    expect(sniff('{"gen_ai.operation.name":"chat","a key with spaces":"x"}')).toBe(false);
  });
  it('an unrecognised map is an ImportError, not a crash', () => {
    expect(() => importText('x.json', '{"service.name":"x"}')).toThrow(ImportError);
  });
  it('ids come from the content, not the file name', () => {
    const text = '{"gen_ai.operation.name":"execute_tool","gen_ai.tool.name":"get_weather"}';
    expect(importText('a.json', text).runs[0].id).toBe(importText('b.txt', text).runs[0].id);
    expect(importText('a.json', text).runs[0].title).toBe('execute_tool get_weather');
  });
});
