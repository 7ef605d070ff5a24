// Live runs from the studio's OTLP/HTTP receiver (issue 19, scripts/otlp-receiver.ts). One open tab leads (a Web Lock):
// its live worker (src/workers/live-otlp.worker.ts) reads `/v1/live/events`, stores every span, merges the spans into
// runs with the same importer as files, runs the supervisor and sends what changed per run; the leader relays those
// changes to the other tabs (a BroadcastChannel), so every tab applies the same changes and writes the same records
// (file `live-otlp:<trace id>`, run `<trace id>`), and only one tab asks the endpoint. Changes are applied once per
// animation frame; a run is listed as live, then done (its root span arrived, or nothing came for a while). When the
// leading tab closes, another takes over and rebuilds the unfinished runs from the stored spans.
import { applyRunPatch } from '../../import/live-otlp.ts';
import { withAnnotationSets } from '../../model/annotations.ts';
import { ownValue, recordOf } from '../../model/record.ts';
import type { Intervention, LlmCallRecord, Run } from '../../model/types.ts';
import { effectiveMode, toLlmSettings, useEngineSettings } from '../../store/engine-settings.ts';
import { keepLlmCall } from '../../store/engine-results.ts';
import { deferRunWrites, flushLibrary } from '../../store/library-db.ts';
import { useLibrary, type LibraryFile, type LiveFile } from '../../store/library.ts';
import { startLiveOtlpWorker, type LiveOtlpWorker, type LiveSupervisorConfig, type LiveUpdate } from '../../workers/live-otlp-client.ts';

export const LIVE_EVENTS_URL = '/v1/live/events';
export const LAST_EVENT_KEY = 'mas-replay:otlp-last-event';
/** The receiver's bearer token (MAS_REPLAY_OTLP_TOKEN), taken from the `#otlp-token=` link `npm start` prints. */
export const TOKEN_KEY = 'mas-replay:otlp-token';
/** A trace with no new span for this long is marked done. */
export const QUIET_MS = 15_000;
const LEADER_LOCK = 'mas-replay:live-otlp-leader';
const CHANNEL = 'mas-replay:live-otlp';
export const liveFileId = (traceId: string) => `live-otlp:${traceId}`;

/** The live part of a library file (absent on files opened from disk; checked, since it was read from storage). */
export function liveOf(file: LibraryFile): LiveFile | undefined {
  const v = file.live;
  return v && (v.state === 'receiving' || v.state === 'done') && typeof v.spans === 'number' ? v : undefined;
}

function supervisorConfig(leader: boolean): LiveSupervisorConfig {
  const s = useEngineSettings.getState();
  const { tauStep, tauLoop, tauLen } = s.supervisor;
  const config: LiveSupervisorConfig = { thresholds: { tauStep, tauLoop, tauLen }, nonCriticalErrors: s.supervisor.nonCriticalErrors };
  if (leader && effectiveMode(s.endpoint) === 'endpoint') config.llm = toLlmSettings(s.endpoint, s.apiKey);
  // Said on the page (and read by tests): who decides the supervisor's actions on live runs.
  document.documentElement.dataset.otlpLiveSupervisor = config.llm ? 'endpoint' : 'heuristics';
  return config;
}

type Message =
  | { type: 'updates'; updates: LiveUpdate[]; totalSpans: number }
  | { type: 'call'; record: LlmCallRecord }
  | { type: 'resync'; traceId: string }
  /** A tab that follows says so (when it starts, and when a new leader asks): until then nothing is relayed. */
  | { type: 'follower' }
  | { type: 'leader' };

export interface OtlpLiveOptions {
  url?: string;
  storage?: Pick<Storage, 'getItem' | 'setItem'>;
  quietMs?: number;
}

/** The token from a `#otlp-token=…` link, kept for the next loads and removed from the address bar. */
function tokenFrom(storage: Pick<Storage, 'getItem' | 'setItem'>): string | undefined {
  const m = /(?:^#|&)otlp-token=([^&]*)/.exec(location.hash);
  if (m) {
    storage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
    const rest = location.hash.replace(/(^#|&)otlp-token=[^&]*/, '$1').replace(/^#&/, '#');
    history.replaceState(history.state, '', `${location.pathname}${location.search}${rest === '#' ? '' : rest}`);
  }
  return storage.getItem(TOKEN_KEY) || undefined;
}

/** Listen for live exports; returns a function that stops listening. */
export function startOtlpLive({ url = LIVE_EVENTS_URL, storage = localStorage, quietMs = QUIET_MS }: OtlpLiveOptions = {}): () => void {
  let stopped = false;
  let worker: LiveOtlpWorker | undefined;
  let releaseLead: (() => void) | undefined;
  const channel = typeof BroadcastChannel === 'undefined' ? undefined : new BroadcastChannel(CHANNEL);
  /** The revision of each live run this page holds (a patch applies only to the revision before it). */
  const revs = new Map<string, number>();
  let queued: LiveUpdate[] = [];
  /** The pending apply: at the next animation frame, or in 100 ms in a hidden tab (which gets no frames). */
  let frame: { cancel(): void } | undefined;
  const root = document.documentElement;
  root.dataset.otlpLiveRole = 'follower';
  /**
   * Live runs still arriving: the library writes them once they are done (deferRunWrites), not while they grow.
   * Writing one is a structured clone of all of it, on the page, while its spans are stored as they arrive (by the
   * worker) and a reload rebuilds unfinished runs from them.
   */
  const growing = new Set<string>();
  deferRunWrites((runId) => growing.has(runId));

  const resync = (traceId: string) => {
    if (worker) worker.resync(traceId);
    else channel?.postMessage({ type: 'resync', traceId } satisfies Message);
  };

  /** Distinct spans the leader's worker holds, as of the updates queued last (written once they are applied). */
  let totalQueued = 0;

  function receive(updates: LiveUpdate[], totalSpans: number) {
    for (const u of updates) queued.push(u);
    totalQueued = totalSpans;
    scheduleApply();
  }

  function scheduleApply() {
    if (frame) return;
    if (document.hidden) {
      const t = setTimeout(applyQueued, 100);
      frame = { cancel: () => clearTimeout(t) };
    } else {
      const f = requestAnimationFrame(applyQueued);
      frame = { cancel: () => cancelAnimationFrame(f) };
    }
  }

  // A frame asked for just before the tab was hidden would wait until it is shown again.
  const onVisibility = () => {
    if (!frame) return;
    frame.cancel();
    frame = undefined;
    scheduleApply();
  };
  document.addEventListener('visibilitychange', onVisibility);

  /** Every update that arrived since the last frame, in one store change. */
  function applyQueued() {
    frame = undefined;
    if (stopped) return;
    const updates = queued;
    queued = [];
    const state = useLibrary.getState();
    const runs = recordOf(state.runs);
    const byId = new Map(state.files.map((f) => [f.id, f]));
    const fresh: string[] = [];
    let finished = false;
    for (const u of updates) {
      const base = ownValue(runs, u.traceId);
      let run: Run | undefined;
      if (u.full) run = u.full;
      else if (base && u.patch && revs.get(u.traceId) === u.rev - 1) run = applyRunPatch(base, u.patch);
      if (!run) {
        revs.delete(u.traceId);
        resync(u.traceId);
        continue;
      }
      revs.set(u.traceId, u.rev);
      if (!base) fresh.push(u.traceId);
      runs[u.traceId] = run;
      const id = liveFileId(u.traceId);
      const before = byId.get(id);
      const live: LiveFile = { state: u.done ? 'done' : 'receiving', lastSpanAt: u.lastSpanAt, spans: u.spans };
      if (u.done && before?.live?.state !== 'done') finished = true;
      if (u.done) growing.delete(u.traceId);
      else growing.add(u.traceId);
      byId.set(id, {
        id,
        name: `live OTLP · ${run.title || run.id}`,
        format: 'otlp',
        formatLabel: 'OTLP (live)',
        runIds: [u.traceId],
        addedAt: before?.addedAt ?? Date.now(),
        simulated: false,
        warnings: u.warnings.length > 0 || !before ? u.warnings : before.warnings,
        live,
      });
    }
    if (updates.length === 0) return;
    const touched = new Set(updates.map((u) => u.traceId));
    // A run listed by another file (stored before live files had fixed ids) leaves it: one file per live run.
    const files: LibraryFile[] = [];
    const placed = new Set<string>();
    for (const f of state.files) {
      const mine = byId.get(f.id);
      if (mine && mine !== f) {
        files.push(mine);
        placed.add(f.id);
        continue;
      }
      if (f.id.startsWith('live-otlp:') || !f.runIds.some((id) => touched.has(id))) files.push(f);
      else {
        const left = f.runIds.filter((id) => !touched.has(id) || !revs.has(id));
        if (left.length > 0) files.push({ ...f, runIds: left });
      }
      placed.add(f.id);
    }
    for (const [id, f] of byId) if (!placed.has(id)) files.push(f);
    if (fresh.length > 0) withAnnotationSets(runs, fresh, files.flatMap((f) => f.annotationSets ?? []));
    useLibrary.setState({ files, runs });
    // For the load bench and tests: how many distinct spans the runs in this page's library are built from.
    root.dataset.otlpLiveSpans = String(totalQueued);
    scheduleFlush(finished);
  }

  function scheduleFlush(now: boolean) {
    if (now) void flushLibrary();
  }

  /** Whether another tab follows this one (relaying the changes costs a structured clone of them on the page). */
  let followed = false;
  const relay = (m: Message) => {
    if (followed) channel?.postMessage(m);
  };
  channel?.addEventListener('message', (e: MessageEvent<Message>) => {
    const m = e.data;
    if (m.type === 'updates' && !worker) receive(m.updates, m.totalSpans);
    else if (m.type === 'call' && !worker) keepLlmCall(m.record);
    else if (m.type === 'resync' && worker) worker.resync(m.traceId);
    else if (m.type === 'follower' && worker) followed = true;
    else if (m.type === 'leader' && !worker) channel?.postMessage({ type: 'follower' } satisfies Message);
  });
  channel?.postMessage({ type: 'follower' } satisfies Message);

  function lead() {
    if (stopped) return;
    root.dataset.otlpLiveRole = 'leader';
    const done: Record<string, number> = Object.create(null);
    const receiving: string[] = [];
    for (const f of useLibrary.getState().files) {
      const live = liveOf(f);
      if (!live || f.runIds[0] === undefined) continue;
      if (live.state === 'done') done[f.runIds[0]] = live.spans;
      else receiving.push(f.runIds[0]);
    }
    // A tab taking over starts every run again from its stored spans: the whole run comes next, not a patch.
    revs.clear();
    channel?.postMessage({ type: 'leader' } satisfies Message);
    worker = startLiveOtlpWorker(
      { url, token: tokenFrom(storage), after: storage.getItem(LAST_EVENT_KEY) ?? undefined, quietMs, done, receiving, supervisor: supervisorConfig(true) },
      {
        onUpdates(updates, totalSpans) {
          relay({ type: 'updates', updates, totalSpans });
          receive(updates, totalSpans);
        },
        onStored(lastEventId) {
          storage.setItem(LAST_EVENT_KEY, lastEventId);
        },
        onCall(record) {
          relay({ type: 'call', record });
          keepLlmCall(record);
        },
        onStatus(status) {
          root.dataset.otlpLiveStatus = status.state;
          if (status.message) root.dataset.otlpLiveMessage = status.message;
        },
        async decisionsOf(traceId): Promise<Intervention[]> {
          return (ownValue(useLibrary.getState().runs, traceId)?.interventions ?? []).filter((i) => i.engine === 'supervisor');
        },
      },
    );
  }

  const unsubscribeSettings = useEngineSettings.subscribe((s, prev) => {
    if (worker && (s.endpoint !== prev.endpoint || s.supervisor !== prev.supervisor || s.apiKey !== prev.apiKey)) worker.configure(supervisorConfig(true));
  });

  function whenHydrated(go: () => void) {
    if (useLibrary.getState().hydrated) return go();
    const unsubscribe = useLibrary.subscribe((s) => {
      if (!s.hydrated) return;
      unsubscribe();
      go();
    });
  }

  // Spans join runs the stored library already holds, so wait until it has been read back; then take the lead when
  // no other tab holds it (without Web Locks, every tab leads on its own).
  whenHydrated(() => {
    if (stopped) return;
    tokenFrom(storage);
    if (typeof navigator !== 'undefined' && navigator.locks) {
      void navigator.locks.request(LEADER_LOCK, () => {
        if (stopped) return undefined;
        lead();
        return new Promise<void>((resolve) => (releaseLead = resolve));
      });
    } else lead();
  });

  return () => {
    stopped = true;
    deferRunWrites(undefined);
    worker?.stop();
    worker = undefined;
    releaseLead?.();
    channel?.close();
    unsubscribeSettings();
    frame?.cancel();
    document.removeEventListener('visibilitychange', onVisibility);
  };
}
