// For tests: the command line as a user runs it, a real subprocess through the package's bin. The bin runs the
// bundle when it is current and the sources through tsx when they changed since it was built (ADR 0018), so a test
// always runs what is on disk; its note about the fallback is turned off here.
import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI_ENV = { MAS_REPLAY_CLI_NOTE: 'off' };

/** `timeoutMs` kills a command that hangs (status null) instead of hanging the test. */
export function runCli(args: string[], { timeoutMs }: { timeoutMs?: number } = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/mas-replay.mjs'), ...args], {
    encoding: 'utf8',
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
    timeout: timeoutMs,
    env: { ...process.env, ...CLI_ENV },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `command …args` as a subprocess, asynchronously: a test server running in the test's own process keeps answering
 * while the command waits on it. Backoff between retries is shortened to 10 ms.
 */
export function runCliAsync(command: string, args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/mas-replay.mjs'), command, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...CLI_ENV, MAS_REPLAY_RETRY_BASE_MS: '10', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}
