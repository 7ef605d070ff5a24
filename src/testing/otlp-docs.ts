// Generated OTLP/JSON for importer tests: one agent trace, its first span the agent (invoke_agent), the others tool
// calls under it (execute_tool). Names are the caller's, so a test can put JSON-looking text where a reader must not
// take it for structure.

export interface AgentSpanNames {
  agent?: string;
  tool?: string;
}

/** Span `i` (0: the agent) of trace number `trace`, with `extra` fields after the usual ones. */
export function agentTraceSpan(trace: number, i: number, names: AgentSpanNames = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    traceId: trace.toString(16).padStart(32, '0'),
    spanId: (i + 16).toString(16).padStart(16, '0'),
    ...(i > 0 ? { parentSpanId: '0000000000000010' } : {}),
    name: i ? 'execute_tool search' : 'invoke_agent a',
    startTimeUnixNano: String(1_750_000_000_000_000_000n + BigInt(i) * 1000n),
    endTimeUnixNano: String(1_750_000_000_000_000_000n + BigInt(i + 1) * 1000n),
    attributes: i
      ? [
          { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
          { key: 'gen_ai.tool.name', value: { stringValue: names.tool ?? 'search' } },
        ]
      : [
          { key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } },
          { key: 'gen_ai.agent.name', value: { stringValue: names.agent ?? 'a' } },
        ],
    ...extra,
  };
}

/** One OTLP document of `spans` spans of trace `trace` (agentTraceSpan), its resource and scope named. */
export function agentTraceDocument(trace: number, spans: number, names: AgentSpanNames = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
        scopeSpans: [{ scope: { name: 't' }, spans: Array.from({ length: spans }, (_, i) => agentTraceSpan(trace, i, names)) }],
      },
    ],
    ...extra,
  };
}

/** A value `levels` objects and arrays deep (`{x: [{x: …}]}`), for the nesting-depth limit's tests. */
export function nestedValue(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { x: v };
  return v;
}
