// The project's OpenAI-compatible test server (test-server/) for e2e tests: start it in `beforeAll`, script it, read
// its request log, stop it in `afterAll`. It listens in the Playwright worker's own process (as the unit tests run it):
// a child process through tsx took ~1 s of CPU to start, in every test of a describe block that uses it. The test
// talks to it over HTTP all the same (script, reset, log), as it would to `npm run test-server`.
import { request } from 'node:http';
import { expect } from '@playwright/test';
import { startTestServer } from '../test-server/server.ts';

export interface LogEntry {
  seq: number;
  method: string;
  path: string;
  body: unknown;
  status: number;
  authorization?: string;
}

export interface LlmServer {
  /** `http://127.0.0.1:<port>/v1`, the base URL the studio is given. */
  baseUrl: string;
  origin: string;
  script(script: unknown): Promise<void>;
  reset(): Promise<void>;
  log(): Promise<LogEntry[]>;
  stop(): void;
}

export async function startLlmServer(): Promise<LlmServer> {
  const server = await startTestServer({ port: 0 });
  const origin = server.url;
  // Each call on a connection of its own (`agent: false`, `Connection: close`): a kept-alive socket that a test's
  // scripted fault or the server's idle timeout closed meanwhile would otherwise fail the next call with "other side
  // closed" (seen once in a full e2e run, in costs.spec.ts).
  const call = (method: 'GET' | 'POST', path: string, body?: unknown) =>
    new Promise<{ status: number; text: string }>((resolveCall, reject) => {
      const req = request(`${origin}${path}`, { method, agent: false, headers: { connection: 'close' } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolveCall({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  const admin = async (path: string, body: unknown) => {
    const res = await call('POST', path, body);
    expect(res.status, res.text).toBe(200);
  };
  return {
    baseUrl: `${origin}/v1`,
    origin,
    script: (script) => admin('/__script', script),
    reset: () => admin('/__reset', {}),
    log: async () => (JSON.parse((await call('GET', '/__log')).text) as { entries: LogEntry[] }).entries,
    stop: () => void server.close(),
  };
}
