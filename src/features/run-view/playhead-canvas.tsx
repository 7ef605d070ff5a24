// A transparent canvas of fixed size laid over a view, on which the playhead's marks are drawn again on each move
// (issue 14 goal 3). A DOM mark that moves or changes its size on a move changes the page's paint chunks, and Chromium
// then re-layerizes the whole page (`PaintArtifactCompositor::Update`, ~1–2.5 ms a press); moving it by `transform`
// does not avoid that (ADR 0021, addendum). A canvas keeps its one chunk with the same bounds whatever is drawn on
// it, so a move takes the repaint-only path. The elements tests and scripts read (`data-*` attributes) stay as
// unpainted holders beside it.
import { useLayoutEffect, useRef } from 'react';

/**
 * `desynchronized`: the canvas is a compositor layer of its own, and a redraw of an ordinary one hands the compositor a
 * new texture in every commit (Commit 0.85 → 1.4 ms a press with both canvases, 100k steps, bench/profile-view.ts);
 * a desynchronized one presents its updates without that (Commit back to 0.9 ms; 0.44 ms with the page's other moving
 * parts hidden, against 0.55 before the canvases). A hint: where a browser ignores it, the canvas works as usual.
 * (`willReadFrequently`, a software canvas, was tried: no gain, it stays a layer of its own.)
 */
const CONTEXT: CanvasRenderingContext2DSettings = { desynchronized: true };

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
    const ctx = el?.getContext('2d', CONTEXT);
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
