// Long untrusted text (observations, raw HTML, prompts) shown truncated with "show all" (SPEC §9). Rendered as text,
// never as HTML. Counted in code points so a cut never splits a surrogate pair.
import { useState } from 'react';

export interface TruncatedTextProps {
  text: string;
  /** Characters (code points) shown before "show all". */
  limit?: number;
  /** Preformatted keeps line breaks and spacing (observations, code); otherwise it wraps as prose. */
  pre?: boolean;
  className?: string;
}

export function TruncatedText({ text, limit = 2000, pre = false, className = '' }: TruncatedTextProps) {
  const [expanded, setExpanded] = useState(false);
  // UTF-16 offset after `limit` code points, and the count of code points: no array of every character (a 10 MB
  // text would be ten million strings).
  const { end, count } = codePoints(text, limit);
  const long = count > limit;
  const shown = long && !expanded ? `${text.slice(0, end)}…` : text;
  const Tag = pre ? 'pre' : 'p';
  return (
    <div className={className}>
      <Tag className={pre ? 'font-mono text-xs whitespace-pre-wrap break-words' : 'whitespace-pre-line break-words'}>{shown}</Tag>
      {long && (
        <button
          type="button"
          onClick={() => setExpanded(!expanded)}
          aria-expanded={expanded}
          className="mt-1 text-xs font-medium text-indigo-700 underline hover:text-indigo-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
        >
          {expanded ? 'show less' : `show all (${count.toLocaleString('en')} characters)`}
        </button>
      )}
    </div>
  );
}

/** The number of code points in `text`, and the UTF-16 offset where its first `limit` code points end. */
export function codePoints(text: string, limit: number): { end: number; count: number } {
  let count = 0;
  let end = text.length;
  for (let i = 0; i < text.length; i++) {
    if (count === limit) end = i;
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return { end: count > limit ? end : text.length, count };
}
