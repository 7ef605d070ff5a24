// Trace text shown as text: React escapes it, nothing is ever parsed as HTML. JSON is pretty-printed when it parses.
// Long text is rendered lazily (issue 14 goal 3): the first screenful at once; a text of moderate size offers "show
// all"; a huge one (a 10 MB single-line message laid out at once blocks the page for seconds) grows by a chunk per
// "show more" and offers the whole text by "copy all" and "download" instead.
import { useState } from 'react';
import { downloadBlob } from '../../ui/chart/chart-export.ts';

const DEFAULT_LIMIT = 1500;
/** Above this size text is not even tried as JSON (parsing it would stall a playhead move). */
const JSON_PARSE_LIMIT = 200_000;
/** Texts up to this size may be shown whole at once (as JSON and markdown are only tried up to it). */
export const SHOW_ALL_MAX = 200_000;
/** Characters each "show more" adds to a text too long to show whole. */
export const MORE_CHUNK = 50_000;

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

/** The visible part of `text` when `shown` characters of it are asked for: the text itself when it all fits. */
export function visiblePart(text: string, shown: number): { part: string; cut: boolean } {
  const end = cutAt(text, shown);
  return end >= text.length ? { part: text, cut: false } : { part: `${text.slice(0, end)}…`, cut: true };
}

export function TraceText({ text, limit = DEFAULT_LIMIT, json = false, testId }: { text: string; limit?: number; json?: boolean; testId?: string }) {
  // How much is shown applies to the text it was chosen for; the next step's text starts cut again.
  const [grown, setGrown] = useState<{ text: string; shown: number } | undefined>();
  const full = json ? (prettyJson(text) ?? text) : text;
  const shown = grown?.text === text ? grown.shown : limit;
  const { part, cut } = visiblePart(full, shown);
  const huge = full.length > SHOW_ALL_MAX;
  const show = (n: number | undefined) => setGrown(n === undefined ? undefined : { text, shown: n });
  const link = 'text-xs text-indigo-700 hover:underline';
  return (
    <div data-testid={testId} data-length={full.length}>
      <pre className="max-h-[32rem] overflow-auto rounded bg-slate-50 p-2 font-mono text-xs leading-snug break-words whitespace-pre-wrap text-slate-800">{part}</pre>
      {full.length > limit && (
        <p className="mt-1 flex flex-wrap gap-x-3">
          {cut &&
            (huge ? (
              <button type="button" className={link} onClick={() => show(shown + MORE_CHUNK)} data-testid="text-more">
                show more ({Math.min(shown + MORE_CHUNK, full.length).toLocaleString()} of {full.length.toLocaleString()} characters)
              </button>
            ) : (
              <button type="button" className={link} onClick={() => show(full.length)}>
                show all ({full.length.toLocaleString()} characters)
              </button>
            ))}
          {shown > limit && (
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
