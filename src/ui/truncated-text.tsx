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
  const chars = Array.from(text);
  const long = chars.length > limit;
  const shown = long && !expanded ? `${chars.slice(0, limit).join('')}…` : text;
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
          {expanded ? 'show less' : `show all (${chars.length.toLocaleString('en')} characters)`}
        </button>
      )}
    </div>
  );
}
