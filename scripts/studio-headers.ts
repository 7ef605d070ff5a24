// What the studio's own server says about the page (SPEC §9): the strict Content-Security-Policy (a meta tag in the
// built page, and a header from `vite preview`, which `npm start` serves), and a refusal to be framed by any page
// (`frame-ancestors 'none'` and `X-Frame-Options: DENY` on every response of `vite` and `vite preview`), so a click on
// the studio cannot be stolen by a page that shows it inside its own. frame-ancestors is ignored in a meta tag; the
// app's entry refuses to render inside a frame as the fallback where these headers are absent (another static host).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Connect, Plugin } from 'vite';

// Scripts only from our origin, no inline script, no third-party anything. connect-src allows http(s) because the
// user configures their own LLM endpoint.
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "worker-src 'self' blob:",
  "connect-src 'self' http: https:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const FRAME_ANCESTORS = "frame-ancestors 'none'";

/** `policy` with any frame-ancestors directive replaced by `frame-ancestors 'none'`. */
export function withFrameAncestors(policy: string | undefined): string {
  const kept = (policy ?? '')
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d !== '' && !/^frame-ancestors(\s|$)/i.test(d));
  return [...kept, FRAME_ANCESTORS].join('; ');
}

/** The meta CSP of the built page (the dev server injects inline scripts, so the meta is for builds only). */
export function contentSecurityPolicy(): Plugin {
  return {
    name: 'mas-replay-csp',
    apply: 'build',
    transformIndexHtml: () => [
      { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CSP }, injectTo: 'head-prepend' },
    ],
  };
}

/**
 * Middleware for every response: X-Frame-Options DENY and a CSP with frame-ancestors 'none', merged into `policy` and
 * into any CSP header a later handler sets.
 */
export function frameRefusal(policy: string | undefined): Connect.NextHandleFunction {
  return (_req: IncomingMessage, res: ServerResponse, next: () => void) => {
    const setHeader = res.setHeader.bind(res);
    res.setHeader = (name, value) => setHeader(name, name.toLowerCase() === 'content-security-policy' ? withFrameAncestors(String(value)) : value);
    setHeader('X-Frame-Options', 'DENY');
    setHeader('Content-Security-Policy', withFrameAncestors(policy));
    next();
  };
}

/**
 * The headers on the studio's servers: the dev server gets frame-ancestors only (its inline module preamble would
 * break the full policy); preview, which serves the build, gets the full CSP as a header too.
 */
export function studioHeaders(): Plugin {
  return {
    name: 'mas-replay-headers',
    configureServer: (server) => {
      server.middlewares.use(frameRefusal(undefined));
    },
    configurePreviewServer: (server) => {
      server.middlewares.use(frameRefusal(CSP));
    },
  };
}
