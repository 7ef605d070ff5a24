// Chart export without third-party code: the SVG serialised as it is drawn (charts style themselves with SVG
// attributes, not CSS classes, so the file looks like the screen), PNG by drawing that SVG on a canvas.
const SVG_NS = 'http://www.w3.org/2000/svg';

/** A file name from a chart name: only safe characters. */
export function exportFileName(base: string, extension: string): string {
  const cleaned = base.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80);
  return `${cleaned || 'chart'}.${extension}`;
}

export function svgText(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  copy.setAttribute('xmlns', SVG_NS);
  const { width, height } = svg.viewBox.baseVal ?? { width: 0, height: 0 };
  if (!copy.getAttribute('width') && width) copy.setAttribute('width', String(width));
  if (!copy.getAttribute('height') && height) copy.setAttribute('height', String(height));
  copy.querySelectorAll('[data-export="skip"]').forEach((el) => el.remove());
  // A white background, as on screen; viewers otherwise show the chart on transparency.
  const background = document.createElementNS(SVG_NS, 'rect');
  background.setAttribute('width', '100%');
  background.setAttribute('height', '100%');
  background.setAttribute('fill', '#ffffff');
  copy.insertBefore(background, copy.firstChild);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}`;
}

export function downloadBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Render the SVG at `scale`× its size onto a canvas and encode it as PNG. */
export async function pngBlob(svg: SVGSVGElement, scale = 2): Promise<Blob> {
  const text = svgText(svg);
  const { width, height } = svg.viewBox.baseVal;
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.decoding = 'sync';
    await new Promise<void>((resolve, reject) => {
      image.onload = () => resolve();
      image.onerror = () => reject(new Error('the chart could not be drawn as an image'));
      image.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('this browser gives no 2D canvas');
    context.drawImage(image, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('PNG encoding failed'))), 'image/png'),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}
