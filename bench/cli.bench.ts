// Issue 14 item 5: the command line as a whole process. `inspect --json` on the 100k-span OTLP file of the import
// benchmark vs `node -e JSON.parse(readFileSync(f))` of the same file: wall-time ratio (≤ 2) and peak-RSS ratio
// (≤ 1.5), medians of alternating runs; and `inspect` on a small file, wall time (≤ 0.3 s), one that records its
// token usage and one whose tokens are estimated (the counter's table is read: ADR 0070). Peak RSS is the kernel's
// maxRSS of the process (GNU time's %M). Runs the bin as a user does: the bundle when current (ADR 0018); the bundle
// is built first if missing or stale. BENCH_CLI=tsx measures the tsx path instead (the "before" figure).
// Figures go to stdout and to bench/results/cli.json for `npm run bench`.
//
// Run: npm run bench:cli   (BENCH_SPANS=… to change the size, BENCH_RUNS=… the timed pairs; default 3)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateOtlpFile } from './gen-otlp.ts';
import { writeResults, type Figure } from './results.ts';

const ROOT = resolve(import.meta.dirname, '..');
const SPANS = Number(process.env.BENCH_SPANS ?? 100_000);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const TIME = '/usr/bin/time';
const SMALL = [join(ROOT, '../shared/traces/otlp/rag_earnings_agent.json'), join(ROOT, 'public/samples/simulated-group-chat.session.json')].find(existsSync)!;
const ESTIMATED = join(ROOT, '../shared/traces/who-and-when/hand-crafted/1.json');
const PATH_ENV = { ...process.env, MAS_REPLAY_CLI: process.env.BENCH_CLI === 'tsx' ? 'tsx' : 'bundle' };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** Wall seconds, CPU seconds (user + system) and peak RSS (bytes) of one process, from GNU time. */
function measure(args: string[], tmp: string): { wall: number; cpu: number; rss: number } {
  const out = join(tmp, 'time.txt');
  const r = spawnSync(TIME, ['-o', out, '-f', '%e %M %U %S', process.execPath, ...args], { cwd: ROOT, env: PATH_ENV, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr}`);
  const [wall, kb, user, sys] = readFileSync(out, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { wall, cpu: user + sys, rss: kb * 1024 };
}

async function main(): Promise<void> {
  if (!existsSync(TIME)) throw new Error(`${TIME} (GNU time) is needed for peak RSS; apt-get install time`);
  if (PATH_ENV.MAS_REPLAY_CLI === 'bundle') spawnSync(process.execPath, ['scripts/build-cli.mjs', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  const tmp = mkdtempSync(join(tmpdir(), 'mas-bench-cli-'));
  try {
    const file = join(tmp, 'otlp.json');
    await generateOtlpFile(file, SPANS);
    const bin = join(ROOT, 'bin/mas-replay.mjs');
    const parse = `JSON.parse(require('fs').readFileSync(${JSON.stringify(file)},'utf8'))`;
    const p: { wall: number; cpu: number; rss: number }[] = [];
    const c: { wall: number; cpu: number; rss: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      p.push(measure(['-e', parse], tmp));
      c.push(measure([bin, 'inspect', '--json', file], tmp));
    }
    measure([bin, 'inspect', SMALL], tmp); // warm the file cache
    const small = median(Array.from({ length: 5 }, () => measure([bin, 'inspect', SMALL], tmp).wall));
    const estimated = existsSync(ESTIMATED) ? median(Array.from({ length: 3 }, () => measure([bin, 'inspect', ESTIMATED], tmp).wall)) : Number.NaN;
    const bare = median(Array.from({ length: 5 }, () => measure(['-e', '0'], tmp).wall));

    const [pw, cw, pr, cr] = [median(p.map((x) => x.wall)), median(c.map((x) => x.wall)), median(p.map((x) => x.rss)), median(c.map((x) => x.rss))];
    const [pc, cc] = [median(p.map((x) => x.cpu)), median(c.map((x) => x.cpu))];
    // The load while measuring: wall times on a shared machine say little without it.
    const load = existsSync('/proc/loadavg') ? readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') : 'unknown';
    const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`;
    const how = PATH_ENV.MAS_REPLAY_CLI === 'tsx' ? 'through tsx' : 'bundle';
    const figures: Figure[] = [
      { name: `CLI inspect --json (${how}) of ${SPANS.toLocaleString('en')} OTLP spans vs node -e JSON.parse, whole process`, value: cw / pw, unit: '×', target: '≤ 2 × node JSON.parse', pass: cw / pw <= 2, note: `medians of ${RUNS}: ${cw.toFixed(2)} s vs ${pw.toFixed(2)} s; CPU ${cc.toFixed(2)} s vs ${pc.toFixed(2)} s (${(cc / pc).toFixed(2)} ×); load average ${load}` },
      { name: 'CLI inspect peak RSS / node JSON.parse peak RSS', value: cr / pr, unit: '×', target: '≤ 1.5 × node JSON.parse', pass: cr / pr <= 1.5, note: `${mb(cr)} vs ${mb(pr)}` },
      { name: `CLI inspect of a small file (${SMALL.split('/').slice(-2).join('/')}), wall`, value: small * 1000, unit: 'ms', target: '≤ 300 ms', pass: small <= 0.3, note: `median of 5; node -e 0 takes ${(bare * 1000).toFixed(0)} ms` },
    ];
    if (!Number.isNaN(estimated))
      figures.push({ name: 'CLI inspect of a small Who&When file (tokens estimated: loads the token counter), wall', value: estimated * 1000, unit: 'ms', target: '≤ 300 ms', pass: estimated <= 0.3, note: 'median of 3' });
    writeResults('cli', figures, { runs: { parse: p, inspect: c }, path: how });
    for (const f of figures) console.log(`${f.pass ? 'PASS' : 'FAIL'}  ${f.unit === '×' ? `${f.value.toFixed(2)} ×` : `${f.value.toFixed(0)} ms`}  target ${f.target}  ${f.name}  (${f.note})`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
