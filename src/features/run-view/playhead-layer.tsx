// A transparent SVG of fixed size laid over a view, in which the playhead's marks are drawn at their new place on each
// move (issue 14 goal 3). A DOM mark that moves or changes its size on a move changes the page's paint chunks, and
// Chromium then re-layerizes the whole page (`PaintArtifactCompositor::Update`, ~1–2.5 ms a press); moving it by
// `transform` does not avoid that either (a transform node changes; ADR 0021, addendum). Here the marks are SVG shapes
// moved by their attributes beside a full-size, all but invisible rectangle: the chunk they paint in keeps its bounds
// whatever moves inside it, so a move takes the repaint-only path. (Canvases do too, but each redrawn canvas is a
// compositor layer whose new texture cost the main thread 1–2 ms a press here, more than the layerize it saved.)
// The marks are drawn at MARK_OPACITY, never opaque: a moving opaque area changes the chunk too.
// The elements tests and scripts read (`data-*` attributes) stay as unpainted holders beside it.
import type { ReactNode } from 'react';

export interface PlayheadLayerProps {
  width: number;
  height: number;
  children: ReactNode;
  testId?: string;
}

/**
 * Fill opacity of the full-size rectangle: one step of 255 (invisible on the views' light backgrounds), not 0, which
 * Chromium may drop as drawing nothing (the chunk's bounds would then follow the marks again).
 */
const HOLD_BOUNDS_OPACITY = 1 / 255;

/**
 * Fill opacity the layer gives its marks (inherited by every filled shape inside it). Chromium notes the area a paint
 * chunk covers opaquely, and an opaque rectangle that moves changes it: every move then took the full layerization
 * again (ADR 0053: the timeline's playhead line, `PaintArtifactCompositor::Update` on every press, Layerize 1.58 →
 * 0.43 ms a press at 0.99). At 0.99 the colour differs from the opaque one by under 1 %, and the chunk has no opaque
 * area to follow the mark.
 */
const MARK_OPACITY = 0.99;

export function PlayheadLayer({ width, height, children, testId }: PlayheadLayerProps) {
  return (
    <svg data-testid={testId} width={width} height={height} aria-hidden className="pointer-events-none absolute top-0 left-0 block">
      <rect width={width} height={height} fill="#ffffff" fillOpacity={HOLD_BOUNDS_OPACITY} />
      <g fillOpacity={MARK_OPACITY}>{children}</g>
    </svg>
  );
}
