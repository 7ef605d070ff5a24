// Live OTLP runs off the page (issue 19): this worker reads the studio receiver's event stream (`/v1/live/events`,
// with the bearer token when the server needs one), keeps every received span in its own IndexedDB database keyed by
// trace id + span id (a retried export or a second tab writes the same record again: idempotent), merges the spans
// into runs through the OTLP file importer and the supervisor (./live-otlp-pipeline.ts) at most every ~100 ms (longer
// when a round took longer), and hands the page only what changed per run. After a reload it rebuilds, from the
// stored spans, every trace the page does not hold as done.
import * as Comlink from 'comlink';
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { filterParams, type FilterParams } from '../engine/supervisor/index.ts';
import type { KeptSpan } from '../import/live-otlp.ts';
import { CallRecorder, LlmClient, type LlmSettings } from '../llm/index.ts';
import type { Intervention, LlmCallRecord } from '../model/types.ts';
import type { FilterThresholds } from '../engine/supervisor/index.ts';
import { loadTokenCounter, setCounterLoader } from '../import/tokens.ts';
import { LiveOtlpPipeline, type LiveUpdate } from './live-otlp-pipeline.ts';
import { streamRefusal } from './live-stream.ts';

// The token counter (the span importer estimates the usage spans leave out, src/import/tokens.ts) is built as the import
// worker loads it, from the build's table (ADR 0070), and only when the first round imports spans. Loaded
// when the worker started, it was the package's 2.4 MB module compiled and run in every leader tab (~0.7 s of a core
// while the page renders its first screen, ~18 MB kept) whether or not a span ever came (ADR 0069).
setCounterLoader(() => import('../llm/token-table.ts').then((m) => m.loadO200kCounter()));
let counterLoad: Promise<void> | undefined;
/** Loads the counter once. A failed load is not retried: estimates are then refused, as when it failed at the start. */
const counterLoaded = () => (counterLoad ??= loadTokenCounter().catch(() => {}));

export const LIVE_SPANS_DB = 'mas-replay-live-spans';
/** A stored trace the page does not know is rebuilt after a reload if its last span came within this time. */
const RECENT_MS = 60 * 60 * 1000;

interface StoredSpan extends KeptSpan {
  traceId: string;
  spanId: string;
}

interface StoredTrace {
  traceId: string;
  spans: number;
  lastSpanAt: number;
}

interface LiveSpansSchema extends DBSchema {
  spans: { key: [string, string]; value: StoredSpan };
  traces: { key: string; value: StoredTrace };
}

export interface LiveSupervisorConfig {
  thresholds: FilterThresholds;
  nonCriticalErrors: string[];
  /** Set when the supervisor's actions go to the endpoint (only one tab at a time asks it). */
  llm?: LlmSettings;
}

export interface LiveStartOptions {
  url: string;
  token?: string;
  /** Id of the last event whose spans are stored (resume after it). */
  after?: string;
  quietMs: number;
  /** Traces the page holds as done, with their span count (not rebuilt unless they have more spans stored)… */
  done: Record<string, number>;
  /** …and those it holds as still receiving (rebuilt from the stored spans). */
  receiving: string[];
  supervisor: LiveSupervisorConfig;
  /** Rounds at most this often (ms). */
  roundMs?: number;
}

export interface LiveStreamEvents {
  onUpdates(updates: LiveUpdate[], totalSpans: number): void;
  /** The spans of every event up to `lastEventId` are stored. */
  onStored(lastEventId: string): void;
  onCall(record: LlmCallRecord): void;
  onStatus(status: { state: 'connected' | 'refused' | 'retrying'; message?: string }): void;
  /** The supervisor decisions the page already holds for a trace (reused, not asked again). */
  decisionsOf(traceId: string): Promise<Intervention[]>;
}

let db: IDBPDatabase<LiveSpansSchema> | undefined;
let pipeline: LiveOtlpPipeline | undefined;
let stopped = false;
let abort: AbortController | undefined;
/** The supervisor's settings as last given (a change may come while the worker is still starting). */
let supervisorConfig: LiveSupervisorConfig | undefined;
let configChanged = false;

function setupOf(config: LiveSupervisorConfig, events: LiveStreamEvents) {
  const params: FilterParams = filterParams(config.thresholds, { nonCriticalErrors: config.nonCriticalErrors });
  const llm = config.llm;
  if (!llm) return { params };
  const base = new LlmClient(llm, { recorder: new CallRecorder((r) => void events.onCall(r)) });
  return { params, client: () => base.forRun() };
}

async function openSpans(): Promise<IDBPDatabase<LiveSpansSchema> | undefined> {
  try {
    return await openDB<LiveSpansSchema>(LIVE_SPANS_DB, 1, {
      upgrade(d) {
        d.createObjectStore('spans', { keyPath: ['traceId', 'spanId'] });
        d.createObjectStore('traces', { keyPath: 'traceId' });
      },
    });
  } catch {
    return undefined; // no IndexedDB: live runs still work, the library keeps the runs
  }
}

async function loadTrace(traceId: string): Promise<{ spans: Array<{ spanId: string; kept: KeptSpan }>; lastSpanAt: number } | undefined> {
  if (!db) return undefined;
  const tx = db.transaction(['spans', 'traces']);
  const [trace, rows] = await Promise.all([tx.objectStore('traces').get(traceId), tx.objectStore('spans').getAll(IDBKeyRange.bound([traceId, ''], [traceId, '\uffff']))]);
  if (!trace) return undefined;
  rows.sort((a, b) => a.order - b.order);
  return { spans: rows.map((r) => ({ spanId: r.spanId, kept: { resource: r.resource, scope: r.scope, span: r.span, order: r.order } })), lastSpanAt: trace.lastSpanAt };
}

/** Parse one server-sent-events block into its fields. */
function parseBlock(block: string): { event: string; id?: string; data: string } {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'event') event = value;
    else if (name === 'id') id = value;
    else if (name === 'data') data.push(value);
  }
  return { event, id, data: data.join('\n') };
}

const api = {
  async start(options: LiveStartOptions, events: LiveStreamEvents): Promise<void> {
    stopped = false;
    supervisorConfig = options.supervisor;
    db ??= await openSpans();
    const p = (pipeline = new LiveOtlpPipeline(setupOf(supervisorConfig, events), options.quietMs));
    configChanged = false;
    const roundMs = options.roundMs ?? 100;
    /** Traces looked up in storage in this worker's life. */
    const looked = new Set<string>();
    const queue: Array<{ id?: string; data: string }> = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;
    let lastRoundMs = 0;
    /** The span writes in flight, in order: an event id is reported stored once every write before it committed. */
    let stored: Promise<unknown> = Promise.resolve();

    async function restore(traceId: string) {
      if (looked.has(traceId)) return;
      looked.add(traceId);
      const stored = await loadTrace(traceId);
      if (stored) p.restore(traceId, stored.spans, stored.lastSpanAt);
      p.seedDecisions(traceId, await events.decisionsOf(traceId));
    }

    const schedule = () => {
      // A round that took long is followed by a pause as long: the events of that time go into one bigger round, so
      // the imports per received span fall as the traces grow (each round imports every changed trace whole).
      if (timer === undefined && !running && !stopped) timer = setTimeout(() => void round(), Math.max(roundMs, lastRoundMs));
    };

    async function round() {
      timer = undefined;
      running = true;
      const began = performance.now();
      try {
        const batch = queue.splice(0);
        const added: StoredSpan[] = [];
        let lastId: string | undefined;
        for (const { id, data } of batch) {
          if (id) lastId = id;
          let doc: unknown;
          try {
            doc = JSON.parse(data);
          } catch {
            continue;
          }
          for (const traceId of traceIdsOf(doc)) await restore(traceId);
          for (const s of p.add(doc)) added.push({ traceId: s.traceId, spanId: s.spanId, resource: s.resource, scope: s.scope, span: s.span, order: s.order });
        }
        if (db && added.length > 0) {
          // Written while the round imports (the database works on its own thread); the page learns that the events
          // up to `lastId` are safe once the transaction has committed (transactions commit in order).
          const tx = db.transaction(['spans', 'traces'], 'readwrite');
          const spans = tx.objectStore('spans');
          const traces = tx.objectStore('traces');
          for (const s of added) void spans.put(s);
          for (const traceId of new Set(added.map((s) => s.traceId))) {
            void traces.put({ traceId, spans: p.traces.spanCount(traceId), lastSpanAt: p.traces.lastSpanAt(traceId) ?? Date.now() });
          }
          const committed = tx.done;
          stored = stored.then(() => committed);
        }
        if (lastId !== undefined) {
          const saved = lastId;
          stored = stored.then(
            () => events.onStored(saved),
            (e: unknown) => events.onStatus({ state: 'retrying', message: `spans not stored: ${e instanceof Error ? e.message : String(e)}` }),
          );
        }
        if (configChanged && supervisorConfig) {
          configChanged = false;
          p.configure(setupOf(supervisorConfig, events));
        }
        if (p.hasPending) await counterLoaded();
        const updates = await p.round(Date.now());
        if (updates.length > 0) events.onUpdates(updates, p.traces.totalSpans);
      } catch (e) {
        events.onStatus({ state: 'retrying', message: e instanceof Error ? e.message : String(e) });
      } finally {
        lastRoundMs = performance.now() - began;
        running = false;
        if (queue.length > 0 || p.hasPending) schedule();
      }
    }

    // Traces received before this start that the page holds as receiving, or holds as done with fewer spans, or does
    // not hold at all while their last span is recent (the page closed before it stored the run): rebuilt from the
    // stored spans. A trace the page does not hold and that went quiet long ago was removed from the library: left.
    if (db) {
      const receiving = new Set(options.receiving);
      const now = Date.now();
      for (const t of await db.getAll('traces')) {
        const known = Object.hasOwn(options.done, t.traceId);
        if (known && options.done[t.traceId] >= t.spans) continue;
        if (!known && !receiving.has(t.traceId) && now - t.lastSpanAt > RECENT_MS) continue;
        await restore(t.traceId);
      }
      if (p.hasPending) schedule();
    }

    const quietTimer = setInterval(() => {
      const updates = p.quiet(Date.now());
      if (updates.length > 0) events.onUpdates(updates, p.traces.totalSpans);
    }, Math.min(2000, options.quietMs));

    let after = options.after;
    while (!stopped) {
      abort = new AbortController();
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream' };
        if (options.token) headers.authorization = `Bearer ${options.token}`;
        if (after) headers['last-event-id'] = after;
        const res = await fetch(options.url, { headers, signal: abort.signal, cache: 'no-store' });
        const refused = await streamRefusal(res);
        if (refused !== undefined || !res.body) {
          events.onStatus({ state: 'refused', message: refused });
          await new Promise((r) => setTimeout(r, 5000));
          continue;
        }
        events.onStatus({ state: 'connected' });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let text = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          text += value;
          let end: number;
          while ((end = text.indexOf('\n\n')) >= 0) {
            const block = parseBlock(text.slice(0, end));
            text = text.slice(end + 2);
            if (block.event !== 'spans') continue;
            if (block.id) after = block.id;
            queue.push({ id: block.id, data: block.data });
            schedule();
          }
        }
      } catch (e) {
        if (stopped) break;
        events.onStatus({ state: 'retrying', message: e instanceof Error ? e.message : String(e) });
      }
      if (!stopped) await new Promise((r) => setTimeout(r, 1000));
    }
    clearInterval(quietTimer);
    clearTimeout(timer);
  },

  /** New supervisor settings: used from the next round on. */
  configure(supervisor: LiveSupervisorConfig): void {
    supervisorConfig = supervisor;
    configChanged = true;
  },

  resync(traceId: string): void {
    pipeline?.resync(traceId);
  },

  stop(): void {
    stopped = true;
    abort?.abort();
  },
};

function traceIdsOf(doc: unknown): Set<string> {
  const out = new Set<string>();
  const rs = (doc as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Array<{ traceId?: unknown }> }> }> }).resourceSpans;
  if (!Array.isArray(rs)) return out;
  for (const r of rs) for (const ss of r?.scopeSpans ?? []) for (const s of ss?.spans ?? []) if (typeof s?.traceId === 'string') out.add(s.traceId);
  return out;
}

export type LiveOtlpWorkerApi = typeof api;

Comlink.expose(api);
