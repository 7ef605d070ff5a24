// One stable colour per agent of a run, shared by graph, timeline, list and charts.
import { hsl, schemeTableau10 } from 'd3';

/** What the colours are made from: a run's agents, then any other agent with a lane (a run view fits). */
export interface AgentColorSource {
  run: { agents: readonly { id: string }[] };
  lanes: readonly { agentId: string }[];
}

const cache = new WeakMap<AgentColorSource, Map<string, string>>();

export function agentColors(view: AgentColorSource): Map<string, string> {
  let colors = cache.get(view);
  if (!colors) {
    colors = new Map();
    view.run.agents.forEach((a) => colors!.set(a.id, colorAt(colors!.size)));
    for (const lane of view.lanes) if (!colors.has(lane.agentId)) colors.set(lane.agentId, colorAt(colors.size));
    cache.set(view, colors);
  }
  return colors;
}

/** Tableau's ten, then hues spread by the golden angle for large teams. */
function colorAt(i: number): string {
  if (i < schemeTableau10.length) return schemeTableau10[i];
  return hsl((i * 137.508) % 360, 0.55, 0.5).formatHex();
}
