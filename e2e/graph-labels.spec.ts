// What the interaction graph writes stays readable. On a team where every agent messages every other (a real
// smolagents message-bus run, with votes), the counts it writes on its edges cover neither one another nor an agent's
// name, and a count left unwritten for want of room is still in its edge's tooltip. On any run, the graph is fitted
// above its legend, which covered the names of the nodes drawn lowest.
import { expect, test } from '@playwright/test';
import { openStudio, openTraceInRunView, sharedTrace, skipWithoutShared } from './fixtures.ts';

const BUS = 'smolagents-bus/runs/023f7ac8/messages.jsonl';
/** An agent calling a tool: the tool's node is the lowest, its name the last line of the graph. */
const TOOL_CALL = 'langfuse/ag2-2026-03-09.json';

skipWithoutShared(BUS, TOOL_CALL);

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
]) {
  test(`a message-bus run's edge counts do not pile up (${viewport.width}×${viewport.height})`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await openStudio(page);
    await openTraceInRunView(page, sharedTrace(BUS));
    const graph = page.getByTestId('graph');
    await expect(graph.locator('[data-node-id]').first()).toBeVisible();
    const drawn = await graph.evaluate((svg) => {
      const rect = (el: Element) => {
        const r = el.getBoundingClientRect();
        return { x0: r.left, y0: r.top, x1: r.right, y1: r.bottom };
      };
      const edges = [...svg.querySelectorAll('g[aria-label="Edges"] > g[data-edge-id]')];
      return {
        edges: edges.length,
        counts: edges.flatMap((g) => [...g.querySelectorAll(':scope > text')].map((t) => ({ edge: g.getAttribute('data-edge-id'), text: t.textContent, ...rect(t) }))),
        unwritten: edges.filter((g) => !g.querySelector(':scope > text')).map((g) => g.querySelector('title')?.textContent ?? ''),
        names: [...svg.querySelectorAll('g[data-node-id] > text:last-of-type')].map((t) => ({ name: t.textContent, ...rect(t) })),
      };
    });
    // All agents talk to all: more edges than there is room to write on.
    expect(drawn.edges).toBeGreaterThan(20);
    expect(drawn.counts.length).toBeGreaterThan(3);
    expect(drawn.unwritten.length).toBeGreaterThan(0);
    for (const title of drawn.unwritten) expect(title).toMatch(/: \d[\d,]* (messages|votes on polls it proposed|calls), [\d,]+ tokens/);
    // Rendered text boxes, shrunk by a pixel: letters of neighbours may touch, not cover one another.
    const overlap = (a: { x0: number; y0: number; x1: number; y1: number }, b: typeof a) => a.x0 + 1 < b.x1 - 1 && b.x0 + 1 < a.x1 - 1 && a.y0 + 1 < b.y1 - 1 && b.y0 + 1 < a.y1 - 1;
    for (const [i, a] of drawn.counts.entries()) {
      for (const b of drawn.counts.slice(i + 1)) expect(overlap(a, b), `${a.edge} "${a.text}" and ${b.edge} "${b.text}"`).toBe(false);
      for (const n of drawn.names) expect(overlap(a, n), `${a.edge} "${a.text}" on the name ${n.name}`).toBe(false);
    }
  });
}

for (const trace of [TOOL_CALL, BUS]) {
  test(`the graph is fitted above its legend: ${trace} at 1280×800`, async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openStudio(page);
    await openTraceInRunView(page, sharedTrace(trace));
    const graph = page.getByTestId('graph');
    await expect(graph.locator('[data-node-id]').first()).toBeVisible();
    // The fit is applied once the layout has arrived: read the names once they stop moving.
    const lowest = async () =>
      graph.evaluate((svg) => {
        const legendTop = document.querySelector('[data-testid="graph-legend"]')!.getBoundingClientRect().top;
        const bottoms = [...svg.querySelectorAll('g[data-node-id] > text:last-of-type')].map((t) => t.getBoundingClientRect().bottom);
        return { legendTop: Math.round(legendTop), nameBottom: Math.round(bottoms.reduce((a, b) => Math.max(a, b), -Infinity)), top: Math.round(svg.getBoundingClientRect().top) };
      });
    await expect.poll(async () => JSON.stringify(await lowest()), { intervals: [200, 200, 200] }).toBe(JSON.stringify(await lowest()));
    const { legendTop, nameBottom, top } = await lowest();
    expect(nameBottom, 'the lowest name ends above the legend').toBeLessThanOrEqual(legendTop);
    expect(nameBottom).toBeGreaterThan(top);
  });
}

for (const { run, viewport, share } of [
  { run: BUS, viewport: { width: 1920, height: 1080 }, share: 0.8 },
  // Narrow: the width decides the scale; two agents side by side had their names overlap.
  { run: 'smolagents-bus/runs/0c27eeef/messages.jsonl', viewport: { width: 1280, height: 800 }, share: 0.8 },
]) {
  test(`a message-bus team fills the width of its graph panel, names clear of one another: ${run} at ${viewport.width}×${viewport.height}`, async ({ page }) => {
    skipWithoutShared(run);
    await page.setViewportSize(viewport);
    await openStudio(page);
    await openTraceInRunView(page, sharedTrace(run));
    const graph = page.getByTestId('graph');
    await expect(graph.locator('[data-node-id]').first()).toBeVisible();
    // Read once the fit has been applied (the layout arrives from its worker, then the drawing is fitted).
    let last = '';
    const read = () =>
      graph.evaluate((svg) => {
        const panel = svg.getBoundingClientRect();
        const names = [...svg.querySelectorAll('g[data-node-id] > text:last-of-type')].map((t) => {
          const r = t.getBoundingClientRect();
          return { name: t.textContent ?? '', x0: r.left, x1: r.right, y0: r.top, y1: r.bottom };
        });
        const nodes = [...svg.querySelectorAll('g[data-node-id]')].map((g) => g.getBoundingClientRect());
        return { panel: { x0: panel.left, x1: panel.right }, names, x0: Math.min(...nodes.map((r) => r.left)), x1: Math.max(...nodes.map((r) => r.right)) };
      });
    await expect
      .poll(async () => {
        const now = JSON.stringify(await read());
        const settled = now === last;
        last = now;
        return settled;
      })
      .toBe(true);
    const drawn = await read();
    await page.screenshot({ path: `test-results/graph-labels/names-${viewport.width}.png` });
    // The drawing spans most of the panel's width (the round cluster fitted as it came used 51 % of it at 1920).
    expect((drawn.x1 - drawn.x0) / (drawn.panel.x1 - drawn.panel.x0)).toBeGreaterThan(share);
    const overlap = (a: (typeof drawn.names)[number], b: typeof a) => a.x0 + 1 < b.x1 - 1 && b.x0 + 1 < a.x1 - 1 && a.y0 + 1 < b.y1 - 1 && b.y0 + 1 < a.y1 - 1;
    for (const [i, a] of drawn.names.entries()) for (const b of drawn.names.slice(i + 1)) expect(overlap(a, b), `the names ${a.name} and ${b.name}`).toBe(false);
  });
}
