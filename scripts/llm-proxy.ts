// The dev-server proxy for LLM endpoints (SPEC §6): with MAS_REPLAY_LLM_PROXY set to a server's origin (e.g.
// http://127.0.0.1:11434 for Ollama), the studio's own server forwards `/llm/*` to it, so the page calls a same-origin
// URL (`http://127.0.0.1:5173/llm/v1`) and the model server needs no CORS set-up. Used by `vite` (dev) and by
// `vite preview` (what `npm start` serves). Off unless the variable is set.
import type { ProxyOptions } from 'vite';

export const LLM_PROXY_PATH = '/llm';

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
    },
  };
}
