// Every view of the studio, as data: the untrusted-content suite and the request recorder iterate over this table,
// so covering a new view is one line here (its URL name, its nav label, the test id of its page). A view whose
// content depends on the open run or on a walk through its rows says how to show all of it in `walk`.
// Rows are visited in table order: the engines row runs the offline supervisor, so the views after it show
// interventions too.
import { expect, type Page } from '@playwright/test';

export interface StudioView {
  /** The view's name in the URL (`?view=…`, see src/store/url.ts). */
  view: string;
  /** Its button in the header's "Views" navigation. */
  nav: string;
  /** `data-testid` of the view's root element, visible once the view shows. */
  ready: string;
  /** Show everything this view can show of these runs (each step, each row). Default: just open it. */
  walk?: (page: Page, runIds: readonly string[], options: WalkOptions) => Promise<void>;
}

export interface WalkOptions {
  /** Steps or rows visited per run at most (the rest is reached by jumping to the end). */
  stepsPerRun: number;
}

/** Go to a URL of the studio without reloading (the URL store follows history like a back/forward move). */
export async function goTo(page: Page, search: string): Promise<void> {
  await page.evaluate((s) => {
    history.pushState(null, '', `${location.pathname}${s}`);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, search);
}

export async function openView(page: Page, v: StudioView): Promise<void> {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: v.nav, exact: true }).click();
  await expect(page.getByTestId(v.ready)).toBeVisible();
}

/** Press a key `times` times, then End, so the first rows and the last one have all been shown. */
async function stepThrough(page: Page, key: string, times: number): Promise<void> {
  await page.locator('body').click({ position: { x: 1, y: 1 } }).catch(() => undefined);
  for (let i = 0; i < times; i++) await page.keyboard.press(key);
  await page.keyboard.press('End');
}

async function walkRuns(page: Page, runIds: readonly string[], { stepsPerRun }: WalkOptions): Promise<void> {
  for (const id of runIds) {
    await goTo(page, `?run=${encodeURIComponent(id)}`);
    await expect(page.getByTestId('run-view')).toBeVisible();
    const position = page.getByTestId('playhead-position');
    const total = Number(/\/ ([\d,]+)/.exec((await position.textContent()) ?? '')?.[1].replace(/,/g, '') ?? '0');
    if (total === 0) continue; // a run without steps says so instead
    await stepThrough(page, 'j', Math.min(total - 1, stepsPerRun));
    await expect(position).toHaveText(`step ${total.toLocaleString('en')} / ${total.toLocaleString('en')}`);
  }
}

async function walkCompare(page: Page, runIds: readonly string[], { stepsPerRun }: WalkOptions): Promise<void> {
  for (let i = 0; i + 1 < runIds.length; i += 2) {
    await goTo(page, `?view=compare&a=${encodeURIComponent(runIds[i])}&b=${encodeURIComponent(runIds[i + 1])}&step=1`);
    await expect(page.getByTestId('compare-page')).toBeVisible();
    const position = page.getByTestId('compare-position');
    if ((await position.count()) === 0) continue;
    // Presses past the last row move nothing (the walk ends with End anyway); each one waited for a render.
    const rows = Number(/\/ ([\d,]+)/.exec((await position.textContent()) ?? '')?.[1].replace(/,/g, '') ?? '0');
    await stepThrough(page, 'j', Math.min(rows - 1, stepsPerRun));
    await expect(position).toHaveText(new RegExp(`^row ${rows.toLocaleString('en')} / ${rows.toLocaleString('en')}\\b`));
  }
}

/** The offline supervisor (no endpoint, no key) on every run: its cards show trace text next to its own. */
async function walkEngines(page: Page, runIds: readonly string[]): Promise<void> {
  for (const id of runIds) {
    await goTo(page, `?view=engines&run=${encodeURIComponent(id)}`);
    await expect(page.getByTestId('supervisor-run')).toBeVisible();
    const start = page.getByRole('button', { name: /^(Run supervisor|Resume|Run again)/ });
    await start.click();
    await expect(page.getByTestId('supervisor-progress')).toHaveAttribute('data-status', 'complete', { timeout: 30_000 });
  }
}

/** Offline stages of every run (subtasks carry the manager's own words), then a walk through them with s. */
async function walkStages(page: Page, runIds: readonly string[], { stepsPerRun }: WalkOptions): Promise<void> {
  for (const id of runIds) {
    await goTo(page, `?view=stages&run=${encodeURIComponent(id)}`);
    await expect(page.getByTestId('stages-view')).toBeVisible();
    const derive = page.getByRole('button', { name: 'Derive offline (heuristic)' });
    // A run without steps, or with recorded stages, offers no derivation: it is shown as it is.
    if (!(await derive.isEnabled().catch(() => false))) continue;
    // A run without steps (a results-only bus line) has nothing to segment.
    if ((await page.getByText(/^\d+ agents · 0 steps\b/).count()) > 0) continue;
    await derive.click();
    await expect(page.getByTestId('stage-source')).toHaveAttribute('data-source', 'offline');
    await stepThrough(page, 's', Math.min(stepsPerRun, (await page.getByTestId('stage-chip').count()) - 1));
  }
}

/**
 * The Taxonomy view: the gallery, then the offline clarifier over every run with handoffs and a walk through its edges
 * with j (each edge's message, history, dataset labels and verdict); it ends on the first such run's edges.
 */
async function walkTaxonomy(page: Page, runIds: readonly string[], { stepsPerRun }: WalkOptions): Promise<void> {
  await goTo(page, '?view=taxonomy&tab=gallery');
  await expect(page.getByTestId('gallery')).toBeVisible();
  let first: string | undefined;
  for (const id of runIds) {
    await goTo(page, `?view=taxonomy&tab=edges&run=${encodeURIComponent(id)}`);
    await expect(page.getByTestId('edges-panel')).toBeVisible();
    const start = page.getByRole('button', { name: /^(Run clarifier on all edges|Resume|Run again)/ });
    if ((await start.count()) === 0) continue; // a run without handoffs says so instead
    first ??= id;
    await start.click();
    await expect(page.getByTestId('clarifier-progress')).toHaveAttribute('data-status', 'complete', { timeout: 30_000 });
    const rows = await page.getByTestId('edge-row').count();
    await page.getByRole('list', { name: 'Edges of the run' }).focus();
    for (let i = 0; i < Math.min(rows - 1, stepsPerRun); i++) await page.keyboard.press('j');
  }
  if (first !== undefined) {
    await goTo(page, `?view=taxonomy&tab=edges&run=${encodeURIComponent(first)}`);
    await expect(page.getByTestId('edge-detail')).toBeVisible();
  }
}

/** Each run in the Live page's fork panel: its steps are offered by their text (or it says why it cannot fork). */
async function walkLive(page: Page, runIds: readonly string[]): Promise<void> {
  for (const id of runIds) {
    await goTo(page, `?view=live&tab=fork&forkOf=${encodeURIComponent(id)}`);
    await expect(page.getByTestId('fork-panel')).toBeVisible();
  }
}

export const STUDIO_VIEWS: StudioView[] = [
  { view: 'library', nav: 'Library', ready: 'library-page' },
  { view: 'engines', nav: 'Engines', ready: 'engines-page', walk: walkEngines },
  { view: 'run', nav: 'Run', ready: 'run-view', walk: walkRuns },
  { view: 'compare', nav: 'Compare', ready: 'compare-page', walk: walkCompare },
  { view: 'corpus', nav: 'Corpus', ready: 'corpus-page' },
  { view: 'rectify', nav: 'Rectify', ready: 'rectify-page' },
  { view: 'stages', nav: 'Stages', ready: 'stages-view', walk: walkStages },
  { view: 'live', nav: 'Live', ready: 'live-page', walk: walkLive },
  { view: 'taxonomy', nav: 'Taxonomy', ready: 'taxonomy-page', walk: walkTaxonomy },
];
