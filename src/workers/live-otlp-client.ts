// The page's side of the live OTLP worker (./live-otlp.worker.ts): one worker per page, started on first use.
import * as Comlink from 'comlink';
import type { LiveOtlpWorkerApi, LiveStartOptions, LiveStreamEvents, LiveSupervisorConfig } from './live-otlp.worker.ts';

export type { LiveStartOptions, LiveStreamEvents, LiveSupervisorConfig } from './live-otlp.worker.ts';
export type { LiveUpdate } from './live-otlp-pipeline.ts';

export interface LiveOtlpWorker {
  configure(supervisor: LiveSupervisorConfig): void;
  resync(traceId: string): void;
  stop(): void;
}

export function startLiveOtlpWorker(options: LiveStartOptions, events: LiveStreamEvents): LiveOtlpWorker {
  const worker = new Worker(new URL('./live-otlp.worker.ts', import.meta.url), { type: 'module', name: 'live-otlp' });
  const remote = Comlink.wrap<LiveOtlpWorkerApi>(worker);
  void remote.start(options, Comlink.proxy(events));
  return {
    configure: (supervisor) => void remote.configure(supervisor),
    resync: (traceId) => void remote.resync(traceId),
    stop() {
      void remote.stop();
      setTimeout(() => worker.terminate(), 100);
    },
  };
}
