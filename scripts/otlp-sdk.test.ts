// The receiver with the real OpenTelemetry JS SDK and both of its OTLP/HTTP trace exporters (JSON and protobuf): an
// OpenInference-shaped smolagents run, emitted step by step, becomes a run that grows by the same import as a file,
// and the supervisor's filter fires on the failed step before the run ends.
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { afterEach, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { filterParams, filterSteps, PRESETS, DEFAULT_PRESET } from '../src/engine/supervisor/index.ts';
import { LiveTraces } from '../src/import/live-otlp.ts';
import { smolagentsEmitter } from '../src/testing/otel-smolagents.ts';
import { CallRecorder, LlmClient, withDefaults } from '../src/llm/index.ts';
import type { LlmCallRecord } from '../src/model/types.ts';
import { LiveOtlpPipeline } from '../src/workers/live-otlp-pipeline.ts';
import { startTestServer } from '../test-server/server.ts';
import type { OtlpReceiver } from './otlp-receiver.ts';
import { startReceiver, type RunningReceiver } from './otlp-test-receiver.ts';

let running: RunningReceiver | undefined;
let receiver: OtlpReceiver | undefined;

afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function start(token?: string): Promise<string> {
  running = await startReceiver({ token });
  receiver = running.receiver;
  return running.origin;
}

describe.each([
  ['http/json', (url: string, headers: Record<string, string>) => new JsonExporter({ url, headers })],
  ['http/protobuf', (url: string, headers: Record<string, string>) => new ProtoExporter({ url, headers })],
] as const)('the OpenTelemetry JS SDK exporting %s', (_name, makeExporter) => {
  it('grows a smolagents run step by step; the filter fires before the run ends', async () => {
    const origin = await start('tok');
    const emitter = smolagentsEmitter(makeExporter(`${origin}/v1/traces`, { Authorization: 'Bearer tok' }));
    const live = new LiveTraces();
    let seen = 0;
    const pull = () => {
      for (const e of receiver!.ring.since(undefined).slice(seen)) live.add(JSON.parse(e.data));
      seen = receiver!.ring.size;
    };
    const params = filterParams(PRESETS[DEFAULT_PRESET]);
    const actionSteps: number[] = [];
    let triggeredAt: number | undefined;
    for (let n = 1; n <= 4; n++) {
      await emitter.step(n);
      pull();
      expect(live.isDone(emitter.traceId, Date.now(), 60_000)).toBe(false);
      const run = live.importTrace(emitter.traceId).run!;
      expect(run.id).toBe(emitter.traceId);
      actionSteps.push(run.steps.filter((s) => s.kind === 'action').length);
      if (triggeredAt === undefined && filterSteps(run.steps, params).some((t) => t.rule === 'error')) triggeredAt = n;
    }
    expect(actionSteps).toEqual([1, 2, 3, 4]);
    expect(triggeredAt).toBe(2);
    await emitter.finish();
    pull();
    expect(live.isDone(emitter.traceId, Date.now(), 60_000)).toBe(true);
    const run = live.importTrace(emitter.traceId).run!;
    expect(run.framework).toBe('smolagents');
    expect(run.agents.map((a) => a.name)).toEqual(['manager']);
    expect(run.steps.find((s) => s.kind === 'action' && s.number === 2)?.error?.message).toMatch(/timed out/);
    expect(receiver!.stats.spans).toBe(4 * 3 + 1);
    await emitter.provider.shutdown();
  });
});

describe('our protobuf schema against the SDK’s http/protobuf exporter', () => {
  it('reads every part of a span: kind, flags, times, each attribute type, events, links, status, scope', async () => {
    const origin = await start();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new ProtoExporter({ url: `${origin}/v1/traces` }))] });
    const tracer = provider.getTracer('scope', '1.2.3');
    const link = { context: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 }, attributes: { why: 'follows' } };
    const attributes = { s: 'x', b: true, i: 42, d: 1.5, a: ['p', 'q'] };
    const span = tracer.startSpan('everything', { kind: SpanKind.CLIENT, startTime: [1_700_000_000, 5], links: [link], attributes });
    span.addEvent('ev', { k: 'v' }, [1_700_000_000, 7]);
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'bad' });
    span.end([1_700_000_001, 9]);
    await provider.shutdown();
    const [event] = receiver!.ring.since(undefined);
    const { resourceSpans } = JSON.parse(event.data);
    expect(resourceSpans[0].resource.attributes).toContainEqual({ key: 'telemetry.sdk.language', value: { stringValue: 'nodejs' } });
    expect(resourceSpans[0].scopeSpans[0].scope).toMatchObject({ name: 'scope', version: '1.2.3' });
    expect(resourceSpans[0].scopeSpans[0].spans[0]).toMatchObject({
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
      name: 'everything',
      kind: 3,
      flags: 0x101,
      startTimeUnixNano: '1700000000000000005',
      endTimeUnixNano: '1700000001000000009',
      attributes: [
        { key: 's', value: { stringValue: 'x' } },
        { key: 'b', value: { boolValue: true } },
        { key: 'i', value: { intValue: '42' } },
        { key: 'd', value: { doubleValue: 1.5 } },
        { key: 'a', value: { arrayValue: { values: [{ stringValue: 'p' }, { stringValue: 'q' }] } } },
      ],
      events: [{ name: 'ev', timeUnixNano: '1700000000000000007', attributes: [{ key: 'k', value: { stringValue: 'v' } }] }],
      // link ids stay as the protobuf decode gives them (base64); only span ids are normalised to hex
      links: [{ traceId: Buffer.from(link.context.traceId, 'hex').toString('base64'), spanId: Buffer.from(link.context.spanId, 'hex').toString('base64'), flags: 0x101 }],
      status: { code: 2, message: 'bad' },
    });
  });
});

describe('supervision as it happens, with an endpoint (the project’s test server over HTTP)', () => {
  it('the supervisor’s action on the failed step comes from the endpoint while the run goes on, and is not asked again', async () => {
    const llm = await startTestServer({
      script: {
        rules: [{ match: { contains: 'failed with an error' }, content: '{"analysis":"the search timed out","action":"provide_guidance","parameters":{"guidance":"Retry web_search with a shorter query."}}', usage: { prompt_tokens: 30, completion_tokens: 9 } }],
        fallback: { content: '{"analysis":"fine","action":"approve","parameters":{}}' },
      },
    });
    try {
      const origin = await start();
      const emitter = smolagentsEmitter(new JsonExporter({ url: `${origin}/v1/traces` }));
      const calls: LlmCallRecord[] = [];
      const base = new LlmClient(withDefaults({ baseUrl: llm.baseUrl, models: { supervisor: 'sup' }, retries: 0 }), { recorder: new CallRecorder((r) => calls.push(r)) });
      const pipeline = new LiveOtlpPipeline({ params: filterParams(PRESETS[DEFAULT_PRESET]), client: () => base.forRun() }, 60_000);
      let seen = 0;
      const pull = () => {
        for (const e of receiver!.ring.since(undefined).slice(seen)) pipeline.add(JSON.parse(e.data));
        seen = receiver!.ring.size;
      };
      const supervisorOf = (run: { interventions: Array<{ engine: string }> }) => run.interventions.filter((i) => i.engine === 'supervisor');
      await emitter.step(1);
      pull();
      let [update] = await pipeline.round();
      expect(supervisorOf(update.full!)).toEqual([]);
      await emitter.step(2);
      pull();
      [update] = await pipeline.round();
      expect(update.done).toBe(false);
      const added = update.patch!.lists.interventions.items as Array<Record<string, unknown>>;
      expect(added).toHaveLength(1);
      expect(added[0]).toMatchObject({ engine: 'supervisor', context: 'error', action: 'provide_guidance', heuristic: false });
      expect(JSON.stringify(added[0])).toContain('Retry web_search with a shorter query.');
      expect(calls).toHaveLength(1);
      const asked = llm.log().length;
      // Later steps and the run's end: the decision on step 2 is kept, the endpoint is not asked about it again.
      await emitter.step(3);
      await emitter.finish();
      pull();
      [update] = await pipeline.round();
      expect(update.done).toBe(true);
      expect(update.patch!.lists.interventions).toBeUndefined();
      expect(llm.log().length).toBe(asked);
      await emitter.provider.shutdown();
    } finally {
      await llm.close();
    }
  });
});
