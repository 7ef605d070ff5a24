// The project's OpenAI-compatible test server (test-server/) as a child process for e2e tests: start it in
// `beforeAll`, script it, read its request log, stop it in `afterAll`.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { resolve } from 'node:path';
import { expect } from '@playwright/test';

const ROOT = resolve(import.meta.dirname, '..');
const TSX = resolve(ROOT, 'node_modules/tsx/dist/cli.mjs');

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
  const child: ChildProcess = spawn(process.execPath, [TSX, 'test-server/main.ts', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const origin = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolveUrl(out.split('\n')[0].trim());
    });
    child.once('exit', (code) => reject(new Error(`test server exited with ${code}`)));
  });
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
    stop: () => void child.kill('SIGTERM'),
  };
}
