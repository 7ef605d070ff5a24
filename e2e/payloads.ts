// The untrusted-content kit (SPEC §9): one small file per supported import format in which every text field carries
// a hostile payload (script tags, event handlers, javascript: links, SVG with handlers, markdown with raw HTML,
// control characters, right-to-left overrides, a very long string). Files are made by rewriting real traces from
// ../shared/traces (and the bundled native sample), so each still imports with its format; a unit test
// (src/import/untrusted-payloads.test.ts) proves that, and that the payloads reach the imported runs' text.
//
// Every payload that could run sets `window.__xss` (to its own name) or fetches from `xss.invalid`: the e2e suite
// checks that neither ever happens. Payloads avoid parentheses so they also fit in role fields that the chat-log
// importer parses (`Orchestrator (-> WebSurfer)`).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const PAYLOADS = {
  script: `<script>window.__xss='script'</script>`,
  img: `<img src="http://xss.invalid/img.png" onerror="window.__xss='img'">`,
  link: `<a href="javascript:window.__xss='link'">open me</a>`,
  svg: `<svg onload="window.__xss='svg'"><circle r="4"></circle></svg>`,
  markdown: `**bold** [click](javascript:window.__xss='md') <b onmouseover="window.__xss='md'">raw html</b> ![pixel](http://xss.invalid/md.png)`,
  iframe: `<iframe srcdoc="<script>parent.__xss='iframe'</script>"></iframe>`,
  control: `ctrl[\u0001\u0007\u001b[31m\u0008\u007f\u0085]`,
  rtl: `rtl[\u202Etxt.exe\u202C \u2067isolate\u2069]`,
} as const;

/** One very long field per this many rewritten texts of some length (too many would make the files huge). */
const LONG_EVERY = 11;
const LONG_MIN = 60;
export const LONG_PAYLOAD = `long[${'0123456789'.repeat(10_000)}]`;

const ROTATION: string[] = Object.values(PAYLOADS);
/** The payloads safe inside a speaker's name in a role field (no parentheses). */
const NAME_PAYLOADS = [PAYLOADS.script, PAYLOADS.img, PAYLOADS.svg, PAYLOADS.link];

/** Text that every rewritten string carries, so a test can tell rewritten text from text an importer made up. */
export const MARKERS = ['<script>window.__xss', '<img src=', '<a href=', '<svg onload=', '[click](javascript:', '<iframe srcdoc=', 'ctrl[', 'rtl[', 'long[0123'];

export function carriesPayload(text: string): boolean {
  return MARKERS.some((m) => text.includes(m));
}

const SHARED = resolve(import.meta.dirname, '../../shared/traces');
const SAMPLES = resolve(import.meta.dirname, '../public/samples');

function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

// Strings that are structure rather than text: ids and references (rewriting them would break links between
// records, or hex/base64 decoding), times, numbers, enum constants, roles, attribute names and MIME types.
const STRUCTURAL_KEY = /(^|_|\.)(id|ids)$|Ids?$|^(type|kind|status|status_code|statusCode|code|level|spanKind|span_kind|key|format|version|unit|reply_to|replyTo|parent|trial|mistake_step|step_number|trajectory_id|task_id|sourceFormat|engine|taxonomy|source|arm|action|context|rule)$|time|Time|date|Date|_at$|At$|^timestamp$/;
const STRUCTURAL_VALUE = [
  /^$/,
  /^\s*-?\d+(\.\d+)?(e[+-]?\d+)?\s*$/i,
  /^\d{4}-\d{2}-\d{2}/,
  /^P(T?[\d.]+[YMWDHS])+$/,
  /^(?=.*\d)[\w+/=:.-]{8,}$/,
  /^[A-Z][A-Z0-9_.]*$/,
  /^(user|assistant|system|tool|function|developer|human|ai|model|true|false|null|none)$/i,
  /^[a-z]+\/[a-z0-9.+-]+$/,
  /^[a-z_]+(\.[a-z_0-9]+)+$/,
];
/** Short payloads put in front of every rewritten text. */
const PREFIXES = [PAYLOADS.img, PAYLOADS.script, PAYLOADS.svg];
const STANDARD_ROLE = /^(user|assistant|system|tool|function|developer|human|ai|model)$/i;

function payloadFor(text: string): string {
  const h = fnv(text);
  return h % LONG_EVERY === 0 && text.length >= LONG_MIN ? LONG_PAYLOAD : ROTATION[h % ROTATION.length];
}

/** The same input string always becomes the same output, so references between records still match. */
export function rewriteString(text: string, key: string): string {
  if (STRUCTURAL_KEY.test(key) || STRUCTURAL_VALUE.some((re) => re.test(text))) return text;
  if (key === 'role') {
    if (STANDARD_ROLE.test(text)) return text;
    // "Orchestrator (-> WebSurfer)": the speaker's name is what comes before the parenthesis.
    const cut = text.indexOf(' (');
    const name = cut === -1 ? text : text.slice(0, cut);
    return `${name} ${NAME_PAYLOADS[fnv(name) % NAME_PAYLOADS.length]}${cut === -1 ? '' : text.slice(cut)}`;
  }
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      // JSON inside a string (tool arguments, OpenInference input.value): rewrite inside it, keep it JSON.
      return JSON.stringify(rewriteValue(JSON.parse(trimmed), key));
    } catch {
      // not JSON: plain text
    }
  }
  // Before and after: titles and previews are cut from the start of a text, details show its end.
  return `${PREFIXES[fnv(text) % PREFIXES.length]} ${text} ${payloadFor(text)}`;
}

export function rewriteValue(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return rewriteString(value, key);
  if (Array.isArray(value)) return value.map((v) => rewriteValue(v, key));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = rewriteValue(v, k);
    return out;
  }
  return value;
}

export interface PayloadFile {
  /** What the file stands for, in the suite's output. */
  label: string;
  /** Format id the importer must detect. */
  format: string;
  /** File name given to the studio (the name is part of detection for a few formats). */
  name: string;
  path: string;
}

interface Source {
  label: string;
  format: string;
  name: string;
  /** Absolute path of the original, or the original itself when no recorded file has this shape. */
  from: string | (() => unknown[]);
  /** Cut the original down before rewriting (keeps the files small). */
  shape?: (doc: unknown, text: string) => string;
}

const json = (v: unknown) => `${JSON.stringify(v, null, 1)}\n`;

/** The same ids with every digit shifted by one: still hex or base64, but another trace (another run). */
function otherTraceIds(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return /^trace_?id$/i.test(key) ? value.replace(/\d/g, (d) => String((Number(d) + 1) % 10)) : value;
  if (Array.isArray(value)) return value.map((v) => otherTraceIds(v, key));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, otherTraceIds(v, k)]));
  return value;
}

/**
 * OTLP/JSON to OTLP JSON Lines: one document per span. Its traces get other ids, so opening both variants shows two
 * runs rather than the second replacing the first.
 */
function otlpAsLines(doc: unknown): string {
  doc = otherTraceIds(doc);
  type Otlp = { resourceSpans: { resource?: unknown; scopeSpans: { scope?: unknown; spans: unknown[] }[] }[] };
  const lines: string[] = [];
  for (const d of (Array.isArray(doc) ? doc : [doc]) as Otlp[]) {
    for (const rs of d.resourceSpans) {
      for (const ss of rs.scopeSpans) for (const span of ss.spans) lines.push(JSON.stringify({ resourceSpans: [{ resource: rs.resource, scopeSpans: [{ scope: ss.scope, spans: [span] }] }] }));
    }
  }
  return `${lines.join('\n')}\n`;
}

const TAU_RUNS = 2;
const TRAIL_ID = '0ebe673d64647ec44c370638b82d3c78';

function sources(): Source[] {
  return [
    { label: 'native session', format: 'native', name: 'xss-native.session.json', from: join(SAMPLES, 'simulated-group-chat.session.json') },
    { label: 'OTLP JSON', format: 'otlp', name: 'xss-otlp.json', from: join(SHARED, 'otlp/rag_earnings_agent.json') },
    { label: 'OTLP JSON Lines', format: 'otlp', name: 'xss-otlp-lines.jsonl', from: join(SHARED, 'otlp/rag_earnings_agent.json'), shape: (doc) => otlpAsLines(rewriteValue(doc)) },
    { label: 'span tree (TRAIL)', format: 'span-tree', name: 'xss-trail-spans.json', from: join(SHARED, `trail/gaia/${TRAIL_ID}.json`) },
    { label: 'TRAIL annotations', format: 'trail-annotations', name: 'xss-trail-annotations.json', from: join(SHARED, `trail/annotations/${TRAIL_ID}.json`) },
    { label: 'Langfuse', format: 'langfuse', name: 'xss-langfuse.json', from: join(SHARED, 'langfuse/agentprism-langfuse-1.json') },
    { label: 'chat log (Who&When, AG2)', format: 'chat-log', name: 'xss-whowhen-ag2.json', from: join(SHARED, 'who-and-when/algorithm-generated/1.json') },
    { label: 'chat log (Magentic-One)', format: 'chat-log', name: 'xss-magentic-one.json', from: join(SHARED, 'who-and-when/hand-crafted/1.json') },
    {
      label: 'openai-chat (tau-bench)',
      format: 'openai-chat',
      name: 'xss-tau-bench.json',
      from: join(SHARED, 'tau-bench/tau_dataset_failed.json'),
      shape: (doc) => json(rewriteValue((doc as unknown[]).slice(0, TAU_RUNS))),
    },
    {
      label: 'AgentRx ground truth',
      format: 'agentrx-ground-truth',
      name: 'xss-agentrx-ground-truth.json',
      from: join(SHARED, 'tau-bench/tau_ground_truth.json'),
      shape: (doc) => json(rewriteValue((doc as unknown[]).slice(0, TAU_RUNS))),
    },
    {
      label: 'message bus (smolagents)',
      format: 'message-bus',
      name: 'xss-message-bus.jsonl',
      from: join(SHARED, 'smolagents-bus/decentralized-LiteLLMModel-gpt-4o__decentralized-consensus__math__2025-08-27.jsonl'),
      shape: (_doc, text) =>
        `${text
          .split('\n')
          .filter((l) => l.trim() !== '')
          .slice(0, 2)
          .map((l) => JSON.stringify(rewriteValue(JSON.parse(l))))
          .join('\n')}\n`,
    },
    {
      // The published bus outputs carry no messages; the bus's own message log has this documented shape.
      label: 'message bus (messages)',
      format: 'message-bus-log',
      name: 'xss-bus-messages.jsonl',
      from: busMessages,
      shape: (doc) => `${(rewriteValue(doc) as unknown[]).map((m) => JSON.stringify(m)).join('\n')}\n`,
    },
  ];
}

/** A short decentralised-team exchange in the message bus's line shape: a proposal, a poll, votes, an answer. */
function busMessages(): unknown[] {
  const t0 = Date.UTC(2026, 0, 15, 9, 0, 0) / 1000;
  const line = (i: number, sender: string, type: string, content: string, recipients: string[] | null, reply?: number) => ({
    id: `msg-${i}`,
    timestamp: t0 + i * 7,
    sender,
    type,
    content,
    recipients,
    thread_id: 'thread-1',
    reply_to: reply === undefined ? null : `msg-${reply}`,
  });
  return [
    line(0, 'agent_planner', 'message', 'I propose we first compute the sum of the first row.', null),
    line(1, 'agent_solver', 'message', 'The first row sums to fifteen, so every line must too.', ['agent_planner'], 0),
    line(2, 'agent_checker', 'poll', 'Poll: is the magic constant fifteen?', null),
    line(3, 'agent_planner', 'vote', 'Yes, checked both diagonals.', ['agent_checker'], 2),
    line(4, 'agent_solver', 'final_answer_proposal', 'The answer is seven.', null),
  ];
}

export interface PayloadKit {
  files: PayloadFile[];
  /** Labels of formats whose original is absent here (../shared/traces missing). */
  missing: string[];
}

/** Write the payload files into `dir` (created). Originals that are absent are listed in `missing`, not faked. */
export function writePayloadFiles(dir: string): PayloadKit {
  mkdirSync(dir, { recursive: true });
  const files: PayloadFile[] = [];
  const missing: string[] = [];
  for (const s of sources()) {
    if (typeof s.from === 'string' && !existsSync(s.from)) {
      missing.push(s.label);
      continue;
    }
    const text = typeof s.from === 'string' ? readFileSync(s.from, 'utf8') : '';
    const doc: unknown = typeof s.from !== 'string' ? s.from() : s.from.endsWith('.jsonl') ? undefined : JSON.parse(text);
    const out = s.shape ? s.shape(doc, text) : json(rewriteValue(doc));
    const path = join(dir, s.name);
    writeFileSync(path, out);
    files.push({ label: s.label, format: s.format, name: s.name, path });
  }
  return { files, missing };
}
