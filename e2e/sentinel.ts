// Watches a page for any sign that trace content ran or reached the network (SPEC §9): dialogs, the `__xss` flag
// the payloads set, CSP violations, console errors about the policy, elements or attributes that could run script
// (inline <script>, frames, on* handlers, javascript: URLs) appearing at any time, and every request the page makes.
import { expect, type Page } from '@playwright/test';

export interface Sentinel {
  /** Requests the page made (URLs), in order. */
  requests: string[];
  dialogs: string[];
  consoleProblems: string[];
  /** Everything found so far; [] when the page is clean. Reads the page's own record too. */
  findings(options?: { allowedOrigins?: string[] }): Promise<string[]>;
}

/** Installed before any page script: records dangerous DOM changes for the whole session. */
function installInPage(): void {
  const w = window as unknown as { __xssEvents: string[] };
  w.__xssEvents = [];
  const note = (what: string) => {
    if (w.__xssEvents.length < 200) w.__xssEvents.push(what.slice(0, 300));
  };
  document.addEventListener('securitypolicyviolation', (e) => note(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI} ${e.sample}`));
  const URL_ATTRS = new Set(['href', 'src', 'xlink:href', 'action', 'formaction', 'data', 'srcdoc']);
  const checkAttr = (el: Element, name: string) => {
    const lower = name.toLowerCase();
    const value = el.getAttribute(name) ?? '';
    if (lower.startsWith('on')) note(`handler attribute ${name}="${value}" on <${el.tagName.toLowerCase()}>`);
    else if (lower === 'srcdoc') note(`srcdoc on <${el.tagName.toLowerCase()}>`);
    else if (URL_ATTRS.has(lower) && /^\s*(javascript|vbscript):/i.test(value)) note(`${name}="${value}" on <${el.tagName.toLowerCase()}>`);
  };
  const checkElement = (el: Element) => {
    const tag = el.tagName.toLowerCase();
    if (tag === 'script') {
      const src = el.getAttribute('src');
      const own = src !== null && new URL(src, location.href).origin === location.origin && (el.textContent ?? '').trim() === '';
      if (!own) note(`script element: ${el.outerHTML}`);
    } else if (['iframe', 'frame', 'object', 'embed', 'base'].includes(tag)) {
      note(`<${tag}> element: ${el.outerHTML.slice(0, 200)}`);
    }
    for (const name of el.getAttributeNames()) checkAttr(el, name);
  };
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes' && r.target instanceof Element && r.attributeName) checkAttr(r.target, r.attributeName);
      for (const node of r.addedNodes) {
        if (!(node instanceof Element)) continue;
        checkElement(node);
        for (const inner of node.querySelectorAll('*')) checkElement(inner);
      }
    }
  }).observe(document, { subtree: true, childList: true, attributes: true });
}

export async function watchPage(page: Page): Promise<Sentinel> {
  const requests: string[] = [];
  const dialogs: string[] = [];
  const consoleProblems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|inline event handler|javascript: URL/i.test(m.text())) consoleProblems.push(m.text());
  });
  page.on('pageerror', (e) => consoleProblems.push(`page error: ${e.message}`));
  await page.addInitScript(installInPage);
  return {
    requests,
    dialogs,
    consoleProblems,
    async findings({ allowedOrigins = [] } = {}) {
      const origin = new URL(page.url()).origin;
      const allowed = new Set([origin, ...allowedOrigins.map((o) => new URL(o).origin)]);
      // data: and blob: URLs never leave the page (workers, downloads); everything else must go to an allowed origin.
      const offsite = requests.filter((u) => !/^(data|blob):/.test(u) && !allowed.has(new URL(u).origin));
      const inPage = await page.evaluate(() => {
        const w = window as unknown as { __xss?: unknown; __xssEvents?: string[] };
        return { flag: w.__xss === undefined ? undefined : String(w.__xss), events: w.__xssEvents ?? ['sentinel missing'] };
      });
      return [
        ...dialogs.map((d) => `dialog ${d}`),
        ...consoleProblems,
        ...(inPage.flag !== undefined ? [`window.__xss was set to ${inPage.flag}`] : []),
        ...inPage.events,
        ...offsite.map((u) => `request to ${u}`),
      ];
    },
  };
}

/** Fail with every distinct finding listed (the first 30). */
export async function expectClean(sentinel: Sentinel, options?: { allowedOrigins?: string[] }): Promise<void> {
  expect([...new Set(await sentinel.findings(options))].slice(0, 30)).toEqual([]);
}
