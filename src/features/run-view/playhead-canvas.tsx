// A transparent canvas of fixed size laid over a view, on which the playhead's marks are drawn again on each move
// (issue 14 goal 3). A DOM mark that moves or changes its size on a move changes the page's paint chunks, and Chromium
// then re-layerizes the whole page (`PaintArtifactCompositor::Update`, ~1–2.5 ms a press); moving it by `transform`
// does not avoid that (ADR 0021, addendum). A canvas keeps its one chunk with the same bounds whatever is drawn on
// it, so a move takes the repaint-only path. The elements tests and scripts read (`data-*` attributes) stay as
// unpainted holders beside it.
import { useLayoutEffect, useRef } from 'react';

export interface PlayheadCanvasProps {
  width: number;
  height: number;
  /** Draws the marks in CSS pixels on a cleared canvas; called after every render of the owner. */
  draw: (ctx: CanvasRenderingContext2D) => void;
  testId?: string;
}

export function PlayheadCanvas({ width, height, draw, testId }: PlayheadCanvasProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const size = useRef({ width: 0, height: 0, dpr: 0 });
  // A layout effect: the marks are drawn in the key's own task, so the frame after the key shows the move.
  useLayoutEffect(() => {
    const el = canvas.current;
    const ctx = el?.getContext('2d');
    if (!el || !ctx) return;
    const dpr = window.devicePixelRatio || 1;
    const s = size.current;
    if (s.width !== width || s.height !== height || s.dpr !== dpr) {
      // Setting the bitmap's size reallocates and clears it: only when the view is resized.
      el.width = Math.round(width * dpr);
      el.height = Math.round(height * dpr);
      size.current = { width, height, dpr };
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    draw(ctx);
  });
  return (
    <canvas
      ref={canvas}
      aria-hidden
      data-testid={testId}
      className="pointer-events-none absolute top-0 left-0 block"
      style={{ width, height }}
    />
  );
}
