// Trace text rendered as markdown (issue 16 item 4), loaded lazily (message-text.tsx) so the renderer is not in the
// first-paint JS. Safe by construction: raw HTML is turned into literal text before rendering (and `skipHtml` drops
// any that were left), links keep only http(s)/mailto addresses and open in a new tab without referrer, images are
// never loaded (a link or their alt text instead: no third-party requests), and an unsafe link or image shows its
// markdown source as text.
import type { ReactNode } from 'react';
import Markdown, { type Components } from 'react-markdown';
import { remarkHtmlAsText, safeHref } from './markdown.ts';

interface Positioned {
  position?: { start: { offset?: number }; end: { offset?: number } };
}

/** The markdown source of a node, as typed (for links and images shown as text). */
function sourceOf(text: string, node: Positioned | undefined, fallback: ReactNode): ReactNode {
  const start = node?.position?.start.offset;
  const end = node?.position?.end.offset;
  return start !== undefined && end !== undefined ? text.slice(start, end) : fallback;
}

const urlTransform = (url: string) => safeHref(url);
const REMARK_PLUGINS = [remarkHtmlAsText];

/**
 * `box`: the text may be taller than a screen and scrolls in a box of its own. A first screen (no box) is laid out in
 * the inspector's flow: a clipping box is a paint chunk whose bounds follow the text, which makes Chromium layerize
 * the whole page again on a playhead move (trace-text.tsx). Code blocks wrap rather than scroll, for the same reason.
 */
export default function MarkdownView({ text, box = false }: { text: string; box?: boolean }) {
  const components: Components = {
    a: ({ href, children, node }) => {
      const safe = href ? safeHref(href) : '';
      if (!safe) return <span data-unsafe-link="">{sourceOf(text, node, children)}</span>;
      return (
        <a href={safe} target="_blank" rel="noreferrer noopener" className="text-indigo-700 underline">
          {children}
        </a>
      );
    },
    img: ({ src, alt, node }) => {
      const safe = typeof src === 'string' ? safeHref(src) : '';
      if (!safe) return <span data-unsafe-image="">{sourceOf(text, node, alt ?? '')}</span>;
      return (
        <a href={safe} target="_blank" rel="noreferrer noopener" className="text-indigo-700 underline" title={`image, not loaded: ${safe}`} data-image-link="">
          [image: {alt || safe}]
        </a>
      );
    },
  };
  return (
    <div
      data-testid="markdown"
      className={`${box ? 'max-h-[32rem] overflow-auto ' : ''}rounded bg-slate-50 p-2 text-xs leading-snug break-words text-slate-800 [&_blockquote]:border-l-2 [&_blockquote]:border-slate-300 [&_blockquote]:pl-2 [&_code]:rounded [&_code]:bg-slate-200/60 [&_code]:px-0.5 [&_code]:font-mono [&_h1]:text-sm [&_h1]:font-bold [&_h2]:text-sm [&_h2]:font-semibold [&_h3]:font-semibold [&_h4]:font-semibold [&_ol]:list-decimal [&_ol]:pl-5 [&_p]:whitespace-pre-wrap [&_pre]:rounded [&_pre]:bg-slate-100 [&_pre]:p-1 [&_pre]:break-words [&_pre]:whitespace-pre-wrap [&_ul]:list-disc [&_ul]:pl-5 [&>*+*]:mt-1.5`}
    >
      <Markdown remarkPlugins={REMARK_PLUGINS} skipHtml urlTransform={urlTransform} components={components}>
        {text}
      </Markdown>
    </div>
  );
}
