// Generates the bundled samples (public/samples/*.session.json + index.json): simulated runs made by this project so
// the studio is useful offline (SPEC §4). Deterministic: a seeded PRNG and fixed clock, so re-running changes nothing.
// Every run and session is marked `simulated: true` and titled "Simulated …"; none of it was recorded from a real
// system. Each sample exercises the views that come later: run view (loop, error, long HTML, nested model calls,
// delegation/report), the supervisor's five contexts, the edge clarifier (faulty handoffs), and the corpus charts.
//   npm run samples
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildSession } from '../src/export/native.ts';
import { Session } from '../src/model/schema.ts';
import { RunBuilder } from '../src/model/run-builder.ts';
import type { ChatMessage, Intervention, Run, Step, TokenUsage, ToolCall } from '../src/model/types.ts';

const OUT_DIR = resolve(import.meta.dirname, '../public/samples');
const SEED = 20260115;
/** A fixed clock: 2026-01-15 09:00 UTC. */
const EPOCH = Date.UTC(2026, 0, 15, 9, 0, 0);
const MODEL = 'sim-model-large';

// ---------------------------------------------------------------------------------------------------------------
// Seeded randomness (mulberry32).

function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
    /** Standard normal (Box–Muller). */
    normal: () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next()),
  };
}
type Rng = ReturnType<typeof prng>;

// ---------------------------------------------------------------------------------------------------------------
// A run under construction: steps are appended in replay order with ids `<runId>:s<index>`.

function usage(input: number, output: number): TokenUsage {
  return { input, output, total: input + output };
}

/**
 * The model's run builder (ids, agents, agent runs, handoffs and interventions, as every other run is built) with the
 * generator's fixed clock.
 */
class SampleRun extends RunBuilder {
  constructor(
    id: string,
    public clock: number,
  ) {
    super(id);
  }

  tick(ms: number): number {
    this.clock += Math.round(ms);
    return this.clock;
  }

  step(fields: Omit<Step, 'id' | 'index'>): Step {
    return this.addStep(fields);
  }

  /** The samples' interventions are all the heuristic supervisor's. */
  supervise(fields: { stepId: string; context: string; action: string; reason: string; tokens?: TokenUsage; details?: Record<string, unknown> }): Intervention {
    return this.intervene({ engine: 'supervisor', heuristic: true, ...fields } as Omit<Intervention, 'id'>);
  }
}

const CODE_AGENT_SYSTEM = 'You are an expert assistant who can solve any task using code blobs. (Simulated system prompt.)';
const TOOL_AGENT_SYSTEM = 'You are an expert assistant who can solve any task using tool calls. (Simulated system prompt.)';

/**
 * One smolagents action step: the `action` step, its model call (`llm`, carrying the usage) and its tool calls
 * (`tool`), nested under it as the span importer nests them.
 */
function actionStep(
  b: SampleRun,
  o: {
    agentId: string;
    agentRunId: string;
    number: number;
    thought: string;
    toolCalls: ToolCall[];
    observation?: string;
    error?: { message: string; type: string };
    usage: TokenUsage;
    prompt: ChatMessage[];
    durationMs: number;
  },
): Step {
  const start = b.clock;
  const output = `Thought: ${o.thought}\n${o.toolCalls.map((c) => `Action: ${c.name}(${c.arguments})`).join('\n')}`;
  const action = b.step({
    kind: 'action',
    agentId: o.agentId,
    agentRunId: o.agentRunId,
    number: o.number,
    name: `Step ${o.number}`,
    thought: o.thought,
    output,
    toolCalls: o.toolCalls,
    ...(o.observation !== undefined ? { observation: o.observation } : {}),
    ...(o.error ? { error: o.error } : {}),
    startTime: start,
  });
  b.step({
    kind: 'llm',
    agentId: o.agentId,
    agentRunId: o.agentRunId,
    parentStepId: action.id,
    name: 'LiteLLMModel.generate',
    model: MODEL,
    input: o.prompt,
    output,
    usage: o.usage,
    startTime: start,
    endTime: b.tick(o.durationMs * 0.7),
  });
  for (const call of o.toolCalls) {
    b.step({
      kind: 'tool',
      agentId: o.agentId,
      agentRunId: o.agentRunId,
      parentStepId: action.id,
      name: call.name,
      toolCalls: [call],
      inputText: call.arguments,
      ...(o.observation !== undefined ? { output: o.observation } : {}),
      ...(o.error ? { error: o.error } : {}),
      startTime: b.clock,
      endTime: b.tick(o.durationMs * 0.3),
    });
  }
  action.endTime = b.clock;
  return action;
}

/** ReAct memory: every model call sees the system prompt, the task and all earlier steps. */
function promptOf(system: string, task: string, history: Step[]): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: `New task:\n${task}` },
  ];
  for (const s of history) {
    messages.push({ role: 'assistant', content: s.output ?? '' });
    messages.push({ role: 'user', content: s.error ? `Error: ${s.error.message}` : `Observation: ${s.observation ?? ''}` });
  }
  return messages;
}

/** Rough size of a prompt in tokens (≈ 4 characters a token), used to make recorded usage plausible. */
const tokensOf = (messages: ChatMessage[]) => Math.round(messages.reduce((n, m) => n + m.content.length, 0) / 4);

// ---------------------------------------------------------------------------------------------------------------
// A raw web page as a browsing tool returns it: markup noise for the purifier (scripts, styles, attributes).

function rawHtmlPage(rng: Rng): string {
  const rows = Array.from({ length: 14 }, (_, i) => {
    const year = 2010 + i;
    const value = (rng.int(180, 420) / 10).toFixed(1);
    return `<tr class="row row-${i % 2 ? 'odd' : 'even'}" data-year="${year}" style="background:#${i % 2 ? 'fafafa' : 'ffffff'}"><td class="cell" data-col="year">${year}</td><td class="cell num" data-col="value" onclick="trackCell(${i})">${value}</td></tr>`;
  }).join('\n');
  return [
    'Address: https://stats.example.org/simulated/reservoir-levels',
    'Viewport position: Showing page 1 of 3.',
    '=======================',
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Reservoir levels (simulated page)</title>',
    '<style>body{font-family:Arial,sans-serif;margin:0;padding:0}.nav{display:flex;gap:12px}.row-odd{background:#fafafa}.cell{padding:4px 8px;border:1px solid #ddd}.num{text-align:right}#cookie-banner{position:fixed;bottom:0;width:100%;background:#222;color:#fff}</style>',
    '<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag("js",new Date());gtag("config","SIM-000000");function trackCell(i){dataLayer.push({event:"cell",i:i})}</script>',
    '<script src="/static/js/vendor.bundle.min.js" async defer></script>',
    '</head><body class="page page-stats theme-light" data-page-id="48213">',
    '<div id="cookie-banner" role="dialog" aria-label="Cookie consent"><p>We use cookies to improve your experience. <a href="/privacy" class="btn btn-link">Privacy policy</a></p><button class="btn btn-primary" onclick="acceptCookies()">Accept all</button></div>',
    '<nav class="nav nav-main" aria-label="Main"><a href="/" class="nav-link" title="Home">Home</a><a href="/data" class="nav-link">Data</a><a href="/about" class="nav-link">About</a><a href="/contact" class="nav-link">Contact</a></nav>',
    '<main id="content" class="container container-wide"><h1 class="title title-lg">Annual mean reservoir level (metres), 2010–2023</h1>',
    '<p class="lede">Figures below are <em>simulated</em> for the MAS Replay Studio samples. Values are annual means of daily readings.</p>',
    `<table class="data-table table-striped" id="levels" data-source="sim" cellpadding="0" cellspacing="0"><thead><tr><th class="cell" scope="col">Year</th><th class="cell" scope="col">Level (m)</th></tr></thead><tbody>\n${rows}\n</tbody></table>`,
    '<aside class="sidebar related-links"><h2>Related</h2><ul><li><a href="/data/rainfall" title="Rainfall">Rainfall by month</a></li><li><a href="/data/usage" title="Usage">Water usage per capita</a></li><li><a href="/data/outflow">Outflow records</a></li></ul></aside>',
    '</main><footer class="footer footer-dark"><p>© Simulated Statistics Office. All rights reserved.</p><p><a href="/terms">Terms</a> · <a href="/privacy">Privacy</a> · <a href="/accessibility">Accessibility</a></p>',
    '<script>document.querySelectorAll(".nav-link").forEach(function(a){a.addEventListener("click",function(){dataLayer.push({event:"nav",href:a.href})})});function acceptCookies(){document.getElementById("cookie-banner").remove()}</script>',
    '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Dataset","name":"Reservoir levels (simulated)","license":"https://example.org/simulated-license"}</script>',
    '</footer></body></html>',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// Sample 1: a smolagents manager (CodeAgent) with a managed search agent (ToolCallingAgent), baseline and supervised.

const SHOWCASE_TASK =
  'What was the highest annual mean reservoir level (in metres) between 2010 and 2023 according to the statistics office page, and in which year? Answer as "<year>: <level> m".';

function showcaseRun(supervised: boolean, rng: Rng): Run {
  const id = `sim-gaia-showcase-${supervised ? 'supervised' : 'baseline'}`;
  const b = new SampleRun(id, EPOCH + (supervised ? 3_600_000 : 0));
  b.addAgent({ id: 'manager', name: 'manager', role: 'CodeAgent', description: 'Plans the task and delegates web research.', model: MODEL, kind: 'agent' }, null);
  b.addAgent({ id: 'search_agent', name: 'search_agent', role: 'ToolCallingAgent', description: 'Searches the web and reads pages for the manager.', model: MODEL, parentId: 'manager', kind: 'agent' }, null);
  const managerRun = b.addAgentRun({ id: `${id}:run-manager`, agentId: 'manager', task: SHOWCASE_TASK, startTime: b.clock });

  b.step({
    kind: 'planning',
    agentId: 'manager',
    agentRunId: managerRun.id,
    name: 'Planning',
    model: MODEL,
    output: 'Facts to look up: the page with annual mean reservoir levels 2010–2023.\nPlan:\n1. Ask search_agent to find the page and read the table.\n2. Pick the maximum.\n3. Give the final answer.',
    usage: usage(612, 96),
    startTime: b.clock,
    endTime: b.tick(2400),
  });

  const localTask = 'Find the statistics office page with annual mean reservoir levels for 2010–2023 and report the full table of values.';
  const call: ToolCall = { name: 'search_agent', arguments: JSON.stringify({ task: localTask }) };
  const m1Start = b.clock;
  const managerStep1 = b.step({
    kind: 'action',
    agentId: 'manager',
    agentRunId: managerRun.id,
    number: 1,
    name: 'Step 1',
    thought: 'I will ask the search agent to find the page and read the table.',
    output: `Thought: I will ask the search agent to find the page and read the table.\nCode:\n\`\`\`py\nreport = search_agent(task=${JSON.stringify(localTask)})\nprint(report)\n\`\`\``,
    toolCalls: [call],
    startTime: m1Start,
  });
  b.step({
    kind: 'llm',
    agentId: 'manager',
    agentRunId: managerRun.id,
    parentStepId: managerStep1.id,
    name: 'LiteLLMModel.generate',
    model: MODEL,
    input: promptOf(CODE_AGENT_SYSTEM, SHOWCASE_TASK, []),
    output: managerStep1.output,
    usage: usage(1480, 142),
    startTime: m1Start,
    endTime: b.tick(3100),
  });

  // The managed agent's run, nested in the manager's first step.
  const searchRun = b.addAgentRun({ id: `${id}:run-search`, agentId: 'search_agent', parentRunId: managerRun.id, task: localTask, startTime: b.clock });
  const history: Step[] = [];
  let n = 0;
  const searchStep = (thought: string, tool: ToolCall, result: { observation?: string; error?: { message: string; type: string } }) => {
    n++;
    const prompt = promptOf(TOOL_AGENT_SYSTEM, localTask, history);
    const step = actionStep(b, {
      agentId: 'search_agent',
      agentRunId: searchRun.id,
      number: n,
      thought,
      toolCalls: [tool],
      ...result,
      usage: usage(tokensOf(prompt) + rng.int(0, 40), rng.int(40, 120)),
      prompt,
      durationMs: rng.int(1800, 4200),
    });
    history.push(step);
    return step;
  };

  const query = { query: 'statistics office annual mean reservoir level 2010-2023' };
  searchStep('I will search for the statistics page.', { name: 'web_search', arguments: JSON.stringify(query) }, {
    observation:
      '## Search Results\n0. [Reservoir levels (simulated page)](https://stats.example.org/simulated/reservoir-levels)\nAnnual mean reservoir level (metres), 2010–2023 …\n\n1. [Rainfall by month](https://stats.example.org/data/rainfall)\nMonthly rainfall totals …',
  });
  const html = rawHtmlPage(rng);
  const pageStep = searchStep('The first result looks right; I will open it.', { name: 'visit_webpage', arguments: JSON.stringify({ url: 'https://stats.example.org/simulated/reservoir-levels' }) }, { observation: html });
  if (supervised) {
    b.supervise({
      stepId: pageStep.id,
      context: 'excessive',
      action: 'correct_observation',
      reason: `Observation is ${html.length} characters (τ_len 3000): markup noise stripped, table and links kept.`,
      tokens: usage(0, 0),
      details: { originalChars: html.length, purifiedChars: Math.round(html.length * 0.31) },
    });
  }
  // The loop: the same search with identical arguments, again and again.
  const loopQuery = { query: 'reservoir level 2023 annual mean statistics office table page 2' };
  const loopObservation = '## Search Results\nNo results found for that query. Try a less specific query.';
  const repeats = supervised ? 5 : 7;
  for (let i = 0; i < repeats; i++) {
    const step = searchStep(
      i === 0 ? 'The table may continue on page 2; I will search for it.' : 'No results. I will search again for page 2 of the table.',
      { name: 'web_search', arguments: JSON.stringify(loopQuery) },
      { observation: loopObservation },
    );
    if (supervised && i === repeats - 1) {
      b.supervise({
        stepId: step.id,
        context: 'inefficient',
        action: 'provide_guidance',
        reason: `The last 5 actions were identical: web_search(${JSON.stringify(loopQuery)}).`,
        tokens: usage(0, 0),
        details: { guidance: 'You have run the same search 5 times with no results. The table on the page you already opened covers 2010–2023; read it instead of searching again.' },
      });
    }
  }
  const errorStep = searchStep('I will open page 2 of the statistics page directly.', { name: 'visit_webpage', arguments: JSON.stringify({ url: 'https://stats.example.org/simulated/reservoir-levels?page=2' }) }, {
    error: { message: 'Error executing tool visit_webpage: 403 Client Error: Forbidden for url: https://stats.example.org/simulated/reservoir-levels?page=2', type: 'AgentToolExecutionError' },
  });
  if (supervised) {
    b.supervise({
      stepId: errorStep.id,
      context: 'error',
      action: 'provide_guidance',
      reason: 'The tool call failed with HTTP 403 (forbidden).',
      tokens: usage(0, 0),
      details: { guidance: 'The page refuses direct access to page 2. The first page already lists every year 2010–2023; use it.' },
    });
  }
  const yearsAndLevels = [...html.matchAll(/data-year="(\d+)"[^\n]*?data-col="value"[^>]*>([\d.]+)</g)].map((m) => ({ year: m[1], level: Number(m[2]) }));
  const best = yearsAndLevels.reduce((a, c) => (c.level > a.level ? c : a));
  const table = yearsAndLevels.map((r) => `${r.year}: ${r.level.toFixed(1)} m`).join('; ');
  const report = `Annual mean reservoir levels 2010–2023 (metres): ${table}.`;
  searchStep('I have the table; I will return it.', { name: 'final_answer', arguments: JSON.stringify({ answer: report }) }, { observation: report });
  searchRun.endTime = b.clock;
  searchRun.output = report;

  // What the manager sees: the managed agent's report with its run summary.
  const summary = history.map((s) => `Step ${s.number}: ${s.toolCalls?.[0]?.name}(${s.toolCalls?.[0]?.arguments})${s.error ? ' -> error' : ''}`).join('\n');
  managerStep1.observation = `Here is the final answer from your managed agent 'search_agent':\n${report}\n\nFor more detail, find below a summary of this agent's work:\n<summary_of_work>\n${summary}\n</summary_of_work>`;
  managerStep1.endTime = b.clock;
  if (supervised) {
    b.supervise({
      stepId: managerStep1.id,
      context: 'subagent_completion',
      action: 'correct_observation',
      reason: "The managed agent's report was condensed for the manager: the table kept, the step log summarised.",
      tokens: usage(0, 0),
    });
  }
  b.addHandoff(managerStep1, { id: `${id}:h-delegation`, from: 'manager', to: ['search_agent'], kind: 'delegation', content: localTask });
  b.addHandoff(managerStep1, { id: `${id}:h-report`, from: 'search_agent', to: ['manager'], kind: 'report', content: report });

  const answer = `${best.year}: ${best.level.toFixed(1)} m`;
  const m2prompt = promptOf(CODE_AGENT_SYSTEM, SHOWCASE_TASK, [managerStep1]);
  const final = actionStep(b, {
    agentId: 'manager',
    agentRunId: managerRun.id,
    number: 2,
    thought: 'The highest level in the table is the answer.',
    toolCalls: [{ name: 'final_answer', arguments: JSON.stringify({ answer }) }],
    observation: answer,
    usage: usage(tokensOf(m2prompt), 88),
    prompt: m2prompt,
    durationMs: 2600,
  });
  b.step({ kind: 'final', agentId: 'manager', agentRunId: managerRun.id, name: 'Final answer', output: answer, startTime: final.endTime, endTime: final.endTime });
  managerRun.endTime = b.clock;
  managerRun.output = answer;

  b.annotations.push({
    id: `${id}:a-loop`,
    stepId: history[3].id,
    source: 'dataset',
    taxonomy: 'TRAIL',
    code: 'Resource Abuse',
    agentId: 'search_agent',
    evidence: `web_search(${JSON.stringify(loopQuery)}) repeated ${repeats} times with identical arguments`,
    description: 'Simulated label: the agent repeats a search that keeps returning nothing instead of reading the page it already has.',
    impact: 'MEDIUM',
  });

  return finishRun(b, {
    title: `Simulated GAIA-style run: manager + search agent (${supervised ? 'supervised' : 'baseline'})`,
    task: SHOWCASE_TASK,
    sourceFormat: 'native',
    framework: 'smolagents (simulated)',
    outcome: { status: 'success', finalAnswer: answer, referenceAnswer: answer },
    tags: { dataset: 'simulated-gaia', level: '1', arm: supervised ? 'supervised' : 'baseline', task: 'showcase-reservoir' },
  });
}

/** The built run, its fields in the order the bundled sample files have always had, marked simulated. */
function finishRun(b: SampleRun, o: Pick<Run, 'title' | 'task' | 'sourceFormat' | 'framework' | 'outcome' | 'tags'>): Run {
  const usedModels = [...new Set(b.steps.flatMap((s) => (s.model ? [s.model] : [])).concat(b.agents.flatMap((a) => (a.model ? [a.model] : []))))];
  const { id, title, task, sourceFormat, framework, models, outcome, tags, ...lists } = b.build({ ...o, models: usedModels });
  return { id, title, task, sourceFormat, framework, models, outcome, tags, startTime: b.steps[0]?.startTime, endTime: b.clock, ...lists, simulated: true };
}

// ---------------------------------------------------------------------------------------------------------------
// Sample 2: a group chat with handoffs, two of them faulty (a unit dropped, a placeholder passed on).

function groupChatRun(rng: Rng): Run {
  const id = 'sim-group-chat-trip-budget';
  const task = 'Plan a 3-day rail trip from Lyon to Milan for two people and give the total budget in EUR, including trains (the 9:04 departure) and two nights at a hotel near Milano Centrale.';
  const b = new SampleRun(id, EPOCH + 7_200_000);
  const agents: [string, string][] = [
    ['user_proxy', 'Relays the user’s request and accepts the final plan.'],
    ['planner', 'Breaks the task down and assigns work.'],
    ['researcher', 'Looks up prices and timetables.'],
    ['calculator', 'Converts currencies and adds up the budget.'],
    ['critic', 'Checks the plan before it goes back to the user.'],
  ];
  for (const [name, description] of agents) {
    b.addAgent({ id: name, name, description, kind: name === 'user_proxy' ? 'human' : 'agent', ...(name === 'user_proxy' ? {} : { model: MODEL }) }, null);
  }
  const chatRun = b.addAgentRun({ id: `${id}:chat`, agentId: 'planner', task, startTime: b.clock });
  const turns: [string, string, string][] = [
    ['user_proxy', 'planner', task],
    ['planner', 'researcher', 'Researcher: find the 9:04 Lyon Part-Dieu → Milano Centrale fare for two adults, and a hotel near Milano Centrale for two nights. Report prices with currencies.'],
    ['researcher', 'calculator', 'Train: 9:04 Lyon Part-Dieu → Milano Centrale, 2 adults, 78 CHF each via the Swiss operator’s site. Hotel Centrale Sim, double room, 2 nights at 142 EUR per night.'],
    // Faulty: the currency (CHF) is dropped when the calculator restates the train fare.
    ['calculator', 'planner', 'Train: 2 × 78 = 156. Hotel: 2 × 142 = 284 EUR. Total: 156 + 284 = 440 EUR.'],
    ['planner', 'critic', 'Critic: please check the budget: trains 156, hotel 284 EUR, total 440 EUR. Return trip: [RETURN_FARE] to be added.'],
    // Faulty: a placeholder passed on as if it were a value.
    ['critic', 'planner', 'Checked: the sums are right. The return fare [RETURN_FARE] is included, so the total of 440 EUR stands.'],
    ['planner', 'user_proxy', 'Final plan: 9:04 train Lyon → Milan, two nights at Hotel Centrale Sim. Total budget: 440 EUR for two people.'],
    ['user_proxy', 'planner', 'TERMINATE'],
  ];
  turns.forEach(([from, to, text], i) => {
    const isModel = from !== 'user_proxy';
    const step = b.step({
      kind: 'message',
      agentId: from,
      agentRunId: chatRun.id,
      number: i,
      name: from,
      output: text,
      recipients: [to],
      ...(isModel ? { model: MODEL, usage: usage(380 + i * 160 + rng.int(0, 60), Math.round(text.length / 4)) } : {}),
      startTime: b.clock,
      endTime: b.tick(isModel ? rng.int(1500, 5000) : 400),
    });
    b.addHandoff(step, { to: [to], kind: 'message', content: text });
  });
  b.annotations.push(
    {
      id: `${id}:a-unit`,
      handoffId: `${id}:h3`,
      stepId: `${id}:s3`,
      source: 'dataset',
      taxonomy: 'AgentAsk',
      code: 'SC',
      agentId: 'calculator',
      evidence: 'Train: 2 × 78 = 156.',
      description: 'Simulated label (Signal Corruption): the fare was 78 CHF each; the unit is dropped and 156 is then added to euros as if it were EUR.',
      impact: 'The budget is wrong by the CHF→EUR difference.',
    },
    {
      id: `${id}:a-placeholder`,
      handoffId: `${id}:h5`,
      stepId: `${id}:s5`,
      source: 'dataset',
      taxonomy: 'AgentAsk',
      code: 'DG',
      agentId: 'critic',
      evidence: 'The return fare [RETURN_FARE] is included',
      description: 'Simulated label (Data Gap): a placeholder is passed on as a value; the return fare was never looked up.',
      impact: 'The total omits the return journey.',
    },
  );
  chatRun.endTime = b.clock;
  return finishRun(b, {
    title: 'Simulated group chat: trip budget with two faulty handoffs',
    task,
    sourceFormat: 'chat-log',
    framework: 'AG2 group chat (simulated)',
    outcome: { status: 'failure', finalAnswer: '440 EUR', referenceAnswer: 'about 790 EUR (fares converted from CHF, return trip included)' },
    tags: { dataset: 'simulated-handoffs' },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Sample 3: a corpus of 60 runs: 2 arms × 3 levels × 10 tasks, for the violin, variance and bubble charts.

const TOPICS = [
  ['the population of the third-largest city', 'in a simulated census table'],
  ['the year a simulated museum opened its east wing', 'on its history page'],
  ['the number of studio albums of a simulated band', 'in its discography'],
  ['the atomic number of the element named in a simulated puzzle', 'from a chemistry reference'],
  ['the length in kilometres of a simulated river', 'from a geography site'],
  ['the winner of a simulated 1998 chess open', 'in a tournament archive'],
  ['the ISBN of the first edition of a simulated novel', 'in a library catalogue'],
  ['the elevation of a simulated mountain pass', 'on a cycling route page'],
  ['the number of citations of a simulated 2015 paper', 'in a citation index'],
  ['the total of two values from a simulated spreadsheet', 'attached to the task'],
] as const;

function corpusRun(arm: 'baseline' | 'supervised', level: number, task: number, rng: Rng): Run {
  const id = `sim-corpus-l${level}-t${String(task + 1).padStart(2, '0')}-${arm}`;
  const supervised = arm === 'supervised';
  const [what, where] = TOPICS[task];
  const taskText = `(Simulated level-${level} task ${task + 1}) Find ${what} ${where}${level > 1 ? ', then combine it with a second fact found on another page' : ''}${level > 2 ? ', and check the result against a third source' : ''}.`;
  const b = new SampleRun(id, EPOCH + 86_400_000 + (level * 100 + task * 2 + (supervised ? 1 : 0)) * 600_000);
  b.addAgent({ id: 'manager', name: 'manager', role: 'CodeAgent', model: MODEL, kind: 'agent' }, null);
  b.addAgent({ id: 'search_agent', name: 'search_agent', role: 'ToolCallingAgent', model: MODEL, parentId: 'manager', kind: 'agent' }, null);
  const managerRun = b.addAgentRun({ id: `${id}:run-manager`, agentId: 'manager', task: taskText, startTime: b.clock });

  // Baseline runs wander (long tails); the supervisor cuts loops short, so supervised runs are shorter and tighter.
  const spread = supervised ? 0.18 : 0.42;
  const base = 2 + level * 4;
  const searchSteps = Math.max(2, Math.round(base * Math.exp(spread * rng.normal()) * (supervised ? 0.8 : 1)));
  const loopLength = !supervised && rng.next() < 0.25 + level * 0.1 ? rng.int(5, 8) : supervised && rng.next() < 0.3 ? 5 : 0;
  const obsChars = 180 + level * 60;

  const delegation = `Find ${what} ${where} and report the value with its source.`;
  const m1 = b.step({
    kind: 'action',
    agentId: 'manager',
    agentRunId: managerRun.id,
    number: 1,
    name: 'Step 1',
    thought: 'I will delegate the lookup to the search agent.',
    output: `Code:\n\`\`\`py\nreport = search_agent(task=${JSON.stringify(delegation)})\n\`\`\``,
    toolCalls: [{ name: 'search_agent', arguments: JSON.stringify({ task: delegation }) }],
    startTime: b.clock,
  });
  b.step({ kind: 'llm', agentId: 'manager', agentRunId: managerRun.id, parentStepId: m1.id, model: MODEL, name: 'LiteLLMModel.generate', usage: usage(1300 + rng.int(0, 200), 120 + rng.int(0, 60)), startTime: b.clock, endTime: b.tick(2500) });
  const searchRun = b.addAgentRun({ id: `${id}:run-search`, agentId: 'search_agent', parentRunId: managerRun.id, task: delegation, startTime: b.clock });
  let context = 900 + rng.int(0, 200);
  let inefficientTriggers = 0;
  const total = searchSteps + loopLength;
  for (let i = 0; i < total; i++) {
    const inLoop = i >= 1 && i < 1 + loopLength;
    const errored = !inLoop && rng.next() < 0.06 * level;
    const args = inLoop ? JSON.stringify({ query: `${what} ${where}` }) : JSON.stringify({ query: `${what} source ${i}` });
    const observation = inLoop ? 'No results found for that query.' : `Result ${i}: ${'simulated page text '.repeat(Math.ceil(obsChars / 20)).slice(0, obsChars + rng.int(0, 400))}`;
    const step = actionStep(b, {
      agentId: 'search_agent',
      agentRunId: searchRun.id,
      number: i + 1,
      thought: inLoop ? 'Searching again.' : 'Searching for the next fact.',
      toolCalls: [{ name: i % 3 === 2 && !inLoop ? 'visit_webpage' : 'web_search', arguments: args }],
      ...(errored ? { error: { message: 'Error executing tool visit_webpage: 503 Service Unavailable', type: 'AgentToolExecutionError' } } : { observation }),
      usage: usage(context, 60 + rng.int(0, 140)),
      prompt: [{ role: 'user', content: delegation }],
      durationMs: rng.int(1500, 5000),
    });
    context += Math.round((errored ? 40 : observation.length / 4) + 70);
    if (supervised) {
      const N = i + 1;
      if (errored) b.supervise({ stepId: step.id, context: 'error', action: 'provide_guidance', reason: 'The tool call failed (503).', tokens: usage(0, 0) });
      else if (inefficientTriggers < 2 && inLoop && i === loopLength) {
        inefficientTriggers++;
        b.supervise({ stepId: step.id, context: 'inefficient', action: 'provide_guidance', reason: `The last 5 actions were identical: web_search(${args}).`, tokens: usage(0, 0) });
      } else if (inefficientTriggers < 2 && N % 8 === 0) {
        inefficientTriggers++;
        b.supervise({ stepId: step.id, context: 'inefficient', action: 'approve', reason: `Periodic check at step ${N} (τ_step 8): progress is steady.`, tokens: usage(0, 0) });
      }
    }
  }
  // Both arms of a task share its reference answer and its difficulty draw, so the arms differ only by supervision.
  const taskRng = prng(SEED + level * 100 + task);
  const difficulty = taskRng.next();
  const reference = `${taskRng.int(10, 9999)}`;
  const correct = difficulty < [0.62, 0.45, 0.3][level - 1] + (supervised ? 0.08 : 0);
  const answer = correct ? reference : `${Number(reference) + rng.int(1, 50)}`;
  searchRun.output = `Found: ${answer}`;
  searchRun.endTime = b.clock;
  m1.observation = `Here is the final answer from your managed agent 'search_agent':\nFound: ${answer}\n\n<summary_of_work>\n${total} searches and page visits.\n</summary_of_work>`;
  m1.endTime = b.clock;
  if (supervised) {
    b.supervise({ stepId: m1.id, context: 'subagent_completion', action: 'correct_observation', reason: "The managed agent's report was condensed for the manager.", tokens: usage(0, 0) });
  }
  b.addHandoff(m1, { id: `${id}:h-delegation`, from: 'manager', to: ['search_agent'], kind: 'delegation', content: delegation });
  b.addHandoff(m1, { id: `${id}:h-report`, from: 'search_agent', to: ['manager'], kind: 'report', content: `Found: ${answer}` });
  actionStep(b, {
    agentId: 'manager',
    agentRunId: managerRun.id,
    number: 2,
    thought: 'I have the value.',
    toolCalls: [{ name: 'final_answer', arguments: JSON.stringify({ answer }) }],
    observation: answer,
    usage: usage(1700 + rng.int(0, 300), 50 + rng.int(0, 40)),
    prompt: [{ role: 'user', content: taskText }],
    durationMs: 2000,
  });
  managerRun.endTime = b.clock;
  // The supervisor's own cost: a heuristic pass is cheap but not free when it calls a model for guidance.
  for (const iv of b.interventions) {
    const input = iv.context === 'subagent_completion' ? rng.int(500, 900) : rng.int(250, 600);
    iv.tokens = usage(input, rng.int(40, 120));
  }
  return finishRun(b, {
    title: `Simulated GAIA-style L${level} task ${task + 1} (${arm})`,
    task: taskText,
    sourceFormat: 'native',
    framework: 'smolagents (simulated)',
    outcome: { status: correct ? 'success' : 'failure', finalAnswer: answer, referenceAnswer: reference },
    tags: { dataset: 'simulated-gaia', level: String(level), arm, task: `l${level}-t${task + 1}` },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Checks and output.

/** The model contract (summary.ts sums usage over all steps): usage only on model-call and message steps. */
function checkUsageContract(run: Run): void {
  for (const s of run.steps) {
    if (s.usage && !['llm', 'planning', 'message'].includes(s.kind)) throw new Error(`${run.id}: usage on a ${s.kind} step ${s.id}`);
  }
}

interface SampleFile {
  file: string;
  title: string;
  description: string;
  runs: Run[];
}

function main(): void {
  const rng = prng(SEED);
  const samples: SampleFile[] = [
    {
      file: 'simulated-gaia-showcase.session.json',
      title: 'Simulated GAIA-style run, baseline and supervised',
      description: 'A smolagents-style manager (CodeAgent) with a managed search agent (ToolCallingAgent): a repeated search loop, a tool error, a long raw-HTML page and the managed agent’s report, with and without supervisor interventions.',
      runs: [showcaseRun(false, rng), showcaseRun(true, rng)],
    },
    {
      file: 'simulated-group-chat.session.json',
      title: 'Simulated group chat with faulty handoffs',
      description: 'A five-agent group chat where a currency unit is dropped and a placeholder is passed on as a value, both annotated.',
      runs: [groupChatRun(rng)],
    },
    {
      file: 'simulated-gaia-corpus.session.json',
      title: 'Simulated corpus: 60 runs, baseline vs supervised',
      description: '2 arms × 3 levels × 10 tasks with plausible token distributions (supervised: lower mean and variance), outcomes and supervisor interventions with their token overhead.',
      runs: (['baseline', 'supervised'] as const).flatMap((arm) => [1, 2, 3].flatMap((level) => Array.from({ length: 10 }, (_, t) => corpusRun(arm, level, t, rng)))),
    },
  ];
  mkdirSync(OUT_DIR, { recursive: true });
  for (const sample of samples) {
    sample.runs.forEach(checkUsageContract);
    const session = buildSession({ runs: sample.runs, title: sample.title, simulated: true, createdAt: EPOCH });
    const parsed = Session.safeParse(session);
    if (!parsed.success) throw new Error(`${sample.file}: not a valid session: ${JSON.stringify(parsed.error.issues[0])}`);
    writeFileSync(resolve(OUT_DIR, sample.file), `${JSON.stringify(session)}\n`);
  }
  const index = {
    simulated: true,
    generator: 'scripts/gen-samples.ts',
    seed: SEED,
    samples: samples.map((s) => ({ file: s.file, title: s.title, description: s.description, runs: s.runs.length })),
  };
  writeFileSync(resolve(OUT_DIR, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  for (const s of samples) console.log(`${s.file}: ${s.runs.length} runs`);
}

main();
