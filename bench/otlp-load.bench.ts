// Issue 19, the live receiver under load (loopback only, bounded): `vite preview` of the built studio (with its OTLP
// receiver) and one headless Chromium page on it; the bench sends OTLP/JSON exports of BENCH_BATCH spans at
// BENCH_RATE spans/s for BENCH_SECONDS seconds over BENCH_TRACES concurrent smolagents-shaped traces, then stops by
// itself. It reports what the server accepted and refused (429), the POST latency, how long after the last export the
// page had every accepted span in its library, and the page's frame times (requestAnimationFrame gaps) meanwhile.
//
//   npx vite build && npx tsx bench/otlp-load.bench.ts
//   BENCH_RATE=10000 BENCH_SECONDS=10 BENCH_BATCH=100 BENCH_TRACES=20
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/chromium-args.ts';
import { preview } from 'vite';

const RATE = Number(process.env.BENCH_RATE ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const TRACES = Number(process.env.BENCH_TRACES ?? 20);
const DRAIN_LIMIT_MS = 120_000;

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const traceId = (t: number) => `${hex(0xabc0 + t, 8)}${'0'.repeat(16)}${hex(t + 1, 8)}`;
const rootId = (t: number) => hex(0x100000 + t, 16);
const nanos = (ms: number) => `${BigInt(Math.round(ms)) * 1_000_000n}`;

/** `count` spans of trace `t` from span number `from`: a `Step N` CHAIN and, under it, its model call and tool call. */
function spansOf(t: number, from: number, count: number, now: number) {
  const spans = [];
  for (let i = from; i < from + count; i++) {
    const stepNo = Math.floor(i / 3) + 1;
    const stepId = hex((t << 24) + stepNo * 3 + 1, 16);
    const kind = i % 3;
    const id = kind === 0 ? stepId : hex((t << 24) + stepNo * 3 + 1 + kind, 16);
    spans.push({
      traceId: traceId(t),
      spanId: id,
      parentSpanId: kind === 0 ? rootId(t) : stepId,
      name: kind === 0 ? `Step ${stepNo}` : kind === 1 ? 'LiteLLMModel.__call__' : 'web_search',
      startTimeUnixNano: nanos(now),
      endTimeUnixNano: nanos(now + 1),
      attributes: [
        { key: 'openinference.span.kind', value: { stringValue: kind === 0 ? 'CHAIN' : kind === 1 ? 'LLM' : 'TOOL' } },
        kind === 1 ? { key: 'llm.token_count.total', value: { intValue: '120' } } : { key: 'output.value', value: { stringValue: `observation ${stepNo}` } },
      ],
    });
  }
  return spans;
}

const exportOf = (spans: unknown[]) =>
  JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'load' } }] }, scopeSpans: [{ scope: { name: 'openinference.instrumentation.smolagents' }, spans }] }] });

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function main() {
  const server = await preview({ preview: { port: 0, host: '127.0.0.1' }, logLevel: 'silent' });
  const origin = server.resolvedUrls!.local[0].replace(/\/$/, '');
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    // As a string: tsx would add its own helpers (`__name`) to a function, which do not exist in the page.
    await page.addInitScript(`
      localStorage.setItem('mas-replay:visited', 'bench');
      window.__gaps = [];
      let last = performance.now();
      const tick = (t) => { window.__gaps.push(t - last); last = t; requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
      // The main thread's lateness too (a timer due every 16 ms), in case the headless page paces frames itself.
      window.__lags = [];
      let due = performance.now() + 16;
      setInterval(() => { const now = performance.now(); window.__lags.push(Math.max(0, now - due)); due = now + 16; }, 16);
    `);
    await page.goto(`${origin}/`);
    await page.getByRole('heading', { name: 'MAS Replay Studio' }).waitFor();
    await page.waitForTimeout(1000);
    await page.bringToFront();
    await page.evaluate('window.__gaps.length = 0; window.__lags.length = 0');

    const sent = new Array<number>(TRACES).fill(0);
    let accepted = 0;
    let refused = 0;
    let failed = 0;
    const latencies: number[] = [];
    const inflight = new Set<Promise<void>>();
    const start = performance.now();
    const interval = 1000 / (RATE / BATCH);
    let n = 0;
    // Exports go out on a fixed schedule (no waiting for answers, at most 64 in flight), until the time is up.
    while (performance.now() - start < SECONDS * 1000) {
      const due = start + n * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (inflight.size >= 64) await Promise.race(inflight);
      const t = n % TRACES;
      const spans = spansOf(t, sent[t], BATCH, Date.now());
      sent[t] += BATCH;
      n++;
      const began = performance.now();
      const p: Promise<void> = fetch(`${origin}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: exportOf(spans) })
        .then(async (res) => {
          await res.arrayBuffer();
          latencies.push(performance.now() - began);
          if (res.status === 200) accepted += BATCH;
          else if (res.status === 429 || res.status === 503) refused += BATCH;
          else failed += BATCH;
        })
        .catch(() => void (failed += BATCH))
        .finally(() => inflight.delete(p));
      inflight.add(p);
    }
    await Promise.all(inflight);
    const sendSeconds = (performance.now() - start) / 1000;
    const stopped = performance.now();

    // How long until the page has applied every accepted span.
    const drained = await waitForSpans(page, accepted, stopped);
    const gaps = (await page.evaluate('window.__gaps.slice()')) as number[];
    const lags = (await page.evaluate('window.__lags.slice()')) as number[];
    const figures = {
      target: `${RATE} spans/s for ${SECONDS} s in exports of ${BATCH} spans over ${TRACES} traces`,
      sent: n * BATCH,
      sendSeconds: Number(sendSeconds.toFixed(2)),
      accepted,
      refused429: refused,
      failed,
      postLatencyMs: { p50: Number(pct(latencies, 50).toFixed(1)), p99: Number(pct(latencies, 99).toFixed(1)), max: Number(pct(latencies, 100).toFixed(1)) },
      pageHadAllAcceptedSpans: drained.all,
      pageSpans: drained.spans,
      pageCaughtUpMsAfterLastExport: drained.ms,
      mainThreadLagMs: { samples: lags.length, p50: Number(pct(lags, 50).toFixed(1)), p95: Number(pct(lags, 95).toFixed(1)), p99: Number(pct(lags, 99).toFixed(1)), max: Number(pct(lags, 100).toFixed(1)) },
      frameMs: { frames: gaps.length, p50: Number(pct(gaps, 50).toFixed(1)), p95: Number(pct(gaps, 95).toFixed(1)), p99: Number(pct(gaps, 99).toFixed(1)), max: Number(pct(gaps, 100).toFixed(1)), over50ms: gaps.filter((g) => g > 50).length },
    };
    console.log(JSON.stringify(figures, null, 2));
  } finally {
    await browser.close();
    await new Promise<void>((resolve) => server.httpServer.close(() => resolve()));
  }
}

/** Poll the spans the page has applied (it writes the count on <html data-otlp-live-spans>) until `want` are there. */
async function waitForSpans(page: import('@playwright/test').Page, want: number, since: number): Promise<{ all: boolean; spans: number; ms: number }> {
  let spans = 0;
  while (performance.now() - since < DRAIN_LIMIT_MS) {
    spans = Number(await page.evaluate('document.documentElement.dataset.otlpLiveSpans ?? 0'));
    if (spans >= want) return { all: true, spans, ms: Math.round(performance.now() - since) };
    await page.waitForTimeout(250);
  }
  return { all: false, spans, ms: Math.round(performance.now() - since) };
}

await main();
process.exit(0);
