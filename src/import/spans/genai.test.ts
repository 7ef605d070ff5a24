import { afterEach, describe, expect, it, vi } from 'vitest';
import { genAi, genAiMessagesOfText } from './genai.ts';

/** What the messages of a text are by JSON.parse (parseJsonLoose, then genAiMessages). */
function byJsonParse(text: string): unknown {
  const first = text.charCodeAt(0);
  if (first !== 123 && first !== 91) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  // A parsed value (not a string) is read by genAiMessages as it is.
  return genAi.inputMessages({ 'gen_ai.input.messages': parsed });
}

const user = (content: string) => `{"role":"user","parts":[{"type":"text","content":"${content}"}]}`;

const TEXTS = [
  `[${user('Step 2: look up the next figure.')}]`,
  `[{"role":"assistant","parts":[{"type":"text","content":"The figure rose."}]}]`,
  `[${user('a')},${user('b')}]`,
  '[]',
  '[ ]',
  ' []',
  '[]  \n',
  '[{}]',
  '[{"role":"user"}]',
  '[{"role":"user","parts":[]}]',
  '[{"parts":[{"content":"c","type":"text"}],"role":"system"}]',
  '[ { "role" : "user" , "parts" : [ { "type" : "text" , "content" : "spaced" } , { "type" : "text" , "content" : "second" } ] } ]\n',
  '[{"role":"assistant","parts":[{"type":"text","content":"done"}],"finish_reason":"stop"}]',
  '[{"role":"assistant","name":null,"ok":true,"no":false,"parts":[{"type":"text","content":"x"}]}]',
  '[{"role":"assistant","parts":[{"type":"text","content":"x"}],"n":1}]',
  '[{"role":"user","content":"own","parts":[{"type":"text","content":"part"}]}]',
  '[{"role":"user","role":"system","parts":[]}]',
  '[{"role":"user","parts":[{"type":"text","content":"a"}],"parts":[{"type":"text","content":"b"}]}]',
  '[{"role":"user","parts":[{"type":"text","type":"text","content":"a"}]}]',
  '[{"role":"user","parts":[{"type":"text","content":"a","content":"b"}]}]',
  '[{"role":"user","parts":[{"type":"text"}]}]',
  '[{"role":"user","parts":[{"type":"image","content":"a"}]}]',
  '[{"role":"user","parts":[{"type":"tool_call","name":"f","id":"c1","arguments":{"q":1}}]}]',
  '[{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"r"}]}]',
  '[{"role":"user","parts":[{"type":"text","content":"with \\"quotes\\" and \\n escapes"}]}]',
  '[{"role":"user","parts":[{"type":"text","content":"raw\nnewline"}]}]',
  '[{"role":"user","parts":[{"type":"text","content":"tab\there"}]}]',
  '[{"role":"us\\u0065r","parts":[]}]',
  '[{"role":1,"parts":[]}]',
  '[{"role":"user","parts":[{"type":"text","content":"ünï😀\u2028"}]}]',
  '[null]',
  '["text"]',
  '[{"role":"user","parts":[null]}]',
  '[{"role":"user","parts":{}}]',
  '[{"role":"user","parts":[{"type":"text","content":"a"}]},]',
  '[{"role":"user","parts":[{"type":"text","content":"a"},]}]',
  '[{"role":"user",}]',
  '[{"role":"user"}',
  '[{"role":"user"}] x',
  '[{"role":"user" "parts":[]}]',
  '[{"role":"user","parts":[{"type":"text","content":"a"}]}][]',
  '[{"role":"user","parts":[{"type":"text","content":"unterminated}]}]',
  '[{"role":"user","x":tru}]',
  '[{"role":"user","x":nulls}]',
  '{"role":"user"}',
  '{}',
  'not json',
  '',
];

describe('GenAI messages read from their text', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each(TEXTS.map((text) => [text]))('%s reads as JSON.parse reads it', (text) => {
    expect(genAiMessagesOfText(text)).toEqual(byJsonParse(text));
  });

  it('reads the usual form without JSON.parse', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const messages = genAiMessagesOfText(`[${user('look up the figure')},{"role":"assistant","parts":[{"type":"text","content":"a"},{"type":"text","content":"b"}]}]`);
    expect(messages).toEqual([
      { role: 'user', content: 'look up the figure' },
      { role: 'assistant', content: 'a\nb' },
    ]);
    expect(parse).not.toHaveBeenCalled();
  });

  it('gives a model call its messages from the text as before', () => {
    const attrs = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.input.messages': `[${user('question')}]`,
      'gen_ai.output.messages': '[{"role":"assistant","parts":[{"type":"text","content":"answer"}],"finish_reason":"stop"}]',
    };
    expect(genAi.modelCall(attrs)).toEqual({ input: [{ role: 'user', content: 'question' }], text: 'answer', toolCalls: undefined });
  });
});
