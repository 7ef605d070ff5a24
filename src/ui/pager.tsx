// A long list of an engine's results shown a page at a time, the page in the address (`page`, from 1), so that a link
// or a reload shows the same items. An offline pass makes a result for thousands of steps; drawing them all, again at
// every batch the pass keeps, made the page freeze (ADR 0086 for the Rectify view, ADR 0087 for the supervisor's).
import { useMemo } from 'react';
import { useUrl } from '../store/url.ts';
import { Button } from './button.tsx';

/** The page a link names (`page`, from 1), as an index from 0; the first for anything else. */
export function pageIndex(param: string | undefined): number {
  const n = param !== undefined && /^[1-9]\d{0,8}$/.test(param) ? Number(param) : 1;
  return n - 1;
}

export interface Paged<T> {
  /** The items of the page shown. */
  shown: readonly T[];
  /** The page shown, from 0: the one in the address, or the last when the address names one past it. */
  page: number;
  pages: number;
  setPage(page: number): void;
}

/** `items` a page of `perPage` at a time, the page read from and written to the address's `page`. */
export function usePageInUrl<T>(items: readonly T[], perPage: number): Paged<T> {
  const setParams = useUrl((s) => s.setParams);
  const asked = pageIndex(useUrl((s) => s.params.page));
  const pages = Math.max(1, Math.ceil(items.length / perPage));
  const page = Math.min(asked, pages - 1);
  const shown = useMemo(() => items.slice(page * perPage, (page + 1) * perPage), [items, page, perPage]);
  return { shown, page, pages, setPage: (p: number) => setParams({ page: p > 0 ? String(p + 1) : undefined }) };
}

export interface PagerProps {
  page: number;
  pages: number;
  perPage: number;
  total: number;
  /** What the items are, plural ("messages"): the range says "messages 51–100 of 5,250", the buttons "Next page of messages". */
  noun: string;
  /** Test ids: `${testPrefix}-pager` for the pager, `${testPrefix}-page-range` for the range it shows. */
  testPrefix: string;
  onPage(page: number): void;
}

/** Which items are shown, and buttons to the first, previous, next and last page. */
export function Pager({ page, pages, perPage, total, noun, testPrefix, onPage }: PagerProps) {
  const from = page * perPage + 1;
  const to = Math.min(total, (page + 1) * perPage);
  return (
    <nav className="my-2 flex items-center gap-1 text-xs text-slate-700" aria-label={`Pages of ${noun}`} data-testid={`${testPrefix}-pager`}>
      <Button size="sm" variant="ghost" disabled={page === 0} onClick={() => onPage(0)} aria-label={`First page of ${noun}`}>«</Button>
      <Button size="sm" variant="ghost" disabled={page === 0} onClick={() => onPage(page - 1)} aria-label={`Previous page of ${noun}`}>‹</Button>
      <span className="tabular-nums" data-testid={`${testPrefix}-page-range`}>
        {noun} {from.toLocaleString('en')}–{to.toLocaleString('en')} of {total.toLocaleString('en')}
      </span>
      <Button size="sm" variant="ghost" disabled={page === pages - 1} onClick={() => onPage(page + 1)} aria-label={`Next page of ${noun}`}>›</Button>
      <Button size="sm" variant="ghost" disabled={page === pages - 1} onClick={() => onPage(pages - 1)} aria-label={`Last page of ${noun}`}>»</Button>
    </nav>
  );
}
