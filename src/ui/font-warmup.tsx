// The monospace font looked up once the page is idle after it opens, not when the first file is listed.
//
// The first text in the font-mono stack makes the renderer match each family of the stack against the system's
// fonts. On Linux that is a request to the browser process per family (ui-monospace, SFMono-Regular, Menlo, Monaco,
// Consolas, "Liberation Mono"; Chromium 156, headless, this machine). Traced on 2026-11-30 (bench/open-run,
// `FontDataManager::onMatchFamilyStyle`, `FontCache::GetFontPlatformData`): the Library's first listing took 45 ms,
// of which 28 ms were those matches. That was a task of the page just as a person goes to click the new run. The
// Library's empty screen shows no monospace text, so the first file listed paid for them. The renderer keeps what it
// matched, so laying out a few hidden characters once, when idle, is enough; they are removed a frame later.
import { useEffect, useState } from 'react';

/** How long the page may wait for an idle moment before the fonts are looked up anyway (ms). */
const IDLE_WAIT_MS = 2000;

export function FontWarmup() {
  const [shown, setShown] = useState<'waiting' | 'shown' | 'done'>('waiting');
  useEffect(() => {
    if (shown === 'done') return;
    let cancelled = false;
    let handle: number | undefined;
    const next = shown === 'waiting' ? () => setShown('shown') : () => setShown('done');
    const run = () => {
      if (!cancelled) next();
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (shown === 'waiting' && typeof requestIdleCallback === 'function') handle = requestIdleCallback(run, { timeout: IDLE_WAIT_MS });
    // Shown: laid out in the next frame; removed in the one after.
    else if (typeof requestAnimationFrame === 'function') handle = requestAnimationFrame(() => requestAnimationFrame(run));
    else timer = setTimeout(run, 50);
    return () => {
      cancelled = true;
      if (timer !== undefined) clearTimeout(timer);
      if (handle === undefined) return;
      if (shown === 'waiting' && typeof cancelIdleCallback === 'function') cancelIdleCallback(handle);
      else if (typeof cancelAnimationFrame === 'function') cancelAnimationFrame(handle);
    };
  }, [shown]);
  if (shown !== 'shown') return null;
  return (
    <div aria-hidden="true" data-testid="font-warmup" className="pointer-events-none invisible fixed top-0 left-0 h-0 overflow-hidden">
      {/* The sizes and weights the Library first shows it in: a run's file (xs), a file's card (sm, semibold). */}
      <span className="font-mono text-xs">0</span>
      <span className="font-mono text-sm">0</span>
      <span className="font-mono text-sm font-semibold">0</span>
    </div>
  );
}
