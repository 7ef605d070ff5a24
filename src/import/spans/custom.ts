// Common hand-made attributes of agent services that follow no standard (issue 20): `agent.name` / `agent_name` on
// agent spans, `tool.name` and `tool.args` / `tool.result` on tool spans. Model calls of such services usually carry
// `gen_ai.*` usage and are read by the GenAI reader.
import { textAttr, modelCallOf, unwrapOutputValue, type AttributeStandard } from './attributes.ts';

export const customAttributes: AttributeStandard = {
  id: 'custom',
  category(attrs) {
    if (attrs['tool.name'] !== undefined) return 'tool';
    if (attrs['agent.name'] !== undefined || attrs['agent_name'] !== undefined) return 'agent';
    return 'unknown';
  },
  usage: () => undefined,
  model: (attrs) => textAttr(attrs, 'llm.model') ?? textAttr(attrs, 'model'),
  inputMessages: () => undefined,
  outputText: (attrs) => textAttr(attrs, 'tool.result') ?? unwrapOutputValue(textAttr(attrs, 'output.value') ?? textAttr(attrs, 'output')),
  outputToolCalls: () => undefined,
  output(attrs) {
    const text = customAttributes.outputText(attrs);
    return text !== undefined ? { text } : {};
  },
  modelCall: (attrs) => modelCallOf(customAttributes, attrs),
  inputText: (attrs) => textAttr(attrs, 'tool.args') ?? textAttr(attrs, 'tool.arguments') ?? textAttr(attrs, 'input.value') ?? textAttr(attrs, 'input'),
  toolName: (attrs) => textAttr(attrs, 'tool.name'),
  agentName: (attrs) => textAttr(attrs, 'agent.name') ?? textAttr(attrs, 'agent_name'),
};
