// What someone said in a trace (a message, a model's output, a prompt turn): markdown rendered as markdown when the
// text uses it, with a "plain / rendered" toggle per message; other text as TraceText (JSON pretty-printed). The
// markdown renderer is loaded on first use, or ahead of it (preloadMarkdown, once the run view is drawn), so it adds
// nothing to the first-paint JS; until it arrives the text shows plain.
import { Suspense, useState } from 'react';
import { looksLikeMarkdown } from './markdown.ts';
import { firstScreenEnd, PlainText, prettyJson, TraceText } from './trace-text.tsx';
import { formatCount } from '../../ui/format.ts';
import { lazyView } from '../../ui/lazy-view.ts';

const markdownView = lazyView(
  () => import('./markdown-view.tsx'),
  (m) => m.default,
);
const MarkdownView = markdownView.Component;

let preloading = false;

/**
 * Load the markdown renderer when the page is next idle (once). Loaded on first use, it arrived while the first
 * markdown text of the session was on screen: that text showed as recorded, then rendered, and what lay below it
 * (its "show all") moved under the reader's pointer.
 */
export function preloadMarkdown(): void {
  if (preloading) return;
  preloading = true;
  const load = () =>
    void markdownView.preload().catch(() => {
      preloading = false; // tried again with the next run opened; a text needing it meanwhile loads it itself
    });
  if (typeof requestIdleCallback === 'function') requestIdleCallback(load, { timeout: 3000 });
  else setTimeout(load, 0);
}

const DEFAULT_LIMIT = 1500;

export function MessageText({ text, limit = DEFAULT_LIMIT, testId }: { text: string; limit?: number; testId?: string }) {
  // Both choices apply to the text they were made for; the next step's text starts rendered and cut again.
  const [plainFor, setPlainFor] = useState<string | undefined>();
  const [allFor, setAllFor] = useState<string | undefined>();
  // JSON (a tool's result, a structured answer) is shown pretty-printed, never as markdown.
  if (!looksLikeMarkdown(text) || prettyJson(text) !== undefined) return <TraceText text={text} limit={limit} json testId={testId} />;
  const plain = plainFor === text;
  const toggle = (
    <button
      type="button"
      className="rounded border border-slate-300 px-1 text-[10px] text-slate-600 hover:bg-slate-100"
      aria-pressed={!plain}
      title={plain ? 'Show this text rendered as markdown' : 'Show this text exactly as recorded'}
      onClick={() => setPlainFor(plain ? undefined : text)}
    >
      {plain ? 'rendered' : 'plain'}
    </button>
  );
  if (plain) {
    return (
      <div data-testid={testId} data-markdown="plain">
        <div className="mb-0.5 flex justify-end">{toggle}</div>
        <TraceText text={text} limit={limit} />
      </div>
    );
  }
  const all = allFor === text;
  // The first screen as TraceText cuts it (characters and lines), laid out without a scroll box; shown all, it scrolls.
  const end = all ? text.length : firstScreenEnd(text, limit);
  const shown = end < text.length ? `${text.slice(0, end)}…` : text;
  return (
    <div data-testid={testId} data-markdown="rendered">
      <div className="mb-0.5 flex justify-end">{toggle}</div>
      <Suspense fallback={<PlainText text={shown} box={all} />}>
        <MarkdownView text={shown} box={all} />
      </Suspense>
      {(all || end < text.length) && (
        <button type="button" className="mt-1 text-xs text-indigo-700 hover:underline" onClick={() => setAllFor(all ? undefined : text)}>
          {all ? 'show less' : `show all (${formatCount(text.length)} characters)`}
        </button>
      )}
    </div>
  );
}
