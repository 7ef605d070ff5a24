// Live runs from the studio's OTLP/HTTP receiver (issue 19, scripts/otlp-receiver.ts): the page listens to
// `/v1/live/events`, merges each export into its traces (src/import/live-otlp.ts, which imports a trace again from
// every span received so far with the OTLP file importer), runs the supervisor's LLM-free filter and heuristics on the
// run, and puts it in the library as a file marked live, then done (its root span arrived, or nothing came for a
// while). The accumulated export is kept on the library file, so spans that arrive after a reload join the run; the
// id of the last export applied is kept once the library has been saved, so a reload resumes after it.
import { LiveTraces, type LiveTraceDoc } from '../../import/live-otlp.ts';
import { filterParams, shadowReplay } from '../../engine/supervisor/index.ts';
import type { Run } from '../../model/types.ts';
import { useEngineSettings } from '../../store/engine-settings.ts';
import { flushLibrary } from '../../store/library-db.ts';
import { useLibrary, type LibraryFile, type LiveFile } from '../../store/library.ts';

export const LIVE_EVENTS_URL = '/v1/live/events';
export const LAST_EVENT_KEY = 'mas-replay:otlp-last-event';
/** A trace with no new span for this long is marked done. */
export const QUIET_MS = 15_000;
/**
 * Exports are applied together at most this often, so a fast exporter does not re-import a trace per export; under
 * load the pause grows with the time the last round took (twice it), so the page keeps painting between rounds.
 */
const APPLY_EVERY_MS = 200;

/** The live part of a library file (absent on files opened from disk; checked, since it was read from storage). */
export function liveOf(file: LibraryFile): LiveFile | undefined {
  const v = file.live;
  return v && (v.state === 'receiving' || v.state === 'done') && typeof v.otlp === 'object' && v.otlp !== null && Array.isArray(v.otlp.resourceSpans) ? v : undefined;
}

function fileOfRun(runId: string): LibraryFile | undefined {
  return useLibrary.getState().files.find((f) => f.runIds.includes(runId));
}

async function supervised(run: Run, previous: Run | undefined): Promise<Run> {
  const s = useEngineSettings.getState().supervisor;
  const params = filterParams(s, { nonCriticalErrors: s.nonCriticalErrors });
  const earlier = (previous?.interventions ?? []).filter((i) => i.engine === 'supervisor');
  // The cheap character estimate: the tokenizer is not worth loading for every live update.
  const result = await shadowReplay(run, { params, previous: earlier, countTokens: (t) => Math.ceil(t.length / 4) });
  const others = run.interventions.filter((i) => i.engine !== 'supervisor');
  return { ...run, interventions: [...others, ...result.interventions] };
}

function putLive(run: Run, live: LiveFile, warnings: string[]): void {
  const lib = useLibrary.getState();
  const file = lib.addLoaded({ file: `live OTLP · ${run.title || run.id}`, format: 'otlp', formatLabel: 'OTLP (live)', runs: [run], warnings, annotationSets: [] });
  useLibrary.setState({ files: useLibrary.getState().files.map((f) => (f.id === file.id ? { ...f, live } : f)) });
}

function setLiveFile(runId: string, state: LiveFile['state']): void {
  const files = useLibrary.getState().files;
  let changed = false;
  const next = files.map((f) => {
    const live = liveOf(f);
    if (!live || live.state === state || !f.runIds.includes(runId)) return f;
    changed = true;
    return { ...f, live: { ...live, state } };
  });
  if (changed) useLibrary.setState({ files: next });
}

export interface OtlpLiveOptions {
  url?: string;
  storage?: Pick<Storage, 'getItem' | 'setItem'>;
  quietMs?: number;
}

/** Listen for live exports; returns a function that stops listening. */
export function startOtlpLive({ url = LIVE_EVENTS_URL, storage = localStorage, quietMs = QUIET_MS }: OtlpLiveOptions = {}): () => void {
  const traces = new LiveTraces();
  const queue: Array<{ id: string; data: string }> = [];
  const pending = new Set<string>();
  let applying = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let source: EventSource | undefined;
  let stopped = false;
  let lastRoundMs = 0;

  const schedule = () => {
    if (timer === undefined && !applying) timer = setTimeout(apply, Math.max(APPLY_EVERY_MS, 2 * lastRoundMs));
  };

  async function apply() {
    timer = undefined;
    if (stopped) return;
    applying = true;
    const began = performance.now();
    let lastId: string | undefined;
    try {
      for (const { id, data } of queue.splice(0)) {
        lastId = id;
        let doc: unknown;
        try {
          doc = JSON.parse(data);
        } catch {
          continue;
        }
        seedFromLibrary(doc);
        for (const t of traces.add(doc)) pending.add(t);
      }
      for (const traceId of [...pending]) {
        pending.delete(traceId);
        const imported = traces.importTrace(traceId);
        if (!imported.run) continue;
        const previous = useLibrary.getState().runs[imported.run.id];
        const run = await supervised(imported.run, previous);
        if (stopped) return;
        const done = traces.isDone(traceId, Date.now(), quietMs);
        // One trace per task: the page can paint and answer input between them.
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (stopped) return;
        putLive(run, { state: done ? 'done' : 'receiving', lastSpanAt: traces.lastSpanAt(traceId) ?? Date.now(), spans: traces.spanCount(traceId), otlp: traces.doc(traceId) }, imported.warnings);
      }
      // For the load bench and tests: how many distinct spans this page has applied.
      document.documentElement.dataset.otlpLiveSpans = String(traces.totalSpans);
      if (lastId !== undefined) {
        const saved = lastId;
        void flushLibrary().then(() => storage.setItem(LAST_EVENT_KEY, saved));
      }
    } finally {
      lastRoundMs = performance.now() - began;
      applying = false;
      if (queue.length > 0 || pending.size > 0) schedule();
    }
  }

  /** A trace seen before this page load starts from the spans its library file kept. */
  function seedFromLibrary(doc: unknown) {
    const spans = (doc as LiveTraceDoc).resourceSpans?.flatMap((rs) => rs.scopeSpans?.flatMap((ss) => ss.spans ?? []) ?? []) ?? [];
    for (const span of spans) {
      const traceId = typeof span.traceId === 'string' ? span.traceId : undefined;
      if (!traceId || traces.has(traceId)) continue;
      const file = fileOfRun(traceId);
      const live = file && liveOf(file);
      if (live) traces.seed(live.otlp, live.lastSpanAt);
    }
  }

  const doneTimer = setInterval(() => {
    const now = Date.now();
    for (const f of useLibrary.getState().files) {
      const live = liveOf(f);
      if (live?.state !== 'receiving') continue;
      const last = f.runIds[0] !== undefined ? (traces.lastSpanAt(f.runIds[0]) ?? live.lastSpanAt) : live.lastSpanAt;
      if (now - last >= quietMs) setLiveFile(f.runIds[0], 'done');
    }
  }, Math.min(2000, quietMs));

  function connect() {
    if (stopped) return;
    const after = storage.getItem(LAST_EVENT_KEY);
    source = new EventSource(after ? `${url}?after=${encodeURIComponent(after)}` : url);
    source.addEventListener('spans', (e) => {
      const m = e as MessageEvent<string>;
      queue.push({ id: m.lastEventId, data: m.data });
      schedule();
    });
  }

  // Spans join runs the stored library already holds, so wait until it has been read back.
  if (useLibrary.getState().hydrated) connect();
  else {
    const unsubscribe = useLibrary.subscribe((s) => {
      if (!s.hydrated) return;
      unsubscribe();
      connect();
    });
  }

  return () => {
    stopped = true;
    source?.close();
    clearTimeout(timer);
    clearInterval(doneTimer);
  };
}
