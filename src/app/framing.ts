// The studio refuses to run inside another page's frame (SPEC §9), so a page cannot lay it under its own and steal
// a click. The server's `frame-ancestors 'none'` / `X-Frame-Options: DENY` headers stop that in the browser; this is
// the fallback for a host that sends neither (a meta CSP cannot carry frame-ancestors). No inline script: it runs
// from the entry module, under the strict CSP.

/** True inside any frame; a cross-origin parent that cannot even be compared counts as a frame. */
export function isFramed(win: Pick<Window, 'top' | 'self'>): boolean {
  try {
    return win.top !== win.self;
  } catch {
    return true;
  }
}

export const FRAMED_MESSAGE =
  'MAS Replay Studio does not run inside a frame of another page, so that page cannot make you click on it unawares. Open it in its own tab.';

/** Shows the refusal in `root`, as text, instead of the app. */
export function showFramedRefusal(root: HTMLElement): void {
  const p = root.ownerDocument.createElement('p');
  p.setAttribute('role', 'alert');
  p.setAttribute('data-testid', 'framed-refusal');
  p.className = 'm-8 max-w-xl text-sm text-slate-800';
  p.textContent = FRAMED_MESSAGE;
  root.replaceChildren(p);
}
