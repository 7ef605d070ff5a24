// The live OTLP worker's check of the receiver's answer (./live-otlp.worker.ts): only an event stream is read. A static
// host that answers every path with its page (the benches' servers, most single-page hosting) gives `/v1/live/events`
// a 200 of HTML; read as a stream, that said "connected" and was fetched again every second for as long as the tab was
// open.

/** Why `res` is not the receiver's event stream (its body then cancelled), or undefined when it is. */
export async function streamRefusal(res: Response): Promise<string | undefined> {
  if (!res.ok) return `${res.status} ${(await res.text().catch(() => '')).trim()}`.trim();
  const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (res.body && type === 'text/event-stream') return undefined;
  await res.body?.cancel().catch(() => {});
  return `${res.status}, but ${type === '' ? 'no content type' : type} rather than an event stream: no live receiver answers here`;
}
