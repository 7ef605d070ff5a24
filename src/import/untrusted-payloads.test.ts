// The untrusted-content kit (e2e/payloads.ts) is only worth something if its files still import with their format
// and the payloads reach the text the views show. This checks both, per format, so the e2e suite can rely on it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { carriesPayload, PAYLOADS, writePayloadFiles } from '../../e2e/payloads.ts';
import type { Run } from '../model/types.ts';
import { importBytes } from './index.ts';

const dir = mkdtempSync(join(tmpdir(), 'mas-replay-payloads-'));
const kit = writePayloadFiles(dir);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
/** Names an importer makes up from a role, not text from the file. */
const ROLE_NAME = /^(system|user|assistant|human|tool|function)$/i;
const STEP_TEXT = ['step.input', 'step.output', 'step.observation'];

/** The text fields a view can show, by name, with their values. */
function textFields(run: Run): [string, string][] {
  const out: [string, string][] = [['title', run.title]];
  if (run.task) out.push(['task', run.task]);
  for (const a of run.agents) if (!ROLE_NAME.test(a.name)) out.push(['agent.name', a.name]);
  for (const s of run.steps) {
    if (s.input) out.push(['step.input', asText(s.input)]);
    if (s.output) out.push(['step.output', asText(s.output)]);
    if (s.observation) out.push(['step.observation', asText(s.observation)]);
    if (s.error?.message) out.push(['step.error', s.error.message]);
  }
  for (const h of run.handoffs) if (h.content) out.push(['handoff.content', h.content]);
  for (const a of run.annotations) {
    if (a.evidence) out.push(['annotation.evidence', a.evidence]);
    if (a.description) out.push(['annotation.description', a.description]);
  }
  return out;
}

describe('untrusted-content payload files', () => {
  it('cover every format (the native sample is always here; the rest come from ../shared/traces)', () => {
    if (kit.missing.length > 0) console.warn(`payload originals absent, skipped: ${kit.missing.join(', ')}`);
    expect(kit.files.map((f) => f.format)).toContain('native');
  });

  for (const file of kit.files) {
    it(`${file.label}: imports as ${file.format} and its text carries the payloads`, () => {
      const imported = importBytes(file.name, readFileSync(file.path));
      expect(imported.format).toBe(file.format);
      if (file.format === 'trail-annotations' || file.format === 'agentrx-ground-truth') {
        // Scores are numbers (left alone by the kit); the labels' evidence and descriptions are text.
        const notes = imported.annotationSets.flatMap((s) => s.annotations).filter((a) => a.score === undefined).flatMap((a) => [a.evidence ?? '', a.description ?? '']).filter(Boolean);
        expect(notes.length).toBeGreaterThan(0);
        expect(notes.filter(carriesPayload).length / notes.length).toBeGreaterThan(0.9);
        return;
      }
      expect(imported.runs.length).toBeGreaterThan(0);
      for (const run of imported.runs) {
        const fields = textFields(run);
        const by = new Map<string, { all: number; carried: number }>();
        for (const [name, value] of fields) {
          const e = by.get(name) ?? { all: 0, carried: 0 };
          e.all++;
          if (carriesPayload(value)) e.carried++;
          by.set(name, e);
        }
        // The title and the step texts a person reads carry payloads (a few texts are structural, like "TERMINATE",
        // and are left alone by the kit). Agent names often come from roles or span kinds; see the test below.
        expect(carriesPayload(run.title), `${file.label} title: ${run.title.slice(0, 80)}`).toBe(true);
        for (const name of STEP_TEXT) {
          const e = by.get(name);
          if (e && e.all > 0) expect(e.carried / e.all, `${file.label} ${run.id} ${name}: ${JSON.stringify(e)}`).toBeGreaterThanOrEqual(0.5);
        }
        const all = fields.map(([, v]) => v).join('\n');
        expect(Object.values(PAYLOADS).filter((p) => all.includes(p)).length, `${file.label}: payload kinds present`).toBeGreaterThanOrEqual(2);
      }
    });
  }

  it('agent names from the files carry payloads (chat logs, Langfuse, message bus, native)', () => {
    const named = kit.files.filter((f) => ['native', 'chat-log', 'langfuse'].includes(f.format) || f.name === 'xss-bus-messages.jsonl');
    expect(named.length).toBeGreaterThan(0);
    for (const file of named) {
      const names = importBytes(file.name, readFileSync(file.path)).runs.flatMap((r) => r.agents.map((a) => a.name)).filter((n) => !ROLE_NAME.test(n));
      expect(names.filter(carriesPayload).length, `${file.label}: ${names.join(' | ').slice(0, 300)}`).toBeGreaterThan(0);
    }
  });
});
