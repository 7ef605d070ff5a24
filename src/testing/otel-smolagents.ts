// A smolagents run as OpenInference instruments it, emitted step by step through the real OpenTelemetry JS SDK
// (issue 19 tests): a CodeAgent.run root, then per step a `Step N` CHAIN span with its model call (LLM) and tool call
// (TOOL). Step 2 fails (an ERROR status), so the supervisor's filter fires while the run is still going. Each span is
// exported when it ends (SimpleSpanProcessor), the root last, as a running agent's exporter would.
import { context, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';

export const SMOLAGENTS_SCOPE = 'openinference.instrumentation.smolagents';

export interface SmolagentsEmitter {
  provider: BasicTracerProvider;
  /** The trace id of the run (lowercase hex). */
  traceId: string;
  /** Emit step `n` (1-based) and flush it to the exporter. */
  step(n: number): Promise<void>;
  /** End the root span (the run's end) and flush. */
  finish(answer?: string): Promise<void>;
}

/**
 * `tokenCounts: false`: the model calls report no token counts (as some instrumentations leave them out), so the studio
 * estimates them from the messages.
 */
export function smolagentsEmitter(exporter: SpanExporter, task = 'Find the capital of France.', { tokenCounts = true }: { tokenCounts?: boolean } = {}): SmolagentsEmitter {
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer: Tracer = provider.getTracer(SMOLAGENTS_SCOPE);
  const root: Span = tracer.startSpan('CodeAgent.run', {
    attributes: { 'openinference.span.kind': 'AGENT', 'input.value': JSON.stringify({ task }) },
  });
  const rootCtx = trace.setSpan(context.active(), root);
  return {
    provider,
    traceId: root.spanContext().traceId,
    async step(n) {
      const step = tracer.startSpan(`Step ${n}`, { attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': `step ${n}` } }, rootCtx);
      const stepCtx = trace.setSpan(rootCtx, step);
      const llm = tracer.startSpan('LiteLLMModel.__call__', {
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'demo-model',
          ...(tokenCounts ? { 'llm.token_count.prompt': 100 + n, 'llm.token_count.completion': 20 } : {}),
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.content': `Thought: look it up (step ${n})\nCode:\n\`\`\`py\nweb_search(query="capital of France ${n}")\n\`\`\``,
        },
      }, stepCtx);
      llm.end();
      const tool = tracer.startSpan('web_search', {
        attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'web_search', 'input.value': JSON.stringify({ query: `capital of France ${n}` }), 'output.value': `result ${n}: Paris` },
      }, stepCtx);
      tool.end();
      if (n === 2) {
        step.setAttribute('output.value', 'Execution failed');
        step.setStatus({ code: SpanStatusCode.ERROR, message: 'ValueError: the search service timed out' });
      } else {
        step.setAttribute('output.value', `Observation: result ${n}: Paris`);
      }
      step.end();
      await provider.forceFlush();
    },
    async finish(answer = 'Paris') {
      root.setAttribute('output.value', answer);
      root.end();
      await provider.forceFlush();
    },
  };
}
