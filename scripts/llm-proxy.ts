// The dev-server proxy for LLM endpoints (SPEC §6): with MAS_REPLAY_LLM_PROXY set to a server's origin (e.g.
// http://127.0.0.1:11434 for Ollama), the studio's own server forwards `/llm/*` to it, so the page calls a same-origin
// URL (`http://127.0.0.1:5173/llm/v1`) and the model server needs no CORS set-up. Used by `vite` (dev) and by
// `vite preview` (what `npm start` serves). Off unless the variable is set. Only the studio's own page may use it: a
// request another site's page makes (its Origin, or Sec-Fetch-Site, says so) gets 403, so no page on the web can
// reach the model server through the studio.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { ProxyOptions } from 'vite';

export const LLM_PROXY_PATH = '/llm';

/**
 * Whether a request comes from the studio's own page (or from no page at all, e.g. curl): Sec-Fetch-Site, when sent,
 * is same-origin or none, and Origin, when sent, is this server's own (scheme and the Host it was reached by; Vite's
 * host check already refuses Host names it does not serve).
 */
export function fromStudioOrigin(req: Pick<IncomingMessage, 'headers' | 'socket'>): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const host = req.headers.host;
  if (!host) return false;
  const scheme = (req.socket as TLSSocket | undefined)?.encrypted ? 'https' : 'http';
  return origin.toLowerCase() === `${scheme}://${host.toLowerCase()}`;
}

export function llmProxy(target: string | undefined = process.env.MAS_REPLAY_LLM_PROXY): Record<string, ProxyOptions> | undefined {
  if (!target) return undefined;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new Error(`MAS_REPLAY_LLM_PROXY must be a URL like http://127.0.0.1:11434, got ${JSON.stringify(target)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`MAS_REPLAY_LLM_PROXY must be an http(s) URL, got ${JSON.stringify(target)}`);
  return {
    [LLM_PROXY_PATH]: {
      target: url.origin,
      changeOrigin: true,
      rewrite: (path) => path.slice(LLM_PROXY_PATH.length) || '/',
      bypass: (req, res) => {
        if (fromStudioOrigin(req)) return undefined;
        if (res) {
          res.statusCode = 403;
          res.setHeader('content-type', 'text/plain; charset=utf-8');
          res.end('The LLM proxy answers only the studio’s own page.\n');
        }
        // A string ends Vite's handling here, since the response is already written: nothing is forwarded.
        return req.url ?? LLM_PROXY_PATH;
      },
    },
  };
}
