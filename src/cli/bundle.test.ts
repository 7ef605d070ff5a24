// The bin runs the bundle built by scripts/build-cli.mjs when it is current, and the sources through tsx with a note
// when they changed since (ADR 0018). Built into a scratch copy of the tree so the repo's own dist-cli is untouched.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SAMPLE = join(ROOT, 'public/samples/simulated-group-chat.session.json');
let tree: string;

function bin(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [join(tree, 'bin/mas-replay.mjs'), ...args], {
    encoding: 'utf8',
    cwd: tree,
    env: { ...process.env, MAS_REPLAY_CLI: '', MAS_REPLAY_CLI_NOTE: '', MAS_REPLAY_CLI_DEBUG: '1', ...env },
  });
}

beforeAll(() => {
  tree = mkdtempSync(join(tmpdir(), 'mas-cli-bundle-'));
  cpSync(join(ROOT, 'bin'), join(tree, 'bin'), { recursive: true });
  // No node_modules: the bundle must not need it (see the last test); the tsx fallback links it for its test.
  for (const linked of ['src', 'scripts', 'package-lock.json', 'package.json']) symlinkSync(join(ROOT, linked), join(tree, linked));
  mkdirSync(join(tree, 'dist-cli'));
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build-cli.mjs'), '--outdir', join(tree, 'dist-cli')], { encoding: 'utf8', cwd: ROOT });
  expect(build.status, build.stderr).toBe(0);
}, 60_000);

afterAll(() => rmSync(tree, { recursive: true, force: true }));

describe('the CLI bundle', () => {
  it('is what the bin runs when it is current, with the same output as the sources', () => {
    const viaBundle = bin(['inspect', '--json', SAMPLE]);
    expect(viaBundle.status, viaBundle.stderr).toBe(0);
    expect(viaBundle.stderr).toBe('mas-replay: bundle dist-cli/mas-replay.mjs\n');
    const viaTsx = spawnSync(process.execPath, [join(ROOT, 'bin/mas-replay.mjs'), 'inspect', '--json', SAMPLE], {
      encoding: 'utf8',
      env: { ...process.env, MAS_REPLAY_CLI: 'tsx', MAS_REPLAY_CLI_DEBUG: '1' },
    });
    expect(viaTsx.stderr).toBe('mas-replay: tsx src/cli/main.ts\n');
    expect(viaBundle.stdout).toBe(viaTsx.stdout);
    expect(JSON.parse(viaBundle.stdout).files[0].runs.length).toBeGreaterThan(0);
  });

  it('is not run once a source changed after it was built: the sources run through tsx, with a note', () => {
    const inputsFile = join(tree, 'dist-cli/inputs.json');
    const meta = JSON.parse(readFileSync(inputsFile, 'utf8')) as { builtAt: number; inputs: string[] };
    expect(meta.inputs).toContain('src/cli/inspect.ts');
    expect(meta.inputs).not.toContain('src/import/tokens.ts');
    writeFileSync(inputsFile, JSON.stringify({ ...meta, builtAt: 0 }));
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
    try {
      const r = bin(['--help']);
      expect(r.status).toBe(0);
      expect(r.stderr).toMatch(/^mas-replay: tsx src\/cli\/main.ts\nnote: the CLI bundle is stale \(.+ changed since it was built\)/);
      const forced = bin(['--help'], { MAS_REPLAY_CLI: 'bundle' });
      expect(forced.status).toBe(1);
      expect(forced.stderr).toMatch(/^error: internal: the CLI bundle is stale/);
    } finally {
      writeFileSync(inputsFile, JSON.stringify(meta));
      rmSync(join(tree, 'node_modules'));
    }
  });

  const SMALL = join(ROOT, '../shared/traces/otlp/rag_earnings_agent.json');
  const ESTIMATED = join(ROOT, '../shared/traces/who-and-when/hand-crafted/1.json');
  it.skipIf(!existsSync(SMALL) || !existsSync(ESTIMATED))(`needs nothing from node_modules, its token table beside it${existsSync(SMALL) && existsSync(ESTIMATED) ? '' : ' (../shared/traces is absent: skipped)'}`, () => {
    // The scratch tree has no node_modules: a file that records its token usage is inspected all the same …
    const recorded = bin(['inspect', '--json', SMALL]);
    expect(recorded.status, recorded.stderr).toBe(0);
    expect(JSON.parse(recorded.stdout).files[0].runs[0].tokens.total).toBeGreaterThan(0);
    // … and so is one whose tokens are estimated: the counter reads dist-cli/o200k.table (tokens-lazy.ts), with the
    // counts of the sources (which read gpt-tokenizer's rank file).
    const estimated = bin(['inspect', '--json', ESTIMATED]);
    expect(estimated.status, estimated.stderr).toBe(0);
    const viaTsx = spawnSync(process.execPath, [join(ROOT, 'bin/mas-replay.mjs'), 'inspect', '--json', ESTIMATED], { encoding: 'utf8', env: { ...process.env, MAS_REPLAY_CLI: 'tsx' } });
    expect(estimated.stdout).toBe(viaTsx.stdout);
    expect(JSON.parse(estimated.stdout).files[0].runs[0].tokens.total).toBeGreaterThan(0);
    // Without the table it reaches for the package's rank file, absent here: the command says so.
    const table = join(tree, 'dist-cli/o200k.table');
    renameSync(table, `${table}.away`);
    try {
      const without = bin(['inspect', ESTIMATED]);
      expect(without.status).not.toBe(0);
      expect(without.stderr).toMatch(/^mas-replay: bundle dist-cli\/mas-replay.mjs\nerror: .*Cannot find module 'gpt-tokenizer\/data\/o200k_base.tiktoken'/);
    } finally {
      renameSync(`${table}.away`, table);
    }
  });

  it.skipIf(!existsSync(SMALL))(`loads zod and the schemas (dist-cli/schema.cjs) only to read a native session${existsSync(SMALL) ? '' : ` (${SMALL} is absent: skipped)`}`, () => {
    const schema = join(tree, 'dist-cli/schema.cjs');
    // zod's classes are named in its code: in schema.cjs, in no module of the bundle.
    const modules = readdirSync(join(tree, 'dist-cli')).filter((f) => f.endsWith('.mjs'));
    expect(modules.filter((f) => readFileSync(join(tree, 'dist-cli', f), 'utf8').includes('$ZodObject'))).toEqual([]);
    expect(readFileSync(schema, 'utf8')).toContain('$ZodObject');
    renameSync(schema, `${schema}.away`);
    try {
      // Without it, an OTLP file is inspected all the same: nothing required it …
      const otlp = bin(['inspect', '--json', SMALL]);
      expect(otlp.status, otlp.stderr).toBe(0);
      expect(JSON.parse(otlp.stdout).files[0].runs.length).toBe(1);
      // … and a session file reaches for it on its first validation.
      const session = bin(['inspect', SAMPLE]);
      expect(session.status).not.toBe(0);
      expect(session.stderr).toMatch(/Cannot find module '\.\/schema\.cjs'/);
    } finally {
      renameSync(`${schema}.away`, schema);
    }
    expect(bin(['inspect', SAMPLE]).status).toBe(0);
  });
});
