// The project's OpenAI-compatible test server (test-server/) as a child process for e2e tests: start it in
// `beforeAll`, script it, read its request log, stop it in `afterAll`.
import { spawn, type ChildProcess } from 'node:child_process';
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
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${origin}${path}`, { method: 'POST', body: JSON.stringify(body) });
    expect(res.ok).toBe(true);
  };
  return {
    baseUrl: `${origin}/v1`,
    origin,
    script: (script) => admin('/__script', script),
    reset: () => admin('/__reset', {}),
    log: async () => ((await (await fetch(`${origin}/__log`)).json()) as { entries: LogEntry[] }).entries,
    stop: () => void child.kill('SIGTERM'),
  };
}
