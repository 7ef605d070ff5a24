// Trace text shown as text: React escapes it, nothing is ever parsed as HTML. JSON is pretty-printed when it parses.
// Long text is rendered lazily (issue 14 goal 3): the first screenful at once; a text of moderate size offers "show
// all"; a huge one (a 10 MB single-line message laid out at once blocks the page for seconds) grows by a chunk per
// "show more" and offers the whole text by "copy all" and "download" instead.
// The first screen is cut by lines as well as by characters so that it fits the height of the box a grown text
// scrolls in, and it is shown without a scroll box: a box that clips or scrolls is a paint chunk of its own whose
// bounds follow the text, and any chunk that changes its bounds on a playhead move makes Chromium layerize the whole
// page again (ADR 0021, 0032). Only a text the reader asked to see more of gets the scroll box.
import { useState } from 'react';
import { downloadBlob } from '../../ui/chart/chart-export.ts';
import { formatCount } from '../../ui/format.ts';

const DEFAULT_LIMIT = 1500;
/** Above this size text is not even tried as JSON (parsing it would stall a playhead move). */
const JSON_PARSE_LIMIT = 200_000;
/** Texts up to this size may be shown whole at once (as JSON and markdown are only tried up to it). */
export const SHOW_ALL_MAX = 200_000;
/** Characters each "show more" adds to a text too long to show whole. */
export const MORE_CHUNK = 50_000;

/** Lines of the first screen of a text (cut state): about the height of the 32rem box a grown text scrolls in. */
export const FIRST_SCREEN_LINES = 30;
/** Characters a line is reckoned to hold before it wraps (the inspector's text boxes are 20–28rem wide). */
const LINE_CHARS = 60;

/**
 * Where the first screen of `text` ends: after `limit` characters or FIRST_SCREEN_LINES lines, a line being a line
 * break or LINE_CHARS characters of a longer line (which wraps), whichever comes first. Reads at most `limit`
 * characters (never the whole of a huge text).
 */
export function firstScreenEnd(text: string, limit: number): number {
  const end = Math.min(text.length, limit);
  let lines = 0;
  let column = 0;
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      lines++;
      column = 0;
    } else if (++column > LINE_CHARS) {
      lines++;
      column = 1;
    }
    if (lines >= FIRST_SCREEN_LINES) return cutAt(text, i);
  }
  return cutAt(text, end);
}

/** Pretty JSON when `text` is a JSON object or array, else undefined. */
export function prettyJson(text: string): string | undefined {
  if (text.length > JSON_PARSE_LIMIT + 1000) return undefined;
  const t = text.trim();
  if (t.length > JSON_PARSE_LIMIT || !(t.startsWith('{') || t.startsWith('['))) return undefined;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return undefined;
  }
}

/** Where to cut `text` to show about `length` characters without splitting a surrogate pair. */
export function cutAt(text: string, length: number): number {
  if (length >= text.length) return text.length;
  const code = text.charCodeAt(length - 1);
  return code >= 0xd800 && code <= 0xdbff ? length - 1 : length;
}

/** The visible part of `text` up to `end`: the text itself when it all fits. */
export function visiblePart(text: string, end: number): { part: string; cut: boolean } {
  return end >= text.length ? { part: text, cut: false } : { part: `${text.slice(0, end)}…`, cut: true };
}

const TEXT_CLASS = 'rounded bg-slate-50 p-2 font-mono text-xs leading-snug break-words whitespace-pre-wrap text-slate-800';
/** A grown text scrolls in a box of its own; the first screen is laid out in the inspector's flow (see the header). */
const BOX_CLASS = 'max-h-[32rem] overflow-auto';

/** Text as recorded, in the inspector's text style; `box` when it may be taller than a screen (it then scrolls). */
export function PlainText({ text, box }: { text: string; box: boolean }) {
  return <pre className={box ? `${BOX_CLASS} ${TEXT_CLASS}` : TEXT_CLASS}>{text}</pre>;
}

export function TraceText({ text, limit = DEFAULT_LIMIT, json = false, testId }: { text: string; limit?: number; json?: boolean; testId?: string }) {
  // How much is shown applies to the text it was chosen for; the next step's text starts cut again.
  const [grown, setGrown] = useState<{ text: string; shown: number } | undefined>();
  const full = json ? (prettyJson(text) ?? text) : text;
  const grownHere = grown?.text === text;
  const shown = grownHere ? grown.shown : limit;
  const { part, cut } = visiblePart(full, grownHere ? cutAt(full, shown) : firstScreenEnd(full, limit));
  const huge = full.length > SHOW_ALL_MAX;
  const show = (n: number | undefined) => setGrown(n === undefined ? undefined : { text, shown: n });
  const link = 'text-xs text-indigo-700 hover:underline';
  return (
    <div data-testid={testId} data-length={full.length}>
      <PlainText text={part} box={grownHere} />
      {(cut || grownHere) && (
        <p className="mt-1 flex flex-wrap gap-x-3">
          {cut &&
            (huge ? (
              <button type="button" className={link} onClick={() => show(shown + MORE_CHUNK)} data-testid="text-more">
                show more ({formatCount(Math.min(shown + MORE_CHUNK, full.length))} of {formatCount(full.length)} characters)
              </button>
            ) : (
              <button type="button" className={link} onClick={() => show(full.length)}>
                show all ({formatCount(full.length)} characters)
              </button>
            ))}
          {grownHere && (
            <button type="button" className={link} onClick={() => show(undefined)}>
              show less
            </button>
          )}
          {huge && (
            <>
              <button type="button" className={link} onClick={() => void navigator.clipboard?.writeText(full)} data-testid="text-copy">
                copy all
              </button>
              <button type="button" className={link} onClick={() => downloadBlob(new Blob([full], { type: 'text/plain;charset=utf-8' }), 'step-text.txt')} data-testid="text-download">
                download ({(full.length / 1e6).toFixed(1)} M characters)
              </button>
            </>
          )}
        </p>
      )}
    </div>
  );
}
