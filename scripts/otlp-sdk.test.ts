// The receiver with the real OpenTelemetry JS SDK and both of its OTLP/HTTP trace exporters (JSON and protobuf): an
// OpenInference-shaped smolagents run, emitted step by step, becomes a run that grows by the same import as a file,
// and the supervisor's filter fires on the failed step before the run ends.
import { createServer, type Server } from 'node:http';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { afterEach, describe, expect, it } from 'vitest';
import { filterParams, filterSteps, PRESETS, DEFAULT_PRESET } from '../src/engine/supervisor/index.ts';
import { LiveTraces } from '../src/import/live-otlp.ts';
import { smolagentsEmitter } from '../src/testing/otel-smolagents.ts';
import { createOtlpReceiver, type OtlpReceiver } from './otlp-receiver.ts';

let receiver: OtlpReceiver | undefined;
let server: Server | undefined;

afterEach(async () => {
  receiver?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

async function start(token?: string): Promise<string> {
  receiver = createOtlpReceiver({ token });
  const r = receiver;
  server = createServer((req, res) => r.handle(req, res, () => res.writeHead(404).end()));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
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
