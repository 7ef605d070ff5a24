// Which name an agent or a tool span gives, and by which rule (shown in the import report, issue 20). Attribute keys
// of every convention first (GenAI, the common custom ones, OpenInference's graph nodes), then the GenAI span-name
// forms `invoke_agent X` / `execute_tool X`, then the span's own name.
import { textAttr, type Attributes } from './attributes.ts';
import type { SpanNode } from './forest.ts';

export interface Naming {
  name: string;
  rule: string;
  /** False when only the span's plain name was there to go by. */
  explicit: boolean;
}

const AGENT_KEYS = ['gen_ai.agent.name', 'agent.name', 'agent_name', 'graph.node.name', 'graph.node.id', 'gen_ai.agent.id'];
const TOOL_KEYS = ['gen_ai.tool.name', 'tool.name', 'tool_call.function.name'];
const AGENT_NAME_FORMS = ['invoke_agent ', 'create_agent '];
const TOOL_NAME_FORMS = ['execute_tool '];

function byKeys(attrs: Attributes, keys: string[]): Naming | undefined {
  for (const key of keys) {
    const v = textAttr(attrs, key);
    if (v !== undefined && v !== '') return { name: v, rule: key, explicit: true };
  }
  return undefined;
}

function byNameForm(name: string, forms: string[]): Naming | undefined {
  for (const form of forms) {
    if (name.startsWith(form) && name.length > form.length) return { name: name.slice(form.length).trim(), rule: `span name "${form.trim()} X"`, explicit: true };
  }
  return undefined;
}

export function agentNaming(node: SpanNode): Naming {
  const span = node.span;
  return byKeys(span.attributes, AGENT_KEYS) ?? byNameForm(span.name, AGENT_NAME_FORMS) ?? { name: span.name, rule: 'span name', explicit: false };
}

export function toolNaming(node: SpanNode): Naming {
  const span = node.span;
  return byKeys(span.attributes, TOOL_KEYS) ?? byNameForm(span.name, TOOL_NAME_FORMS) ?? { name: span.name, rule: 'span name', explicit: false };
}
