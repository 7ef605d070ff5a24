// Trace text shown as text: React escapes it, nothing is ever parsed as HTML. Long text is cut with "show all";
// JSON is pretty-printed when it parses.
import { useState } from 'react';

const DEFAULT_LIMIT = 1500;
/** Above this size text is not even tried as JSON (parsing it would stall a playhead move). */
const JSON_PARSE_LIMIT = 200_000;

/** Pretty JSON when `text` is a JSON object or array, else undefined. */
export function prettyJson(text: string): string | undefined {
  const t = text.trim();
  if (t.length > JSON_PARSE_LIMIT || !(t.startsWith('{') || t.startsWith('['))) return undefined;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return undefined;
  }
}

export function TraceText({ text, limit = DEFAULT_LIMIT, json = false, testId }: { text: string; limit?: number; json?: boolean; testId?: string }) {
  // "show all" applies to the text it was clicked for; the next step's text starts cut again.
  const [allFor, setAllFor] = useState<string | undefined>();
  const all = allFor === text;
  const shown = json ? (prettyJson(text) ?? text) : text;
  const cut = !all && shown.length > limit;
  return (
    <div data-testid={testId}>
      <pre className="max-h-[32rem] overflow-auto rounded bg-slate-50 p-2 font-mono text-xs leading-snug break-words whitespace-pre-wrap text-slate-800">
        {cut ? `${shown.slice(0, limit)}…` : shown}
      </pre>
      {shown.length > limit && (
        <button type="button" className="mt-1 text-xs text-indigo-700 hover:underline" onClick={() => setAllFor(all ? undefined : text)}>
          {all ? 'show less' : `show all (${shown.length.toLocaleString()} characters)`}
        </button>
      )}
    </div>
  );
}
