// The frame every corpus chart sits in: title, caption, export buttons (SVG, PNG, CSV) and a hover read-out.
import { useRef, useState, type ReactNode, type RefObject } from 'react';
import { Button } from '../button.tsx';
import { downloadBlob, exportFileName, pngBlob, svgText } from './chart-export.ts';

export interface ChartFrameProps {
  title: string;
  /** What is plotted, units included. */
  caption: ReactNode;
  /** File names derive from it. */
  exportName: string;
  /** The numbers behind the chart. */
  csv(): string;
  /** Omit for tables (CSV only). */
  svgRef?: RefObject<SVGSVGElement | null>;
  controls?: ReactNode;
  children: ReactNode;
  testId: string;
}

export function ChartFrame({ title, caption, exportName, csv, svgRef, controls, children, testId }: ChartFrameProps) {
  const [error, setError] = useState<string | null>(null);
  const exportSvg = () => {
    if (svgRef?.current) downloadBlob(new Blob([svgText(svgRef.current)], { type: 'image/svg+xml' }), exportFileName(exportName, 'svg'));
  };
  const exportPng = async () => {
    if (!svgRef?.current) return;
    try {
      setError(null);
      downloadBlob(await pngBlob(svgRef.current), exportFileName(exportName, 'png'));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const exportCsv = () => downloadBlob(new Blob([csv()], { type: 'text/csv' }), exportFileName(exportName, 'csv'));
  return (
    <section className="rounded border border-slate-200 bg-white" aria-label={title} data-testid={testId}>
      <header className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-3 py-1.5">
        <h3 className="text-sm font-semibold text-slate-800">{title}</h3>
        {controls}
        <span className="ml-auto flex gap-1">
          {svgRef && (
            <>
              <Button size="sm" variant="ghost" onClick={exportSvg} aria-label={`Download ${title} as SVG`}>
                SVG
              </Button>
              <Button size="sm" variant="ghost" onClick={() => void exportPng()} aria-label={`Download ${title} as PNG`}>
                PNG
              </Button>
            </>
          )}
          <Button size="sm" variant="ghost" onClick={exportCsv} aria-label={`Download the numbers of ${title} as CSV`}>
            CSV
          </Button>
        </span>
      </header>
      <p className="px-3 pt-1.5 text-xs text-slate-600">{caption}</p>
      {error && <p className="px-3 text-xs text-red-700">{error}</p>}
      <div className="p-2">{children}</div>
    </section>
  );
}

/** The hover read-out: exact numbers of the hovered mark, as text. */
export function HoverReadout({ lines }: { lines: string[] | null }) {
  return (
    <div className="min-h-[2.5rem] px-1 text-xs text-slate-700 tabular-nums" aria-live="polite" data-testid="chart-readout">
      {lines ? lines.map((l, i) => <div key={i} className={i === 0 ? 'font-semibold' : ''}>{l}</div>) : <span className="text-slate-400">Hover a mark for its exact numbers.</span>}
    </div>
  );
}

export function useHover() {
  return useState<string[] | null>(null);
}

export const useSvgRef = () => useRef<SVGSVGElement>(null);
