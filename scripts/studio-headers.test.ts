// The studio's servers refuse to be framed (SPEC §9), over real HTTP: a Vite dev server and a `vite preview` of a
// small build, each with the studio's header plugin, answer every path with frame-ancestors 'none' and
// X-Frame-Options DENY; preview also sends the full CSP, and a CSP set by a later handler keeps frame-ancestors.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, preview, type PreviewServer, type ViteDevServer } from 'vite';
import { CSP, studioHeaders, withFrameAncestors } from './studio-headers.ts';

function originOf(server: { httpServer: unknown }): string {
  const address = (server.httpServer as import('node:http').Server).address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

describe('withFrameAncestors', () => {
  it('adds frame-ancestors none, replacing any other frame-ancestors', () => {
    expect(withFrameAncestors(undefined)).toBe("frame-ancestors 'none'");
    expect(withFrameAncestors("default-src 'self'; frame-ancestors *; ")).toBe("default-src 'self'; frame-ancestors 'none'");
  });
});

describe('the studio servers send frame-refusing headers', () => {
  let dev: ViteDevServer;
  let prev: PreviewServer;
  let dist: string;
  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'studio-headers-'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>t</title><div id="root"></div>');
    dev = await createServer({
      configFile: false,
      root: dist,
      logLevel: 'silent',
      plugins: [studioHeaders()],
      server: { host: '127.0.0.1', port: 0, headers: { 'Content-Security-Policy': "img-src 'self'" } },
    });
    await dev.listen();
    prev = await preview({
      configFile: false,
      root: dist,
      logLevel: 'silent',
      plugins: [studioHeaders()],
      build: { outDir: dist },
      preview: { host: '127.0.0.1', port: 0 },
    });
  });
  afterAll(async () => {
    await dev?.close();
    await prev?.close();
    if (dist) rmSync(dist, { recursive: true, force: true });
  });

  it('vite preview (npm start, the e2e server): the page and any other path', async () => {
    for (const path of ['/', '/?samples=1', '/index.html', '/no-such-file.js']) {
      const res = await fetch(`${originOf(prev)}${path}`);
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('content-security-policy'), path).toBe(`${CSP}; frame-ancestors 'none'`);
    }
    expect(await (await fetch(`${originOf(prev)}/`)).text()).toContain('id="root"');
  });

  it('vite dev: frame-ancestors merged into the CSP the server config sets', async () => {
    const res = await fetch(`${originOf(dev)}/`);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toBe("img-src 'self'; frame-ancestors 'none'");
  });
});
