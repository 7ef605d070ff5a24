// Everything a link should reproduce lives in the URL (`?view=run&run=…&step=…`). One store mirrors the query
// string: views read from it and write through `navigate`, which keeps the address bar and history in step.
import { create } from 'zustand';
import { emptyRecord, recordOf } from '../model/record.ts';

export const VIEWS = ['library', 'run', 'compare', 'corpus', 'engines', 'rectify', 'taxonomy', 'stages', 'live'] as const;
export type View = (typeof VIEWS)[number];

export interface UrlState {
  view: View;
  params: Record<string, string>;
}

export function parseLocation(search: string): UrlState {
  const query = new URLSearchParams(search);
  // Names and values come from a link: a record without a prototype, so `?__proto__=…` is a parameter like any other.
  const params = emptyRecord<string>();
  for (const [k, v] of query) params[k] = v;
  const requested = params.view as View | undefined;
  // A deep link to a run (`?run=…&step=…`) opens the run view without naming it.
  const view: View = requested && VIEWS.includes(requested) ? requested : params.run ? 'run' : 'library';
  return { view, params };
}

function toSearch(state: UrlState): string {
  const query = new URLSearchParams();
  if (state.view !== 'library' && !(state.view === 'run' && state.params.run)) query.set('view', state.view);
  for (const [k, v] of Object.entries(state.params)) if (k !== 'view' && v !== '') query.set(k, v);
  const text = query.toString();
  return text ? `?${text}` : '';
}

/**
 * The last parameters each view had in this tab, so its navigation tab returns to the run and step it showed
 * (Run → Engines → Run keeps the run). Keyed by view names only: a Map, never indexed by link text.
 */
const remembered = new Map<View, Record<string, string>>();

function remember(state: UrlState): UrlState {
  const params = recordOf(state.params);
  delete params.view;
  remembered.set(state.view, params);
  return state;
}

/** Where a view's navigation tab leads: the parameters it last had (`{}` when never shown). */
export function rememberedParams(view: View): Record<string, string> {
  return recordOf(remembered.get(view) ?? {});
}

interface UrlStore extends UrlState {
  /** Go to a view with these parameters (replacing all others). Adds a history entry. */
  navigate(view: View, params?: Record<string, string>): void;
  /** Change some parameters of the current view without a new history entry (playhead moves, filters). */
  setParams(patch: Record<string, string | undefined>): void;
}

export const useUrl = create<UrlStore>((set, get) => ({
  ...remember(parseLocation(typeof location === 'undefined' ? '' : location.search)),
  navigate(view, params = {}) {
    const next = remember({ view, params: recordOf(params) });
    history.pushState(null, '', `${location.pathname}${toSearch(next)}`);
    set(next);
  },
  setParams(patch) {
    const params = recordOf(get().params);
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) delete params[k];
      else params[k] = v;
    }
    const next = remember({ view: get().view, params });
    history.replaceState(null, '', `${location.pathname}${toSearch(next)}`);
    set(next);
  },
}));

if (typeof window !== 'undefined') {
  window.addEventListener('popstate', () => useUrl.setState(remember(parseLocation(location.search))));
}
