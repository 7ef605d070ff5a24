// Markdown in trace text (issue 16 item 4), the parts that need no renderer: which text is worth rendering as
// markdown, which link addresses may become links, and the remark step that turns raw HTML into literal text. The
// renderer itself (react-markdown) is loaded lazily by markdown-view.tsx.

/** Text longer than this is never rendered as markdown (parsing it would stall a playhead move). */
export const MARKDOWN_MAX = 200_000;

const MARKDOWN_SIGNS = [
  /^#{1,6}[ \t]+\S/m, // heading
  /^[ \t]*(```|~~~)/m, // fenced code
  /\*\*[^*\n]+\*\*|__[^_\n]+__/, // strong
  /\[[^\]\n]+\]\([^)\s]+\)/, // link or image
  /`[^`\n]+`/, // code span
  /^[ \t]*>[ \t]/m, // block quote
];

const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+\S/gm;

/** Whether `text` uses markdown (headings, lists, code, emphasis, links): plain prose is left as it is. */
export function looksLikeMarkdown(text: string): boolean {
  if (text.length === 0 || text.length > MARKDOWN_MAX) return false;
  const head = text.length > 20_000 ? text.slice(0, 20_000) : text;
  if (MARKDOWN_SIGNS.some((re) => re.test(head))) return true;
  // Lists: two items or more (one line starting with "-" is often just prose).
  let items = 0;
  for (const _ of head.matchAll(LIST_ITEM)) if (++items >= 2) return true;
  return false;
}

/** The address a link may point to: http(s) and mailto only; anything else (javascript:, data:, relative) is ''. */
export function safeHref(url: string): string {
  const t = url.trim();
  return /^(https?:\/\/|mailto:)/i.test(t) && !/[\u0000-\u001f\u007f]/.test(t) ? t : '';
}

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

/** Node types whose children are phrasing (inline) content: raw HTML inside them becomes a text node. */
const PHRASING_PARENTS = new Set(['paragraph', 'heading', 'emphasis', 'strong', 'delete', 'link', 'linkReference', 'tableCell']);

/**
 * A remark plugin: every raw HTML node (inline or block) becomes literal text, so `<b onmouseover=…>` reads as
 * typed and nothing is ever parsed as HTML. Iterative, so deep nesting cannot overflow the stack.
 */
export function remarkHtmlAsText() {
  return (tree: MdNode) => {
    const stack: MdNode[] = [tree];
    while (stack.length > 0) {
      const node = stack.pop()!;
      const kids = node.children;
      if (!kids) continue;
      const inline = PHRASING_PARENTS.has(node.type);
      for (let i = 0; i < kids.length; i++) {
        const kid = kids[i];
        if (kid.type === 'html') {
          const text: MdNode = { type: 'text', value: kid.value ?? '' };
          kids[i] = inline ? text : { type: 'paragraph', children: [text] };
        } else if (kid.children) stack.push(kid);
      }
    }
  };
}
